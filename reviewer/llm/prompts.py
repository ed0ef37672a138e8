"""Prompt templates as data (``prompts/<name>.yaml``), rendered strictly.

A template file has ``name``, ``description``, ``variables`` (each variable's meaning: the
documentation a prompt author reads), and Jinja2 ``system`` (optional) and ``user`` templates. Loading fails
if a template uses a variable it does not document; rendering fails if a documented variable is
missing or an undocumented one is passed, and ``StrictUndefined`` makes any other undefined
reference an error instead of an empty string. Every failure is a ``PromptError``.
"""

from __future__ import annotations

import functools

import jinja2
import yaml
from jinja2 import meta
from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from reviewer.core.errors import PromptError
from reviewer.datafiles import prompt_path

_ENV = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False, keep_trailing_newline=True,
                          trim_blocks=True, lstrip_blocks=True)


class PromptTemplate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    description: str
    variables: dict[str, str]
    system: str = ""
    user: str

    @model_validator(mode="after")
    def _documented(self) -> PromptTemplate:
        for part in ("system", "user"):
            try:
                used = meta.find_undeclared_variables(_ENV.parse(getattr(self, part)))
            except jinja2.TemplateSyntaxError as exc:
                raise ValueError(f"{part}: {exc}") from exc
            undocumented = sorted(used - set(self.variables))
            if undocumented:
                raise ValueError(f"{part} uses undocumented variables {undocumented}")
        return self

    def render(self, **values: object) -> list[dict[str, str]]:
        missing = sorted(set(self.variables) - set(values))
        extra = sorted(set(values) - set(self.variables))
        if missing or extra:
            raise PromptError(f"prompt {self.name!r}: missing variables {missing}, undocumented variables {extra}")
        try:
            parts = [("system", self.system), ("user", self.user)]
            return [{"role": role, "content": _ENV.from_string(text).render(**values).strip()}
                    for role, text in parts if text.strip()]
        except jinja2.UndefinedError as exc:
            raise PromptError(f"prompt {self.name!r}: {exc}") from exc


@functools.cache
def load_prompt(name: str) -> PromptTemplate:
    path = prompt_path(f"{name}.yaml")
    try:
        return PromptTemplate.model_validate(yaml.safe_load(path.read_text()))
    except OSError as exc:
        raise PromptError(f"prompt {name!r} is missing: {exc}") from exc
    except (yaml.YAMLError, ValidationError) as exc:
        raise PromptError(f"prompt {path} does not validate: {exc}") from exc
