"""Valid code as deep as Python itself parses is analysed, never a GL000 (issue 23):
`f(0.1 / (epoch + 1+1+...+1))` in a loop with 500 terms was "GL000 rule GL501 failed ...
RecursionError" and the GL501 was lost (300 worked; Python compiles ~2,900). What Python
cannot compile stays one GL001."""

from __future__ import annotations

import sys

import pytest

from graphlint.config import Config
from graphlint.registry import discover_rules
from graphlint.static import check_file, check_files


def program(terms: int) -> str:
    return (
        "import tensorflow as tf\n\n@tf.function\ndef f(x):\n    return x\n\n"
        "for epoch in range(8):\n    f(0.1 / (epoch + " + "+".join(["1"] * terms) + "))\n"
    )


def static_rules() -> list[type]:
    return [c for c in discover_rules(plugins=False).values() if c.checks_statically()]


def codes(results) -> list[tuple[str, int]]:
    return [(f.code, f.location.line) for r in results for f in r.findings]


def compiles(source: str) -> bool:
    try:
        compile(source, "x", "exec")
    except RecursionError:
        return False
    return True


@pytest.mark.parametrize("terms", [300, 500, 2500])
def test_a_deep_expression_in_a_loop_is_analysed(tmp_path, terms):
    path = tmp_path / "deep.py"
    path.write_text(program(terms))
    assert compiles(program(terms))
    assert codes([check_file(str(path), static_rules(), Config())]) == [("GL501", 8)]


def test_many_deep_files_in_one_run_and_in_a_pool(tmp_path):
    """In turn in this process and over worker processes, as `graphlint check` runs them."""
    paths = []
    for i in range(70):  # enough for a pool (engine.PARALLEL_MIN_FILES)
        path = tmp_path / f"deep{i}.py"
        path.write_text(program(2500) if i % 10 == 0 else "x = 1\n")
        paths.append(str(path))
    expected = [("GL501", 8)] * 7
    assert codes(check_files(paths, static_rules(), Config(), jobs=1)) == expected
    assert codes(check_files(paths, static_rules(), Config(), jobs=2)) == expected


def test_deeper_than_python_compiles_is_still_one_gl001(tmp_path):
    source = program(4000)
    assert not compiles(source)
    path = tmp_path / "deeper.py"
    path.write_text(source)
    assert [code for code, _ in codes([check_file(str(path), static_rules(), Config())])] == ["GL001"]


def test_the_recursion_limit_is_the_callers_again_after_a_check(tmp_path):
    path = tmp_path / "deep.py"
    path.write_text(program(2500))
    before = sys.getrecursionlimit()
    check_file(str(path), static_rules(), Config())
    assert sys.getrecursionlimit() == before
