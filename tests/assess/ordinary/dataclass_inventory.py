from dataclasses import dataclass, field, asdict
import json


@dataclass(order=True)
class Item:
    sort_index: float = field(init=False, repr=False)
    name: str
    price: float
    quantity: int = 0
    tags: list = field(default_factory=list)

    def __post_init__(self):
        self.sort_index = self.price

    @property
    def value(self):
        return self.price * self.quantity


stock = [
    Item("pen", 1.2, 100, ["office"]),
    Item("notebook", 3.5, 40, ["office", "paper"]),
    Item("mug", 7.9, 12, ["kitchen"]),
]
for item in sorted(stock, reverse=True):
    print(f"{item.name:10} {item.price:6.2f} x {item.quantity:3} = {item.value:7.2f}")
print(json.dumps([asdict(i) for i in stock], indent=1))
