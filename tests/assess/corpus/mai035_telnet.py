# expect: MEDIUM
# rules: MAI035
import telnetlib
telnetlib.Telnet('example.org')
