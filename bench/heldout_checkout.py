"""Check a held-out set's files out of the git mirrors, as ``heldout_score.py`` reads them.

    .venv/bin/python bench/heldout_checkout.py SOURCES.tsv DEST [--mirrors /work/.mirror] [--texts DIR]

``SOURCES.tsv`` is a ``bench/heldoutN_sources.tsv`` (columns ``repo``, ``path``, ``commit``, more
ignored); each row's file is written to ``DEST/owner__repo/path`` (``DEST`` outside this
repository). A ``path`` of ``.`` takes the commit's whole tree; ``. (X/ left out: ...)`` leaves the
folder ``X/`` out. Mirrors are ``MIRRORS/owner+repo/repo`` (bare) or ``.../repo/.git``, as the
``fetch`` tool brings them. Printed, so they can be got by hand: the repositories with no mirror
(fetch them, then run this again), the rows whose commit or path the mirror lacks, the rows of
unknown origin (no commit: their text comes from ``read_file`` by the id in the row), and blobs a
whole-tree row could not write (a mirror lacks files of 4 MiB and more). Exit status 1 when
anything was left out.

``--texts DIR`` writes the unknown-origin rows too, from ``DIR/ID.json`` (read_file's answer for
that id: ``text`` and ``total_chars``) to ``DEST/unattributed__id-ID/path`` (set 2's rows name their
folder ``unattributed__ID`` themselves). read_file shows a CRLF file with LF line ends but counts
the CRs: a text short of ``total_chars`` by its number of newlines is written with CRLF.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import subprocess
import sys
from pathlib import Path

SHA = re.compile(r"[0-9a-f]{40}")
ID = re.compile(r"\d{6,}")
LEFT_OUT = re.compile(r"\((\S+)/ left out")


def git_dir(mirrors: Path, repo: str) -> Path | None:
    """The mirror's git directory, or None when the repository was not fetched."""
    base = mirrors / repo.replace("/", "+") / "repo"
    for candidate in (base / ".git", base):
        if (candidate / "HEAD").is_file():
            return candidate
    return None


def tree(gd: Path, commit: str, skip: str | None) -> list[tuple[str, str]]:
    """(blob, path) of every regular file of the commit's tree, the folder ``skip`` left out."""
    out = subprocess.run(
        ["git", f"--git-dir={gd}", "ls-tree", "-r", "-z", commit], capture_output=True, check=True
    ).stdout.decode()
    files = []
    for entry in filter(None, out.split("\0")):
        meta, path = entry.split("\t", 1)
        mode, kind, blob = meta.split()
        if kind == "blob" and mode in ("100644", "100755") and not (skip and path.startswith(skip + "/")):
            files.append((blob, path))
    return files


def write_blobs(gd: Path, wanted: list[tuple[str, Path]]) -> list[str]:
    """Write each object (``blob`` or ``commit:path``) to its file; return the ones missing."""
    proc = subprocess.run(
        ["git", f"--git-dir={gd}", "cat-file", "--batch"],
        input="".join(f"{obj}\n" for obj, _ in wanted).encode(),
        capture_output=True,
        check=True,
    )
    data, pos, missing = proc.stdout, 0, []
    for obj, dest in wanted:
        end = data.index(b"\n", pos)
        header = data[pos:end].decode().split()
        pos = end + 1
        if header[-1] == "missing" or header[1] != "blob":
            missing.append(obj)
            if header[-1] != "missing":
                pos += int(header[2]) + 1
            continue
        size = int(header[2])
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(data[pos : pos + size])
        pos += size + 1
    return missing


def write_text(row: dict[str, str], dest: Path, texts: Path) -> str | None:
    """Write an unknown-origin row from its read_file answer; say why not, or None when written."""
    found = ID.search(row["repo"])
    ident = found.group() if found else ""
    answer = texts / f"{ident}.json"
    if not ident or not answer.is_file():
        return "no read_file answer saved"
    saved = json.loads(answer.read_text(encoding="utf-8"))
    text, total = saved["text"], saved["total_chars"]
    if len(text) != total and len(text) + text.count("\n") == total:
        text = text.replace("\n", "\r\n")
    elif len(text) != total:
        return f"its text has {len(text)} characters, read_file counts {total}"
    folder = row["repo"] if row["repo"].startswith("unattributed__") else f"unattributed__id-{ident}"
    path = dest / folder / row["path"]
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as fh:
        fh.write(text)
    return None


def checkout(sources: Path, dest: Path, mirrors: Path, texts: Path | None = None) -> int:
    with sources.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    no_mirror: set[str] = set()
    problems: list[str] = []
    written = 0
    by_repo: dict[str, list[dict[str, str]]] = {}
    for row in rows:
        if not SHA.fullmatch(row["commit"].strip()):
            why = write_text(row, dest, texts) if texts else "no --texts"
            if why:
                problems.append(f"unknown origin ({why}): {row['repo']}\t{row['path']}\t{row['commit']}")
            else:
                written += 1
            continue
        by_repo.setdefault(row["repo"], []).append(row)
    for repo, repo_rows in by_repo.items():
        gd = git_dir(mirrors, repo)
        if gd is None:
            no_mirror.add(repo)
            continue
        folder = dest / repo.replace("/", "__")
        wanted: list[tuple[str, Path]] = []
        for row in repo_rows:
            commit, path = row["commit"].strip(), row["path"].strip()
            if path == "." or path.startswith(". ("):
                skip = LEFT_OUT.search(path)
                try:
                    files = tree(gd, commit, skip.group(1) if skip else None)
                except subprocess.CalledProcessError:
                    problems.append(f"commit not in the mirror: {repo}\t{path}\t{commit}")
                    continue
                wanted += [(blob, folder / name) for blob, name in files]
            else:
                wanted.append((f"{commit}:{path}", folder / path))
        missing = write_blobs(gd, wanted) if wanted else []
        written += len(wanted) - len(missing)
        problems += [f"no such file in the mirror: {repo}\t{obj}" for obj in missing]
    print(f"{written} files written under {dest}")
    for repo in sorted(no_mirror):
        print(f"no mirror: {repo} (fetch github:{repo}, then run this again)")
    for problem in problems:
        print(problem)
    return 1 if no_mirror or problems else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("sources", type=Path, help="a bench/heldoutN_sources.tsv")
    parser.add_argument("dest", type=Path, help="the set's folder, outside this repository")
    parser.add_argument("--mirrors", type=Path, default=Path(os.environ.get("MIRRORS", "/work/.mirror")))
    parser.add_argument("--texts", type=Path, help="read_file answers (ID.json) for the rows of unknown origin")
    args = parser.parse_args(argv)
    return checkout(args.sources, args.dest, args.mirrors, args.texts)


if __name__ == "__main__":
    sys.exit(main())
