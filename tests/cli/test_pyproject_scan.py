"""A pyproject.toml is parsed only when its bytes can make ``tool.graphlint`` a table (or make
``tool`` something else, an error): many projects name graphlint there without configuring it
(a dependency, a console script, a hook), and their file is passed over unparsed. The scan
must never pass over a file whose table TOML sees: every spelling below that tomllib reads as
``[tool.graphlint]`` (or rejects) is parsed, and the one-file check of a sample in this
repository, whose pyproject.toml names graphlint without the table, imports no TOML reader
(tests/cli/test_start_imports.py)."""

from __future__ import annotations

import itertools
import tomllib

import pytest

from graphlint.config import ConfigError
from graphlint.config_files import section_of

#: Ways to spell a key part, and the space TOML allows around a dot or inside brackets.
QUOTES = ["{}", '"{}"', "'{}'"]
SPACES = ["", " ", "\t"]
#: Statements that make ``tool.graphlint`` a table (``{t}``: tool, ``{g}``: graphlint, ``{s}``:
#: space around a dot, ``{b}``: space inside brackets).
DEFINING = [
    "[{b}{t}{s}.{s}{g}{b}]\nselect = []\n",
    "[[{b}{t}{s}.{s}{g}{b}]]\nselect = []\n",
    "[{b}{t}{s}.{s}{g}{s}.{s}rules{s}.{s}GL101{b}]\nmax-traces = 3\n",
    "[{b}{t}{b}]\n{g} = {{}}\n",
    "[{b}{t}{b}]\n{g}{s}.{s}select = []\n",
    "[{b}{t}{b}]  # the tools\nruff = 1\n{g}.select = []\n",
    "{t}{s}.{s}{g}{s}.{s}select = []\n",
    "  {t}{s}.{s}{g} = {{}}\n",
    "{t} = {{ {g} = {{}} }}\n",
]
BEFORE = ['', '[project]\nname = "graphlint-demo"\n', '\ufeff', 'x = """\n[tool.ruff]\n"""\n']


def _spellings():
    for statement, tq, gq, s, b, before in itertools.product(DEFINING, QUOTES, QUOTES, SPACES, SPACES, BEFORE):
        text = before + statement.format(t=tq.format("tool"), g=gq.format("graphlint"), s=s, b=b)
        yield text


def _table_of(text: str):
    """What tomllib makes of ``tool.graphlint``: its table, ``INVALID`` (an error graphlint
    reports), or None (no table)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return INVALID
    if "tool" in data and not isinstance(data["tool"], dict):
        return INVALID
    table = data.get("tool", {}).get("graphlint")
    return table if isinstance(table, dict) or table is None else INVALID


INVALID = "invalid"


def test_every_spelling_of_the_table_tomllib_reads_is_read():
    seen = 0
    for text in _spellings():
        table = _table_of(text)
        if table is None:
            continue  # (a spelling TOML itself reads as no table)
        seen += 1
        if table is INVALID:
            with pytest.raises(ConfigError):
                section_of("pyproject.toml", text.encode("utf-8"))
        else:
            assert section_of("pyproject.toml", text.encode("utf-8")) == table, text
    assert seen > 1000


@pytest.mark.parametrize(
    "text",
    [
        '[project]\nname = "graphlint-ml"\ndependencies = ["graphlint-ml>=0.1"]\n',
        '[project.scripts]\ngraphlint = "graphlint.cli:console"\n\n[project.entry-points.pytest11]\ngraphlint = "graphlint.plugin"\n',
        '[tool.ruff]\nextend-exclude = ["graphlint/_boot"]  # graphlint\n',
        '[tool.ruff.per-file-ignores]\n"graphlint/x.py" = ["E501"]\n',
        '[tool.other]\ngraphlint = 1\n',
        '[tool.setuptools.packages.find]\ninclude = ["graphlint*"]\n',
    ],
)
def test_a_pyproject_naming_graphlint_without_the_table_is_not_parsed(text, monkeypatch):
    def no_parse(*_):
        raise AssertionError("parsed")

    assert _table_of(text) is None
    monkeypatch.setattr(tomllib, "loads", no_parse)
    assert section_of("pyproject.toml", text.encode()) is None


@pytest.mark.parametrize(
    "raw",
    [b"tool = 3\n", b'["\\u0074ool"]\ngraphlint = 3\n', b"\xff\xfe[tool.graphlint]\n", b"[tool.graphlint\n"],
)
def test_what_the_bytes_cannot_rule_out_is_read_and_its_error_said(raw):
    with pytest.raises(ConfigError):
        section_of("pyproject.toml", raw)
