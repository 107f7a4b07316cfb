# expect: MEDIUM
# rules: MAI043
import torch
state = torch.load('model.pt', map_location='cpu')
