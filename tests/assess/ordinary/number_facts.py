import math


def is_prime(n):
    if n < 2:
        return False
    for d in range(2, int(math.isqrt(n)) + 1):
        if n % d == 0:
            return False
    return True


def divisors(n):
    return [d for d in range(1, n + 1) if n % d == 0]


n = int(input("Enter a positive whole number: "))
print("prime:", is_prime(n))
print("even:", n % 2 == 0)
print("divisors:", divisors(n) if n <= 100000 else "(too many to list)")
print("square root:", math.sqrt(n))
print("binary:", bin(n), "hex:", hex(n))
print("factorial digits:", len(str(math.factorial(n))) if n < 2000 else "big")
