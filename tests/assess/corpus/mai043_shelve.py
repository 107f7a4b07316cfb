# expect: MEDIUM
# rules: MAI040
import shelve
db = shelve.open('db')
