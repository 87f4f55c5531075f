"""A sweep: each pass builds a new model and compiles it once (not the same model again)."""

import torch

torch.manual_seed(0)
batch = torch.ones(2, 4)

for width in (1, 2, 3, 4):
    model = torch.nn.Linear(4, width)
    fast = torch.compile(model, backend="eager")
    with torch.no_grad():
        print(width, tuple(fast(batch).shape))
