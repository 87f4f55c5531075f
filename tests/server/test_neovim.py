"""A real editor: headless Neovim, started with the README's snippet, opens a bad sample and
shows what ``graphlint check`` reports for it (code, line, column, message and fix)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lsp_helpers import ROOT, SAMPLES, TIMEOUT, findings_of

NVIM = shutil.which("nvim")
pytestmark = pytest.mark.skipif(NVIM is None, reason="Neovim is not installed (Debian: apt-get install -y neovim)")

#: The test's own Lua, after the snippet: write the buffer's diagnostics when they come, quit.
DRIVER = """
vim.api.nvim_create_autocmd("DiagnosticChanged", {
  callback = function(args)
    local found = vim.diagnostic.get(args.buf)
    if #found == 0 then return end
    local out = {}
    for _, d in ipairs(found) do
      table.insert(out, { code = d.code or d.user_data.lsp.code, lnum = d.lnum, col = d.col, message = d.message,
                          severity = d.severity, source = d.source })
    end
    local file = io.open(vim.env.GRAPHLINT_NVIM_OUT, "w")
    file:write(vim.json.encode(out))
    file:close()
    vim.cmd("qall!")
  end,
})
vim.defer_fn(function() vim.cmd("cquit 3") end, 60000) -- a hang guard only
"""


def readme_snippet() -> str:
    """The Lua block of the README's editor section (and docs/editors.md says the same)."""
    section = (ROOT / "README.md").read_text().split("### In your editor", 1)[1].split("\n#", 1)[0]
    (snippet,) = re.findall(r"```lua\n(.*?)```", section, re.S)
    assert snippet in (ROOT / "docs" / "editors.md").read_text()
    return snippet


@pytest.mark.parametrize(
    "name, others",
    [
        ("rules/gl103_bad.py", ()),
        ("rules/gl301_bad.py", ()),
        ("across_modules/gl501_bad_across_modules.py", ("across_modules/retracing_steps.py",)),
    ],
    ids=["GL103", "GL301", "GL501-across-modules"],
)
def test_neovim_with_the_readmes_snippet_shows_what_check_reports(tmp_path, name, others):
    for sample in (name, *others):
        shutil.copy(SAMPLES / sample, tmp_path / Path(sample).name)
    path = tmp_path / Path(name).name
    (tmp_path / "init.lua").write_text(readme_snippet() + DRIVER)
    out = tmp_path / "diagnostics.json"
    env = {
        **os.environ,
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
        "PYTHONPATH": str(ROOT),
        "GRAPHLINT_NVIM_OUT": str(out),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    proc = subprocess.run(
        [NVIM, "--headless", "-i", "NONE", "-u", str(tmp_path / "init.lua"), path.name],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=TIMEOUT + 30,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    shown = json.loads(out.read_text())
    got = sorted((d["code"], d["lnum"] + 1, d["col"] + 1, d["message"]) for d in shown)
    expected = sorted((f["code"], f["line"], f["column"], f"{f['message']}\nfix: {f['fix']}") for f in findings_of(path))
    assert expected and got == expected
    assert {d["source"] for d in shown} == {"graphlint"}
