"""Score the pytest plugin on a real test suite: precision, determinism, outcomes, wall time.

    .venv/bin/python bench/suite_score.py LABELS SUITE_ROOT REPORT [REPORT...]
        [--junit PLAIN.xml PLUGIN.xml ...]

``REPORT`` files are ``--graphlint-report=FILE.json`` outputs of the same suite (two runs, a run
under ``-n 2``): they must hold the same findings, messages (and so counts) included. ``LABELS`` is a tab-separated file with the
columns ``suite``, ``code``, ``path`` (relative to the suite root), ``line``, ``test`` (the
test id, or ``*`` for every test), ``verdict`` (``TP``, ``FP``, ``DEB``: debatable, left out of
precision) and ``note``. ``--junit`` files (the plain run first) must give every test the same
outcome. Prints precision over judged findings, every unjudged finding, and exits 1 when one is
unjudged, the reports differ or an outcome changed.

Last measured (issue 16, 2 shared cores, other benchmarks running): TFP's 11 files, 826 tests:
0 findings in two serial runs and one under ``-n 2`` (16-17 GL502 before, all now judged FP in
suite_labels.tsv), the same 9 failures as plain; wall 404.7 s plain -> 401.3 s plugin at
equal load (0.99; earlier pairs under uneven load: 1094 -> 1548 and 729 s). Sonnet, 29 files,
882 tests: 0 findings in three runs, 0 outcomes changed; wall 72.0 -> 57.0 s and 42.3 -> 48.0 s
(0.79, 1.13: noise of the same order as the overhead; a RuleScope costs ~17 ms to open and
finish, two per test).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import xml.etree.ElementTree as ET


def _findings(report: str, root: str) -> list[tuple]:
    with open(report, encoding="utf-8") as fh:
        doc = json.load(fh)
    out = []
    for f in doc["findings"]:
        path = os.path.relpath(f["path"], root) if os.path.isabs(f["path"]) else os.path.normpath(f["path"])
        out.append((f["code"], path, f["line"], f.get("test") or "", f["message"]))
    return sorted(out)


def _outcomes(junit: str) -> dict[str, str]:
    result = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        test = f"{case.get('classname')}::{case.get('name')}"
        state = "passed"
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                state = child.tag
        result[test] = state
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("labels")
    parser.add_argument("root")
    parser.add_argument("reports", nargs="+")
    parser.add_argument("--junit", nargs="*", default=[])
    args = parser.parse_args(argv)
    suite = os.path.basename(os.path.normpath(args.root))
    with open(args.labels, newline="", encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh, delimiter="\t") if r["suite"] == suite]
    status = 0
    runs = [_findings(r, args.root) for r in args.reports]
    for other, name in zip(runs[1:], args.reports[1:]):
        if other != runs[0]:  # the same findings, with the same messages (counts included)
            print(f"reports differ: {args.reports[0]} and {name}")
            for finding in sorted(set(runs[0]) ^ set(other))[:20]:
                print(f"  {'only in ' + name if finding in other else 'only in ' + args.reports[0]}: {finding}")
            status = 1
    counts = {"TP": 0, "FP": 0, "DEB": 0}
    for code, path, line, test, message in runs[0]:
        row = next(
            (r for r in rows if r["code"] == code and os.path.normpath(r["path"]) == path
             and int(r["line"]) == line and r["test"] in ("*", test)),
            None,
        )
        if row is None:
            print(f"unjudged: {code} {path}:{line} {test}: {message}")
            status = 1
            continue
        counts[row["verdict"]] += 1
    judged = counts["TP"] + counts["FP"]
    precision = counts["TP"] / judged if judged else 1.0
    print(f"{suite}: {len(runs[0])} findings; TP {counts['TP']}, FP {counts['FP']}, debatable {counts['DEB']}; "
          f"precision {precision:.0%}")
    if args.junit:
        plain = _outcomes(args.junit[0])
        for other in args.junit[1:]:
            changed = {t for t, s in _outcomes(other).items() if plain.get(t) != s}
            print(f"outcomes vs plain, {other}: {len(changed)} changed")
            for test in sorted(changed)[:20]:
                print(f"  {test}")
            status = status or int(bool(changed))
    return status


if __name__ == "__main__":
    sys.exit(main())
