# expect: MEDIUM
# rules: MAI043
from torch import load as restore
restore('model.pt', weights_only=False)
