# expect: LOW
# absent: MAI043
import torch
state = torch.load('model.pt', weights_only=True)
