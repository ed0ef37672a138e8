"""The original of the port family (a submission directory of its own; kreview.toml [port] names it)."""
