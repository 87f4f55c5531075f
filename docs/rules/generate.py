"""Write docs/rules/: one page per built-in rule, generated from the rule's docstring.

    .venv/bin/python docs/rules/generate.py

Each ``GLxxx.md`` is exactly what ``graphlint rule GLxxx`` prints (``graphlint.report.rule_doc``
of the rule's ``RuleDescription``: the docstring's sections, the options, the fix), and
``README.md`` lists them with what ``graphlint rules`` says of each. The rule docstrings are
the one source, as for SARIF's rule help; ``tests/structure/test_rule_docs.py`` fails when a
page is stale.
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def pages() -> dict[str, str]:
    """File name -> text of every page of docs/rules/."""
    from graphlint.registry import describe, discover_rules
    from graphlint.report import rule_doc

    rules = describe(discover_rules(plugins=False))
    out = {f"{code}.md": rule_doc(rule) for code, rule in rules.items()}
    lines = [
        "# graphlint's rules\n",
        "Generated from the rules' docstrings by `docs/rules/generate.py`; `graphlint rule CODE` prints the same page.\n",
        "| Code | Name | Severity | Engines | Frameworks | Summary |",
        "|---|---|---|---|---|---|",
    ]
    for code, rule in rules.items():
        frameworks = ", ".join(rule.frameworks) or "any"
        lines.append(
            f"| [{code}]({code}.md) | `{rule.name}` | {rule.severity.value} | {' + '.join(rule.engines)} | {frameworks} | {rule.summary} |"
        )
    out["README.md"] = "\n".join(lines) + "\n"
    return out


def main() -> None:
    sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))
    for name, text in pages().items():
        with open(os.path.join(HERE, name), "w", encoding="utf-8") as fh:
            fh.write(text)
    print(f"wrote {len(pages())} pages to {os.path.relpath(HERE)}")


if __name__ == "__main__":
    main()
