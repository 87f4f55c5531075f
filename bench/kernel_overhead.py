"""What `%load_ext graphlint` costs per cell in a real Jupyter kernel.

Two kernels run the same cells, one with the extension loaded: an empty cell (the cost of
judging a cell: a fresh scope of rules, the cell rules, no finding), a TF1 cell building
2,000 ops into its own graph, a TF2 cell calling a `tf.function` 300 times and a Keras `fit`.
Each cell runs REPEATS times, alternating kernels; the wall time of each execution (request to
reply, as the notebook user waits) is compared by medians.

    python bench/kernel_overhead.py [REPEATS]
"""

from __future__ import annotations

import os
import statistics
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import nbformat  # noqa: E402
from nbclient import NotebookClient  # noqa: E402

SETUP = [
    "import numpy as np\nimport tensorflow as tf",
    "@tf.function\ndef step(x):\n    return x * 2.0 + 1.0\n"
    "model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(8), tf.keras.layers.Dense(1)])\n"
    "model.compile('adam', 'mse')\nx, y = np.ones((256, 4), np.float32), np.ones((256, 1), np.float32)",
]
CELLS = {
    "empty cell": "pass",
    "TF1: 2,000 ops in its own graph": (
        "with tf.Graph().as_default():\n"
        "    a = tf.constant(1.0)\n"
        "    for i in range(500):\n"
        "        a = a * 1.0 + 0.0"
    ),
    "TF2: 300 tf.function calls": "for i in range(300):\n    step(tf.constant(1.0))",
    "TF2: Keras fit, 2 epochs": "model.fit(x, y, epochs=2, batch_size=32, verbose=0)",
}


def kernel(load: bool):
    cells = SETUP + (["%load_ext graphlint"] if load else ["pass"]) + list(CELLS.values())
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    client = NotebookClient(nb, timeout=600, kernel_name="python3")
    return client, nb


def main() -> int:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    clients = {load: kernel(load) for load in (False, True)}
    times: dict[tuple[bool, str], list[float]] = {}
    contexts = [client.setup_kernel() for client, _ in clients.values()]
    for ctx in contexts:
        ctx.__enter__()
    try:
        for client, nb in clients.values():
            for i in range(len(SETUP) + 1):
                client.execute_cell(nb.cells[i], i)
        first = len(SETUP) + 1
        for _ in range(repeats):
            for offset, name in enumerate(CELLS):
                for load in (False, True):
                    client, nb = clients[load]
                    start = time.perf_counter()
                    client.execute_cell(nb.cells[first + offset], first + offset)
                    times.setdefault((load, name), []).append(time.perf_counter() - start)
                    shown = [o for o in nb.cells[first + offset].outputs if "graphlint" in o.get("metadata", {})]
                    assert not shown, shown  # nothing here is a finding
    finally:
        for ctx in contexts:
            ctx.__exit__(None, None, None)
    print(f"{'cell':<34} {'without':>10} {'with':>10} {'ratio':>7}  (median of {repeats})")
    for name in CELLS:
        plain = statistics.median(times[(False, name)])
        watched = statistics.median(times[(True, name)])
        print(f"{name:<34} {plain * 1e3:>8.1f}ms {watched * 1e3:>8.1f}ms {watched / plain:>7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
