"""Documentation sources -> paragraphs ("passages") with exact line ranges and a URL anchor.

A passage is quoted to callers as evidence, so its text is a byte-exact copy of source lines (no
markup is rendered, no whitespace or line ending is normalized) and its line range lets anyone check
it against the source. The anchor is the fragment of the rendered page that passage appears under,
so that its URL opens the page where the passage is, not merely the top of the page.

Three source kinds are understood: reStructuredText (Sphinx; its reader is rst.py), Markdown and
plain text, each cut into blocks and pieces first (blocks.py). Lines are split on "\\n" only: a
"\\r" before it stays part of the line, so CRLF sources are quoted exactly.
"""

import os
import re
import unicodedata
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from .blocks import (
    MAX_PASSAGE_BYTES,
    Paragraph,
    blank_separated,
    is_blank,
    paragraphs,
    size_pieces,
)
from .rst import parse_rst

# Longest first: "x.rst.txt" (Sphinx's _sources copy) must not be taken for plain text.
_SUFFIXES = ((".rst.txt", "rst"), (".rst", "rst"), (".md", "markdown"), (".txt", "text"))


# --- public API ----------------------------------------------------------------------------------

def source_kind(relative_path: str) -> str | None:
    """Return "rst", "markdown" or "text" for a supported source file name, else None."""
    for suffix, kind in _SUFFIXES:
        if relative_path.endswith(suffix):
            return kind
    return None


def page_url(base_url: str, relative_path: str) -> str:
    """Return the URL of the page built from a source file (its suffix replaced by .html)."""
    # A base without its final "/" would silently glue the directory and the page name together.
    if not base_url.endswith("/"):
        raise ValueError(f"base_url must end with '/': {base_url!r}")
    for suffix, _ in _SUFFIXES:
        if relative_path.endswith(suffix):
            page = relative_path[: -len(suffix)] + ".html"
            # Quote so that a file name with a space or non-ASCII letter still gives a valid URL;
            # ordinary names ("library/pathlib.html") are unchanged.
            return base_url + urllib.parse.quote(page, safe="/")
    raise ValueError(f"not a supported source file: {relative_path!r}")


def iter_source_files(root: str) -> Iterator[tuple[str, str]]:
    """Yield (relative path with '/' separators, absolute path) of each supported file, sorted."""
    root = os.path.abspath(root)
    found = []
    for directory, subdirectories, file_names in os.walk(root):
        # Hidden directories (.git, .venv, .tox, ...) hold no documentation of the project.
        subdirectories[:] = [name for name in subdirectories if not name.startswith(".")]
        for name in file_names:
            # Hidden files are editor and OS artifacts (".#page.rst" lock links, macOS "._page.rst"
            # resource forks), never documentation; reading them would only produce failures.
            if name.startswith(".") or source_kind(name) is None:
                continue
            absolute = os.path.join(directory, name)
            relative = os.path.relpath(absolute, root).replace(os.sep, "/")
            found.append((relative, absolute))
    # Sorted by relative path so that a build walks files in the same order on every machine.
    found.sort()
    yield from found


def decode_source(data: bytes) -> str:
    """Decode source bytes as strict UTF-8, changing nothing (BOM and "\\r" are kept)."""
    # Strict, so that a passage is never quoted with replacement characters the source does not
    # contain; the caller reports and skips a file that fails.
    return data.decode("utf-8")


def parse_source(relative_path: str, text: str, kind: str | None = None) -> list[Paragraph]:
    """Split a source file into paragraphs, of the kind given or its file name says."""
    kind = kind or source_kind(relative_path)
    if kind is None:
        raise ValueError(f"not a supported source file: {relative_path!r}")
    lines = text.split("\n")
    if kind == "rst":
        return parse_rst(lines)
    if kind == "markdown":
        return _parse_markdown(lines)
    return _parse_text(lines)


# --- plain text ----------------------------------------------------------------------------------

def _parse_text(lines: list) -> list:
    # A plain text file has no headings a URL fragment could point at.
    return [p for block in blank_separated(lines) for p in paragraphs(lines, block, None)]


# --- Markdown ------------------------------------------------------------------------------------

# CommonMark: up to 3 spaces of indentation (4 would be an indented code block); a backtick
# fence's info string may not contain a backtick (that is inline code, not a fence).
_FENCE = re.compile(r" {0,3}(?:(`{3,})[^`]*|(~{3,}).*)")
_ATX_HEADING = re.compile(r" {0,3}#{1,6}(?:[ \t]+(.*))?")
_ATX_CLOSING = re.compile(r"(?:^|[ \t]+)#+$")
MARKDOWN_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_SETEXT = re.compile(r" {0,3}(?:(=+)|-+)[ \t]*")
# Paragraphs an underline does not make a heading: list items, quotes, tables, HTML.
_NOT_SETEXT = re.compile(r" {0,3}(?:[-*+>|<]|\d+[.)])")
_NOT_SLUG = re.compile(r"[^\w\- ]")


