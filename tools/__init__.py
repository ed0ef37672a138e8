"""Concrete tools that gather evidence about a submission.

Each tool lives in its own subpackage and is registered through the ``kreview.tools`` entry-point
group (see ``pyproject.toml``), exactly as a third-party tool would be. ``tools.engine.sandbox`` runs
untrusted code; ``tools.engine.harness`` is the code that runs *inside* the sandbox's child processes.
"""
