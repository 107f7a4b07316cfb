# expect: level LOW, state completed, verdict oom_killed (allocates past the memory limit)
chunks = []
while True:
    chunks.append(bytearray(64 * 1024 * 1024))
