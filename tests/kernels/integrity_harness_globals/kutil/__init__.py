"""The submission's own launch helpers."""
