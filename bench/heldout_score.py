"""Precision and recall of `graphlint check` on a held-out set, per set and per rule code.

    .venv/bin/python bench/heldout_score.py FOLDER LABELS [FOLDER LABELS ...]
        [--graphlint PATH] [--report REPORT.json] [--slack 2] [--quiet]

``FOLDER`` holds the files of a ``bench/heldoutN_sources.tsv`` checked out as
``owner__repo/path`` (never inside this repository); ``LABELS`` is its
``bench/heldoutN_static_labels.tsv`` (the columns of ``corpus.py``'s labels: ``code``, ``path``
relative to ``FOLDER``, ``line`` — one number or several separated by commas; in a notebook
``CELL:LINE``, the cell numbered as graphlint reports it — ``verdict`` and ``note``). Verdicts:

* ``TP`` a real anti-pattern graphlint reports (or reported: a ``TP`` row no finding names any more
  is counted as a miss — a true finding that went silent);
* ``FP`` a wrong finding; ``harmless`` (or ``DEB``) a finding that is true to the letter but costs
  nothing worth a warning: reported apart, left out of precision;
* ``MISS`` a real anti-pattern graphlint should report.

A finding *names* a row when code and path agree and its line, or the line of one of its related
locations (a finding at the caller that lists the builder's line counts), lies within ``slack``
lines of one of the row's lines. Each finding is judged by the nearest row it names (a ``MISS`` row
named by a finding makes that finding right). Precision = TP / (TP + FP) over findings; recall =
real bugs found / real bugs, where the real bugs are the ``TP`` and ``MISS`` rows and one is found
when a finding names it. Findings no row names are listed as ``JUDGE`` (judge them: add a row).
GL001, a file that does not parse, is left out.

``--report`` scores a saved ``graphlint check --format json`` report instead of running graphlint
(one set only). Exit status 1 when a finding is unjudged, else 0: the figures are the result.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict

HARMLESS = {"HARMLESS", "DEB"}
REAL = {"TP", "MISS"}


def read_labels(path: str) -> list[dict]:
    """The rows of a labels file; each line as (cell or None, line)."""
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    for row in rows:
        row["path"] = os.path.normpath(row["path"])
        row["verdict"] = row["verdict"].strip().upper()
        row["lines"] = []
        for token in str(row["line"]).split(","):
            cell, _, line = token.strip().rpartition(":")
            row["lines"].append((int(cell) if cell else None, int(line)))
    return rows


def load_report(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        findings = json.load(fh)["findings"]
    return [f for f in findings if f["code"] != "GL001"]


def run_check(graphlint: str, folder: str) -> list[dict]:
    fd, out = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        args = [graphlint, "check", "--no-cache", "--format", "json", "--output", out, "--exit-zero", "."]
        proc = subprocess.run(args, cwd=folder, capture_output=True, text=True)
        if proc.returncode != 0:
            sys.exit(f"graphlint check failed in {folder} (exit {proc.returncode}): {proc.stderr.strip()[-500:]}")
        return load_report(out)
    finally:
        os.unlink(out)


def sites(finding: dict) -> list[tuple[str, int | None, int]]:
    """The finding's own place and every related location's, as (path, cell, line)."""
    here = [(os.path.normpath(finding["path"]), finding.get("cell"), int(finding["line"]))]
    for rel in finding.get("related") or ():
        if rel.get("path") and rel.get("line"):
            here.append((os.path.normpath(rel["path"]), rel.get("cell"), int(rel["line"])))
    return here


def distance(finding: dict, row: dict) -> int | None:
    """How many lines the nearest of the finding's places is off the row's nearest line."""
    if finding["code"] != row["code"]:
        return None
    gaps = [
        abs(line - x)
        for path, cell, line in sites(finding)
        if path == row["path"]
        for c, x in row["lines"]
        if c == cell
    ]
    return min(gaps) if gaps else None


def names(finding: dict, row: dict, slack: int) -> bool:
    gap = distance(finding, row)
    return gap is not None and gap <= slack


def judge(finding: dict, labels: list[dict], slack: int) -> dict | None:
    """The row nearest the finding within ``slack`` lines (a judged row before a miss at the same distance)."""
    near = [(distance(finding, r), r["verdict"] == "MISS", i) for i, r in enumerate(labels) if names(finding, r, slack)]
    return labels[min(near)[2]] if near else None


def score(findings: list[dict], labels: list[dict], slack: int) -> dict:
    """Per code: TP, FP, harmless findings, unjudged findings, real bugs and those found."""
    per: dict[str, dict] = defaultdict(lambda: {"tp": 0, "fp": 0, "harmless": 0, "unjudged": [], "real": 0, "found": 0})
    fps, silent, missed = [], [], []
    for finding in findings:
        row = judge(finding, labels, slack)
        code = per[finding["code"]]
        if row is None:
            code["unjudged"].append(finding)
        elif row["verdict"] in REAL:
            code["tp"] += 1
        elif row["verdict"] == "FP":
            code["fp"] += 1
            fps.append((finding, row))
        elif row["verdict"] in HARMLESS:
            code["harmless"] += 1
        else:
            sys.exit(f"unknown verdict {row['verdict']!r} in the row {row}")
    for row in labels:
        if row["verdict"] not in REAL:
            continue
        per[row["code"]]["real"] += 1
        if any(names(f, row, slack) for f in findings):
            per[row["code"]]["found"] += 1
        else:
            (silent if row["verdict"] == "TP" else missed).append(row)
    return {"per": dict(per), "fps": fps, "silent": silent, "missed": missed}


def ratio(num: int, den: int) -> str:
    return f"{num / den:.2f}" if den else "n/a"


def total(per: dict) -> dict:
    keys = ("tp", "fp", "harmless", "real", "found")
    out = {k: sum(v[k] for v in per.values()) for k in keys}
    out["unjudged"] = [f for v in per.values() for f in v["unjudged"]]
    return out


def line(name: str, c: dict) -> str:
    return (
        f"{name:<8} precision {ratio(c['tp'], c['tp'] + c['fp']):>4} ({c['tp']} TP, {c['fp']} FP, "
        f"{c['harmless']} harmless, {len(c['unjudged'])} unjudged)   recall "
        f"{ratio(c['found'], c['real']):>4} ({c['found']} of {c['real']} real bugs)"
    )


def place(finding: dict) -> str:
    cell = f"{finding['cell']}:" if finding.get("cell") is not None else ""
    return f"{finding['path']}:{cell}{finding['line']}"


def report(name: str, result: dict, quiet: bool) -> None:
    per = result["per"]
    print(f"== {name}")
    print("  " + line("all", total(per)))
    for code in sorted(per):
        print("  " + line(code, per[code]))
    if quiet:
        return
    for finding, row in result["fps"]:
        print(f"  FP      {place(finding)} {finding['code']} ({row['note']})")
    for row in result["silent"]:
        print(f"  SILENT  {row['path']}:{row['line']} {row['code']} (a true finding no longer reported: {row['note']})")
    for row in result["missed"]:
        print(f"  MISSED  {row['path']}:{row['line']} {row['code']} ({row['note']})")
    for finding in total(per)["unjudged"]:
        print(f"  JUDGE   {place(finding)} {finding['code']} {finding['message']}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pairs", nargs="+", metavar="FOLDER LABELS")
    parser.add_argument("--graphlint", default=os.path.join(os.path.dirname(sys.executable), "graphlint"))
    parser.add_argument("--report", help="a saved `graphlint check --format json` report (one set)")
    parser.add_argument("--slack", type=int, default=2, help="lines a finding may be off its label")
    parser.add_argument("--quiet", action="store_true", help="figures only")
    args = parser.parse_args(argv)
    if len(args.pairs) % 2:
        parser.error("give a FOLDER and a LABELS file for every set")
    sets = list(zip(args.pairs[::2], args.pairs[1::2]))
    if args.report and len(sets) > 1:
        parser.error("--report scores one set")
    unjudged = False
    for folder, labels in sets:
        findings = load_report(args.report) if args.report else run_check(args.graphlint, os.path.abspath(folder))
        result = score(findings, read_labels(labels), args.slack)
        report(os.path.basename(labels).split("_")[0], result, args.quiet)
        unjudged |= bool(total(result["per"])["unjudged"])
    return 1 if unjudged else 0


if __name__ == "__main__":
    sys.exit(main())
