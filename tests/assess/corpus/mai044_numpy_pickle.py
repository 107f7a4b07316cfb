# expect: MEDIUM
# rules: MAI044
import numpy as np
arr = np.load('a.npy', allow_pickle=True)
