"""GL502 function-recreated: a function of another module that applies `tf.function` per call,
called for every request.

`make_scorer` (in `retracing_steps.py`) wraps a new nested def in `tf.function` each time it is
called: every request makes a new function and traces it again. `graphlint check` reports the
calling line here, with the line in `make_scorer` related; `graphlint run` reports that line in
`retracing_steps.py`, where the functions are made.
"""

import numpy as np
import tensorflow as tf

from retracing_steps import make_scorer

requests = tf.data.Dataset.from_tensor_slices(np.ones((4, 2), np.float32))
for batch in requests:
    scorer = make_scorer(0.5)  # GL502
    print(float(scorer(batch)))
