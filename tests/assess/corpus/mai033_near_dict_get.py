# expect: LOW
# absent: MAI033
requests = {'a': 1}
print(requests.get('a'))
