"""GL502 function-recreated, PyTorch: `torch.jit.trace` on every call.

`export_step()` traces the same function again for each batch: each trace runs it and builds a
new TorchScript graph.
"""

import torch


def normalize(x):
    return (x - x.mean()) / (x.std() + 1e-6)


def export_step(batch):
    traced = torch.jit.trace(normalize, (batch,))  # GL502
    return traced(batch)


for i in range(4):
    out = export_step(torch.arange(4.0) * (i + 1))
    print(i, [round(v, 3) for v in out.tolist()])