def _fence_marker(line: str) -> str | None:
    match = _FENCE.fullmatch(line.rstrip())
    return (match.group(1) or match.group(2)) if match else None


def _closes_fence(line: str, marker: str) -> bool:
    stripped = line.rstrip()
    body = stripped.lstrip(" ")
    return (len(stripped) - len(body) <= 3 and len(body) >= len(marker)
            and body == marker[0] * len(body))


def _heading_text(line: str) -> str | None:
    """Return an ATX heading's text (without #s and closing sequence), or None if not a heading."""
    match = _ATX_HEADING.fullmatch(line.rstrip())
    if match is None:
        return None
    return _ATX_CLOSING.sub("", (match.group(1) or "").strip()).strip()


def _fence_end(lines: list, opening: int, marker: str) -> int:
    """Return the index just past the fence opened at line `opening`."""
    # Blank lines inside a fence are code, not paragraph breaks.
    stop = opening + 1
    while stop < len(lines) and not _closes_fence(lines[stop], marker):
        stop += 1
    if stop < len(lines):
        return stop + 1  # the closing fence belongs to the block
    # An unclosed fence runs to the end of the file (CommonMark); its trailing blank lines (at
    # least the empty "line" after the final newline) are not content.
    while is_blank(lines[stop - 1]):
        stop -= 1
    return stop


def _markdown_blocks(lines: list, first: int = 0) -> list:
    """Return (span, heading text or None, heading level) for each block from line `first`:
    headings and fences stand alone."""
    blocks, start, i = [], None, first

    def close_paragraph(stop):
        nonlocal start
        if start is not None:
            blocks.append((range(start, stop), None, 0))
            start = None

    while i < len(lines):
        marker = _fence_marker(lines[i])
        heading = None if marker else _heading_text(lines[i])
        if marker or heading is not None:
            # A fence is one block whatever it holds. A heading is one line that interrupts a
            # paragraph: its own passage, so that the lines after it fall under its anchor even
            # without a blank line between.
            close_paragraph(i)
            stop = _fence_end(lines, i, marker) if marker else i + 1
            level = len(lines[i].strip()) - len(lines[i].strip().lstrip("#"))
            blocks.append((range(i, stop), heading, level))
            i = stop
            continue
        underline = _SETEXT.fullmatch(lines[i].rstrip())
        if underline and start is not None and not _NOT_SETEXT.match(lines[start]):
            # "Title" over "=====" (level 1) or "-----" (level 2): the paragraph is the heading.
            text = " ".join(lines[j].strip() for j in range(start, i))
            blocks.append((range(start, i + 1), text, 1 if underline.group(1) else 2))
            start = None
        elif is_blank(lines[i]):
            close_paragraph(i)
        elif start is None:
            start = i
        i += 1
    close_paragraph(len(lines))
    return blocks


class _GithubSlugger:
    """Heading ids as GitHub renders them, with -1, -2 ... for repeats (github-slugger)."""

    def __init__(self):
        self._seen = {}

    def heading(self, text: str) -> tuple:
        """Return (the heading as shown, its id)."""
        return text, self.slug(text)

    def slug(self, heading: str) -> str | None:
        text = MARKDOWN_LINK.sub(r"\1", heading)  # a link's id comes from its visible text
        base = _NOT_SLUG.sub("", text.lower()).replace(" ", "-")
        if not base:
            return None  # nothing to point at; the page URL is the honest answer
        slug = base
        while slug in self._seen:
            self._seen[base] += 1
            slug = f"{base}-{self._seen[base]}"
        self._seen[slug] = 0
        return slug


class _TocSlugger:
    """Heading ids as MkDocs renders them: Python-Markdown's toc slugify, _1, _2 ... for repeats."""

    def __init__(self, attr_list: bool = False):
        self._seen: set[str] = set()
        self._attr_list = attr_list

    def heading(self, text: str) -> tuple:
        """Return (the heading as shown, its id): with attr_list, `{#id}` names the id itself."""
        given = _ATTR_LIST_ID.fullmatch(text) if self._attr_list else None
        if given is None:
            return text, self.slug(text)
        self._seen.add(given.group(2))
        return given.group(1), given.group(2)

    def slug(self, heading: str) -> str | None:
        text = MARKDOWN_LINK.sub(r"\1", heading)
        text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
        slug = re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", text).strip().lower())
        while slug in self._seen or not slug:  # markdown.extensions.toc.unique
            counted = _TOC_COUNT.fullmatch(slug)
            slug = f"{counted.group(1)}_{int(counted.group(2)) + 1}" if counted else f"{slug}_1"
        self._seen.add(slug)
        return slug


