"""A `# graphlint: noqa` line silences a whole file only where it is a comment: the same
words inside a string (a docstring that tells how to silence graphlint) silence nothing."""

from __future__ import annotations

import pytest

from harness import found

SESSION_IN_LOOP = "import tensorflow as tf\n\nfor i in range(10):\n    sess = tf.compat.v1.Session()\n"


@pytest.mark.parametrize(
    "quoted",
    [
        '"""To silence graphlint in a file, write this line:\n\n# graphlint: noqa\n"""\n',
        "HELP = '''\n    # graphlint: noqa: GL301\n'''\n",
        'x = (\n    "a"\n    """\n# graphlint: noqa\n"""\n)\n',
    ],
    ids=["docstring", "string-with-codes", "implicit-concatenation"],
)
def test_a_file_directive_inside_a_string_silences_nothing(tmp_path, quoted):
    path = tmp_path / "a.py"
    path.write_text(quoted + SESSION_IN_LOOP)
    line = quoted.count("\n") + 4
    assert found(path) == {("GL301", line)}


def test_a_file_directive_that_is_a_comment_still_silences_the_file(tmp_path):
    path = tmp_path / "a.py"
    path.write_text('"""A module."""\n  # graphlint: noqa: GL301\n' + SESSION_IN_LOOP)
    assert found(path) == set()


LOOP = "import tensorflow as tf\n\nfor i in range(10):\n    {line}\n"


@pytest.mark.parametrize(
    "line",
    [
        'sess = tf.compat.v1.Session(); note = "# noqa"',
        "sess = tf.compat.v1.Session(config='# noqa: GL301')",
        'sess = tf.compat.v1.Session(); note = "say \\"# noqa\\" here"',
        "sess = tf.compat.v1.Session(); note = '''# noqa'''",
    ],
    ids=["double-quoted", "single-quoted-with-code", "escaped-quotes", "triple-quoted"],
)
def test_a_noqa_inside_a_string_silences_nothing(tmp_path, line):
    path = tmp_path / "a.py"
    path.write_text(LOOP.format(line=line))
    assert {code for code, _ in found(path)} == {"GL301"}


@pytest.mark.parametrize(
    "line",
    [
        "sess = tf.compat.v1.Session()  # noqa",
        "sess = tf.compat.v1.Session(config='#')  # noqa: GL301",
        "sess = tf.compat.v1.Session()  # keep it # noqa: GL301",
        'sess = tf.compat.v1.Session(config="\'")  # noqa',
    ],
    ids=["plain", "after-a-hash-in-a-string", "later-in-the-comment", "after-a-quote-in-a-string"],
)
def test_a_noqa_comment_after_strings_still_silences(tmp_path, line):
    path = tmp_path / "a.py"
    path.write_text(LOOP.format(line=line))
    assert found(path) == set()
