adjective = input("Enter an adjective: ")
noun = input("Enter a noun: ")
verb = input("Enter a verb ending in -ing: ")
place = input("Enter a place: ")
food = input("Enter a food: ")

story = f"""
Today I went to {place} with my {adjective} friend.
We saw a {noun} {verb} next to the fountain.
It was so {adjective} that we had to eat {food} to calm down.
"""
print(story)
