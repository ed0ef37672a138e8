"""The ``integrity`` criterion: does the submission really do the work?

Two tools feed it (docs/integrity.md lists every hack class and how each is caught):

- ``integrity_static`` (static_tool.py): reads the submission's source, never runs it
  (static_scan.py, source.py).
- ``integrity_runtime`` (runtime_tool.py): probes the submission in its sandbox child through the
  ``integrity_reference``/``integrity_probe`` requests (tools/engine/harness/integrity_requests.py) and the
  ``torch_ops``, ``triton_launches`` and ``harness_guard`` instruments; checks.py turns what they
  observed into verdicts.

A third source is reserved for the performance work: a tool named ``roofline`` that emits evidence
with criteria ``["integrity", "performance"]`` and defect ``impossible_speed``.
"""
