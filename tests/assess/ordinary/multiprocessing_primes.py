from multiprocessing import Pool
import math
import time


def is_prime(n):
    if n < 2:
        return False
    if n % 2 == 0:
        return n == 2
    for d in range(3, math.isqrt(n) + 1, 2):
        if n % d == 0:
            return False
    return True


if __name__ == "__main__":
    numbers = range(10_000_000, 10_020_000)
    t = time.time()
    with Pool() as pool:
        flags = pool.map(is_prime, numbers, chunksize=1000)
    print(sum(flags), "primes found in", round(time.time() - t, 2), "s")
