# expect: BLOCKED
# rules: MAI017
import builtins
setattr(builtins, 'print', lambda *a: None)
