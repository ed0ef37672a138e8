"""Submission formats, the third kind of plugin (``kreview.formats`` entry points; the interface:
base.py), and their registry. tools/engine/registry.py re-exports it beside tools and backends; it
lives here so that the sandbox session, which every tool imports, can ask it without a loop."""

from __future__ import annotations

import functools
from importlib.metadata import entry_points

from reviewer.core.errors import ToolError
from tools.engine.formats.base import SubmissionFormat


FORMATS_GROUP = "kreview.formats"
# Rationale: the built-in formats as pyproject.toml declares them, read when the installed metadata has
# no kreview.formats group (an editable install made before the group existed) so that the reviewer
# keeps reading its own formats until the next ``pip install -e .``.
BUILTIN_FORMATS = {
    "kernelbench": "tools.engine.formats.kernelbench:KernelBenchFormat",
    "gpumode": "tools.engine.formats.gpumode:GpuModeFormat",
    "manifest": "tools.engine.formats.manifest:ManifestFormat",
}


@functools.cache
def formats() -> dict[str, SubmissionFormat]:
    """The registered submission formats by name (``kreview.formats`` entry points)."""
    found: dict[str, SubmissionFormat] = {}
    eps = list(entry_points(group=FORMATS_GROUP))
    loaders = ([(ep.name, ep.load) for ep in eps] if eps else
               [(name, functools.partial(_builtin, ref)) for name, ref in BUILTIN_FORMATS.items()])
    for name, load in loaders:
        register_format(load()(), name, table=found)
    return found


def _builtin(ref: str) -> type:
    from importlib import import_module

    module, attr = ref.split(":")
    return getattr(import_module(module), attr)


def register_format(fmt: SubmissionFormat, name: str | None = None, *,
                    table: dict[str, SubmissionFormat] | None = None) -> SubmissionFormat:
    """Add ``fmt`` to the registered formats (what an entry point does; a test registers one this way)."""
    name = name or getattr(fmt, "name", None)
    if not isinstance(fmt, SubmissionFormat):
        raise ToolError(f"format {name!r} in {FORMATS_GROUP} is not a SubmissionFormat")
    if getattr(fmt, "name", None) != name:
        raise ToolError(f"entry point {name!r} in {FORMATS_GROUP} loads a format named {getattr(fmt, 'name', None)!r}")
    (formats() if table is None else table)[name] = fmt
    return fmt


def unregister_format(name: str) -> None:
    formats().pop(name, None)


def format_names() -> tuple[str, ...]:
    """The registered formats' names (``--format-hint``), in auto-detection order, then the rest by name."""
    table = formats()
    return tuple(sorted(table, key=lambda n: (table[n].sniff_order is None, table[n].sniff_order or 0, n)))


def format_of(sub_or_name: object) -> SubmissionFormat:
    """The registered format of a submission (or of a format name). A name nobody registered is an
    error here: ingest refuses such a submission before anything asks."""
    name = sub_or_name if isinstance(sub_or_name, str) else getattr(sub_or_name, "format", None)
    table = formats()
    if name not in table:
        raise ToolError(f"unknown submission format {name!r}; registered: {', '.join(format_names())}")
    return table[name]
