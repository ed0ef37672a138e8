"""The reference's answers kept across reviews of one task (tools/engine/reference_store.py): a second
kernel of the same task starts no reference child and gets the same inputs and expected outputs, bit for
bit; anything the answer depends on moves the key; a damaged entry is a miss, never a stale answer."""

from __future__ import annotations

import json
from pathlib import Path

import tools.engine.reference_store as rs
from reviewer.device import detect_device
from reviewer.graph.context import make_tool_context
from reviewer.ingest import load_submission
from tests.kernelfiles import KERNELS
from tools.engine.harness.case import Case


def _store(tmp_path: Path, **task) -> rs.ReferenceStore:
    return rs.ReferenceStore(tmp_path / "store", {"files": {"reference.py": "ab"}, **task})


def test_an_answer_comes_back_whole_and_only_under_its_own_key(tmp_path: Path) -> None:
    store = _store(tmp_path)
    body = store.body("reference_case", {"case": {"seed": 1}, "outputs_path": "<out:0>"}, {})
    assert store.get(body) is None and not store.seen()
    store.put(body, {"outputs": [1]}, {"<out:0>": b"\x00tensor bytes"})
    kept = store.get(body)
    assert kept is not None and kept.result == {"outputs": [1]} and kept.files == {"<out:0>": b"\x00tensor bytes"}
    assert store.seen()
    # seen for a named review only once that review kept something (the reference child is then not started ahead)
    assert not store.seen("seed 1") and not store.seen("seed 2")
    store.mark("seed 1")
    assert store.seen("seed 1") and not store.seen("seed 2")
    # the mark is no entry: the trim and the listing of answers pass it by
    assert all(p.name.startswith(".") or (p / "entry.json").exists() for p in store.folder.iterdir())
    # another seed, another input file, another request, another task: misses
    assert store.get(store.body("reference_case", {"case": {"seed": 2}, "outputs_path": "<out:0>"}, {})) is None
    assert store.get(store.body("reference_case", {"case": {"seed": 1}, "outputs_path": "<out:0>"},
                                {"<in:0>": "ff"})) is None
    assert store.get(store.body("reference_work", {"case": {"seed": 1}, "outputs_path": "<out:0>"}, {})) is None
    other = _store(tmp_path, threads=4)
    assert other.folder != store.folder and other.get(other.body("reference_case", body["payload"], {})) is None


def test_a_damaged_entry_is_a_miss(tmp_path: Path) -> None:
    store = _store(tmp_path)
    body = store.body("reference_case", {"case": {"seed": 1}}, {})
    store.put(body, {"ok": 1}, {"<out:0>": b"abcdef"})
    (entry,) = [p for p in store.folder.iterdir()]
    (entry / "file-0").write_bytes(b"abcdeX")  # same size, other bytes
    assert store.get(body) is None
    (entry / "file-0").write_bytes(b"abc")  # truncated
    assert store.get(body) is None
    (entry / "file-0").write_bytes(b"abcdef")
    assert store.get(body) is not None
    # an entry filed under this key that holds another body (a collision, an edit) is never served
    data = json.loads((entry / "entry.json").read_text())
    data["key"]["payload"] = {"case": {"seed": 99}}
    (entry / "entry.json").write_text(json.dumps(data))
    assert store.get(body) is None
    (entry / "entry.json").write_text("{not json")
    assert store.get(body) is None


def test_too_large_answers_are_not_kept_and_the_store_is_trimmed_oldest_first(tmp_path: Path, monkeypatch) -> None:
    store = _store(tmp_path)
    monkeypatch.setattr(rs, "MAX_ENTRY_BYTES", 10)
    big = store.body("reference_case", {"case": {"seed": 0}}, {})
    store.put(big, {}, {"<out:0>": b"x" * 11})
    assert store.get(big) is None
    bodies = [store.body("reference_case", {"case": {"seed": s}}, {}) for s in range(1, 5)]
    for b in bodies:
        store.put(b, {}, {"<out:0>": b"y" * 8})
    import os
    for age, b in enumerate(reversed(bodies)):  # seed 1 the oldest use
        os.utime(store._path(b), (1000 + age, 1000 + age))
    assert store.get(bodies[3]) is not None  # a use makes it the newest
    rs.trim(store.root, limit=600)
    left = [store.get(b) is not None for b in bodies]
    assert left[3] and not left[0], left


