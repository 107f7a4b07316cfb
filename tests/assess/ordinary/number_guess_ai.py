# The computer guesses YOUR number with binary search.
low, high = 1, 1000
print(f"Think of a number between {low} and {high}.")
input("Press Enter when ready...")
tries = 0
while low <= high:
    mid = (low + high) // 2
    tries += 1
    a = input(f"Is it {mid}? (h = higher, l = lower, y = yes) ").lower()
    if a == "y":
        print(f"Got it in {tries} tries!")
        break
    elif a == "h":
        low = mid + 1
    elif a == "l":
        high = mid - 1
else:
    print("You must have cheated!")
