"""GL502's static form on `jax.jit`: a jitted function made again and again, found by
`graphlint check` without JAX (it only parses), with what re-jitting costs by what is jitted."""

from __future__ import annotations

import pytest

from harness import SAMPLES, expected_markers

JAX = SAMPLES / "jax"
BAD = sorted(JAX.glob("*_bad*.py"))
GOOD = sorted(JAX.glob("*_good*.py"))


STATIC_CASES = [
    ("import jax\nfor i in range(3):\n    f = jax.jit(lambda x: x + i)  # hit\n", True),
    ("from jax import jit as j\ndef predict(x):\n    return j(lambda v: v)(x)  # hit\nfor i in range(3):\n    predict(i)\n", True),
    ("import jax\ndef serve(x):\n    @jax.jit  # hit\n    def inner(v):\n        return v\n    return inner(x)\nfor i in range(3):\n    serve(i)\n", True),
    ("import jax\nfrom functools import partial\ndef serve(x):\n    @partial(jax.jit, static_argnums=1)  # hit\n    def inner(v, n):\n        return v\n    return inner(x, 1)\nfor i in range(3):\n    serve(i)\n", True),
    ("import jax\nfor i in range(3):\n    g = jax.vmap(jax.jit(lambda x: x))  # hit\n", True),
    ("import jax\n\n@jax.jit\ndef f(x):\n    return x\nfor i in range(3):\n    f(i)\n", False),
    ("import jax\nclass Model:\n    def __init__(self):\n        self.fast = jax.jit(self.slow)\n    def slow(self, x):\n        return x\n", False),
    ("import jax\nfast = jax.jit(lambda x: x)\ndef predict(x):\n    return fast(x)\nfor i in range(3):\n    predict(i)\n", False),
]


@pytest.mark.parametrize("source, hit", STATIC_CASES, ids=range(len(STATIC_CASES)))
def test_static_gl502_for_jax_jit(tmp_path, source, hit):
    """No JAX needed: `graphlint check` only parses."""
    from graphlint.config import Config
    from graphlint.registry import discover_rules
    from graphlint.static import check_file

    path = tmp_path / "prog.py"
    path.write_text(source)
    rules = [cls for cls in discover_rules(plugins=False).values() if "static" in cls.engines]
    found = [f for f in check_file(str(path), rules, Config(select=["GL502"])).findings]
    want = [n for n, line in enumerate(source.splitlines(), 1) if "# hit" in line]
    assert [f.location.line for f in found] == (want if hit else [])
    for f in found:
        assert "jitted function" in f.message and "jax.jit" in f.fix


@pytest.mark.parametrize(
    "jitted, words",
    [
        ("lambda v: v", "a new jitted function, traced and compiled again, on every call"),
        ("inner", "a new jitted function, traced and compiled again, on every call"),
        ("partial(f, 1)", "a new jitted function, traced and compiled again, on every call"),
        ("fn", "traced again unless JAX finds the same function object in its cache, on every call"),
        ("f", None),  # one module-level function: JAX's cache finds it, nothing is traced again
        ("jnp.sum", None),  # an imported function: one object too
    ],
)
def test_static_gl502_says_what_rejitting_costs_by_what_is_jitted(tmp_path, jitted, words):
    from graphlint.config import Config
    from graphlint.registry import discover_rules
    from graphlint.static import check_file

    path = tmp_path / "prog.py"
    path.write_text(
        "import jax\nimport jax.numpy as jnp\nfrom functools import partial\n\ndef f(x):\n    return x\n\n"
        "def predict(x, fn):\n    def inner(v):\n        return v\n"
        f"    return jax.jit({jitted})(x)\n\nfor i in range(3):\n    predict(i, f)\n"
    )
    rules = [cls for cls in discover_rules(plugins=False).values() if "static" in cls.engines]
    found = check_file(str(path), rules, Config(select=["GL502"])).findings
    if words is None:
        assert found == []
        return
    (finding,) = found
    assert finding.location.line == 11 and finding.message.endswith(words), finding.message


def test_graphlint_check_on_the_jax_samples_finds_only_the_static_gl502():
    """No JAX needed: the static engine reads JAX-only files too (none imports TensorFlow)."""
    from graphlint.config import Config
    from graphlint.registry import discover_rules
    from graphlint.static import check_file

    rules = [cls for cls in discover_rules(plugins=False).values() if cls.checks_statically()]
    found = {
        (path.name, f.code, f.location.line)
        for path in BAD + GOOD
        for f in check_file(str(path), rules, Config()).findings
    }
    bad = JAX / "gl502_jax_bad.py"
    assert found == {(bad.name, code, line) for code, line in expected_markers(bad)}
