from functools import lru_cache


@lru_cache(maxsize=None)
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def fib_iter():
    a, b = 0, 1
    while True:
        yield a
        a, b = b, a + b


n = int(input("How many Fibonacci numbers? "))
gen = fib_iter()
print([next(gen) for _ in range(n)])
print("fib(100) =", fib(100))