_TOC_COUNT = re.compile(r"(.*)_([0-9]+)")
# "## Title {#custom-id .class}": Python-Markdown's attr_list, common in MkDocs projects.
_ATTR_LIST_ID = re.compile(r"(.*?)[ \t]*\{:?[ \t]*(?:[^}#]*[ \t])?#([\w-]+)[^}]*\}")
# How a site renders Markdown heading ids: GitHub's (github-slugger) or MkDocs' (toc), the
# latter with or without the attr_list extension a project's mkdocs.yml may enable.
SLUGGERS: dict[str, Callable[[], _GithubSlugger | _TocSlugger]] = {
    "github": _GithubSlugger, "mkdocs": _TocSlugger,
    "mkdocs+attr_list": lambda: _TocSlugger(attr_list=True)}


@dataclass(frozen=True)
class MarkdownSection:
    """One heading's own text: the heading and its content up to the next heading of any level.

    `pieces` are what is quoted, whole blocks of at most MAX_PASSAGE_BYTES each (the first holds
    the heading); `blocks` are every block of the section after its heading, with whether each is
    fenced code.
    """

    heading: str | None  # None for the text before a page's first heading
    anchor: str | None
    path: tuple  # the headings of the enclosing sections, then its own
    pieces: tuple  # ranges of line indexes
    blocks: tuple  # (range, is_code)


def _front_matter_end(lines: list) -> int:
    """Return the index of the first line after a YAML front matter block (0 when none)."""
    # MkDocs and GitHub read "---" on the first line up to a "---" or "..." line as metadata.
    if lines and lines[0].rstrip() == "---":
        for i in range(1, len(lines)):
            if lines[i].rstrip() in ("---", "..."):
                return i + 1
    return 0


def _span_bytes(lines: list, start: int, stop: int) -> int:
    return sum(len(lines[i].encode("utf-8")) for i in range(start, stop)) + stop - start - 1


def _section_pieces(lines: list, head: range | None, spans: list) -> list:
    """Cut a section's blocks into pieces of whole blocks of at most MAX_PASSAGE_BYTES.

    A block over the cap on its own (a long fence) is cut on lines; the heading is never a piece
    alone: with no room for the next block beside it, it joins that block's first lines.
    """
    pieces: list[range] = []
    start: int | None = None  # the open piece's first line, and stop its end while it is open
    stop = 0
    for span in spans:
        if start is not None and _span_bytes(lines, start, span.stop) <= MAX_PASSAGE_BYTES:
            stop = span.stop
            continue
        if start is not None and range(start, stop) != head:
            pieces.append(range(start, stop))
            start = None
        first = span.start if start is None else start
        if _span_bytes(lines, first, span.stop) > MAX_PASSAGE_BYTES:
            cut = size_pieces(lines, range(first, span.stop))
            pieces.extend(cut[:-1])
            start, stop = cut[-1].start, cut[-1].stop
        else:
            start, stop = first, span.stop
    if start is not None and range(start, stop) != head:
        pieces.append(range(start, stop))
    return pieces


def markdown_sections(lines: list, flavour: str = "github") -> list:
    """Split Markdown into its sections' own text; a heading with no text of its own gives none."""
    slugger, found = SLUGGERS[flavour](), []
    path: list[tuple[int, str]] = []  # (level, heading) of each heading above
    heading = anchor = head = None
    spans: list = []

    def close():
        content = [span for span in spans if span != head]
        if content:
            found.append(MarkdownSection(
                heading, anchor, tuple(text for _, text in path),
                tuple(_section_pieces(lines, head, spans)),
                tuple((span, bool(_fence_marker(lines[span.start]))) for span in content)))

    for span, text, level in _markdown_blocks(lines, _front_matter_end(lines)):
        if text is not None:
            close()
            text, anchor = slugger.heading(text)
            path = [(depth, shown) for depth, shown in path if depth < level] + [(level, text)]
            heading, head, spans = text, span, [span]
        else:
            spans.append(span)
    close()
    return found


def _parse_markdown(lines: list) -> list:
    return [Paragraph(piece.start + 1, piece.stop, "\n".join(lines[piece.start:piece.stop]),
                      section.anchor)
            for section in markdown_sections(lines) for piece in section.pieces]
