"""Prompt templates are data, rendered strictly: a missing or undocumented variable is an error."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from reviewer.core.errors import PromptError
from reviewer.llm.prompts import PromptTemplate, load_prompt
from reviewer.datafiles import data_dir

NAMES = sorted(p.stem for p in data_dir("prompts").glob("*.yaml"))


def test_the_roles_have_prompts() -> None:
    assert {"planner", "static_review", "drafter", "repair", "fixer"} <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_every_prompt_documents_and_uses_its_variables(name: str) -> None:
    tpl = load_prompt(name)
    assert tpl.description.strip()
    assert all(doc.strip() for doc in tpl.variables.values())
    values = {k: ([] if k == "files" else {"c": "help"} if k == "categories" else f"<{k}>") for k in tpl.variables}
    text = "\n".join(m["content"] for m in tpl.render(**values))
    scalar = [k for k in tpl.variables if k not in ("files", "categories", "diff")]
    assert all(f"<{k}>" in text for k in scalar), [k for k in scalar if f"<{k}>" not in text]


def test_missing_variable_is_an_error() -> None:
    tpl = load_prompt("repair")
    with pytest.raises(PromptError) as exc:
        tpl.render(error="x")
    assert exc.value.status == "bad_prompt" and "schema" in str(exc.value)


def test_undocumented_variable_passed_is_an_error() -> None:
    with pytest.raises(PromptError):
        load_prompt("repair").render(error="x", schema="{}", extra="y")


def test_template_using_an_undocumented_variable_does_not_load() -> None:
    with pytest.raises(ValidationError, match="undocumented variables \\['secret'\\]"):
        PromptTemplate(name="t", description="d", variables={"a": "doc"}, user="{{ a }} {{ secret }}")


def test_undefined_attribute_is_an_error_not_an_empty_string() -> None:
    tpl = PromptTemplate(name="t", description="d", variables={"f": "a file"}, user="{{ f.missing }}")
    with pytest.raises(PromptError):
        tpl.render(f={"path": "x"})


def test_missing_prompt_file_is_a_prompt_error() -> None:
    with pytest.raises(PromptError):
        load_prompt("no_such_prompt")
