"""What the processes of a ``graphlint run`` reported, read from its channel folder and merged
(the records are written by graphlint/_boot/sitecustomize.py and graphlint/child.py).

Each process image leaves one record, ``<pid>-<random>.json``: its pid, its parent's, how it was
started (``python``: a Python started with the run's environment; ``fork``), its command line,
whether the record is final, its findings and warnings, and ``error`` when graphlint could not
start in it. The program's own process is the one graphlint started (an ``exec``'d Python keeps
its pid): its findings are reported as they are; another process's finding says which process
it was, one finding for the same one in several.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
from dataclasses import dataclass, field, replace

from graphlint.findings import Finding, finding_from_dict, sorted_findings


@dataclass
class Process:
    """One process of the run, as it reported itself."""

    pid: int
    ppid: int
    kind: str  # "python" (a Python started with the run's environment) or "fork"
    argv: tuple[str, ...] = ()

    def describe(self) -> str:
        if self.kind == "fork":
            return f"process {self.pid}, forked from {self.ppid}"
        command = shlex.join(self.argv[1:]) if len(self.argv) > 1 else ""
        if len(command) > 60:
            command = command[:57] + "..."
        return f"process {self.pid}: python {command}".rstrip()


@dataclass
class Outcome:
    """How the program ended and what every process of it reported."""

    returncode: int  # as subprocess gives it: -N when the program died by signal N
    findings: list[Finding] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: why graphlint could not start in the program's own process, if it could not
    error: str | None = None
    #: whether the program's own process reported at all
    reported: bool = False

    @property
    def watched(self) -> bool:
        """Whether graphlint watched the program: its process reported, without an error (a
        program killed by a signal may have been killed before its first report)."""
        return self.error is None and (self.reported or self.signal is not None)

    @property
    def signal(self) -> int | None:
        return -self.returncode if self.returncode < 0 else None

    @property
    def status(self) -> int:
        """The status a shell sees: 128 + N for death by signal N."""
        return 128 - self.returncode if self.returncode < 0 else self.returncode

    def describe(self) -> str | None:
        """One line about how the program ended, when it did not succeed."""
        if self.returncode == 0:
            return None
        if self.returncode > 0:
            return f"the program exited with status {self.returncode}"
        signum = -self.returncode  # < 0 here: killed by signal N
        return f"the program was killed by signal {signum} ({signal_name(signum)})"

    def exit_code(self, exit_zero: bool) -> int:
        """graphlint's: the program's own status when it failed (128 + N for signal N, which
        the ``graphlint`` command then dies by), else 1 for findings (0 with ``exit_zero``),
        else 0."""
        if self.returncode != 0:
            return self.status
        return 1 if self.findings and not exit_zero else 0

    def annotate(self, report: str, fmt: str) -> str:
        """The report with how the program ended: ``graphlint: the program exited with status
        4.`` after a text report, ``"program": {"exit_status": 4, "signal": null}`` in JSON."""
        if fmt == "json":
            doc = json.loads(report)
            doc["program"] = {
                "exit_status": self.returncode if self.returncode >= 0 else None,
                "signal": None if self.signal is None else signal_name(self.signal),
            }
            return json.dumps(doc, indent=2, ensure_ascii=True) + "\n"
        from graphlint.report import TEXT_FORMATS

        line = self.describe()
        return report + f"graphlint: {line}.\n" if line is not None and fmt in TEXT_FORMATS else report


def signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def read_records(channel: str) -> list[dict]:
    records = []
    for name in sorted(os.listdir(channel)):
        if not name.endswith(".json"):
            continue
        try:
            with open(os.path.join(channel, name), encoding="utf-8") as fh:
                records.append(json.load(fh))
        except (OSError, ValueError):
            continue
    return records


def outcome_of(records: list[dict], main_pid: int, returncode: int) -> Outcome:
    outcome = Outcome(returncode)
    mine: list[Finding] = []
    theirs: dict[tuple, tuple[Finding, list[Process]]] = {}
    for record in records:
        process = Process(record["pid"], record.get("ppid", 0), record.get("kind", "python"), tuple(record.get("argv", ())))
        is_main = process.pid == main_pid
        outcome.reported |= is_main
        for message in record.get("warnings", ()):
            if message not in outcome.warnings:
                outcome.warnings.append(message)
        if record.get("error") and is_main:
            outcome.error = record["error"]
        elif record.get("error"):
            outcome.warnings.append(f"graphlint: cannot watch {process.describe()}: {record['error']}")
        for data in record.get("findings", ()):
            finding = finding_from_dict(data)
            if is_main:
                mine.append(finding)
                continue
            key = (finding.key, finding.test_id, finding.message)
            seen = theirs.get(key)
            if seen is None:
                theirs[key] = (finding, [process])
            else:
                theirs[key] = (seen[0].with_count(seen[0].count + finding.count), seen[1] + [process])
    found = _merged(mine) + [_named(finding, processes) for finding, processes in theirs.values()]
    outcome.findings = sorted_findings(found)
    return outcome


def _merged(findings: list[Finding]) -> list[Finding]:
    """The program's findings over its images (an ``exec``'d Python is a second one)."""
    merged: dict[tuple, Finding] = {}
    for finding in findings:
        key = (finding.key, finding.test_id)
        seen = merged.get(key)
        merged[key] = finding if seen is None else seen.with_count(seen.count + finding.count)
    return list(merged.values())


def _named(finding: Finding, processes: list[Process]) -> Finding:
    if len(processes) == 1:
        where = processes[0].describe()
    else:
        pids = [str(p.pid) for p in processes]
        shown = ", ".join(pids[:4]) + (f" and {len(pids) - 4} more" if len(pids) > 4 else "")
        where = f"{len(pids)} processes: {shown}"
    return replace(finding, message=f"{finding.message} (in {where})")

