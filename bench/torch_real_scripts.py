"""Two public PyTorch 2 projects' own scripts under ``graphlint run`` and plain ``python`` (issue #28).

    .venv/bin/python bench/torch_real_scripts.py --nanogpt DIR --gpt-fast DIR
        [--pairs 2] [--iters 200] [--tokens 60] [--only nanogpt,gpt-fast] [--findings OUT.json]

``DIR`` is a checkout of the project at the commit ``bench/torch_heldout_sources.tsv`` names (never
inside this repository). Nothing is fetched: the data, the checkpoint and the tokenizer are made
here, small, in a temporary folder; the projects' files are run as they are, never copied.

* ``nanogpt``: karpathy/nanoGPT's ``train.py`` with ``compile=True`` on CPU (float32), a 2-layer,
  64-wide GPT on 64-token blocks of a synthetic character corpus, ``--iters`` iterations, the loss
  estimated every 100 (``model.eval()`` / ``model.train()`` around the compiled model, as the
  script does). Its ``configurator.py`` is reached through a symbolic link in the run folder (the
  script reads it from the working directory).
* ``gpt-fast``: pytorch-labs/gpt-fast's ``generate.py --compile`` on CPU: the ``stories15M``
  architecture with random weights (bfloat16, as the script loads it), a 16-token synthetic prompt,
  one compile sample and two timed samples of ``--tokens`` tokens. Its tokenizer is a small
  SentencePiece model trained here on synthetic words (``sentencepiece`` and ``tiktoken`` must be
  installed: the script imports both), of 1,500 pieces so that it decodes the synthetic prompt's
  ids (below 1,024); the output layer is set so that only the first 2 × dim (576) token ids can
  be sampled, so that every generated id is one the tokenizer can decode too.

Each script runs once untimed under each command (inductor's on-disk caches written), then
``--pairs`` alternating pairs ``python SCRIPT`` / ``graphlint run --exit-zero SCRIPT``; each timed
command must exit 0 (``--exit-zero`` keeps a failed program's own status). The figure is the
median ratio of wall and of CPU time over the pairs; the findings of the last ``graphlint run``
are printed (``--findings`` saves them all as JSON, per script).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import pickle
import random
import statistics
import subprocess
import sys
import tempfile

from timing import timed_cpu

NANOGPT_CONFIG = {
    "dataset": "synthetic",
    "device": "cpu",
    "compile": True,
    "dtype": "float32",
    "n_layer": 2,
    "n_head": 2,
    "n_embd": 64,
    "block_size": 64,
    "batch_size": 8,
    "dropout": 0.0,
    "gradient_accumulation_steps": 1,
    "eval_interval": 100,
    "eval_iters": 10,
    "log_interval": 50,
    "warmup_iters": 10,
    "always_save_checkpoint": False,
    "wandb_log": False,
}


def nanogpt_job(checkout: str, tmp: str, iters: int) -> tuple[list[str], str]:
    """The arguments after the interpreter and the working directory of nanoGPT's train.py."""
    import numpy as np

    run = os.path.join(tmp, "nanogpt")
    data = os.path.join(run, "data", "synthetic")
    os.makedirs(data)
    os.symlink(os.path.join(checkout, "configurator.py"), os.path.join(run, "configurator.py"))
    rng = np.random.default_rng(0)
    vocab = 65
    for split, n in (("train", 200_000), ("val", 20_000)):
        # a repeating phrase with noise: a corpus the model can learn, in nanoGPT's uint16 format
        base = np.tile(np.arange(vocab, dtype=np.uint16), n // vocab + 1)[:n]
        noise = rng.integers(0, vocab, n, dtype=np.uint16)
        np.where(rng.random(n) < 0.1, noise, base).astype(np.uint16).tofile(os.path.join(data, f"{split}.bin"))
    with open(os.path.join(data, "meta.pkl"), "wb") as fh:
        pickle.dump({"vocab_size": vocab}, fh)
    config = {**NANOGPT_CONFIG, "max_iters": iters, "lr_decay_iters": iters, "out_dir": os.path.join(run, "out")}
    args = [os.path.join(checkout, "train.py")] + [f"--{k}={v}" for k, v in config.items()]
    return args, run


def gpt_fast_job(checkout: str, tmp: str, tokens: int) -> tuple[list[str], str]:
    """The arguments after the interpreter and the working directory of gpt-fast's generate.py."""
    import io

    import sentencepiece as spm

    folder = os.path.join(tmp, "gpt-fast", "stories15M")  # generate.py picks the architecture by this name
    os.makedirs(folder)
    rnd = random.Random(0)
    words = ["".join(rnd.choice("abcdefghijklmnopqrst") for _ in range(rnd.randint(2, 9))) for _ in range(8000)]
    lines = [" ".join(rnd.choice(words) for _ in range(12)) for _ in range(8000)]
    proto = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=proto, vocab_size=1500, minloglevel=2)
    with open(os.path.join(folder, "tokenizer.model"), "wb") as fh:
        fh.write(proto.getvalue())
    code = (
        "import sys, torch\n"
        f"sys.path.insert(0, {checkout!r})\n"
        "from model import Transformer\n"
        "torch.manual_seed(0)\n"
        "model = Transformer.from_name('stories15M')\n"
        "state = model.state_dict()\n"
        "dim = model.config.dim\n"
        "out = torch.zeros_like(state['output.weight'])\n"
        "eye = torch.eye(dim)\n"
        "out[0:2 * dim:2], out[1:2 * dim:2] = eye, -eye  # logits +-h_j: the top 2*dim ids win\n"
        "state['output.weight'] = out\n"
        f"torch.save(state, {os.path.join(folder, 'model.pth')!r})\n"
    )
    # in a child: gpt-fast's model module, imported, must not stay in this process
    subprocess.run([sys.executable, "-c", code], check=True)
    args = [
        os.path.join(checkout, "generate.py"),
        "--checkpoint_path", os.path.join(folder, "model.pth"),
        "--compile", "--device", "cpu", "--prompt", "16",
        "--num_samples", "2", "--max_new_tokens", str(tokens),
    ]
    return args, folder


