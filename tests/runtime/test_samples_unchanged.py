"""Every sample prints and returns the same with and without graphlint (issue 6): each runs
twice, plainly and as ``graphlint run``'s child runs it, in children forked from one process
that imported TensorFlow once (tests/fork_driver.py), each framework's samples from a parent
that imported that framework once."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from harness import HANG_GUARD, ROOT, SAMPLES, TF_ENV, sample_framework, tf_quiet

ENV = {**os.environ, **TF_ENV, "PYTHONHASHSEED": "0"}


ALL_SAMPLES = sorted(SAMPLES.glob("**/*.py"))
#: The TF2 rules, whose samples print what their run computed (losses, trace counts,
#: predictions): each must print something for the comparison to compare.
TF2_RULES = ("gl501", "gl502", "gl503", "gl504")

def _user_frames_and_errors(err: bytes, path: Path) -> list[bytes]:
    """The traceback lines about the program's own file, and the exception lines."""
    keep = []
    for line in tf_quiet(err).splitlines():
        if f'File "{path}"'.encode() in line or re.match(rb"^[A-Za-z_][\w.]*(Error|Exception|Interrupt)\b", line):
            keep.append(line)
    return keep

#: What a framework's samples import beyond TensorFlow (which imports Keras and JAX itself): the
#: driver's parent for those samples imports it once, instead of every child again (torch and
#: its compiler, some 4 s of CPU a child, 36 children).
FRAMEWORK_IMPORTS = {"tf-keras": "tf_keras", "torch": "torch,torch._dynamo,torch._inductor.compile_fx"}
#: The parts the samples are run in, each by a driver of its own, so that pytest-xdist's two
#: workers share the minutes instead of one of them ending the run with all of them: the
#: frameworks of a part's samples, and into how many parts those are dealt (by framework, so
#: that a part imports few; some 30-40 s of CPU each).
PARTS = {"tensorflow-v1": ("tensorflow-v1",), "keras-0": ("keras",), "keras-1": ("keras",),
         "tensorflow-jax-torch": ("tensorflow", "tf-keras", "jax", "torch")}


def part_samples(part: str) -> list[Path]:
    """The samples of ``part``: those of its frameworks, dealt in turn to the parts that share them."""
    sharing = [name for name, frameworks in PARTS.items() if frameworks == PARTS[part]]
    mine = [p for p in ALL_SAMPLES if sample_framework(p) in PARTS[part]]
    return mine[sharing.index(part)::len(sharing)]


def driver_arguments(samples: list[Path]) -> list[str]:
    """``tests/fork_driver.py``'s arguments for ``samples`` in their order: a group (``--imports``)
    wherever the framework changes."""
    args, last = [], None
    for path in samples:
        framework = sample_framework(path)
        if framework != last:
            args += ["--imports", FRAMEWORK_IMPORTS.get(framework, "")]
            last = framework
        args.append(str(path))
    return args


def test_the_parts_run_every_sample_once():
    parts = [p for part in PARTS for p in part_samples(part)]
    assert sorted(parts) == ALL_SAMPLES


@pytest.mark.slow
@pytest.mark.parametrize("part", PARTS)
def test_every_sample_prints_and_returns_the_same_with_and_without_graphlint(tmp_path, part):
    samples = sorted(part_samples(part), key=lambda p: (sample_framework(p), p))
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "fork_driver.py"), str(tmp_path), *driver_arguments(samples)],
        env=ENV, capture_output=True, timeout=HANG_GUARD,  # a hang guard: a part takes a minute or less
    )
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    failed = []
    for i, path in enumerate(samples):
        plain = json.loads((tmp_path / f"{i}.plain.json").read_text())
        linted = json.loads((tmp_path / f"{i}.graphlint.json").read_text())
        name = path.relative_to(ROOT)
        out = (tmp_path / f"{i}.plain.out").read_bytes()
        if out != (tmp_path / f"{i}.graphlint.out").read_bytes():
            failed.append(f"{name}: stdout differs")
        if path.parent.name == "rules" and path.name[:5] in TF2_RULES and not out.strip():
            failed.append(f"{name}: prints nothing to compare")
        if plain["status"] is None or linted["status"] is None:  # the driver's child failed before the end
            failed.append(f"{name}: did not run to its end: {(tmp_path / f'{i}.plain.err').read_bytes()[-500:]!r}")
        elif plain["status"] != linted["status"]:
            failed.append(f"{name}: status {plain['status']} != {linted['status']}")
        errs = [(tmp_path / f"{i}.{mode}.err").read_bytes() for mode in ("plain", "graphlint")]
        if _user_frames_and_errors(errs[0], path) != _user_frames_and_errors(errs[1], path):
            failed.append(f"{name}: traceback differs")
        if "GL000" in linted["codes"]:
            failed.append(f"{name}: GL000")
        if linted["warnings"]:
            failed.append(f"{name}: {linted['warnings']}")
    assert failed == []
    assert len(ALL_SAMPLES) >= 40
