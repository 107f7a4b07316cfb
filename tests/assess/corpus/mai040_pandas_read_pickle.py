# expect: MEDIUM
# rules: MAI040
import pandas as pd
df = pd.read_pickle('frame.pkl')
