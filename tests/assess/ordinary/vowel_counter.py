text = input("Enter a sentence: ")
vowels = "aeiou"
counts = {v: text.lower().count(v) for v in vowels}
print(counts)
print("total vowels:", sum(counts.values()))
