"""Writes to state that outlives a call (tools/engine/kept_state.py)."""

from __future__ import annotations

from tools.engine.kept_state import StateWrite, state_writes
from tools.engine.source import source_file


def _writes(text: str) -> list[StateWrite]:
    src = source_file("sub.py", text)
    assert src is not None
    return state_writes(src)


def _facts(text: str) -> set[tuple[str, str, str, str | None, str]]:
    return {(w.kind, w.name, w.target, w.function, w.when) for w in _writes(text)}


SAMPLE = '''
import functools, torch
_CALLS = 0
CACHE = {}
SEEN = []
STATE = object()
W = torch.ones(3)

@functools.lru_cache(maxsize=None)
def table(n):
    return torch.arange(n)

class ModelNew(torch.nn.Module):
    hits = 0
    def __init__(self):
        super().__init__()
        self.count = 0
        self.memo = {}
    def forward(self, x):
        global _CALLS
        _CALLS += 1
        CACHE[x.shape] = x
        SEEN.append(x.shape)
        STATE.n = 3
        ModelNew.hits += 1
        type(self).last = x
        self.count += 1
        self.memo[x.shape] = x
        self._last_input, self._last_output = x, x + 1
        return x
'''


def test_each_kind_with_its_name_target_function_and_time() -> None:
    assert _facts(SAMPLE) == {
        ("lru_cache", "table", "table", "table", "call"),
        ("instance_assign", "self.count", "self.count", "ModelNew.__init__", "construction"),
        ("instance_assign", "self.memo", "self.memo", "ModelNew.__init__", "construction"),
        ("global", "_CALLS", "_CALLS", "ModelNew.forward", "call"),
        ("container", "CACHE", "CACHE", "ModelNew.forward", "call"),
        ("container", "SEEN", "SEEN", "ModelNew.forward", "call"),
        ("module_attribute", "STATE", "STATE.n", "ModelNew.forward", "call"),
        ("class_attribute", "ModelNew.hits", "ModelNew.hits", "ModelNew.forward", "call"),
        ("class_attribute", "type(self).last", "type(self).last", "ModelNew.forward", "call"),
        ("instance", "self.count", "self.count", "ModelNew.forward", "call"),
        ("instance", "self.memo", "self.memo", "ModelNew.forward", "call"),
        ("instance_assign", "self._last_input", "self._last_input", "ModelNew.forward", "call"),
        ("instance_assign", "self._last_output", "self._last_output", "ModelNew.forward", "call"),
    }


def test_how_each_write_is_made_and_the_order_is_by_line() -> None:
    writes = _writes(SAMPLE)
    assert [w.line for w in writes] == sorted(w.line for w in writes)
    how = {w.target: w.how for w in writes if w.when == "call"}
    assert how == {"table": "memo", "_CALLS": "update", "CACHE": "item", "SEEN": "method", "STATE.n": "assign",
                   "ModelNew.hits": "update", "type(self).last": "assign", "self.count": "update",
                   "self.memo": "item", "self._last_input": "assign", "self._last_output": "assign"}
    assert writes[0].plain() == "table() memoizes `table` with functools (results cached on its arguments): " \
                                "state that survives the call"


def test_locals_parameters_and_values_computed_are_not_writes() -> None:
    text = '''
import torch
W = torch.ones(3)
BUF = {}
class M(torch.nn.Module):
    def forward(self, x, out, cache=None):
        y = self.b.add(x)
        z = W.add(1)
        W.add(1)
        local = {}
        local[1] = 2
        local.update(a=1)
        out[0] = 1
        out.add_(1)
        cache[x] = y
        t = torch.empty(3)
        t[0] = 1
        BUF_copy = BUF
        n = 0
        n += 1
        torch.backends.cudnn.benchmark = True
        return y
'''
    assert _writes(text) == []


def test_a_used_result_writes_only_for_methods_that_return_from_the_container() -> None:
    text = '''
CACHE = {}
class M:
    def forward(self, x):
        block = CACHE.setdefault(x.shape, 4)
        old = self._memo.pop(x.shape, None)
        y = self.seen.add(x)
        return self._memo.setdefault(x.shape, x + 1)
'''
    got = {(w.kind, w.target, w.line, w.used) for w in _writes(text)}
    assert got == {("container", "CACHE", 5, True), ("instance", "self._memo", 6, True),
                   ("instance", "self._memo", 8, True)}


def test_kernel_bodies_and_the_main_block_write_nothing_that_outlives_a_call() -> None:
    text = '''
import triton
_T = {}
@triton.jit
def k(x):
    _T[0] = 1
def run(x):
    return x
if __name__ == "__main__":
    _T[1] = 2
    def helper():
        global _T
        _T = {}
'''
    assert _writes(text) == []


def test_module_level_code_writes_at_import_and_a_hook_defined_in_init_writes_on_calls() -> None:
    text = '''
TABLE = {}
for i in range(4):
    TABLE[i] = i * i
del TABLE[0]
class M:
    def __init__(self):
        self.calls = 0
        def hook(*args):
            self.calls += 1
        self.register(hook)
'''
    got = {(w.kind, w.target, w.function, w.when, w.line) for w in _writes(text)}
    assert got == {("container", "TABLE", None, "import", 4), ("container", "TABLE", None, "import", 5),
                   ("instance_assign", "self.calls", "M.__init__", "construction", 8),
                   ("instance", "self.calls", "M.__init__", "call", 10)}
    assert _writes(text)[0].plain() == "module-level code writes into the module-level container `TABLE`: " \
                                       "state that survives the call"


def test_a_container_bound_lazily_or_by_weakref_takes_method_writes() -> None:
    text = '''
import weakref
_LAZY = None
_WEAK = weakref.WeakValueDictionary()
_OTHER = None
def f(x):
    global _LAZY
    if _LAZY is None:
        _LAZY = {}
    _LAZY.setdefault(x, 1)
    _WEAK.update(a=x)
    _OTHER.update(a=x)
'''
    got = {(w.kind, w.target, w.how, w.line) for w in _writes(text)}
    assert got == {("global", "_LAZY", "assign", 9), ("container", "_LAZY", "method", 10),
                   ("container", "_WEAK", "method", 11)}
