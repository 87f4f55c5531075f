"""GL501 function-retraced, PyTorch: a learning rate passed as a Python float, `dynamic=False`.

Without dynamic shapes dynamo specializes on the value of a Python number: each new `lr`
compiles `sgd_step` again (6 times), its guard `lr == 0.1`, `lr == 0.05`, ...
"""

import torch


@torch.compile(backend="aot_eager", dynamic=False)
def sgd_step(w, grad, lr):
    return w - lr * grad


w = torch.ones(4)
grad = torch.full((4,), 0.5)
for epoch in range(6):
    w = sgd_step(w, grad, 0.1 / (epoch + 1))  # GL501
print([round(v, 4) for v in w.tolist()])
