"""Text that came from a submission (an exception message, a printed line, a manifest name, a
summary quoting either) rendered as inert Markdown: one line of plain text.

Where it is rendered (draft.md, the PR summary comment, the terminal) it can never start a heading,
list, table row or code block (newlines and control characters become spaces), never open HTML or
an HTML comment (a forged ``<!-- kreview:state`` marker), never make emphasis, a link, an image, an
autolink or a mention, and never carry terminal escape sequences.
"""

from __future__ import annotations

import re

# C0/C1 controls (ANSI escapes start with ESC), and the bidirectional overrides that reorder text
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
# inline Markdown: emphasis, code, links/images, table cells, strikethrough, escapes
_INLINE = re.compile(r"([\\`*_\[\]|~!])")
_ZWSP = "\u200b"
# a line start Markdown reads as a block: ATX heading, list item, ordered list item, setext underline
# or thematic break (CommonMark 4.2-4.3, 5.2); "-0.5" or "1.5 ms" are left alone
_BLOCK_START = re.compile(r"^(\d{0,9})(#{1,6}(?=\s|$)|[+-](?=\s|$)|(?<=\d)[.)](?=\s|$)|[=-](?=[=-]*\s*$))")


def md_text(text: object) -> str:
    s = " ".join(_CONTROL.sub(" ", str(text)).split())
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    s = _INLINE.sub(r"\\\1", s)
    # mentions (@user, @org/team) and autolinks (scheme://, www.) broken by an invisible space
    s = s.replace("@", "@" + _ZWSP).replace("://", ":/" + _ZWSP + "/")
    s = re.sub(r"(?i)\bwww\.", lambda m: m.group(0)[:-1] + _ZWSP + ".", s)
    # Rationale: placed on a line of its own (an inline PR comment's body) the text must not start a
    # heading, quote, list or setext underline either
    return _BLOCK_START.sub(r"\1\\\2", s)


def md_code(text: object) -> str:
    """An inline code span that ``text`` cannot close (a longer backtick fence than any run inside)."""
    s = " ".join(_CONTROL.sub(" ", str(text)).split())
    longest = max((len(m) for m in re.findall(r"`+", s)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if s.startswith("`") or s.endswith("`") or longest else ""
    return f"{fence}{pad}{s}{pad}{fence}"