@contextlib.contextmanager
def working_directory(path: str):
    before = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def measure(name: str, args: list[str], cwd: str, pairs: int, env: dict, findings_file: str) -> dict:
    graphlint = os.path.join(os.path.dirname(sys.executable), "graphlint")
    commands = {
        "python": [sys.executable, *args],
        "graphlint": [graphlint, "run", "--exit-zero", "--output-format", "json", "-o", findings_file, *args],
    }
    with working_directory(cwd):
        timed_cpu(commands["python"], env), timed_cpu(commands["graphlint"], env)  # caches written, untimed
        runs: dict[str, list] = {"python": [], "graphlint": []}
        for i in range(pairs):
            for which in (("graphlint", "python") if i % 2 else ("python", "graphlint")):
                runs[which].append(timed_cpu(commands[which], env))
    with open(findings_file) as fh:
        findings = json.load(fh)["findings"]
    plain, linted = runs["python"], runs["graphlint"]
    return {
        "name": name,
        "python": statistics.median(w for w, _ in plain),
        "graphlint": statistics.median(w for w, _ in linted),
        "wall": statistics.median(g[0] / p[0] for g, p in zip(linted, plain)),
        "cpu": statistics.median(g[1] / p[1] for g, p in zip(linted, plain)),
        "findings": findings,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nanogpt", required=True, help="a karpathy/nanoGPT checkout")
    parser.add_argument("--gpt-fast", required=True, help="a pytorch-labs/gpt-fast checkout")
    parser.add_argument("--pairs", type=int, default=2)
    parser.add_argument("--iters", type=int, default=200, help="nanoGPT training iterations")
    parser.add_argument("--tokens", type=int, default=60, help="gpt-fast tokens per sample")
    parser.add_argument("--only", default="nanogpt,gpt-fast")
    parser.add_argument("--findings", help="save every script's findings here (JSON)")
    args = parser.parse_args()
    # one intra-op thread and in-process compiles: no thread pools fighting on a shared machine
    env = {**os.environ, "TORCHINDUCTOR_COMPILE_THREADS": "1", "OMP_NUM_THREADS": "1"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        jobs = {
            "nanogpt": lambda: nanogpt_job(os.path.abspath(args.nanogpt), tmp, args.iters),
            "gpt-fast": lambda: gpt_fast_job(os.path.abspath(args.gpt_fast), tmp, args.tokens),
        }
        for name in args.only.split(","):
            script, cwd = jobs[name]()
            results.append(measure(name, script, cwd, args.pairs, env, os.path.join(tmp, f"{name}.json")))
    for r in results:
        print(
            f"{r['name']}: python {r['python']:.1f} s, graphlint run {r['graphlint']:.1f} s (median of "
            f"{args.pairs} pairs): ratio {r['wall']:.3f} wall, {r['cpu']:.3f} CPU; {len(r['findings'])} findings"
        )
        for f in r["findings"]:
            print(f"  {f['code']} {f['path']}:{f['line']} {f['message']}")
    if args.findings:
        with open(args.findings, "w") as fh:
            json.dump({r["name"]: r["findings"] for r in results}, fh, indent=1)


if __name__ == "__main__":
    main()
