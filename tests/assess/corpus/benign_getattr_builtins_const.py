# expect: LOW
# absent: MAI019 MAI013
import builtins
show = getattr(builtins, 'print')
show('hi')
