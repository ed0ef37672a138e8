"""One parsed view of a submission's source (tools/engine/source.py)."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

from reviewer.ingest import load_submission
from tests.conftest import EXAMPLES
from tools.engine.source import SourceView, parse

EXAMPLE = EXAMPLES / "softmax_triton"


def test_a_text_is_parsed_once_and_a_syntax_error_names_the_file() -> None:
    text = "x = 1\ndef f(a):\n    return a + x\n"
    tree = parse(text)
    assert parse(text, "other.py") is tree
    assert ast.dump(tree) == ast.dump(ast.parse(text))
    with pytest.raises(SyntaxError) as err:
        parse("def broken(:\n", "broken.py")
    assert err.value.filename == "broken.py"


def test_the_view_reads_and_parses_each_file_of_the_submission_once(tmp_path: Path) -> None:
    root = tmp_path / "sub"
    shutil.copytree(EXAMPLE, root)
    (root / "helpers.py").write_text("def helper(n):\n    return n * 2\n")
    (root / "broken.py").write_text("def broken(:\n")
    view = SourceView(load_submission(root))
    text = (root / "submission.py").read_text()
    assert view.text == text and view.lines == text.splitlines()
    assert view.tree is parse(text)
    assert view.reference == (root / "reference.py").read_text()
    assert view.python_files()[0] == "submission.py" and "helpers.py" in view.python_files()
    trees = view.trees()
    assert "broken.py" not in trees and view.tree_of("broken.py") is None
    assert [n.name for n in trees["helpers.py"].body if isinstance(n, ast.FunctionDef)] == ["helper"]
    (root / "submission.py").write_text("changed = True\n")  # read once per review: the view keeps its text
    assert view.text == text
