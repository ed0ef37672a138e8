"""The order tools run in (registry.ordered_tools): dependencies first, then tools that use the submission
child as it is before tools that take a fresh one, ties by name."""

from __future__ import annotations

from typing import ClassVar

import pytest

from reviewer.core.errors import ToolError
from tools.engine import registry
from tools.engine.tool import Tool


def _tool(name: str, after: tuple[str, ...] = (), fresh: bool = False) -> type[Tool]:
    attrs: dict[str, object] = {"name": name, "criteria": ("builds",), "after": after, "fresh_submission_child": fresh,
                                "run": lambda self, ctx: None}
    return type(f"T_{name}", (Tool,), attrs)


def _order(monkeypatch: pytest.MonkeyPatch, *classes: type[Tool]) -> list[str]:
    table = {c.name: c for c in classes}
    monkeypatch.setattr(registry, "tools", lambda: table)
    return [c.name for c in registry.ordered_tools()]


def test_fresh_child_tools_run_after_every_tool_that_need_not_follow_them(monkeypatch) -> None:
    order = _order(monkeypatch,
                   _tool("a_fresh", ("base",), fresh=True), _tool("base"), _tool("m_fresh", ("base",), fresh=True),
                   _tool("z_plain", ("base",)), _tool("y_plain", ("z_plain",)),
                   _tool("reads_fresh", ("a_fresh",)))
    # a_fresh sorts first by name but waits for every plain tool; a plain tool after it runs as soon as it
    # can, before the next fresh-child tool restarts the child again
    assert order == ["base", "z_plain", "y_plain", "a_fresh", "reads_fresh", "m_fresh"]


def test_dependencies_win_over_the_fresh_child_preference(monkeypatch) -> None:
    order = _order(monkeypatch, _tool("plain", ("fresh",)), _tool("fresh", fresh=True), _tool("other"))
    assert order == ["other", "fresh", "plain"]


def test_order_is_the_same_whatever_order_tools_are_registered_in(monkeypatch) -> None:
    tools = [_tool("b", ("a",)), _tool("a"), _tool("c", fresh=True), _tool("d", ("a",))]
    first = _order(monkeypatch, *tools)
    assert first == _order(monkeypatch, *reversed(tools)) == ["a", "b", "d", "c"]


def test_a_cycle_is_a_clear_error(monkeypatch) -> None:
    with pytest.raises(ToolError, match="tool ordering cycle: .*x.*y"):
        _order(monkeypatch, _tool("x", ("y",)), _tool("y", ("x",)))


def test_registered_tools_that_take_a_fresh_child_run_after_those_that_share_it() -> None:
    order = [c.name for c in registry.ordered_tools()]
    table = registry.tools()
    fresh = [n for n in order if table[n].fresh_submission_child]
    assert {"memcheck", "integrity_runtime"} <= set(fresh)
    # every tool that uses the child as it is and does not depend on a fresh-child tool runs before them
    first_fresh = min(order.index(n) for n in fresh)
    assert {"correctness", "generality", "numerics", "probes", "pallas_padding", "port", "task_audit",
            "sanitizers", "fusion", "benchmark"} <= set(order[:first_fresh])
    for name, cls in table.items():
        assert all(order.index(dep) < order.index(name) for dep in cls.after if dep in table)
