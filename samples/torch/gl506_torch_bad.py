"""GL506 graph-break, PyTorch: `print` and `.item()` inside compiled functions.

dynamo cannot put a `print` or a Python number read from a tensor into a graph: it splits
`train_step` there into graphs with a round trip to Python between them. In `smooth`, the
`print` is inside a loop: dynamo cannot resume there and skips the whole frame, which runs
eagerly, uncompiled.
"""

import torch


@torch.compile(backend="eager")
def train_step(w, x):
    loss = ((x @ w) ** 2).mean()
    print("loss", loss)  # GL506
    scale = loss.item()  # GL506
    return w - 0.01 * scale * w


@torch.compile(backend="eager")
def smooth(x):
    for i in range(3):
        x = 0.5 * (x + x.roll(1))
        print("pass", i)  # GL506
    return x


w = torch.ones(3, 1)
x = torch.ones(4, 3)
for step in range(2):
    w = train_step(w, x)
print(smooth(torch.arange(4.0)).tolist())
