"""Sessions created again and again (GL301)."""

from __future__ import annotations

from graphlint.static.hits import Hit


def session_churn(module, options: dict) -> list[Hit]:
    """``Session(...)`` created inside a loop or a per-call function."""
    found = []
    for call in module.calls:
        if call.api not in ("Session", "InteractiveSession") or not call.name.startswith("tensorflow.compat.v1."):
            continue
        if call.loops:
            if any(loop.resets_state() for loop in call.loops):
                continue  # a fresh graph per iteration needs its own session
            found.append(Hit(call.node, "a new Session is created on every iteration of this loop"))
            continue
        fn = call.scope
        if fn is None or fn.resets_state():
            continue
        reason = module.per_call(fn)
        if reason is not None:
            related = ((reason.site.node, "called here"),) if reason.site else ()
            found.append(
                Hit(call.node, f"a new Session is created each time {fn.display} runs; it {reason.text}", related)
            )
    return found
