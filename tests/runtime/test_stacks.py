"""The user's stack as graphlint records it: the same frames and lines as a plain walk of the
call stack, however often the callers are cached (graphlint/stacks.py)."""

from __future__ import annotations

import sys
import traceback

from graphlint.stacks import Frame, capture, capture_lazy, frame_of, in_init_of, is_user_file, user_site_from, walk_out


def reference(depth: int = 1) -> list[tuple[int, str]]:
    """(line, function) of the user's frames, outermost first, by the standard library."""
    summary = traceback.extract_stack(sys._getframe(depth + 1))
    return [(f.lineno, f.name) for f in summary if is_user_file(f.filename)]


def lines(stack) -> list[tuple[int, str]]:
    return [(f.line, f.function) for f in stack.frames]


def helper(seen):
    lazy, expected = capture_lazy(0), reference(0)
    seen.append((lines(lazy.materialize()), expected, lazy.call))
    lazy, expected = capture_lazy(0), reference(0)  # a second capture in the same call
    seen.append((lines(lazy.materialize()), expected, lazy.call))
    seen.append((lines(capture(0)), reference(0), None))


def outer_a(seen):
    helper(seen)
    helper(seen)


def outer_b(seen):
    for _ in range(2):
        outer_a(seen)
    helper(seen)


def test_every_captured_stack_is_the_call_stack_with_its_current_lines():
    seen = []
    outer_b(seen)
    outer_a(seen)
    assert len(seen) == 21
    for captured, expected, _ in seen:
        assert captured == expected
    assert len({tuple(c) for c, _, _ in seen}) > 6  # the callers' lines really change


def test_a_call_keeps_its_invocation_id_and_the_next_call_gets_a_new_one():
    seen = []
    outer_a(seen)
    first, again, second = seen[0][2], seen[1][2], seen[3][2]
    assert first == again and second != first


def gen(seen):
    while True:
        lazy, expected = capture_lazy(0), reference(0)
        seen.append((lines(lazy.materialize()), expected))
        yield


def resume_here(g):
    next(g)


def resume_there(g):
    next(g)


def test_a_generator_resumed_by_another_caller_has_that_caller_on_its_stack():
    seen = []
    g = gen(seen)
    resume_here(g)
    resume_there(g)
    resume_here(g)
    for captured, expected in seen:
        assert captured == expected
    assert seen[0][0][-2][1] == "resume_here" and seen[1][0][-2][1] == "resume_there"


def test_a_stack_read_after_the_event_keeps_only_its_site():
    lazy = capture_lazy(0)
    site = lazy.site
    lazy.release()
    assert isinstance(site, Frame) and lazy.frames == (site,)


# -- walking out from a frame: the probes' one helper ---------------------------------------------
class Made:
    """A class whose __init__ chain the walk goes past (as a Keras model subclass's)."""

    def __init__(self, seen):
        seen.append(user_site_from(sys._getframe(0), skip_init_of=self))


class MadeChild(Made):
    def __init__(self, seen):
        super().__init__(seen)


def test_the_first_user_frame_past_an_objects_own_init_chain_is_where_it_was_made():
    seen = []
    MadeChild(seen)
    made_here = sys._getframe(0).f_lineno - 1
    [site] = seen
    assert (site.line, site.function) == (made_here, "test_the_first_user_frame_past_an_objects_own_init_chain_is_where_it_was_made")
    assert user_site_from(sys._getframe(0)) == frame_of(sys._getframe(0))  # (one line: the same Frame)


def test_walk_out_stops_at_the_first_frame_not_passed_over():
    def inner():
        return walk_out(sys._getframe(0), lambda f: f.f_code.co_name in ("inner", "middle"))

    def middle():
        return inner()

    assert walk_out(sys._getframe(0), lambda f: True) is None
    assert middle().f_code.co_name == "test_walk_out_stops_at_the_first_frame_not_passed_over"
    assert in_init_of(sys._getframe(0), object()) is False
