"""Sequences of a new length per batch, the length marked dynamic: `encode` is compiled once.

`torch._dynamo.mark_dynamic(tokens, 0)` tells dynamo before the first compile that dimension 0
varies, so that the one graph takes any length.
"""

import torch


def encode(tokens):
    return torch.tanh(tokens).cumsum(0)


fast = torch.compile(encode, backend="eager")
for length in range(2, 9):
    tokens = torch.ones(length, 3)
    torch._dynamo.mark_dynamic(tokens, 0)
    out = fast(tokens)
    print(length, tuple(out.shape))
