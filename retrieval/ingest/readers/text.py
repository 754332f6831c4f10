"""Documentation sources -> paragraphs ("passages") with exact line ranges and a URL anchor.

A passage is quoted to callers as evidence, so its text is a byte-exact copy of source lines (no
markup is rendered, no whitespace or line ending is normalized) and its line range lets anyone check
it against the source. The anchor is the fragment of the rendered page that passage appears under,
so that its URL opens the page where the passage is, not merely the top of the page.

Three source kinds are understood: reStructuredText (Sphinx; its reader is rst.py), Markdown and
plain text, each cut into blocks and pieces first (blocks.py). Lines are split on "\\n" only: a
"\\r" before it stays part of the line, so CRLF sources are quoted exactly.
"""

import urllib.parse

from ..tree import SOURCE_SUFFIXES, source_kind
from .blocks import Paragraph, blank_separated, paragraphs
from .markdown import parse_markdown
from .rst import parse_rst

# --- public API ----------------------------------------------------------------------------------


def page_url(base_url: str, relative_path: str) -> str:
    """Return the URL of the page built from a source file (its suffix replaced by .html)."""
    # A base without its final "/" would silently glue the directory and the page name together.
    if not base_url.endswith("/"):
        raise ValueError(f"base_url must end with '/': {base_url!r}")
    for suffix, _ in SOURCE_SUFFIXES:
        if relative_path.endswith(suffix):
            page = relative_path[: -len(suffix)] + ".html"
            # Quote so that a file name with a space or non-ASCII letter still gives a valid URL;
            # ordinary names ("library/pathlib.html") are unchanged.
            return base_url + urllib.parse.quote(page, safe="/")
    raise ValueError(f"not a supported source file: {relative_path!r}")


def parse_source(relative_path: str, text: str, kind: str | None = None) -> list[Paragraph]:
    """Split a source file into paragraphs, of the kind given or its file name says."""
    kind = kind or source_kind(relative_path)
    if kind is None:
        raise ValueError(f"not a supported source file: {relative_path!r}")
    lines = text.split("\n")
    if kind == "rst":
        return parse_rst(lines)
    if kind == "markdown":
        return parse_markdown(lines)
    return _parse_text(lines)


# --- plain text ----------------------------------------------------------------------------------

def _parse_text(lines: list) -> list:
    # A plain text file has no headings a URL fragment could point at.
    return [p for block in blank_separated(lines) for p in paragraphs(lines, block, None)]


# --- Markdown ------------------------------------------------------------------------------------


