"""`graphlint rules` prints one aligned table: every column as wide as its widest cell, so a
long framework list (`tensorflow+jax+torch`) or a plugin's long rule name never pushes the
summary of its row out of line with the others."""

from __future__ import annotations

from click.testing import CliRunner

from graphlint.cli import main
from graphlint.registry import discover_rules


def test_every_summary_starts_in_one_column():
    rules = discover_rules(plugins=False)
    result = CliRunner().invoke(main, ["rules", "--no-plugins"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert len(lines) == len(rules)
    starts = {line.index(rule.summary) for line, rule in zip(lines, rules.values())}
    assert len(starts) == 1, lines
    widest = max(len("+".join(r.frameworks)) for r in rules.values())
    assert widest > 15  # the width the column had: a row wider than it exists today
