# expect: BLOCKED
# rules: MAI009 MAI014
import sh
getattr(sh, 'r' + 'm')('-rf', 'x')
