"""GL503's kernel form: a cell re-run that builds its Keras model again with no `clear_session()`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graphlint.jupyter.rules import CellRun, Cells, KernelRule, at, label, runs_text
from graphlint.rules.keras_model_churn import KerasModelChurn

if TYPE_CHECKING:
    from graphlint.findings import FindingSink
    from graphlint.stacks import Frame


class Kernel(KernelRule):
    """A cell re-run that builds its Keras model again with no `clear_session()` (GL503, kernel form)."""

    rule = KerasModelChurn
    fix = (
        "Call `tf.keras.backend.clear_session()` at the top of the cell that builds the model, "
        "so that each run starts from a clean Keras state."
    )
    options = {"min-runs": 3}

    def __init__(self, sink: FindingSink, cells: Cells, options: dict[str, Any] | None = None) -> None:
        super().__init__(sink, cells, options)
        # (cell key, path, line, Keras session) -> [[run, site, class name], ...]
        self.sites: dict[tuple[str, str, int, int], list[list[Any]]] = {}

    def graphlint_keras_model_built(self, class_name: str, site: Frame | None, session: int) -> None:
        run = self.cells.current
        if run is None or site is None:
            return
        built = self.sites.setdefault((run.key, site.path, site.line, session), [])
        if not built or built[-1][0] is not run:
            built.append([run, site, class_name])

    def cell_finished(self, run: CellRun) -> None:
        for key, built in self.sites.items():
            if key[0] != run.key or built[-1][0] is not run or len(built) < self.config["min-runs"]:
                continue
            self.report(
                f"this cell built a Keras model (`{built[-1][2]}`) at this line in {len(built)} runs "
                f"({runs_text([b[0] for b in built])}) with no `clear_session()` between them: Keras' "
                "global state keeps every model, and layer names count up",
                at(built[-1][1], run),
                related=[(at(built[0][1], built[0][0]), f"the first model was built by {label(built[0][0])}")],
            )
