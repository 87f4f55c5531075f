"""The learning rate passed as a 0-d tensor: `sgd_step` is compiled once.

A tensor is an input of the graph: its value can change without a new compile.
"""

import torch


@torch.compile(backend="aot_eager", dynamic=False)
def sgd_step(w, grad, lr):
    return w - lr * grad


w = torch.ones(4)
grad = torch.full((4,), 0.5)
for epoch in range(6):
    w = sgd_step(w, grad, torch.tensor(0.1 / (epoch + 1)))
print([round(v, 4) for v in w.tolist()])
