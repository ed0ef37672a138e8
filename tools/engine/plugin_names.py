"""The names of the registered tools, read from their entry points without importing any of them.

Kept apart from registry.py (which imports the Tool interface, and through it torch): checking a
``--only``/``--skip`` value or a configuration file's tool names costs milliseconds, not the seconds
of importing every tool.
"""

from __future__ import annotations

from importlib.metadata import entry_points

TOOLS_GROUP = "kreview.tools"


def registered_names() -> list[str]:
    """The registered tools' names, sorted."""
    return sorted({ep.name for ep in entry_points(group=TOOLS_GROUP)})
