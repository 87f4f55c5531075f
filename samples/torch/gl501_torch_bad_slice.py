"""GL501 function-retraced, PyTorch: `dynamic=False` and a window of history that grows each step.

`history[:t]` has a new length on every step; under `dynamic=False` each length is a new
compile of `attend`, until dynamo reaches its recompile limit (8) and runs it eagerly.
"""

import torch


@torch.compile(backend="eager", dynamic=False)
def attend(keys, query):
    weights = torch.softmax(keys @ query, 0)
    return weights @ keys


torch.manual_seed(0)
history = torch.randn(16, 4)
query = torch.randn(4)
for t in range(1, 13):
    out = attend(history[:t], query)  # GL501
print(tuple(out.shape), round(float(out.sum()), 4))
