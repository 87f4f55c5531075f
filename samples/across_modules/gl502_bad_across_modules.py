"""GL502 function-recreated: a function of another module that applies `tf.function` per call,
called for every request.

`make_scorer` (in `retracing_steps.py`) wraps a new nested def in `tf.function` each time it is
called: every request makes a new function and traces it again. The run serves two requests,
so it makes only two functions, which is not more than the runtime's `max-per-site` (2): the
runtime form stays silent here; with a third request it reports the line in `make_scorer`.
"""

import tensorflow as tf

from retracing_steps import make_scorer

requests = [tf.ones([2]), tf.ones([3])]
for batch in requests:
    scorer = make_scorer(0.5)  # GL502
    print(float(scorer(batch)))
