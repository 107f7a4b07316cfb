from datetime import date, datetime

raw = input("Your birthday (YYYY-MM-DD): ")
try:
    born = datetime.strptime(raw.strip(), "%Y-%m-%d").date()
except ValueError:
    raise SystemExit("Please use the format YYYY-MM-DD")

today = date.today()
years = today.year - born.year - ((today.month, today.day) < (born.month, born.day))
next_bday = born.replace(year=today.year)
if next_bday < today:
    next_bday = next_bday.replace(year=today.year + 1)
print(f"You are {years} years old.")
print(f"You have lived {(today - born).days} days.")
print(f"Your next birthday is in {(next_bday - today).days} days.")
