class InsufficientFunds(Exception):
    pass


class Account:
    interest_rate = 0.02

    def __init__(self, owner, balance=0.0):
        self.owner = owner
        self.balance = balance
        self.history = []

    def deposit(self, amount):
        if amount <= 0:
            raise ValueError("deposit must be positive")
        self.balance += amount
        self.history.append(("deposit", amount))

    def withdraw(self, amount):
        if amount > self.balance:
            raise InsufficientFunds(f"{self.owner} has only {self.balance:.2f}")
        self.balance -= amount
        self.history.append(("withdraw", amount))

    def add_interest(self):
        gained = self.balance * self.interest_rate
        self.deposit(gained)
        return gained

    def __repr__(self):
        return f"Account({self.owner!r}, {self.balance:.2f})"


class SavingsAccount(Account):
    interest_rate = 0.035


if __name__ == "__main__":
    a = Account("Ann", 100)
    s = SavingsAccount("Ben", 1000)
    a.deposit(50)
    try:
        a.withdraw(500)
    except InsufficientFunds as e:
        print("refused:", e)
    print(a, s, s.add_interest())
    print(a.history)
