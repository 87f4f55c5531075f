"""`graphlint check` on the shapes of real TensorFlow code (issue 9): each category of false
positive has a program that must stay silent and a bad twin that must still be found; each
category of miss has a program that must be found. Expected findings are marked in the
program with ``# expect: GLnnn``; nothing else may be reported."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from harness import FORECASTER, HEADER, found

_EXPECT = re.compile(r"#\s*expect:\s*((?:GL\d{3}[ ,]*)+)")


def _write(tmp_path: Path, body: str, name: str = "prog.py") -> Path:
    path = tmp_path / name
    path.write_text(HEADER + textwrap.dedent(body))
    return path


def _expected(path: Path) -> set[tuple[str, int]]:
    out = set()
    for n, line in enumerate(path.read_text().splitlines(), 1):
        match = _EXPECT.search(line)
        if match:
            out |= {(code, n) for code in re.findall(r"GL\d{3}", match.group(1))}
    return out


CASES = {
    # -- 1. distinct call sites are not a rebuild ----------------------------------------------
    "online-and-target-networks": """
        def build_net():
            x = tf1.placeholder(tf.float32, [None, 4])
            return x, tf1.layers.dense(x, 2)
        online = build_net()
        target = build_net()
        """,
    "network-built-in-a-loop": """
        def build_net():
            x = tf1.placeholder(tf.float32, [None, 4])  # expect: GL101
            return x, tf1.layers.dense(x, 2)
        for seed in range(5):
            net = build_net()
        """,
    "helper-used-by-two-tests": """
        def evaluate(sess):
            x = tf1.placeholder(tf.float32, [None])
            return sess.run(x * 2.0, {x: [1.0]})
        def test_a():
            with tf.Graph().as_default(), tf1.Session() as sess:
                evaluate(sess)
        def test_b():
            with tf1.Session() as sess:
                evaluate(sess)
        """,
    "helper-called-twice-on-one-path": """
        def evaluate(sess):
            x = tf1.placeholder(tf.float32, [None])  # expect: GL101
            return sess.run(x * 2.0, {x: [1.0]})
        def main():
            sess = tf1.Session()
            evaluate(sess)
            evaluate(sess)
        """,
    "helper-called-on-either-branch": """
        import sys
        def evaluate(sess):
            x = tf1.placeholder(tf.float32, [None])
            return sess.run(x * 2.0, {x: [1.0]})
        def main():
            sess = tf1.Session()
            if sys.argv[1:] == ["train"]:
                evaluate(sess)
            else:
                evaluate(sess)
        """,
    # -- 2. get-or-create ------------------------------------------------------------------------
    "get-or-create-session": """
        c = tf.constant(1.0)
        def make_session():
            return tf1.Session()
        def get_session():
            sess = tf1.get_default_session()
            if sess is None:
                sess = make_session()
            return sess
        def shared():
            return tf1.get_default_session() or tf1.Session()
        for i in range(10):
            print(get_session(), shared())
        """,
    "session-per-call": """
        def get_session():
            return tf1.Session()  # expect: GL301
        for i in range(10):
            print(get_session())
        """,
    "get-or-create-global-step": """
        loss = tf.constant(1.0)
        sess = tf1.Session()
        for i in range(10):
            step = tf1.train.get_or_create_global_step()
            sess.run(loss)
        """,
    "mode-switch-is-not-a-guard": """
        import sys
        x = tf.constant(1.0)
        sess = tf1.Session()
        for step in range(100):
            if sys.argv[1] == "train":
                sess.run(tf.square(x))  # expect: GL102
            if step == 0:
                sess.run(tf.sqrt(x))
            if step == 99 - 1:
                sess.run(tf.exp(x))
        """,
    "built-once-guard": """
        class Trainer:
            def __init__(self):
                self._built = False
                self.sess = tf1.Session()
            def step(self):
                if not self._built:
                    self.op = tf.constant(1.0) + 1.0
                    self._built = True
                return self.sess.run(self.op)
        trainer = Trainer()
        for i in range(10):
            trainer.step()
        """,
    # -- 3. a handler that re-raises swallows nothing ---------------------------------------------
    "handler-re-raises": """
        def dense(x, n):
            with tf1.variable_scope("dense"):
                try:
                    w = tf1.get_variable("w", [4, n])
                except ValueError as err:
                    err.args += ("check the input width",)
                    raise
            return tf.matmul(x, w)
        """,
    "handler-swallows": """
        def dense(x, n):
            w = None
            with tf1.variable_scope("dense"):
                try:
                    w = tf1.get_variable("w", [4, n])  # expect: GL202
                except ValueError:
                    pass
            return w
        """,
    # -- 4. get_variable under reuse=True --------------------------------------------------------
    "get-variable-under-reuse": """
        import sys
        sess = tf1.Session()
        for name in sys.argv[1:]:
            with tf1.variable_scope(name, reuse=True):
                try:
                    v = tf1.get_variable("w")
                except ValueError:
                    continue
            print(sess.run(v))
        """,
    "get-variable-without-reuse": """
        import sys
        sess = tf1.Session()
        for name in sys.argv[1:]:
            with tf1.variable_scope(name):
                try:
                    v = tf1.get_variable("w", [1])  # expect: GL202, GL102
                except ValueError:
                    continue
            print(sess.run(v))
        """,
    # -- 5. kept models and sessions -------------------------------------------------------------
    "models-kept": """
        import sys
        models = {}
        for name in sys.argv:
            m = tf.keras.Sequential()
            models[name] = m
        def ensemble(names):
            for name in names:
                yield tf.keras.Sequential()
        class Agent:
            pass
        agents = [Agent() for _ in sys.argv]
        for agent in agents:
            agent.sess = tf1.Session()
        """,
    "models-kept-from-a-builder-returning-more": """
        def train(seed):
            model = tf.keras.Sequential()
            return model, {"loss": [seed]}
        members, histories = [], []
        for seed in range(25):
            model, history = train(seed)
            members.append(model)
            histories.append(history)
        """,
    "models-dropped-from-a-builder-returning-more": """
        def train(seed):
            model = tf.keras.Sequential()
            return model, {"loss": [seed]}
        for seed in range(25):
            model, history = train(seed)  # expect: GL503
            print(history)
        """,
    "session-per-graph-built-per-iteration": """
        import sys
        def build_graph(path):
            graph = tf.Graph()
            with graph.as_default():
                tf.constant(path)
            return graph
        for path in sys.argv:
            graph = build_graph(path)
            with tf1.Session(graph=graph) as sess:
                print(sess.graph)
        shared = tf.Graph()
        for path in sys.argv:
            with tf1.Session(graph=shared) as sess:  # expect: GL301
                print(sess.graph)
        """,
    "models-dropped": """
        import sys
        for name in sys.argv:
            m = tf.keras.Sequential()  # expect: GL503
            print(m)
        for name in sys.argv:
            sess = tf1.Session()  # expect: GL301
        """,
    # -- 6. the runtime's thresholds -------------------------------------------------------------
    "two-literal-iterations": """
        x = tf.constant([1.0, 2.0])
        sess = tf1.Session()
        for mode in ["train", "eval"]:
            sess.run(tf.reduce_sum(x))
            s = tf1.Session()
            m = tf.keras.Sequential()
        """,
    "steps-the-counter-picks-out": """
        import sys
        steps = int(sys.argv[1])
        lr = tf1.Variable(0.1)
        sess = tf1.Session()
        for step in range(1, steps + 1):
            sess.run(lr)
            if step % (steps // 2) == 0:
                sess.run(tf1.assign(lr, lr * 0.3))
            if step == steps // 3:
                sess.run(tf1.assign(lr, lr * 0.5))
            if step in (100, 200):
                s = tf1.Session()
        for i, batch in enumerate(sys.argv):
            if i == 0 or i == 7:
                sess.run(tf1.assign(lr, lr * 0.9))
        """,
    "steps-the-counter-lets-through-again-and-again": """
        import sys
        steps = int(sys.argv[1])
        lr = tf1.Variable(0.1)
        sess = tf1.Session()
        for step in range(1, steps + 1):
            sess.run(lr)
            if step % 100 == 0:
                sess.run(tf1.assign(lr, lr * 0.3))  # expect: GL102
            if step % (steps // 10) == 0:
                sess.run(tf1.assign(lr, lr * 0.1))  # expect: GL102
            if step in (100, 200, 300):
                s = tf1.Session()  # expect: GL301
            target = step // 2
            if step == target:
                sess.run(tf1.assign(lr, lr * 0.5))  # expect: GL102
        for run in range(5):
            for step in range(1000):
                sess.run(lr)
                if step == 500:
                    sess.run(tf1.assign(lr, lr * 0.5))  # expect: GL102
        """,
    "three-literal-iterations": """
        x = tf.constant([1.0, 2.0])
        sess = tf1.Session()
        for mode in ["train", "eval", "test"]:
            sess.run(tf.reduce_sum(x))  # expect: GL102
            s = tf1.Session()  # expect: GL301
            m = tf.keras.Sequential()  # expect: GL503
        """,
    "two-literal-iterations-nested-in-a-loop": """
        x = tf.constant([1.0, 2.0])
        sess = tf1.Session()
        for epoch in range(100):
            for mode in ["train", "eval"]:
                sess.run(tf.reduce_sum(x))  # expect: GL102
        """,
    # -- 7. one finding per line and cause ---------------------------------------------------------
    "nested-ops-one-finding": """
        x = tf.constant([1.0, 2.0])
        sess = tf1.Session()
        for step in range(100):
            sess.run(tf.round(tf.sigmoid(x)))  # expect: GL102
        """,
    # -- misses: method-form ops -----------------------------------------------------------------
    "method-form-assign": """
        v = tf1.Variable(1.0)
        optimizer = tf1.train.GradientDescentOptimizer(0.1)
        sess = tf1.Session()
        for epoch in range(100):
            sess.run(v.assign(2.0))  # expect: GL102
            sess.run(optimizer.lr.assign_sub(0.01))  # expect: GL102
        """,
    "pandas-assign-is-not-an-op": """
        import pandas as pd
        loss = tf.constant(1.0)
        sess = tf1.Session()
        frame = pd.DataFrame()
        for step in range(100):
            frame = frame.assign(loss=sess.run(loss))
        """,
    "weight-load-one-assign-per-variable": """
        import numpy as np
        sess = tf1.Session()
        for var, value in zip(tf1.global_variables(), np.load("weights.npy")):
            sess.run(var.assign(value))
        """,
    "nested-weight-load": """
        import numpy as np
        weights = np.load("weights.npy", allow_pickle=True).item()
        sess = tf1.Session()
        for layer in weights:
            with tf1.variable_scope(layer, reuse=True):
                for name, value in weights[layer].items():
                    var = tf1.get_variable(name)
                    sess.run(var.assign(value))
                    sess.run(tf1.get_variable(name).assign(value))
        """,
    "inspect-each-variable-of-the-model-once": """
        class Net:
            def __init__(self, sizes):
                self.sess = tf1.Session()
                self.weights = []
                for n in sizes:
                    w = tf1.Variable(tf.zeros([n, n]))
                    self.weights.append(w)
                self.biases = [tf1.Variable(0.0)]
            def show(self):
                for w in self.weights:
                    print(self.sess.run(tf.shape(w)), self.sess.run(w))
                for v in tf1.trainable_variables():
                    print(v.name, self.sess.run(tf.reduce_mean(v)))
        Net([2, 3]).show()
        """,
    "inspect-each-variable-every-epoch": """
        sess = tf1.Session()
        weights = []
        weights.append(tf1.Variable(1.0))
        for epoch in range(100):
            for w in weights:
                print(sess.run(tf.reduce_mean(w)))  # expect: GL102
        """,
    "op-on-each-item-of-a-list-of-data": """
        import numpy as np
        sess = tf1.Session()
        batches = []
        batches.append(tf1.Variable(1.0))
        batches.append(np.zeros(3))
        for batch in batches:
            print(sess.run(tf.reduce_mean(batch)))  # expect: GL102
        """,
    "op-on-each-batch": """
        import numpy as np
        sess = tf1.Session()
        for batch in np.split(np.zeros(100), 50):
            sess.run(tf.reduce_mean(batch))  # expect: GL102
        """,
    "decay-every-variable-every-epoch": """
        sess = tf1.Session()
        for epoch in range(100):
            for var in tf1.trainable_variables():
                sess.run(var.assign(var * 0.99))  # expect: GL102
        """,
    # -- GL101: an object whose __init__ builds the model, made again and again -------------------
    "model-object-made-per-iteration": """
        class Net:
            def __init__(self, n):
                self.x = tf1.placeholder(tf.float32, [None, n])  # expect: GL101
                self.y = tf1.layers.dense(self.x, 1)
                self.sess = tf1.Session()
                self.sess.run(tf1.global_variables_initializer())
        for trial in range(30):
            net = Net(4)
            print(net.sess.run(net.y, {net.x: [[1.0] * 4]}))
        def score(rows):
            return Net(4).sess.run(tf.constant(1.0))
        """,
    "model-object-made-per-request": """
        class Net:
            def __init__(self):
                self.x = tf1.placeholder(tf.float32, [None, 4])  # expect: GL101
                self.y = tf1.layers.dense(self.x, 1)
        class Service:
            def predict(self, rows):
                net = Net()
                with tf1.Session() as sess:  # expect: GL301
                    sess.run(tf1.global_variables_initializer())  # expect: GL102
                    return sess.run(net.y, {net.x: rows})
        """,
    "model-objects-kept-or-made-once": """
        class Net:
            def __init__(self, n):
                self.x = tf1.placeholder(tf.float32, [None, n])
                self.y = tf1.layers.dense(self.x, 1)
        members = []
        for seed in range(5):
            members.append(Net(4))
        for n in range(3, 30):
            with tf.Graph().as_default():
                net = Net(n)
        single = Net(4)
        """,
    # -- GL504: predict on one sample, again and again --------------------------------------------
    "predict-one-sample-at-a-time": """
        import sys
        import numpy as np
        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        loaded = tf.keras.models.load_model(sys.argv[1])
        frames = np.zeros((100, 4))
        for frame in frames:
            model.predict(frame[None], verbose=0)  # expect: GL504
            loaded.predict(np.array([frame]))  # expect: GL504
            x = np.reshape(frame, [1, 4])
            model.predict(x)  # expect: GL504
        while True:
            model.predict(np.expand_dims(frames[0], axis=0))  # expect: GL504
            break
        class Agent:
            def __init__(self):
                self.model = tf.keras.Sequential([tf.keras.layers.Dense(2)])
            def act(self, state):
                return self.model.predict(state.reshape(1, -1))  # expect: GL504
        agent = Agent()
        for step in range(1000):
            agent.act(frames[0])
        for i in range(6):
            model.predict(frames[i][np.newaxis, :])  # expect: GL504
        """,
    "agent-predicts-the-state-it-is-given": """
        import numpy as np
        class Agent:
            def __init__(self):
                self.model = self._build_model()
                self.target = self._build_model()
            def _build_model(self):
                model = tf.keras.Sequential([tf.keras.layers.Dense(2)])
                model.compile("adam", "mse")
                return model
            def act(self, state):
                return np.argmax(self.model.predict(state)[0])  # expect: GL504
            def replay(self, batch):
                for state, target in batch:
                    state = state.reshape(1, -1)
                    self.target.predict(state)  # expect: GL504
        agent = Agent()
        for episode in range(100):
            state = np.reshape(np.zeros(4), [1, 4])
            for step in range(200):
                action = agent.act(state)
                state = np.zeros(4)
        """,
    "agent-predicts-batches": """
        import numpy as np
        from sklearn.linear_model import LogisticRegression
        class Agent:
            def __init__(self):
                self.model = self._build_model()
                self.clf = self._build_clf()
            def _build_model(self):
                return tf.keras.Sequential([tf.keras.layers.Dense(2)])
            def _build_clf(self):
                return LogisticRegression()
            def act(self, states):
                return self.model.predict(states)
            def guess(self, state):
                return self.clf.predict(state)
        agent = Agent()
        for episode in range(100):
            states = np.zeros((32, 4))
            agent.act(states)
            agent.guess(np.reshape(states[0], [1, 4]))
            x = np.zeros((8, 4))
            agent.model.predict(x)
            x = x[None]
        """,
    "predict-on-batches-or-rarely": """
        import sys
        import numpy as np
        from sklearn.linear_model import LogisticRegression
        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        clf = LogisticRegression()
        frames = np.zeros((100, 4))
        for batch in np.split(frames, 10):
            model.predict(batch)
            clf.predict(batch[0][None])
            model(batch[0][None], training=False)
        for i in range(5):
            model.predict(frames[i][None])
        x = frames[:1]
        for i in range(100):
            x = frames[i:i + 32]
            model.predict(x)
        model.predict(frames[0][None])
        graph = tf1.get_default_graph()
        for frame in frames:
            with graph.as_default():
                model.predict(frame[None])
        """,
    # -- misses: ops in a function called every step ---------------------------------------------
    "target-copy-per-variable-called-every-n-steps": """
        def copy_params(src, dst):
            ops = []
            for a, b in zip(src, dst):
                ops.append(b.assign(a))  # expect: GL102
            tf1.get_default_session().run(ops)
        online, target = [tf1.Variable(1.0)], [tf1.Variable(0.0)]
        with tf1.Session() as sess:
            for step in range(10000):
                if step % 100 == 0:
                    copy_params(online, target)
        """,
    "thread-per-connection": """
        import socket
        import threading
        class Server:
            def __init__(self):
                self.sock = socket.socket()
            def serve(self):
                while True:
                    client, _ = self.sock.accept()
                    threading.Thread(target=self.handle, args=(client,)).start()
            def handle(self, client):
                with tf1.Session() as sess:  # expect: GL301
                    client.send(sess.run(tf.constant(b"hi")))  # expect: GL102
        """,
    "thread-started-once": """
        import threading
        sess = tf1.Session()
        answer = tf.constant(1.0)
        def handle():
            with tf1.Session() as s:
                print(s.run(tf.constant(2.0)))
        def poll(conn):
            print(sess.run(answer))
        threading.Thread(target=handle).start()
        for conn in range(10):
            threading.Thread(target=poll, args=(conn,)).start()
        """,
    "op-cached-by-key": """
        class Updater:
            def __init__(self, sess, variables):
                self.sess, self.vars, self.ops = sess, variables, {}
            def set(self, name, value):
                if name not in self.ops:
                    self.ops[name] = tf1.assign(self.vars[name], value)
                self.sess.run(self.ops[name])
        u = Updater(tf1.Session(), {"w": tf1.Variable(0.0)})
        for step in range(100):
            u.set("w", 1.0)
        """,
    "op-per-new-key-not-kept": """
        v = tf1.Variable(0.0)
        sess = tf1.Session()
        seen = set()
        for step in range(100):
            if step not in seen:
                seen.add(step)
                sess.run(tf1.assign(v, step))  # expect: GL102
        """,
    "queue-op-per-step": """
        q = tf1.FIFOQueue(100, tf.float32)
        sess = tf1.Session()
        for i in range(10):
            print(sess.run(q.dequeue()))  # expect: GL102
            sess.run(tf1.RandomShuffleQueue(10, 2, tf.float32).size())  # expect: GL102
        """,
    "queue-op-built-once": """
        import queue
        q = tf1.FIFOQueue(100, tf.float32)
        take = q.dequeue()
        jobs = queue.Queue()
        sess = tf1.Session()
        for i in range(10):
            print(sess.run(take))
            jobs.put(i)
            print(jobs.size() if hasattr(jobs, "size") else jobs.qsize())
        """,
    "web-handler-builds-per-request": """
        from flask import Flask
        app = Flask(__name__)
        @app.route("/predict", methods=["POST"])
        def predict():
            sess = tf1.Session()  # expect: GL301
            return sess.run(tf.constant("hi"))  # expect: GL102
        """,
    "web-handler-runs-what-was-built-once": """
        from fastapi import FastAPI
        app = FastAPI()
        sess = tf1.Session()
        answer = tf.constant("hi")
        @app.get("/predict")
        def predict():
            return sess.run(answer)
        """,
    "target-copy-per-variable-called-once": """
        def copy_params(src, dst):
            ops = []
            for a, b in zip(src, dst):
                ops.append(b.assign(a))
            tf1.get_default_session().run(ops)
        online, target = [tf1.Variable(1.0)], [tf1.Variable(0.0)]
        with tf1.Session() as sess:
            copy_params(online, target)
            for step in range(10000):
                sess.run(online)
        """,
    "learn-method-called-every-step": """
        class Agent:
            def __init__(self, sess, pairs):
                self.sess = sess
                self.pairs = pairs
            def learn(self):
                self.sess.run([tf1.assign(t, e) for t, e in self.pairs])  # expect: GL102
        agent = Agent(tf1.Session(), [])
        for step in range(1000):
            agent.learn()
        """,
    "learn-method-with-ops-built-once": """
        class Agent:
            def __init__(self, sess, pairs):
                self.sess = sess
                self.sync = [tf1.assign(t, e) for t, e in pairs]
            def learn(self):
                self.sess.run(self.sync)
        agent = Agent(tf1.Session(), [])
        for step in range(1000):
            agent.learn()
        """,
    "same-file-helper-in-a-run-loop": """
        def polynomial(x):
            return tf.square(x) + 2.0 * x
        x = tf.constant(3.0)
        sess = tf1.Session()
        for step in range(100):
            print(sess.run(polynomial(x)))  # expect: GL102
        """,
    "tensor-eval-and-op-run-are-runs": """
        x = tf1.placeholder(tf.float32, [None])
        loss = tf.reduce_sum(x)
        train_step = tf1.train.GradientDescentOptimizer(0.1).minimize(loss)
        sess = tf1.InteractiveSession()
        for step in range(100):
            train_step.run({x: [1.0]})
            accuracy = tf.reduce_mean(x)  # expect: GL102
            print(accuracy.eval({x: [1.0]}))
        for step in range(100):
            print(tf.nn.softmax(x).eval())  # expect: GL102
        """,
    "method-of-an-object-kept-on-self": """
        class Net:
            def step(self, x):
                return tf.reduce_sum(x)
        class Trainer:
            def __init__(self):
                self.net = Net()
                self.sess = tf1.Session()
            def fit(self, x):
                for i in range(100):
                    self.sess.run(self.net.step(x))  # expect: GL102
        """,
    "loop-that-runs-through-a-thin-wrapper": """
        x = tf.constant(1.0)
        def evaluate(sess, tensor):
            return sess.run(tensor)
        sess = tf1.Session()
        for epoch in range(100):
            evaluate(sess, tf.square(x))  # expect: GL102
        """,
    "memoized-helper-builds-once": """
        import functools
        @functools.lru_cache(maxsize=None)
        def squared(x):
            return tf.square(x)
        x = tf.constant(3.0)
        sess = tf1.Session()
        for step in range(100):
            print(sess.run(squared(x)))
        """,
    # -- misses: operators on tensors ------------------------------------------------------------
    "operator-on-a-tensor": """
        x = tf.constant(1.0)
        sess = tf1.Session()
        for step in range(100):
            x = x + 1  # expect: GL102
            print(sess.run(x))
        """,
    "operator-on-fetched-values": """
        x = tf.constant(1.0)
        sess = tf1.Session()
        total = 0.0
        for step in range(100):
            value = sess.run(x)
            total = total + value
            print("step %d" % step, value * 2)
        """,
    # -- misses: a fresh graph and a session per item --------------------------------------------
    "graph-and-session-per-batch": """
        import numpy as np
        def align(images):
            with tf.Graph().as_default():
                sess = tf1.Session()  # expect: GL301
                x = tf1.placeholder(tf.float32, [None])
                return sess.run(x * 2.0, {x: images})
        with tf1.Session() as sess:
            out = tf.constant(1.0)
            for batch in np.array_split(np.ones(100), 10):
                print(sess.run(out), align(batch))
        """,
    "graph-and-session-per-instance": """
        import numpy as np
        class Detector:
            def __init__(self):
                self.graph = tf.Graph()
                with self.graph.as_default():
                    self.x = tf1.placeholder(tf.float32, [None])
                    self.y = self.x * 2.0
                self.sess = tf1.Session(graph=self.graph)
            def detect(self, images):
                return self.sess.run(self.y, {self.x: images})
        detectors = [Detector() for _ in range(3)]
        with tf1.Session() as sess:
            out = tf.constant(1.0)
            for batch in np.array_split(np.ones(100), 10):
                print(sess.run(out), [d.detect(batch) for d in detectors])
        """,
    "graph-and-session-per-checkpoint-evaluated-whole": """
        import glob
        def evaluate(checkpoint):
            with tf.Graph().as_default():
                x = tf1.placeholder(tf.float32, [None])
                y = x * 2.0
                scores = []
                with tf1.Session() as sess:
                    for batch in range(10):
                        scores.append(sess.run(y, {x: [float(batch)]}))
                return scores
        def evaluate_all():
            with tf1.Session() as log:
                summary = tf.constant(0.0)
                for checkpoint in glob.glob("*.ckpt"):
                    log.run(summary)
                    evaluate(checkpoint)
        """,
    "graph-and-session-per-configuration": """
        def train(lr):
            with tf.Graph().as_default():
                x = tf1.Variable(1.0)
                step = tf1.assign_sub(x, lr)
                with tf1.Session() as sess:
                    sess.run(tf1.global_variables_initializer())
                    for i in range(100):
                        sess.run(step)
        for lr in (0.1, 0.01, 0.001):
            train(lr)
        """,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_static_case(tmp_path, name):
    path = _write(tmp_path, CASES[name])
    assert found(path) == _expected(path)


MODEL = """
import tensorflow as tf

tf1 = tf.compat.v1


class Net:
    def __init__(self):
        self.w = tf1.Variable(1.0)

    def step(self, x):
        return tf.reduce_sum(x * self.w)


def helper(x):
    return tf.square(x)
"""


@pytest.mark.parametrize(
    "imports, call",
    [
        ("from model import Net", "net.step(x)"),
        ("import model", "model.helper(x)"),
        ("from model import helper", "helper(x)"),
        ("from pkg import model", "model.helper(x)"),
        ("from pkg.model import Net", "net.step(x)"),
    ],
)
def test_a_class_or_function_of_another_module_of_the_tree_is_followed(tmp_path, imports, call):
    """Only the checked file is named (as pre-commit does): its imports of the user's modules
    beside it are read, nothing else."""
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "model.py").write_text(MODEL)
    (tmp_path / "unrelated.py").write_text("raise SystemExit('never read')\n")
    net = "Net()" if "Net" in imports else "None"
    train = tmp_path / "train.py"
    train.write_text(
        f"import tensorflow as tf\n{imports}\n\ntf1 = tf.compat.v1\nnet = {net}\nx = tf.constant(1.0)\n"
        f"sess = tf1.Session()\nfor step in range(100):\n    print(sess.run({call}))\n"
    )
    assert found(train) == {("GL102", 9)}


AGENT = """
import tensorflow as tf

tf1 = tf.compat.v1


class Agent:
    def __init__(self, sess, pairs):
        self.sess = sess
        self.pairs = pairs
        self.sync = [tf1.assign(t, e) for t, e in pairs]

    def learn(self):
        return self.sess.run([tf1.assign(t, e) for t, e in self.pairs])

    def learn_once_built(self):
        return self.sess.run(self.sync)
"""


@pytest.mark.parametrize("method, reported", [("learn", True), ("learn_once_built", False)])
def test_a_method_of_another_module_that_builds_and_runs_each_step(tmp_path, method, reported):
    (tmp_path / "agent.py").write_text(AGENT)
    train = tmp_path / "train.py"
    train.write_text(
        "import tensorflow as tf\nfrom agent import Agent\n\ntf1 = tf.compat.v1\n"
        f"agent = Agent(tf1.Session(), [])\nfor step in range(1000):\n    agent.{method}()\n"
    )
    assert found(train) == ({("GL102", 7)} if reported else set())


def test_another_module_that_only_runs_is_not_reported(tmp_path):
    (tmp_path / "model.py").write_text(MODEL.replace("return tf.reduce_sum(x * self.w)", "return x"))
    train = tmp_path / "train.py"
    train.write_text(
        "import tensorflow as tf\nfrom model import Net\n\ntf1 = tf.compat.v1\nnet = Net()\n"
        "sess = tf1.Session()\nfor step in range(100):\n    print(sess.run(net.step(1.0)))\n"
    )
    assert found(train) == set()


@pytest.mark.parametrize("min_repeats, reported", [(4, True), (5, False)])
def test_the_loop_bound_follows_the_configured_threshold(tmp_path, min_repeats, reported):
    (tmp_path / "pyproject.toml").write_text(f"[tool.graphlint.rules.GL102]\nmin-repeats = {min_repeats}\n")
    path = _write(tmp_path, """
        x = tf.constant(1.0)
        sess = tf1.Session()
        for mode in ["a", "b", "c", "d"]:
            sess.run(tf.square(x))
        """)
    assert found(path, cwd=tmp_path) == ({("GL102", 8)} if reported else set())


MODELS = """
import tensorflow as tf


class Net(tf.keras.Model):
    pass


def build_model(units):
    return tf.keras.Sequential([tf.keras.layers.Dense(units)])


def describe(units):
    return units
"""


@pytest.mark.parametrize(
    "imports, call, reported",
    [
        ("from models import Net", "Net()", True),
        ("from models import build_model", "build_model(fold)", True),
        ("import models", "models.build_model(fold)", True),
        ("import models", "models.describe(fold)", False),
    ],
)
def test_gl503_a_model_class_or_builder_of_another_module(tmp_path, imports, call, reported):
    (tmp_path / "models.py").write_text(MODELS)
    train = tmp_path / "train.py"
    train.write_text(f"import tensorflow as tf\n{imports}\n\nfor fold in range(10):\n    model = {call}\n")
    assert found(train) == ({("GL503", 5)} if reported else set())


@pytest.mark.parametrize("function, reported", [("forecast", True), ("forecast_in_own_graph", False)])
def test_gl101_a_function_of_another_module_that_builds_and_runs_called_in_a_loop(tmp_path, function, reported):
    (tmp_path / "forecaster.py").write_text(FORECASTER)
    main = tmp_path / "main.py"
    main.write_text(
        f"import numpy as np\nimport tensorflow as tf\nfrom forecaster import {function}\nfor day in range(7):\n"
        f"    print({function}(np.ones((1, 4))))\n"
    )
    assert found(main) == ({("GL101", 5)} if reported else set())


# One count of a loop's runs for every analysis (static.model.repeats.loop_count): literals,
# names bound once, range, enumerate, zip, sorted; at and just below GL102's min-repeats (3).
@pytest.mark.parametrize(
    "setup, iterable, reported",
    [
        ("STEPS = 2", "range(STEPS)", False),
        ("STEPS = 3", "range(STEPS)", True),
        ("STEPS = int(input())", "range(STEPS)", True),  # unknown: may run often
        ("MODES = ('a', 'b')", "enumerate(MODES)", False),
        ("MODES = ('a', 'b', 'c')", "zip(MODES, range(10))", True),
        ("MODES = ('a', 'b')", "zip(MODES, range(10))", False),
        ("MODES = ['a', 'b']", "sorted(MODES)", False),
        ("MODES = ['a', 'b']\nMODES.append('c')", "MODES", True),  # grown: no fixed length
    ],
)
def test_a_loop_runs_as_often_as_the_source_fixes(tmp_path, setup, iterable, reported):
    body = setup + "\nx = tf.constant(1.0)\nsess = tf1.Session()\n"
    path = _write(tmp_path, body + f"for item in {iterable}:\n    sess.run(tf.square(x))  # op\n")
    line = next(n for n, text in enumerate(path.read_text().splitlines(), 1) if text.endswith("# op"))
    assert found(path) == ({("GL102", line)} if reported else set())


_TEST_CASES = """
import numpy as np


class CasesTest(tf.test.TestCase):

    def test_session_per_case(self):
        for shape in [(2,), (3,), (4,)]:
            with self.session() as sess:
                zeros = tf.zeros(shape)  # expect: GL102
                self.assertAllEqual(sess.run(zeros), np.zeros(shape))

    def test_models_per_config(self):
        for units in [4, 8, 16]:
            model = tf.keras.Sequential([tf.keras.layers.Dense(units)])  # expect: GL503
            self.assertEqual(model(np.ones((1, 3), np.float32)).shape[-1], units)

    def test_function_per_device(self):
        for device in self.devices():
            with tf.device(device):
                double = tf.function(lambda v: v * 2.0)  # expect: GL502
                self.assertAllClose(double(tf.constant(1.0)), 2.0)
"""


@pytest.mark.parametrize(
    "name,reported",
    [
        ("cases.py", True),
        ("cases_test.py", False),
        ("test_cases.py", False),
        ("pkg/cases_tests.py", False),
        ("tests.py", False),
        ("testing_cases.py", True),  # not a test module's name
        ("contest.py", True),
    ],
)
def test_a_test_modules_loops_enumerate_cases(tmp_path, name, reported):
    """In a test module (pytest's and unittest's names), a loop runs a test once per case
    (dtypes, shapes, configurations, devices), each test in a graph of its own: what it builds
    per case is not repetition. The same code anywhere else is."""
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER + _TEST_CASES)
    expected = _expected(path)
    assert len(expected) == 3
    assert found(str(path)) == (expected if reported else set())


@pytest.mark.parametrize("name,reported", [("forecaster.py", True), ("forecaster_test.py", False)])
def test_a_rule_about_repetition_reports_nothing_located_in_a_test_module(tmp_path, name, reported):
    """Not only loops: a per-call method that builds its model (GL101) is left out of a test
    module too (Rule.repetition), as at runtime; what is not about repetition (GL103) stays."""
    path = tmp_path / name
    source = (Path(__file__).parents[2] / "samples" / "rules" / "gl101_bad.py").read_text()
    path.write_text(source + "\n\nwith tf.Graph():\n    tf.constant(1.0)\n")
    codes = {code for code, _ in found(str(path))}
    assert codes == ({"GL101", "GL103"} if reported else {"GL103"})


_GET_OR_REFRESH = """
class _State:
    session = None


_STATE = _State()
FORCE = False


def _make_session():
    session = tf1.Session()  # expect: GL301
    _STATE.session = session


def get_session():
    if getattr(_STATE, "session", None) is None or _STATE.session.graph is not tf1.get_default_graph():
        _make_session()
    return _STATE.session


def run(batches, fetch):
    for batch in batches:
        get_session().run(fetch, {"x:0": batch})
"""


@pytest.mark.parametrize(
    "guard,reported",
    [
        ('getattr(_STATE, "session", None) is None or _STATE.session.graph is not tf1.get_default_graph()', False),
        ("_STATE.session is None or _STATE.session.graph != tf1.get_default_graph()", False),
        ('getattr(_STATE, "session", None) is None or FORCE', True),  # made again whenever FORCE is set
        ("_STATE.session is None or tf1.get_default_graph() is not None", True),  # not the cache's own state
    ],
)
def test_a_cache_made_when_missing_or_stale_is_made_once(tmp_path, guard, reported):
    """Get-or-create that also remakes the cache when what it was made for changed (a session
    for another graph, as Keras' own backend does): made once per graph, not per call (GL301)."""
    source = _GET_OR_REFRESH.replace(
        'getattr(_STATE, "session", None) is None or _STATE.session.graph is not tf1.get_default_graph()', guard
    )
    path = _write(tmp_path, source)
    assert found(str(path)) == (_expected(path) if reported else set())
    assert len(_expected(path)) == 1


@pytest.mark.parametrize("guard", ["prev is None or prev != count", "prev is None or count != prev"])
def test_an_op_built_whenever_a_remembered_value_changes_is_no_cache(tmp_path, guard):
    """``prev is None or prev != count`` remembers a value, not a cache: the assign op is built
    again each time the count changes, i.e. every epoch here (GL102), whichever side it is on."""
    path = _write(
        tmp_path,
        f"""
        steps_per_run = tf1.Variable(1)


        def train(sess, epochs, steps_to_run, train_op):
            for epoch in range(epochs):
                prev = None
                for count in steps_to_run:
                    if {guard}:
                        sess.run(steps_per_run.assign(count))  # expect: GL102
                        prev = count
                    sess.run(train_op)
        """,
    )
    assert found(str(path)) == _expected(path) and len(_expected(path)) == 1


def test_a_value_remembered_on_self_is_no_cache_either(tmp_path):
    """``self.prev is None or self.prev != count``: the guard compares the remembered value
    itself, not an attribute of a cache, so the op is still built per change (GL102)."""
    path = _write(
        tmp_path,
        """
        class Trainer:
            def __init__(self):
                self.prev = None
                self.steps = tf1.Variable(1)

            def fit(self, sess, epochs, steps_to_run, train_op):
                for epoch in range(epochs):
                    self.prev = None
                    for count in steps_to_run:
                        if self.prev is None or self.prev != count:
                            sess.run(self.steps.assign(count))  # expect: GL102
                            self.prev = count
                        sess.run(train_op)
        """,
    )
    assert found(str(path)) == _expected(path) and len(_expected(path)) == 1
