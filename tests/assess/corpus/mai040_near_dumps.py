# expect: LOW
# absent: MAI040
import pickle
blob = pickle.dumps([1, 2])
