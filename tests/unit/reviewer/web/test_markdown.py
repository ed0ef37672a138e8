"""The sign-off preview's Markdown: CommonMark with tables, raw HTML and images off, unsafe links dropped."""

from __future__ import annotations

from markupsafe import Markup

from reviewer.web.markdown import PREVIEW_LIMIT, render_markdown_html


def test_markdown_is_rendered_and_tables_work() -> None:
    html = render_markdown_html("# Title\n\n**b** `c`\n\n| a | b |\n|---|---|\n| 1 | 2 |\n")
    assert isinstance(html, Markup)
    assert "<h1>Title</h1>" in html and "<strong>b</strong>" in html and "<code>c</code>" in html
    assert "<td>1</td>" in html


def test_raw_html_comments_images_and_script_links_come_out_as_text() -> None:
    html = render_markdown_html('</textarea><script>x=1</script>\n<!-- kreview:state {} -->\n\n'
                                '<img src=x onerror="y()"> ![i](http://example.com/p.png) [l](javascript:alert(1))')
    for raw in ("<script", "<img", "<!--", "<textarea", "</textarea", 'href="javascript'):
        assert raw not in html
    assert "&lt;script&gt;" in html and "&lt;!-- kreview:state" in html


def test_an_overlong_draft_is_cut_not_refused() -> None:
    assert len(render_markdown_html("a" * (PREVIEW_LIMIT + 10))) < PREVIEW_LIMIT + 20
