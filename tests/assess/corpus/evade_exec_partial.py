# expect: BLOCKED
# rules: MAI014
import functools
run = functools.partial(eval, '1+1')
run()
