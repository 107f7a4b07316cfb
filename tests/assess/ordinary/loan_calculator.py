principal = float(input("Loan amount: "))
annual_rate = float(input("Annual interest rate (%): ")) / 100
years = int(input("Term in years: "))

r = annual_rate / 12
n = years * 12
payment = principal * r / (1 - (1 + r) ** -n) if r else principal / n
print(f"Monthly payment: {payment:.2f}")
print(f"Total paid:      {payment * n:.2f}")
print(f"Total interest:  {payment * n - principal:.2f}")

show = input("Show schedule for the first year? (y/n) ")
if show.lower().startswith("y"):
    balance = principal
    for month in range(1, 13):
        interest = balance * r
        balance -= payment - interest
        print(f"{month:3}  interest {interest:8.2f}  balance {balance:10.2f}")
