"""`normalize` traced once, at start-up; the traced function is called per batch."""

import torch


def normalize(x):
    return (x - x.mean()) / (x.std() + 1e-6)


traced = torch.jit.trace(normalize, (torch.arange(4.0),))
for i in range(4):
    out = traced(torch.arange(4.0) * (i + 1))
    print(i, [round(v, 3) for v in out.tolist()])
