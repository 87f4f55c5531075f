"""GL101 graph-rebuilt in a test: a prediction helper that builds its model per batch.

`predict()` makes a placeholder and the model's ops on every call and runs them: the test
calls it for each of four batches, so the graph holds four copies of the same model, where
one copy fed four times would do.
"""

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
WEIGHTS = np.full((3, 1), 0.5, np.float32)


def predict(sess, batch):
    inputs = tf1.placeholder(tf.float32, [None, 3])  # GL101
    return sess.run(tf.matmul(inputs, WEIGHTS), {inputs: batch})


def test_predictions_scale_with_the_inputs():
    with tf.Graph().as_default(), tf1.Session() as sess:
        for scale in (1.0, 2.0, 3.0, 4.0):
            out = predict(sess, np.full((2, 3), scale, np.float32))
            np.testing.assert_allclose(out, np.full((2, 1), 1.5 * scale))
