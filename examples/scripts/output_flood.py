# expect: level LOW, state completed, verdict output_limit (prints past the output cap)
line = "x" * 1023
while True:
    print(line)
