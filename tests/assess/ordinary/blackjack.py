import random

SUITS = ["♠", "♥", "♦", "♣"]
RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]


def new_deck():
    deck = [r + s for s in SUITS for r in RANKS]
    random.shuffle(deck)
    return deck


def value(hand):
    total, aces = 0, 0
    for card in hand:
        rank = card[:-1]
        if rank in ("J", "Q", "K"):
            total += 10
        elif rank == "A":
            total += 11
            aces += 1
        else:
            total += int(rank)
    while total > 21 and aces:
        total -= 10
        aces -= 1
    return total


def show(name, hand, hide=False):
    cards = [hand[0], "??"] if hide else hand
    print(f"{name}: {' '.join(cards)}" + ("" if hide else f"  ({value(hand)})"))


def play_round(chips):
    bet = int(input(f"You have {chips} chips. Bet: ") or 10)
    bet = max(1, min(bet, chips))
    deck = new_deck()
    player, dealer = [deck.pop(), deck.pop()], [deck.pop(), deck.pop()]
    show("Dealer", dealer, hide=True)
    show("You", player)
    while value(player) < 21 and input("(h)it or (s)tand? ").lower() == "h":
        player.append(deck.pop())
        show("You", player)
    if value(player) > 21:
        print("Bust!")
        return chips - bet
    while value(dealer) < 17:
        dealer.append(deck.pop())
    show("Dealer", dealer)
    p, d = value(player), value(dealer)
    if d > 21 or p > d:
        print("You win!")
        return chips + bet
    if p == d:
        print("Push.")
        return chips
    print("Dealer wins.")
    return chips - bet


chips = 100
while chips > 0:
    chips = play_round(chips)
    if input("Another round? (y/n) ").lower() != "y":
        break
print("You leave with", chips, "chips")
