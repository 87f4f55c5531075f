"""GL501 function-retraced, PyTorch: `dynamic=False` and a new sequence length per batch.

With `dynamic=False` every input length is a new compile of `encode` (7 here).
"""

import torch


def encode(tokens):
    return torch.tanh(tokens).cumsum(0)


fast = torch.compile(encode, backend="eager", dynamic=False)
for length in range(1, 8):
    out = fast(torch.ones(length, 3))  # GL501
    print(length, tuple(out.shape))
