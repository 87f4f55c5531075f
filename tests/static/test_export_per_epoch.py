"""GL102's static form on a SavedModel exported per epoch through a logger of another module
(held-out set 9, spinningup's TF1 algorithms: ``logger.save_state()`` in the training loop runs
``tf.saved_model.simple_save``, which makes a new ``tf.train.Saver`` each time). Three things
the source shows must all be read: the package the algorithm is part of, in a tree without
``__init__.py`` files (``from spinup.utils.logx import EpochLogger`` in
``spinup/algos/ddpg/ddpg.py``); a method the logger's class inherits from a base class of its
module; and ``if proc_id() == 0:``, which picks the first process at every call, not once.
Each has a twin that differs only there. Static only."""

from __future__ import annotations

import pytest

from harness import found, line_of, write_folder

LOGX = """\
import tensorflow as tf


def proc_id():
    return 0


class Logger:
    def setup_tf_saver(self, sess, inputs, outputs):
        self.tf_saver_elements = dict(session=sess, inputs=inputs, outputs=outputs)

    def save_state(self, itr=None):
        if proc_id() == 0:
            if hasattr(self, "tf_saver_elements"):
                self._tf_simple_save(itr)

    def _tf_simple_save(self, itr=None):
        if proc_id() == 0:
            tf.saved_model.simple_save(export_dir=f"save{itr}", **self.tf_saver_elements)


class EpochLogger(Logger):
    def store(self, **values):
        self.values = values
"""

DDPG = """\
import tensorflow as tf

from spinup.utils.logx import EpochLogger


def ddpg(epochs=100, save_freq=1):
    logger = EpochLogger()
    x = tf.placeholder(tf.float32, [None, 4])
    y = tf.layers.dense(x, 2)
    train = tf.train.AdamOptimizer(1e-3).minimize(tf.reduce_sum(y))
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    logger.setup_tf_saver(sess, inputs={"x": x}, outputs={"y": y})
    for epoch in range(epochs):
        sess.run(train, {x: [[0.0] * 4]})
        if epoch % save_freq == 0 or epoch == epochs - 1:
            logger.save_state(None)
"""

ALGO = "spinup/algos/ddpg/ddpg.py"


@pytest.mark.parametrize(
    "logx, ddpg, where, reported",
    [
        (LOGX, DDPG, ALGO, True),
        # the twins: the export once per process's first call, a logger that does not inherit
        # save_state, or whose first base (of elsewhere) may define it, the module not in the
        # package the file is part of
        (LOGX.replace("if proc_id() == 0:\n            tf.", "if itr is None:\n            tf."), DDPG, ALGO, False),
        (LOGX.replace("class EpochLogger(Logger):", "class EpochLogger(object):"), DDPG, ALGO, False),
        (LOGX.replace("class EpochLogger(Logger):", "class EpochLogger(Saving, Logger):").replace(
            "import tensorflow as tf\n", "import tensorflow as tf\nfrom saving import Saving\n"), DDPG, ALGO, False),
        (LOGX, DDPG, "other/algos/ddpg/ddpg.py", False),
    ],
    ids=["export-per-epoch", "export-once", "not-inherited", "a-base-of-elsewhere-first", "another-package"],
)
def test_an_export_per_epoch_through_another_modules_logger(tmp_path, logx, ddpg, where, reported):
    write_folder(tmp_path, {"spinup/utils/logx.py": logx, where: ddpg})
    path = tmp_path / where
    expected = {("GL102", line_of(path, "logger.save_state("))} if reported else set()
    assert found("--no-cache", "--select", "GL102", str(path)) == expected

