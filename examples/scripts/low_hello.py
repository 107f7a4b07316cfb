# expect: level LOW, state completed, verdict exited, exit code 0
# Plain computation and printing: nothing for the assessor to flag.
total = sum(range(10))
print("hello from the sandbox, total =", total)
