# expect: level MEDIUM, state completed, verdict exited, exit code 0 (runs with warnings and tighter limits)
# Unpickling is worth a warning; here the data is a constant, so it is harmless.
import pickle

print(pickle.loads(b"N."))
