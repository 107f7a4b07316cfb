# expect: MEDIUM
# rules: MAI040
import pickle
obj = pickle.loads(open('d.bin', 'rb').read())
