"""A memory sanitizer for Triton kernels run by the CPU interpreter (``TRITON_INTERPRET=1``).

What compute-sanitizer memcheck does on a GPU, for the interpreter: out-of-bounds loads, stores and
atomics against the storages of each launch's tensor arguments (stopped before they happen),
``tl.device_assert`` honoured, and int32 index arithmetic that wraps. ``compat`` pins the Triton
internals it patches, ``hooks`` patches them, ``report`` aggregates what was seen. The entry point
is the ``triton_sanitizer`` instrument (tools/engine/harness/instruments/triton_sanitizer.py); the parent
side is the ``memcheck`` tool. See docs/triton-sanitizer.md.
"""
