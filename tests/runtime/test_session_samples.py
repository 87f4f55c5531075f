"""Focused checks for GL301 session-churn, GL302 fetch-churn, GL303 session-leak, GL401
checkpoint-mismatch, and the forecast story (samples/story); that every sample yields exactly its
markers is tests/runtime/test_samples.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness import SAMPLES, line_of, run_in_process, write_program

RULES = SAMPLES / "rules"
_CODES = ("gl301", "gl302", "gl303", "gl401")


def test_every_code_has_samples():
    for code in _CODES:
        assert list(RULES.glob(f"{code}_bad*.py")), code
        assert list(RULES.glob(f"{code}_good*.py")), code


_TF1 = "import numpy as np\nimport tensorflow as tf\n\ntf1 = tf.compat.v1\ntf1.disable_eager_execution()\n"


def _program(tmp_path: Path, body: str, name: str = "prog.py") -> Path:
    return write_program(tmp_path, body, name, header=_TF1)


def _codes(findings, path):
    return {(f.code, f.location.line) for f in findings if f.location.path == str(path)}


# -- GL302 -----------------------------------------------------------------------------------
@pytest.mark.parametrize("combinations, fires", [(5, False), (10, False), (11, True), (16, True)])
def test_fetch_churn_threshold(tmp_path, combinations, fires):
    path = _program(
        tmp_path,
        f"""
        x = tf1.placeholder(tf.float32, [None], name="x")
        outputs = [x * float(i) for i in range({combinations})]
        with tf1.Session() as sess:
            for out in outputs:
                print(sess.run(out, {{x: [1.0, 2.0]}}))  # the fetch line
        """,
    )
    findings, outcome = run_in_process(path)
    assert not outcome.failed
    line = line_of(path, "# the fetch line")
    expected = {("GL302", line)} if fires else set()
    assert _codes(findings, path) == expected
    if fires:
        (finding,) = findings
        assert f"{combinations} distinct" in finding.message


def test_fetch_churn_not_counting_repeats(tmp_path):
    """The same 3 combinations run 20 times each are 3 combinations, not 60."""
    path = _program(
        tmp_path,
        """
        x = tf1.placeholder(tf.float32, [None], name="x")
        outputs = [x * float(i) for i in range(3)]
        with tf1.Session() as sess:
            for step in range(20):
                for out in outputs:
                    sess.run(out, {x: [1.0]})
        """,
    )
    findings, _ = run_in_process(path)
    assert findings == []


# -- GL401 -----------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["rules/gl401_bad.py", "story/forecast_2_reuse_fix.py"])
def test_checkpoint_mismatch_names_missing_variables_and_minimize_site(name):
    path = SAMPLES / name
    findings, outcome = run_in_process(path)
    assert outcome.failed  # TensorFlow's restore raises NotFoundError...
    (finding,) = [f for f in findings if f.code == "GL401"]  # ...and the finding is there
    assert finding.location.line == line_of(path, ".restore(")
    scope = "dense" if "gl401" in name else "weight_def"
    for var in ("beta1_power", "beta2_power", f"{scope}/weights/Adam_1" if scope == "weight_def" else f"{scope}/kernel/Adam_1"):
        assert f"'{var}'" in finding.message, finding.message
    minimize = line_of(path, ".minimize(")
    assert finding.related
    assert {r.location.line for r in finding.related} == {minimize}
    assert all(r.location.path == str(path) for r in finding.related)


def test_checkpoint_mismatch_names_a_bytes_path_as_text(tmp_path):
    """TensorFlow's Saver.restore takes the path as bytes too: the finding still names it as
    the user wrote it, not as `b'...'`."""
    path = _program(
        tmp_path,
        """
        import os, shutil, tempfile
        d = tempfile.mkdtemp()
        try:
            w = tf1.get_variable("w", [2], initializer=tf1.ones_initializer())
            init = tf1.global_variables_initializer()
            with tf1.Session() as sess:
                sess.run(init)
                saved = tf1.train.Saver().save(sess, os.path.join(d, "m.ckpt"))
            loss = tf.reduce_sum(w * w)
            train_op = tf1.train.AdamOptimizer(0.1).minimize(loss)
            with tf1.Session() as sess:
                tf1.train.Saver().restore(sess, os.fsencode(saved))
        finally:
            shutil.rmtree(d)
        """,
    )
    findings, outcome = run_in_process(path)
    assert outcome.failed  # the Adam slots are not in the checkpoint
    (finding,) = [f for f in findings if f.code == "GL401"]
    assert finding.location.line == line_of(path, ".restore(")
    assert "checkpoint '/" in finding.message and "m.ckpt'" in finding.message, finding.message
    assert "b'" not in finding.message, finding.message


def test_checkpoint_mismatch_silent_with_var_list(tmp_path):
    path = _program(
        tmp_path,
        """
        import os, shutil, tempfile
        d = tempfile.mkdtemp()
        try:
            w = tf1.get_variable("w", [2], initializer=tf1.ones_initializer())
            loss = tf.reduce_sum(w * w)
            train_op = tf1.train.AdamOptimizer(0.1).minimize(loss)
            init = tf1.global_variables_initializer()
            saver = tf1.train.Saver(var_list=[w])
            with tf1.Session() as sess:
                sess.run(init)
                path = saver.save(sess, os.path.join(d, "m.ckpt"))
                saver.restore(sess, path)
                print(sess.run(w))
        finally:
            shutil.rmtree(d)
        """,
    )
    findings, outcome = run_in_process(path)
    assert not outcome.failed
    assert findings == []


# -- GL303 -----------------------------------------------------------------------------------
@pytest.mark.parametrize("style", ["module", "main"])
def test_session_leak_silent_for_one_session_open_at_end(tmp_path, style):
    """One session never closed, held until the script ends: as a global, or as a local of
    main() (dropped when main() returns, i.e. when the program ends) — no finding."""
    if style == "module":
        body = """
        x = tf1.placeholder(tf.float32, [None], name="x")
        y = x * 2.0
        sess = tf1.Session()
        print(sess.run(y, {x: [1.0, 2.0]}))
        """
    else:
        body = """
        def main():
            x = tf1.placeholder(tf.float32, [None], name="x")
            y = x * 2.0
            sess = tf1.Session()
            print(sess.run(y, {x: [1.0, 2.0]}))


        if __name__ == "__main__":
            main()
        """
    path = _program(tmp_path, body)
    findings, outcome = run_in_process(path)
    assert not outcome.failed
    assert findings == []


def test_session_leak_pile_up(tmp_path):
    path = _program(
        tmp_path,
        """
        x = tf1.placeholder(tf.float32, [None], name="x")
        y = x * 2.0
        train_sess = tf1.Session()
        eval_sess = tf1.Session()
        debug_sess = tf1.Session()  # the third
        for s in (train_sess, eval_sess, debug_sess):
            print(s.run(y, {x: [1.0]}))
        """,
    )
    findings, _ = run_in_process(path)
    third = line_of(path, "# the third")
    # three sessions on one graph: churn (GL301) and, all still open, a pile-up (GL303)
    assert _codes(findings, path) == {("GL301", third), ("GL303", third)}
    (leak,) = [f for f in findings if f.code == "GL303"]
    assert {r.location.line for r in leak.related} == {third - 2, third - 1}


def test_session_leak_reported_when_dropped_while_running(tmp_path):
    path = _program(
        tmp_path,
        """
        x = tf1.placeholder(tf.float32, [None], name="x")
        y = x * 2.0

        def evaluate(v):
            sess = tf1.Session()  # dropped
            return sess.run(y, {x: v})

        print(evaluate([1.0]))
        with tf1.Session() as sess:
            print(sess.run(y, {x: [3.0]}))
        """,
    )
    findings, _ = run_in_process(path)
    assert _codes(findings, path) == {("GL303", line_of(path, "# dropped"))}


# -- GL301 -----------------------------------------------------------------------------------
def test_session_churn_per_graph(tmp_path):
    """Three sessions for one graph from three different lines: reported at the third."""
    path = _program(
        tmp_path,
        """
        x = tf1.placeholder(tf.float32, [None], name="x")
        y = x * 2.0
        with tf1.Session() as sess:
            print(sess.run(y, {x: [1.0]}))
        with tf1.Session() as sess:
            print(sess.run(y, {x: [2.0]}))
        with tf1.Session() as sess:  # the third
            print(sess.run(y, {x: [3.0]}))
        """,
    )
    findings, _ = run_in_process(path)
    assert _codes(findings, path) == {("GL301", line_of(path, "# the third"))}


def test_session_churn_silent_for_two_sessions_per_line(tmp_path):
    path = _program(
        tmp_path,
        """
        x = tf1.placeholder(tf.float32, [None], name="x")
        y = x * 2.0

        def once(v):
            with tf1.Session() as sess:
                return sess.run(y, {x: v})

        print(once([1.0]), once([2.0]))
        """,
    )
    findings, _ = run_in_process(path)
    assert findings == []
