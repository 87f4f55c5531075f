"""GL506 graph-break, PyTorch: an `if` on a tensor's value and `.tolist()` in a compiled module.

`forward` branches on the mean of its activations: dynamo cannot trace control flow that
depends on a tensor's value, and splits the graph there. The helper it calls reads the sums
back as Python numbers: another break (dynamo inlines the helper).
"""

import torch


class Gate(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        y = self.lin(x)
        if y.mean() > 0:  # GL506
            y = y * 2
        return y, self.summary(y)

    def summary(self, y):
        return y.sum(1).tolist()  # GL506


torch.manual_seed(0)
model = Gate()
model.compile(backend="eager")
with torch.no_grad():
    for step in range(3):
        y, sums = model(torch.full((2, 4), float(step)))
        print(step, [round(s, 3) for s in sums])
