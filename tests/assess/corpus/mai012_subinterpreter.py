# expect: MEDIUM
# rules: MAI012
import _xxsubinterpreters as interp
i = interp.create()
interp.run_string(i, 'print(1)')
