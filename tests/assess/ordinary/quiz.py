import random

QUESTIONS = [
    ("What is the capital of France?", "paris"),
    ("How many legs does a spider have?", "8"),
    ("What is 12 * 12?", "144"),
    ("Which planet is known as the red planet?", "mars"),
    ("What gas do plants absorb?", "carbon dioxide"),
    ("Who wrote 'Hamlet'?", "shakespeare"),
]

def run_quiz():
    score = 0
    qs = random.sample(QUESTIONS, k=len(QUESTIONS))
    for n, (q, a) in enumerate(qs, 1):
        answer = input(f"Q{n}: {q} ").strip().lower()
        if answer == a or (a == "shakespeare" and "shakespeare" in answer):
            print("Correct!")
            score += 1
        else:
            print(f"Wrong, the answer was: {a}")
    print(f"\nYou scored {score}/{len(qs)} ({score * 100 // len(qs)}%)")

if __name__ == "__main__":
    run_quiz()
