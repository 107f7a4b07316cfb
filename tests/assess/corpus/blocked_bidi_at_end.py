# expect: BLOCKED
# rules: MAI080
# A bidirectional control as the very last bytes of the file, with no
# newline after it: the scan for them must reach the end of the buffer.
x = 1  # ok‮