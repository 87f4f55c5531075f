"""GL502 function-recreated, PyTorch: `torch.compile` applied to the same model on every epoch.

The loop wraps `model` again at each pass: a new compiled wrapper, set up anew each time, for
a model that never changes.
"""

import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 1)
batch = torch.ones(2, 4)

for epoch in range(4):
    fast = torch.compile(model, backend="eager")  # GL502
    with torch.no_grad():
        print(epoch, round(float(fast(batch * epoch).sum()), 4))
