# expect: MEDIUM
# rules: MAI012
import code
console = code.InteractiveConsole()
console.push('print(1)')
code.InteractiveInterpreter().runsource('print(2)')
