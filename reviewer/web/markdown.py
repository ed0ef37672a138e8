"""The draft's Markdown as HTML for the sign-off preview, rendered on the server by markdown-it-py (the
CommonMark parser rich already depends on) with raw HTML off: markup typed into the draft, or carried
into it from a submission's text, comes out as text. Images are off too (a draft shows no picture, and
fetches nothing). Links keep markdown-it's own check (no ``javascript:``, ``vbscript:``, ``file:`` or
``data:`` targets)."""

from __future__ import annotations

from functools import lru_cache

from markdown_it import MarkdownIt
from markupsafe import Markup

PREVIEW_LIMIT = 400_000


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False}).enable("table").enable("strikethrough").disable("image")


def render_markdown_html(text: str) -> Markup:
    """Safe HTML for ``text`` (escaped by the parser, so the template may insert it as markup)."""
    return Markup(_parser().render(text[:PREVIEW_LIMIT]))
