"""``kreview serve``: the sign-off workbench (needs the ``web`` extra: starlette, jinja2, uvicorn)."""
