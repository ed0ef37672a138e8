"""A change's diff reaches the model: ``kreview diff`` (review_diff) hands each touched submission's
unified diff to the drafter's ``plan``, and the static reviewer and the planner show it in their
prompts (docs/llm.md, "A diff"). The model is scripted; the review itself runs for real."""

from __future__ import annotations

from pathlib import Path

from reviewer.core.config import LLMSettings, ReviewConfig
from reviewer.llm import ScriptedModel, make_drafter
from reviewer.pr.diffreview import review_diff
from tests.e2e.pr.gitrepo import CORRECT, REFERENCE, Repo


def _text(request) -> str:
    return "\n".join(m.get("content", "") for m in request.messages)


def test_the_planner_receives_the_change_s_diff(tmp_path: Path, config: ReviewConfig) -> None:
    r = Repo(tmp_path / "repo")
    r.commit("base", {"k/reference.py": REFERENCE, "k/submission.py": CORRECT, "other/notes.txt": "old\n"})
    changed = CORRECT + "# a comment the change adds\n"
    r.commit("head", {"k/submission.py": changed, "other/notes.txt": "new\n"})
    # static review: no findings; planner: no probes; drafter: no answer left (the offline draft stands)
    model = ScriptedModel([{"findings": []}, {"probes": []}], name="scripted")
    dr = review_diff(r.root, "main~1", "main", runs_dir=tmp_path / "runs",
                     review_config=config.model_copy(update={"only": ["builds", "probes"]}),
                     drafter=make_drafter(LLMSettings(), model=model))
    assert [t.target.dir for t in dr.targets] == ["k"]
    roles = [req.response_format["json_schema"]["name"] for req in model.requests]
    assert roles[:2] == ["StaticReviewOut", "PlannerOut"]
    static, planner = (_text(req) for req in model.requests[:2])
    for prompt in (static, planner):
        assert "+# a comment the change adds" in prompt  # the added line, as the unified diff shows it
        assert "diff --git a/k/submission.py b/k/submission.py" in prompt
        assert "other/notes.txt" not in prompt  # only the submission's own folder


def test_a_review_without_a_change_shows_the_planner_no_diff(tmp_path: Path, config: ReviewConfig) -> None:
    from reviewer.api import start_review
    from tests.e2e.pr.gitrepo import CORRECT as SOURCE

    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "reference.py").write_text(REFERENCE)
    (sub / "submission.py").write_text(SOURCE)
    model = ScriptedModel([{"findings": []}, {"probes": []}], name="scripted")
    start_review(sub, config.model_copy(update={"only": ["builds", "probes"]}),
                 drafter=make_drafter(LLMSettings(), model=model))
    assert [req.response_format["json_schema"]["name"] for req in model.requests][:2] == \
        ["StaticReviewOut", "PlannerOut"]
    assert all("The change under review" not in _text(req) for req in model.requests[:2])
