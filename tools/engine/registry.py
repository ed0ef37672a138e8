"""Discovery of tools, backends and submission formats through entry points, built-ins included.

Built-in tools, backends and formats are declared in this project's ``pyproject.toml`` under the same
entry-point groups a third-party package would use (``kreview.tools``, ``kreview.backends``,
``kreview.formats``), so there is one way in; the reviewer finds plugins only here.
"""

from __future__ import annotations

import functools
import graphlib
import heapq
from collections.abc import Iterable, Mapping
from importlib.metadata import entry_points

from typing import TypeVar

from reviewer.core.errors import ToolError
from reviewer.core.models import Evidence
from tools.engine.backends.base import Backend
from tools.engine.backends.frameworks import UnknownBackend
# the formats' own registry (light: the sandbox session asks it without importing every tool class)
from tools.engine.formats import (  # noqa: F401
    BUILTIN_FORMATS, FORMATS_GROUP, format_names, format_of, formats, register_format, unregister_format,
)
from tools.engine.plugin_names import TOOLS_GROUP, registered_names  # noqa: F401  (names without imports)
from tools.engine.results import ResultModel
from tools.engine.tool import Tool

R = TypeVar("R", bound=ResultModel)


@functools.cache
def tools() -> dict[str, type[Tool]]:
    found: dict[str, type[Tool]] = {}
    for ep in entry_points(group=TOOLS_GROUP):
        cls = ep.load()
        if not (isinstance(cls, type) and issubclass(cls, Tool)):
            raise ToolError(f"entry point {ep.name!r} in {TOOLS_GROUP} is not a Tool class")
        if getattr(cls, "name", None) != ep.name:
            raise ToolError(f"entry point {ep.name!r} loads a tool named {getattr(cls, 'name', None)!r}")
        found[ep.name] = cls
    if not found:
        raise ToolError("no tools registered: is kernel-reviewer installed (pip install .)?")
    check_frameworks(found, backends())
    check_ahead(found)
    return found


def check_ahead(table: Mapping[str, type[Tool]]) -> None:
    """Refuse a tool whose ``ahead_after`` names no registered tool (a typo would make it silently never
    start its work ahead)."""
    for name, cls in table.items():
        if cls.ahead_after is not None and cls.ahead_after not in table:
            raise ToolError(f"tool {name!r} starts its work ahead after {cls.ahead_after!r}, which is no "
                            f"registered tool (registered: {', '.join(sorted(table))})")


def check_frameworks(table: Mapping[str, type[Tool]], known: Mapping[str, Backend]) -> None:
    """Refuse a tool whose ``frameworks`` names a framework no registered backend runs (a typo would
    make the tool silently never apply)."""
    for name, cls in table.items():
        unknown = sorted(set(cls.frameworks or ()) - set(known))
        if unknown:
            raise ToolError(f"tool {name!r} names frameworks no backend is registered for: {', '.join(unknown)} "
                            f"(registered: {', '.join(sorted(known))})")


def declared_criteria(table: Mapping[str, type[Tool]] | None = None) -> dict[str, tuple[str, ...]]:
    """Tool name -> the criteria it declares (``Tool.criteria``): the one map from tools to criteria.
    ``table`` defaults to the registered tools."""
    return {name: tuple(cls.criteria) for name, cls in (tools() if table is None else table).items()}


def ordered_tools() -> list[type[Tool]]:
    """Tools in dependency order (``Tool.after``, ``Tool.after_results``): a topological order that, of
    the tools ready to run, takes those using the submission child as it is before those that take a
    fresh one (``Tool.fresh_submission_child``), ties broken by name for reproducibility. So a fresh
    child is never restarted only for a tool that could have used the child before it."""
    table = tools()
    graph = {name: {dep for dep in (*cls.after, *_after_results(table, cls)) if dep in table}
             for name, cls in table.items()}
    sorter = graphlib.TopologicalSorter(graph)
    try:
        sorter.prepare()
    except graphlib.CycleError as exc:
        raise ToolError(f"tool ordering cycle: {' -> '.join(reversed(exc.args[1]))}") from exc
    ready: list[tuple[bool, str]] = []
    done: list[type[Tool]] = []
    while sorter.is_active():
        for name in sorter.get_ready():
            heapq.heappush(ready, (table[name].fresh_submission_child, name))
        _, name = heapq.heappop(ready)
        done.append(table[name])
        sorter.done(name)
    return done


def _after_results(table: Mapping[str, type[Tool]], cls: type[Tool]) -> list[str]:
    return [n for n, c in table.items() if c is not cls and c.result_model is not None
            and issubclass(c.result_model, tuple(cls.after_results) or (type(None),))]


def results(evidence: Iterable[Evidence], model: type[R]) -> list[tuple[Evidence, R]]:
    """The items whose tool declares ``model`` (or a subclass) as its ``result_model``, each with its result
    read as ``model``: how a reader finds the results it reads without naming tools. A result that does not
    read as ``model`` (a run stored by another version, or edited) is left out, not an error: the stored
    mapping stays as it is, and the reader shows what it can."""
    from pydantic import ValidationError

    table = tools()
    out = []
    for e in evidence:
        declared = table[e.tool].result_model if e.tool in table else None
        if declared is not None and issubclass(declared, model):
            try:
                out.append((e, e.result_as(model)))
            except ValidationError:
                continue
    return out


def case_sources() -> tuple[str, ...]:
    """The tools whose cases a differential comparison replays (``Tool.replays_cases``), in dependency
    order."""
    return tuple(cls.name for cls in ordered_tools() if cls.replays_cases)


def baseline_criterion(check: str) -> str:
    """The criterion a KernelBench-style baseline files its ``check`` under ("runs", "nominal_outputs"):
    the one criterion of the one tool that is that check (``Tool.standard_check``)."""
    found = [cls for cls in tools().values() if cls.standard_check == check]
    if len(found) != 1 or len(found[0].criteria) != 1:
        raise ToolError(f"the baseline's {check!r} check needs exactly one tool with one criterion declaring it; "
                        f"found {[(c.name, c.criteria) for c in found]}")
    return found[0].criteria[0]


def rerun_chain(name: str) -> list[type[Tool]]:
    """The tools a rerun of ``name`` runs, in order: the tools that leave the facts it needs
    (``Tool.needs``, ``Tool.leaves``; each with its own chain), then the tool."""
    cls = tools()[name]
    chain: list[type[Tool]] = []
    for producer in ordered_tools():
        if set(producer.leaves) & set(cls.needs):
            chain += [c for c in rerun_chain(producer.name) if c not in chain]
    return [*chain, cls]


BACKENDS_GROUP = "kreview.backends"


@functools.cache
def backends() -> dict[str, Backend]:
    found: dict[str, Backend] = {}
    for ep in entry_points(group=BACKENDS_GROUP):
        backend = ep.load()()
        if not isinstance(backend, Backend):
            raise ToolError(f"entry point {ep.name!r} in {BACKENDS_GROUP} is not a Backend")
        found[ep.name] = backend
    return found


def source_suffixes() -> frozenset[str]:
    """The suffixes of source files besides Python, over every registered backend (``Backend.source_suffixes``)."""
    return frozenset().union(*(b.source_suffixes for b in backends().values()))


def backend_for(framework: str) -> Backend:
    """The registered backend of ``framework``; for an unknown one, a backend that runs it like plain
    torch (``UnknownBackend``)."""
    return backends().get(framework) or _unknown()


@functools.cache
def _unknown() -> Backend:
    return UnknownBackend()

