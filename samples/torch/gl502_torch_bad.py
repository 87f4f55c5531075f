"""GL502 function-recreated, PyTorch: `torch.compile` applied on every request (inductor).

`predict()` compiles the model anew for each request: a new compiled wrapper each time, whose
set-up alone costs far more than the call (dynamo finds its cached code for the model's
`forward`, so inductor compiles once).
"""

import torch


class Scorer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 1)

    def forward(self, x):
        return torch.sigmoid(self.lin(x))


torch.manual_seed(0)
model = Scorer().eval()


def predict(batch):
    fast = torch.compile(model)  # GL502
    with torch.no_grad():
        return fast(batch)


for request in range(4):
    print(request, round(float(predict(torch.full((2, 4), float(request))).sum()), 4))
