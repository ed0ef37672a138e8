"""The task's own helper package (it has the name of the reviewer's ``tools`` package)."""

OWNER = "task"
