"""Probe for PyTorch 2's ``torch.compile``: every frame dynamo compiles, why it compiled it again,
when it gave up on it, and where it split it (graph breaks).

It fires the events the ``tf.function`` and ``jax.jit`` probes fire for traces, with
``framework="torch"``: each frame dynamo compiles is a function (``graphlint_function_created``,
``by_user`` false: dynamo made it), each compile of it a trace (``graphlint_function_traced``,
with the arguments, the failed guard and dynamo's count), so GL501 judges recompiles as it judges
retraces. Two events are torch's own: ``graphlint_recompile_limit_reached`` (the frame runs
eagerly from then on) and ``graphlint_graph_break``.

dynamo has no public hook that carries a compiled frame's arguments; its structured trace
(``torch._logging``) computes every payload (graphs, code) once a handler listens, which would
slow every compile. So four internals are wrapped, all called only while dynamo compiles (a
call that hits dynamo's cache never reaches graphlint): ``convert_frame._compile`` (each compile
of a frame), ``convert_frame.get_and_maybe_log_recompilation_reasons`` (the guards that failed),
``convert_frame.exceeds_recompile_limit`` (the limit) and
``InstructionTranslatorBase.log_graph_break``. They were read from the torch versions in
:data:`TESTED`, the ``torch`` extra; in any other torch the probe stays off, with one
warning line. Installed once the program has imported ``torch._dynamo`` (its first
``torch.compile``), never before: importing dynamo costs a second.
"""

from __future__ import annotations

import functools
import inspect
import sys
import threading
import weakref
from typing import TYPE_CHECKING, Any, Callable

from graphlint.events import Guard
from graphlint.probes import _torch_values as values
from graphlint.probes._base import Probe
from graphlint.probes._functions import FunctionInfo, WatchedFunctions
from graphlint.probes.patching import unwound
from graphlint.stacks import Frame, is_user_file

if TYPE_CHECKING:
    from types import CodeType

    from graphlint.dispatch import Hooks
    from graphlint.events import Argument

__tracebackhide__ = True

#: The torch versions (``[low, high)`` as (major, minor)) whose dynamo internals this probe reads.
TESTED = ((2, 13), (2, 14))


def version_tuple(version: str) -> tuple[int, int] | None:
    try:
        major, minor = version.split("+")[0].split(".")[:2]
        return int(major), int(minor)
    except ValueError:
        return None


def supported(version: str) -> bool:
    found = version_tuple(version)
    return found is not None and TESTED[0] <= found < TESTED[1]


class _Compile:
    """One compile of a frame in progress (kept only while dynamo compiles it)."""

    __slots__ = ("frame_code", "info", "locals", "closure", "globals", "arguments", "guard", "limit", "count", "site")

    def __init__(
        self, code: CodeType, info: FunctionInfo, f_locals: dict[str, Any] | None, closure: tuple[Any, ...] | None,
        f_globals: dict[str, Any] | None, count: int, site: Frame | None,
    ) -> None:
        self.frame_code, self.info, self.count, self.site = code, info, count, site
        self.locals, self.closure, self.globals = f_locals, closure, f_globals
        self.arguments: tuple[Argument, ...] = ()
        self.guard: Guard | None = None
        # (limit_type, limit, compiles) once dynamo refused to compile again
        self.limit: tuple[str, int | None, int] | None = None


