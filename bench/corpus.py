"""Precision and recall of `graphlint check` on a corpus of real code, against a labels file.

    .venv/bin/python bench/corpus.py CORPUS LABELS [--graphlint PATH] [--slack 2] [--select CODES]

Runs ``graphlint check --format json --exit-zero .`` in ``CORPUS`` and matches every finding
(GL001, a file that cannot be parsed, aside) with the rows of ``LABELS``: a tab-separated file
with the columns ``code``, ``path`` (relative to the corpus root), ``line`` (one number, or
several separated by commas), ``verdict`` and ``note``. Verdicts:

* ``TP`` a right finding, ``FP`` a wrong one, ``DEB`` debatable (left out of precision);
* ``MISS`` a finding graphlint should give: *found* (and counted right) when a finding of that
  code lies within ``slack + 1`` lines of it.

A finding matches a row of its code and path within ``slack`` lines. Prints precision over the
judged findings (TP / (TP + FP)), the known misses found, every false positive still reported
and every finding no row judges (judge them: add a row). Exit status 0, or 1 when a finding is
unjudged, a false positive is reported or a miss is not found.

The project's own verdicts for ``../shared/corpus`` are ``bench/corpus_labels.tsv``; for the
source trees of the real test suites (``../shared/suites``: Sonnet and TFP, their tests included)
``bench/suites_static_labels.tsv``; for the installed ``tf_keras`` package (real TF library code:
``.venv/lib/python3.11/site-packages/tf_keras``) ``bench/tf_keras_static_labels.tsv``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def read_labels(path: str) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    for row in rows:
        row["path"] = os.path.normpath(row["path"])
        row["lines"] = [int(x) for x in str(row["line"]).split(",") if x.strip()]
        row["verdict"] = row["verdict"].strip().upper()
    return rows


def run_check(graphlint: str, corpus: str, select: str | None) -> list[tuple[str, str, int, str]]:
    fd, out = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        args = [graphlint, "check", "--format", "json", "--output", out, "--exit-zero"]
        if select:
            args += ["--select", select]
        proc = subprocess.run(args + ["."], cwd=corpus, capture_output=True, text=True)
        if proc.returncode != 0:
            sys.exit(f"graphlint check failed (exit {proc.returncode}): {proc.stderr.strip()[-500:]}")
        with open(out, encoding="utf-8") as fh:
            report = json.load(fh)
    finally:
        os.unlink(out)
    return [
        (f["code"], os.path.normpath(f["path"]), int(f["line"]), f.get("message", ""))
        for f in report["findings"]
        if f["code"] != "GL001"
    ]


def near(row: dict, code: str, path: str, line: int, slack: int) -> bool:
    return row["code"] == code and row["path"] == path and any(abs(line - x) <= slack for x in row["lines"])


def score(findings, labels, slack: int = 2) -> dict:
    judged = [r for r in labels if r["verdict"] != "MISS"]
    misses = [r for r in labels if r["verdict"] == "MISS"]
    verdicts: dict[str, list] = {"TP": [], "FP": [], "DEB": []}
    unjudged = []
    for finding in findings:
        code, path, line, _ = finding
        row = next((r for r in judged if near(r, code, path, line, slack)), None)
        if row is None:  # a known miss, now found, is a right finding
            row = next((r for r in misses if near(r, code, path, line, slack + 1)), None)
            row = dict(row, verdict="TP") if row is not None else None
        if row is None:
            unjudged.append(finding)
        else:
            verdicts.setdefault(row["verdict"], []).append((finding, row))
    found = [r for r in misses if any(near(r, c, p, n, slack + 1) for c, p, n, _ in findings)]
    tp, fp = len(verdicts["TP"]), len(verdicts["FP"])
    return {
        "findings": len(findings),
        "tp": tp,
        "fp": fp,
        "deb": len(verdicts["DEB"]),
        "precision": tp / (tp + fp) if tp + fp else None,
        "false_positives": verdicts["FP"],
        "unjudged": unjudged,
        "misses": misses,
        "misses_found": found,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("corpus")
    parser.add_argument("labels")
    parser.add_argument("--graphlint", default=os.path.join(os.path.dirname(sys.executable), "graphlint"))
    parser.add_argument("--slack", type=int, default=2, help="lines a finding may be off its label")
    parser.add_argument("--select", help="only these codes (passed to graphlint check)")
    args = parser.parse_args(argv)
    findings = run_check(args.graphlint, os.path.abspath(args.corpus), args.select)
    result = score(findings, read_labels(args.labels), args.slack)
    precision = "n/a" if result["precision"] is None else f"{result['precision']:.0%}"
    print(
        f"{result['findings']} findings: {result['tp']} TP, {result['fp']} FP, {result['deb']} debatable, "
        f"{len(result['unjudged'])} unjudged; precision {precision}; known misses found "
        f"{len(result['misses_found'])}/{len(result['misses'])}"
    )
    for (code, path, line, _), row in result["false_positives"]:
        print(f"  FP      {path}:{line} {code} ({row['note']})")
    for row in result["misses"]:
        if row not in result["misses_found"]:
            print(f"  MISSED  {row['path']}:{row['line']} {row['code']} ({row['note']})")
    for code, path, line, message in result["unjudged"]:
        print(f"  JUDGE   {path}:{line} {code} {message}")
    bad = result["false_positives"] or result["unjudged"] or len(result["misses_found"]) < len(result["misses"])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
