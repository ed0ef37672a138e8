"""The workbench's Jinja2 environment (autoescaping everything), shared with the calibration report."""

from __future__ import annotations

from functools import lru_cache

from jinja2 import Environment, PackageLoader, select_autoescape

from reviewer.runstore import human_age


@lru_cache(maxsize=1)
def environment() -> Environment:
    env = Environment(loader=PackageLoader("reviewer.web", "templates"),
                      autoescape=select_autoescape(default=True, default_for_string=True), trim_blocks=True,
                      lstrip_blocks=True)
    env.globals["human_age"] = human_age
    return env
