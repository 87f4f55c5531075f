"""Interim reports (graphlint.child): what ``finish()`` would report now, judged on copies of
the rules, which carry on untouched. Run in this process on every TF1 sample (the other
samples run in subprocesses: tests/runtime/test_samples.py)."""

from __future__ import annotations

import pytest

from harness import SAMPLE_PATHS, SAMPLES, is_bad_sample, sample_driver
from graphlint.child import judged_copy, pickled_copy

#: the bad ones (a good twin has nothing to report either way)
TF1_SAMPLES = [p for p in SAMPLE_PATHS if sample_driver(p) == "tf1" and is_bad_sample(p)]


@pytest.mark.parametrize("path", TF1_SAMPLES, ids=lambda p: str(p.relative_to(SAMPLES)))
def test_an_interim_report_at_the_end_is_the_final_report_and_changes_nothing(path, monkeypatch):
    import tensorflow as tf

    from graphlint.instrument import instrument
    from graphlint.linter import Linter, Sink
    from harness import run_main

    tf.compat.v1.reset_default_graph()
    monkeypatch.chdir(path.parent)
    linter = Linter()
    with instrument(linter):
        outcome = run_main(path)
        for rule in linter.main.rules:  # every built-in rule's state copies the fast way
            assert pickled_copy(rule, Sink(linter.config))._sink is not linter.main.sink
        first = judged_copy(linter.main)
        again = judged_copy(linter.main)  # the rules were left as they were
        final = linter.finish(outcome.status)
    assert first == again == final
