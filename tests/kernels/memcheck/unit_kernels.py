"""Kernels for the sanitizer's unit tests (tests/unit/tools/engine/harness/instruments/
test_triton_sanitizer.py), run in-process under TRITON_INTERPRET=1. Not a submission family: each
kernel isolates one behaviour, and the comment ``# at: NAME`` marks the line a report must point to."""

import triton
import triton.language as tl


@triton.jit
def tail(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)  # at: tail-load
    tl.store(y_ptr + offs, x + 1.0)  # at: tail-store


@triton.jit
def masked(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(y_ptr + offs, x + 1.0, mask=m)


@triton.jit
def off_by_one(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs <= n
    x = tl.load(x_ptr + offs, mask=m)  # at: obo-load
    tl.store(y_ptr + offs, x + 1.0, mask=m)  # at: obo-store


@triton.jit
def shifted(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs - 2, mask=m)  # at: neg-load
    tl.store(y_ptr + offs - 1, x, mask=m)  # at: neg-store


@triton.jit
def cross(x_ptr, y_ptr, delta, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + delta + offs, mask=m)  # at: cross-load
    tl.store(y_ptr + offs, x, mask=m)


@triton.jit
def far_store(y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK) + 50_000_000
    tl.store(y_ptr + offs, tl.zeros([BLOCK], dtype=tl.float32))  # at: far-store


@triton.jit
def far_load(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs + 50_000_000)  # at: far-load
    tl.store(y_ptr + offs, x, mask=offs < n)


@triton.jit
def asserting(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    tl.device_assert(x < 2.0, "x must stay below 2", mask=m)  # at: assert


@triton.jit
def loop_runtime_bound(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    for start in range(0, n, BLOCK):  # a runtime bound: tl.tensor.__index__ (Triton 3.4-3.6 need a fix)
        m = start + offs < n
        tl.store(y_ptr + start + offs, tl.load(x_ptr + start + offs, mask=m), mask=m)


@triton.jit
def asserting_unmasked(x_ptr, n, BLOCK: tl.constexpr):
    # without device_assert's mask (Triton 3.4 has none): the condition itself lets masked-off lanes pass
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    tl.device_assert((x < 2.0) | (offs >= n), "x must stay below 2")  # at: assert-nomask


@triton.jit
def wrap_index(x_ptr, y_ptr, n, p, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    src = (offs * p) % n  # at: wrap-origin
    tl.store(y_ptr + offs, tl.load(x_ptr + src, mask=m), mask=m)  # at: wrap-use


@triton.jit
def wide_index(x_ptr, y_ptr, n, p, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    src = (offs.to(tl.int64) * p) % n
    tl.store(y_ptr + offs, tl.load(x_ptr + src, mask=m), mask=m)


@triton.jit
def row_wrap(x_ptr, y_ptr, stride, n, BLOCK: tl.constexpr):
    # the row offset pid * stride wraps; the wrapped offset lands inside x (silently wrong data)
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < n
    row = pid * stride  # at: row-wrap-origin
    tl.store(y_ptr + pid * n + offs, tl.load(x_ptr + row + offs, mask=m), mask=m)  # at: row-wrap-use


@triton.jit
def wrap_masked_lanes(x_ptr, y_ptr, n, p, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    src = (offs * p) % n  # wraps only for lanes >= 128, all masked off (n <= 100)
    tl.store(y_ptr + offs, tl.load(x_ptr + src, mask=m), mask=m)


@triton.jit
def hash_values(y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    h = offs * 1_000_003 + 12345  # wraps, but only as data
    tl.store(y_ptr + offs, h, mask=offs < n)


@triton.jit
def grid_2d(x_ptr, y_ptr, rows, cols, stride, BR: tl.constexpr, BC: tl.constexpr):
    r = tl.program_id(0) * BR + tl.arange(0, BR)
    c = tl.arange(0, BC)
    ptrs = x_ptr + r[:, None] * stride + c[None, :]
    x = tl.load(ptrs, mask=r[:, None] < rows)  # at: 2d-load
    tl.store(y_ptr + r[:, None] * stride + c[None, :], x, mask=(r[:, None] < rows) & (c[None, :] < cols))


@triton.jit
def block_ptr_unchecked(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    xb = tl.make_block_ptr(x_ptr, shape=(M, N), strides=(N, 1), offsets=(tl.program_id(0) * BM, 0),
                           block_shape=(BM, BN), order=(1, 0))
    yb = tl.make_block_ptr(y_ptr, shape=(M, N), strides=(N, 1), offsets=(tl.program_id(0) * BM, 0),
                           block_shape=(BM, BN), order=(1, 0))
    x = tl.load(xb)  # at: bptr-load
    tl.store(yb, x, boundary_check=(0, 1))


@triton.jit
def select_ptr(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    p = tl.where(m, x_ptr + offs, x_ptr)
    tl.store(y_ptr + offs, tl.load(p), mask=m)


@triton.jit
def atomic_tail(y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.atomic_add(y_ptr + offs, tl.full([BLOCK], 1.0, tl.float32))  # at: atomic-add


@triton.jit
def cas_tail(y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.atomic_cas(y_ptr + offs, tl.zeros([BLOCK], tl.int32), tl.full([BLOCK], 7, tl.int32))  # at: cas


@triton.jit
def _load_row(p, offs):
    return tl.load(p + offs)  # at: helper-load


@triton.jit
def via_helper(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, _load_row(x_ptr, offs), mask=offs < n)


@triton.jit
def unsupported(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x], dtype=tl.float32, is_pure=True, pack=1)
    tl.store(y_ptr + offs, y, mask=offs < n)


@triton.jit
def descriptor_rows(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    # the descriptor claims M rows; the caller passes more rows than x has
    xd = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    yd = tl.make_tensor_descriptor(y_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    x = xd.load([tl.program_id(0) * BM, 0])  # at: desc-load
    yd.store([tl.program_id(0) * BM, 0], x)


@triton.jit
def rmw_sum(x_ptr, out_ptr, BLOCK: tl.constexpr):
    # every program adds its block's sum into out[0] with a plain load + store: a lost update on a GPU
    s = tl.sum(tl.load(x_ptr + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)), axis=0)
    total = tl.load(out_ptr)  # at: race-load
    tl.store(out_ptr, total + s)  # at: race-store


@triton.jit
def atomic_sum(x_ptr, out_ptr, BLOCK: tl.constexpr):
    s = tl.sum(tl.load(x_ptr + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)), axis=0)
    tl.atomic_add(out_ptr, s)


@triton.jit
def same_flag(x_ptr, flag_ptr, y_ptr, BLOCK: tl.constexpr):
    # every program sets the same flag to 1 (benign) and writes its own block
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs) * 2.0)
    tl.store(flag_ptr, 1)


@triton.jit
def locked_sum(x_ptr, out_ptr, lock_ptr, BLOCK: tl.constexpr):
    # the layer-norm backward tutorial's pattern: a spin lock around a plain read-modify-write
    s = tl.sum(tl.load(x_ptr + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)), axis=0)
    while tl.atomic_cas(lock_ptr, 0, 1) == 1:
        pass
    tl.store(out_ptr, tl.load(out_ptr) + s)
    tl.atomic_xchg(lock_ptr, 0)


@triton.jit
def two_racy_stores(a_ptr, b_ptr, BLOCK: tl.constexpr):
    # every program writes its own id over the same BLOCK elements of a and of b: two store/store races
    offs = tl.arange(0, BLOCK)
    v = tl.zeros((BLOCK,), dtype=tl.float32) + tl.program_id(0)
    tl.store(a_ptr + offs, v)  # at: race-a
    tl.store(b_ptr + offs, v)  # at: race-b


@triton.jit
def cas_past_end(lock_ptr, out_ptr):
    # tries a lock one element past a one-element lock tensor and keeps what the CAS read
    old = tl.atomic_cas(lock_ptr + 1, 0, 1)  # at: cas-oob
    tl.store(out_ptr, old)


@triton.jit
def int_cast_tail(x_ptr, y_ptr, BLOCK: tl.constexpr):
    # x's address goes through an integer and back; program 1 reads past x (program 0 writes y)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    p = (x_ptr.to(tl.int64) + offs * 4).to(tl.pointer_type(tl.float32))
    v = tl.load(p)  # at: int-cast-load
    tl.store(y_ptr + tl.arange(0, BLOCK), v + 1.0, mask=tl.program_id(0) == 0)


@triton.jit
def loaded_pointer_tail(table_ptr, x_ptr, y_ptr, BLOCK: tl.constexpr):
    # x's address comes from a table in memory (x is passed too, unused: it is a launch argument);
    # program 1 reads past x (program 0 writes y)
    base = tl.load(table_ptr).to(tl.pointer_type(tl.float32))
    v = tl.load(base + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK))  # at: table-load
    tl.store(y_ptr + tl.arange(0, BLOCK), v + 1.0, mask=tl.program_id(0) == 0)