class DynamoProbe(WatchedFunctions, Probe):
    """Watches every compile of every frame torch.compile's dynamo compiles."""

    name = "torch-dynamo"
    library = "torch"
    framework = "torch"

    def __init__(self, hook: Hooks, warn: Callable[[str], None] | None = None) -> None:
        super().__init__(hook, warn)
        self._functions: dict[int, FunctionInfo] = {}  # id(code) -> the frame's function
        self._compiling = threading.local()

    def install(self) -> None:
        import torch

        if not supported(torch.__version__):
            low, high = TESTED
            self.unavailable = [label for label, _ in self.steps()]
            self.cannot(
                "version",
                f"torch {torch.__version__} is not a version the torch.compile probe knows "
                f"(>={low[0]}.{low[1]},<{high[0]}.{high[1]}); torch.compile is not watched",
            )
            return
        super().install()

    def steps(self) -> list[tuple[str, Callable[[], None]]]:
        return [
            ("torch.compile's compiles", self._patch_compile),
            ("dynamo's failed guards", self._patch_reasons),
            ("dynamo's recompile limit", self._patch_limit),
            ("dynamo's graph breaks", self._patch_graph_breaks),
        ]

    def forget(self) -> None:
        self._functions.clear()

    def _stack(self) -> list[_Compile | None]:
        stack = getattr(self._compiling, "stack", None)
        if stack is None:
            stack = self._compiling.stack = []
        return stack

    # -- each compile of a frame ---------------------------------------------------------------
    def _patch_compile(self) -> None:
        from torch._dynamo import convert_frame

        signature = inspect.signature(convert_frame._compile)
        missing = {"code", "globals", "locals", "closure", "cache_size"} - set(signature.parameters)
        if missing:
            raise AttributeError(f"_compile has no {', '.join(sorted(missing))}")
        probe = self

        def wrap(original: Callable[..., Any]) -> Callable[..., Any]:
            def _compile(*args: Any, **kwargs: Any) -> Any:
                try:
                    if not probe.active:
                        return original(*args, **kwargs)
                    record = probe._begin(signature, args, kwargs)
                    stack = probe._stack()
                    stack.append(record)
                    compiled = False
                    try:
                        result = original(*args, **kwargs)
                        compiled = True
                        return result
                    finally:
                        stack.pop()
                        probe._end(record, compiled)
                except BaseException as exc:
                    unwound(exc)
                    raise

            # only __wrapped__ (inspect.signature follows it): dynamo's signature, for counting_compiles
            return functools.update_wrapper(_compile, original, assigned=(), updated=())

        self.patcher.patch(convert_frame, "_compile", wrap)

    def _begin(self, signature: inspect.Signature, args: tuple[Any, ...], kwargs: dict[str, Any]) -> _Compile | None:
        try:
            bound = signature.bind(*args, **kwargs).arguments
            code, cache_size = bound["code"], bound["cache_size"]
            count = getattr(cache_size, "num_cache_entries_with_same_id_matched_objs", 0)
            site = values.calling_site(sys._getframe(2), code)
            info = self._frame(code, getattr(cache_size, "num_cache_entries", count), site)
            f_locals = bound["locals"]
            record = _Compile(code, info, f_locals, bound["closure"], bound["globals"], count + 1, site)
            import torch

            record.arguments = tuple(
                values.summarize_value(name, f_locals[name], torch.Tensor)
                for name in values.argument_names(code)
                if name in f_locals
            )
            return record
        except Exception as exc:  # never break the program's compile
            self.internal(exc, "compile")
            return None

    def _frame(self, code: CodeType, entries: int, site: Frame | None) -> FunctionInfo:
        """The function for ``code``: a new one the first time, and when dynamo's cache of it
        was emptied since (``torch._dynamo.reset()``): its compiles start again from one."""
        info = self._functions.get(id(code))
        if info is not None and info.handle() is code and not (entries == 0 and info.traces):
            return info
        if info is not None and info.handle() is code:
            self._function_released(id(code), info.fid)
        definition = None
        if is_user_file(code.co_filename) and not values.is_resume(code):  # (a resume function: dynamo's code)
            definition = Frame(code.co_filename, code.co_firstlineno, values.frame_name(code))
        from torch._dynamo import config as dynamo_config

        info = FunctionInfo(self._new_id(), values.frame_name(code), definition, weakref.ref(code))
        info.reduce_retracing = bool(dynamo_config.automatic_dynamic_shapes)
        self._watch(id(code), code, info, site, by_user=False)
        return info

    def _end(self, record: _Compile | None, compiled: bool) -> None:
        if record is None:
            return
        try:
            if record.guard is None and record.count > 1:  # a recompile dynamo found no reason for
                record.guard = Guard("(dynamo reported no failed guard)")
            arguments = record.arguments + self._guarded(record)
            info = record.info
            if record.limit is not None:
                limit_type, limit, compiles = record.limit
                self._fire(
                    self.hook.graphlint_recompile_limit_reached,
                    function_id=info.fid,
                    name=info.name,
                    definition_site=info.definition,
                    site=record.site,
                    arguments=arguments,
                    guard=record.guard,
                    compiles=compiles,
                    limit=limit,
                    limit_type=limit_type,
                )
            elif compiled:
                self._fire_traced(info, arguments, record.site, guard=record.guard, trace_count=record.count)
        except Exception as exc:
            self.internal(exc, "compile end")
        finally:
            record.locals = record.closure = record.globals = None

    def _guarded(self, record: _Compile) -> tuple[Argument, ...]:
        """The current value of what the failed guard guards, unless it is an argument."""
        guard = record.guard
        if guard is None or guard.source is None:
            return ()
        name = values.display_source(guard.source)
        if any(a.name == name for a in record.arguments):
            return ()
        value = values.guarded_value(guard.source, record.locals, record.frame_code, record.closure, record.globals)
        if values.is_missing(value):
            return ()
        import torch

        return (values.summarize_value(name, value, torch.Tensor),)

    # -- why it compiled again, and when it stopped -------------------------------------------
    def _patch_reasons(self) -> None:
        from torch._dynamo import convert_frame

        probe = self

        def wrap(original: Callable[..., Any]) -> Callable[..., Any]:
            def get_and_maybe_log_recompilation_reasons(*args: Any, **kwargs: Any) -> Any:
                try:
                    reasons = original(*args, **kwargs)
                    if probe.active and reasons:
                        stack = probe._stack()
                        if stack and stack[-1] is not None:
                            try:
                                stack[-1].guard = values.parse_guard(reasons[0])
                            except Exception as exc:
                                probe.internal(exc, "guards")
                    return reasons
                except BaseException as exc:
                    unwound(exc)
                    raise

            return get_and_maybe_log_recompilation_reasons

        self.patcher.patch(convert_frame, "get_and_maybe_log_recompilation_reasons", wrap)

    def _patch_limit(self) -> None:
        from torch._dynamo import config, convert_frame

        probe = self

        def wrap(original: Callable[..., Any]) -> Callable[..., Any]:
            def exceeds_recompile_limit(cache_size: Any, *args: Any, **kwargs: Any) -> Any:
                try:
                    result = original(cache_size, *args, **kwargs)
                    if probe.active and result and result[0]:
                        stack = probe._stack()
                        if stack and stack[-1] is not None:
                            limit_type = result[1]
                            same = limit_type == "recompile_limit"
                            compiles = getattr(
                                cache_size, "num_cache_entries_with_same_id_matched_objs" if same else "num_cache_entries", 0
                            )
                            stack[-1].limit = (limit_type, getattr(config, limit_type, None), compiles)
                    return result
                except BaseException as exc:
                    unwound(exc)
                    raise

            return exceeds_recompile_limit

        self.patcher.patch(convert_frame, "exceeds_recompile_limit", wrap)

    # -- graph breaks ----------------------------------------------------------------------------
    def _patch_graph_breaks(self) -> None:
        from torch._dynamo.symbolic_convert import InstructionTranslatorBase

        probe = self

        def wrap(original: Callable[..., Any]) -> Callable[..., Any]:
            def log_graph_break(self: Any, code_options: Any, reason: Any, exc: Any, *args: Any, **kwargs: Any) -> Any:
                try:
                    if probe.active and not getattr(exc, "logged", True):
                        probe._graph_break(exc)
                    return original(self, code_options, reason, exc, *args, **kwargs)
                except BaseException as error:
                    unwound(error)
                    raise

            return log_graph_break

        self.patcher.patch(InstructionTranslatorBase, "log_graph_break", wrap)

    def _graph_break(self, exc: Any) -> None:
        try:
            stack = self._stack()
            record = stack[-1] if stack else None
            if record is None:
                return
            found = None  # the user's line in dynamo's stack of the break
            for summary in reversed(list(getattr(exc, "real_stack", None) or ())):
                if is_user_file(summary.filename):
                    found = Frame(summary.filename, summary.lineno, values.resumed_name(summary.name))
                    break
            site = found or record.site
            reason, explanation, hints = _break_reason(getattr(exc, "msg", None) or str(exc))
            self._fire(
                self.hook.graphlint_graph_break,
                function_id=record.info.fid,
                name=found.function if found is not None else record.info.name,
                site=site,
                call_site=record.site,
                reason=reason,
                explanation=explanation,
                hints=hints,
                skipped=bool(getattr(exc, "skip_frame", False)),
            )
        except Exception as exc:
            self.internal(exc, "graph break")


def _break_reason(message: str) -> tuple[str, str, tuple[str, ...]]:
    """(headline, explanation, hints) of the first graph break a dynamo message describes."""
    first = message.split("*** While handling this graph break", 1)[0]
    lines = [line.strip() for line in first.strip().splitlines()]
    headline = lines[0] if lines else ""
    explanation = next((line[len("Explanation:") :].strip() for line in lines if line.startswith("Explanation:")), "")
    hints = tuple(line[len("Hint:") :].strip() for line in lines if line.startswith("Hint:"))
    return headline, explanation, hints
