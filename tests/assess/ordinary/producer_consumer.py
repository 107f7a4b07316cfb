import queue
import random
import threading
import time

q = queue.Queue(maxsize=5)
STOP = object()


def producer(n):
    for i in range(n):
        time.sleep(random.uniform(0.05, 0.2))
        q.put(i)
        print(f"produced {i}")
    q.put(STOP)


def consumer():
    total = 0
    while True:
        item = q.get()
        if item is STOP:
            break
        total += item
        time.sleep(random.uniform(0.1, 0.3))
        print(f"   consumed {item} (running total {total})")
    print("consumer done, total =", total)


t1 = threading.Thread(target=producer, args=(10,))
t2 = threading.Thread(target=consumer)
t1.start(); t2.start()
t1.join(); t2.join()
