"""A real editor: Emacs in batch, with docs/editors.md's eglot snippet, visits a bad sample;
its flymake diagnostics are what ``graphlint check`` reports (line, column, code, message)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lsp_helpers import ROOT, SAMPLES, TIMEOUT, findings_of

EMACS = shutil.which("emacs")


def _has_eglot() -> bool:
    if EMACS is None:
        return False
    proc = subprocess.run([EMACS, "--batch", "-q", "--eval", "(require 'eglot)"], capture_output=True, timeout=TIMEOUT)
    return proc.returncode == 0


pytestmark = pytest.mark.skipif(
    not _has_eglot(), reason="Emacs with eglot is not installed (Debian: apt-get install -y emacs-nox elpa-eglot)"
)

#: The test's own Lisp, after the snippet: wait for the buffer's diagnostics, write them, quit.
DRIVER = r"""
(require 'eglot)
(find-file (getenv "GRAPHLINT_EMACS_FILE"))
(run-hooks 'post-command-hook)
(let ((deadline (+ (float-time) 60)) (found nil) (lines nil))
  (while (and (not found) (< (float-time) deadline))
    (accept-process-output nil 0.05)
    (setq found (flymake-diagnostics)))
  (dolist (d found)
    (let ((beg (flymake-diagnostic-beg d)))
      (push (format "%d\t%d\t%s\n" (line-number-at-pos beg) (save-excursion (goto-char beg) (1+ (current-column)))
                    (replace-regexp-in-string "\n" "\\\\n" (flymake-diagnostic-text d)))
            lines)))
  (with-temp-file (getenv "GRAPHLINT_EMACS_OUT") (apply #'insert lines)))
(kill-emacs 0)
"""


def eglot_snippet() -> str:
    section = (ROOT / "docs" / "editors.md").read_text().split("## Emacs (eglot)", 1)[1].split("\n## ", 1)[0]
    (snippet,) = re.findall(r"```elisp\n(.*?)```", section, re.S)
    return snippet


@pytest.mark.parametrize("name", ["rules/gl103_bad.py", "rules/gl301_bad.py"], ids=["GL103", "GL301"])
def test_emacs_eglot_with_the_docs_snippet_shows_what_check_reports(tmp_path, name):
    path = tmp_path / Path(name).name
    shutil.copy(SAMPLES / name, path)
    (tmp_path / "init.el").write_text(eglot_snippet())
    (tmp_path / "driver.el").write_text(DRIVER)
    out = tmp_path / "diagnostics.tsv"
    env = {
        **os.environ,
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
        "PYTHONPATH": str(ROOT),
        "HOME": str(tmp_path),
        "GRAPHLINT_EMACS_FILE": str(path),
        "GRAPHLINT_EMACS_OUT": str(out),
    }
    proc = subprocess.run(
        [EMACS, "--batch", "-q", "-l", "init.el", "-l", "driver.el"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=TIMEOUT + 30,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    got = sorted(tuple(line.split("\t", 2)) for line in out.read_text().splitlines())
    expected = sorted(
        (str(f["line"]), str(f["column"]), f"graphlint [{f['code']}]: {f['message']}\\nfix: {f['fix']}") for f in findings_of(path)
    )
    assert expected and got == expected
