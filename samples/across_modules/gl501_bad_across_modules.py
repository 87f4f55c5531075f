"""GL501 function-retraced: the epoch passed to a `tf.function` defined in another module.

`train_step` lives in `retracing_steps.py` beside this file; `graphlint check` follows the import
to its definition and sees the Python int that changes on every epoch.
"""

import tensorflow as tf

from retracing_steps import train_step

x = tf.ones([2])
for epoch in range(7):
    x = train_step(x, epoch)  # GL501
print(x.numpy())
