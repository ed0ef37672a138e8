"""Machine formats of a finished review for CI systems: SARIF 2.1.0, JUnit XML, GitHub annotations.

Each is a pure function of a :class:`reviewer.core.models.Review`. They share the mapping in ``common``:
a failed criterion is an error, an unverified one needs a human, a pass is a pass; every item carries
the evidence ids and the commands that rerun them.
"""
