# expect: MEDIUM
# rules: MAI040
import _pickle
with open('data.bin', 'rb') as f:
    obj = _pickle.load(f)
