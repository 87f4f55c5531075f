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
