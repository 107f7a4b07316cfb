import csv

def letter(score):
    if score >= 90: return "A"
    if score >= 80: return "B"
    if score >= 70: return "C"
    if score >= 60: return "D"
    return "F"

students = []
with open("grades.csv") as f:
    for row in csv.reader(f):
        if not row or row[0] == "name":
            continue
        name, *marks = row
        marks = [int(m) for m in marks if m.strip()]
        avg = sum(marks) / len(marks) if marks else 0
        students.append((name, avg))

students.sort(key=lambda s: s[1], reverse=True)
print(f"{'Name':20}{'Average':>8}  Grade")
for name, avg in students:
    print(f"{name:20}{avg:8.1f}  {letter(avg)}")
