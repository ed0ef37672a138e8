"""Batch review: many submissions, one executor (local processes or a Ray cluster), one resumable store.

- ``executors``: where a review runs (``LocalExecutor``: worker processes on this machine;
  ``RayExecutor``: one Ray task per review, resources declared per task), retry-once semantics.
- ``task``: what runs there (the public ``start_review`` entry point, so every review is the normal
  sandboxed one) and how a run directory travels back from a remote node.
- ``store``: the batch directory the driver writes each result into as it arrives (resume = skip
  what is recorded).
- ``runner``: discovering submissions, planning their resources, driving an executor into the store.
"""
