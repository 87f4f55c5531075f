"""`# noqa` and `# graphlint: noqa` silence only where they are comments: the same words
inside a string (a docstring that tells how to silence graphlint, a message) silence nothing,
and no finding is lost to them."""

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


#: (the loop's line, whether its `# noqa` silences the finding)
LINES = [
    ('sess = tf.compat.v1.Session(); note = "# noqa"', False),
    ("sess = tf.compat.v1.Session(config='# noqa: GL301')", False),
    ('sess = tf.compat.v1.Session(); note = "say \\"# noqa\\" here"', False),
    ("sess = tf.compat.v1.Session(); note = '''# noqa'''", False),
    ("sess = tf.compat.v1.Session()  # noqa", True),
    ("sess = tf.compat.v1.Session(config='#')  # noqa: GL301", True),
    ("sess = tf.compat.v1.Session()  # keep it # noqa: GL301", True),
    ('sess = tf.compat.v1.Session(config="\'")  # noqa', True),
]
IDS = [
    "string-double-quoted", "string-single-quoted-with-code", "string-escaped-quotes", "string-triple-quoted",
    "comment", "comment-after-a-hash-in-a-string", "comment-later-in-the-comment", "comment-after-a-quote-in-a-string",
]


@pytest.mark.parametrize("line,silenced", LINES, ids=IDS)
def test_a_noqa_silences_in_a_comment_and_never_in_a_string(tmp_path, line, silenced):
    path = tmp_path / "a.py"
    path.write_text(LOOP.format(line=line))
    assert found(path) == (set() if silenced else {("GL301", 4)})
