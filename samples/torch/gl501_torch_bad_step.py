"""GL501 function-retraced, PyTorch: an int attribute of the module counts the steps in `forward`.

torch.compile treats an int attribute of an `nn.Module` as a constant, so each new value of
`self.step` fails a guard and compiles `forward` again; after 8 compiles
(`torch._dynamo.config.recompile_limit`) dynamo gives up and runs `forward` eagerly for the rest
of the program: the speed-up is gone, with one warning line in the log.
"""

import torch


class Warmup(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.step = 0
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        self.step += 1
        scale = min(1.0, self.step / 10)
        return self.lin(x) * scale


torch.manual_seed(0)
model = torch.compile(Warmup(), backend="eager")
x = torch.ones(2, 4)
for step in range(12):
    y = model(x)  # GL501
print(round(float(y.detach().sum()), 4))
