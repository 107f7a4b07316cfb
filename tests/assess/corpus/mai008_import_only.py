# expect: LOW
# rules: MAI008
import subprocess
