students = {}

def add_student():
    name = input("Student name: ").strip().title()
    if not name:
        return
    marks = input("Marks separated by spaces: ").split()
    try:
        students[name] = [float(m) for m in marks]
    except ValueError:
        print("Marks must be numbers")

def show():
    for name, marks in sorted(students.items()):
        avg = sum(marks) / len(marks) if marks else 0
        print(f"{name:<15} {avg:6.2f}  {marks}")

menu = {"a": add_student, "s": show}
while True:
    c = input("[a]dd, [s]how, [q]uit: ").lower()
    if c == "q":
        break
    action = menu.get(c)
    if action:
        action()