def test_default_folder_and_off(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("KREVIEW_REFERENCE_CACHE", "off")
    assert rs.default_dir() is None
    monkeypatch.setenv("KREVIEW_REFERENCE_CACHE", str(tmp_path / "here"))
    assert rs.default_dir() == tmp_path / "here"
    monkeypatch.delenv("KREVIEW_REFERENCE_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert rs.default_dir() == tmp_path / "xdg" / "kreview" / "reference"


def _session(tmp_path: Path, name: str, kernel: str, config, reference: str | None = None, tail: str = ""):
    d = tmp_path / name
    d.mkdir()
    (d / "reference.py").write_text(reference or (KERNELS / "spine" / "reference.py").read_text())
    (d / "submission.py").write_text((KERNELS / "spine" / kernel).read_text() + tail)
    return make_tool_context(load_submission(d), config, tmp_path / f"run-{name}", 7, detect_device("cpu")).session


def test_a_second_kernel_of_the_task_starts_no_reference_child_and_gets_the_same_answers(
        tmp_path: Path, config, monkeypatch) -> None:
    monkeypatch.setenv("KREVIEW_REFERENCE_CACHE", str(tmp_path / "store"))
    case = Case(id="c", seed=11)
    first = _session(tmp_path, "a", "good_triton.py", config)
    try:
        ref = first.reference(case)
        assert ref.ok and ref.call.child.startswith("reference#") and ref.call.child != "reference#stored"
        # the reference child is not given the submission's file
        assert not (first.root / "reference" / "src" / "submission.py").exists()
        assert (first.root / "reference" / "src" / "reference.py").exists()
        inputs_a = first.load_tensors(ref.inputs_path)
        outputs_a, meta_a = ref.outputs, ref.meta
        run_a = first.run_submission(case, ref)
        assert run_a.ok
    finally:
        first.close()
    # another Triton kernel of the task (one of another framework runs under other preludes: another key)
    second = _session(tmp_path, "b", "good_triton.py", config, tail="\n# another author's kernel\n")
    try:
        second.load_submission()  # starts the submission child; the reference's is not started ahead
        assert "reference" not in second._workers
        ref = second.reference(case)
        assert ref.ok and ref.call.child == "reference#stored"
        assert "reference" not in second._workers
        got = second.load_tensors(ref.inputs_path)
        import torch
        for x, y in zip(got["inputs"], inputs_a["inputs"]):
            assert torch.equal(x, y) and x.dtype == y.dtype
        for x, y in zip(ref.outputs, outputs_a):
            assert torch.equal(x, y)
        assert ref.meta == meta_a and ref.parent_inputs.is_file()
        # a case it has not seen starts the reference child then
        other = second.reference(Case(id="d", seed=12))
        assert other.ok and other.call.child != "reference#stored" and "reference" in second._workers
    finally:
        second.close()
    # the task's reference edited: nothing kept applies
    edited = (KERNELS / "spine" / "reference.py").read_text() + "\n# edited\n"
    third = _session(tmp_path, "c", "good_triton.py", config, reference=edited)
    try:
        assert third.reference(case).call.child != "reference#stored"
    finally:
        third.close()


def test_with_the_store_off_the_reference_child_answers(tmp_path: Path, config, monkeypatch) -> None:
    monkeypatch.setenv("KREVIEW_REFERENCE_CACHE", "off")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    s = _session(tmp_path, "a", "good_triton.py", config)
    try:
        assert s.reference_store() is None
        ref = s.reference(Case(id="c", seed=11))
        assert ref.ok and ref.call.child != "reference#stored" and "reference" in s._workers
    finally:
        s.close()
    assert not (tmp_path / "xdg").exists()  # nothing kept anywhere


def test_a_closing_session_trims_once_the_kept_bytes_since_the_last_trim_add_up(tmp_path: Path) -> None:
    root = tmp_path / "store"
    root.mkdir()
    step = int(rs.MAX_STORE_BYTES * rs.TRIM_EVERY)
    assert [rs.trim_due(root, n) for n in (step // 3, step // 3)] == [False, False]
    assert rs.trim_due(root, step // 3 + 1)  # the three add up to the step: this one trims
    assert not rs.trim_due(root, 10)  # the count started again
    assert rs.trim_due(root, step)
    (root / ".kept-since-trim").write_text("not a number")
    assert not rs.trim_due(root, 1)  # an unreadable ledger counts from zero
    store = _store(tmp_path)
    body = store.body("reference_case", {"case": {"seed": 3}}, {})
    store.put(body, {}, {"<out:0>": b"z" * 8, "<out:1>": b"w" * 5})
    assert (store.kept, store.kept_bytes) == (1, 13)
