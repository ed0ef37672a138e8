"""Submission formats that exist only for tests (registered by the test that uses them)."""
