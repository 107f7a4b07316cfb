import time

input("Press Enter to start the stopwatch, then Enter for laps, Ctrl-C to stop.")
start = last = time.perf_counter()
lap = 1
try:
    while True:
        input()
        now = time.perf_counter()
        print(f"lap {lap}: {now - last:.2f}s (total {now - start:.2f}s)")
        last = now
        lap += 1
except KeyboardInterrupt:
    print(f"\ntotal: {time.perf_counter() - start:.2f}s")
