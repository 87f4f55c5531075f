"""The warm-up counter kept in a tensor buffer: `forward` is compiled once.

A buffer is a tensor, which dynamo reads as an input of the graph, not as a constant.
"""

import torch


class Warmup(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("step", torch.zeros((), dtype=torch.long))
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        self.step += 1
        scale = torch.clamp(self.step / 10, max=1.0)
        return self.lin(x) * scale


torch.manual_seed(0)
model = torch.compile(Warmup(), backend="eager")
x = torch.ones(2, 4)
for step in range(12):
    y = model(x)
print(round(float(y.detach().sum()), 4))
