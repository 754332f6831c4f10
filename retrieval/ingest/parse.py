"""Documentation sources -> paragraphs ("passages") with exact line ranges and a URL anchor.

A passage is quoted to callers as evidence, so its text is a byte-exact copy of source lines (no
markup is rendered, no whitespace or line ending is normalized) and its line range lets anyone check
it against the source. The anchor is the fragment of the rendered page that passage appears under,
so that its URL opens the page where the passage is, not merely the top of the page.

Three source kinds are understood: reStructuredText (Sphinx), Markdown and plain text. Lines are
split on "\\n" only: a "\\r" before it stays part of the line, so CRLF sources are quoted exactly.
"""

import os
import re
import unicodedata
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field

# A passage is read into a bounded budget (max_source_bytes) and indexed as one FTS5 row; a whole
# chapter in one passage would be unaffordable to read and would dilute BM25's length
# normalization, so long blocks are cut on line boundaries into pieces of at most this many bytes.
MAX_PASSAGE_BYTES = 2048

# Longest first: "x.rst.txt" (Sphinx's _sources copy) must not be taken for plain text.
_SUFFIXES = ((".rst.txt", "rst"), (".rst", "rst"), (".md", "markdown"), (".txt", "text"))


@dataclass(frozen=True)
class Paragraph:
    """One passage of a source file: a run of whole lines, quoted exactly."""

    start_line: int  # 1-based, in the source file
    end_line: int  # inclusive
    text: str  # the source lines start_line..end_line joined with "\n" (no trailing newline)
    anchor: str | None  # the most specific anchor in force here, without '#', or None


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
        return _parse_rst(lines)
    if kind == "markdown":
        return _parse_markdown(lines)
    return _parse_text(lines)


# --- shared: blocks and pieces -------------------------------------------------------------------

def _is_blank(line: str) -> bool:
    # Whitespace-only lines separate paragraphs too: invisible trailing spaces (or the "\r" of a
    # CRLF file) must not glue two paragraphs together.
    return not line.strip()


def _indent(line: str) -> int:
    # reST expands tabs to 8-column stops before it compares indentation.
    expanded = line.expandtabs(8)
    return len(expanded) - len(expanded.lstrip())


def _blank_separated(lines: list) -> list:
    """Return the runs of non-blank lines, as ranges of line indexes."""
    blocks, start = [], None
    for i in range(len(lines)):
        if _is_blank(lines[i]):
            if start is not None:
                blocks.append(range(start, i))
                start = None
        elif start is None:
            start = i
    if start is not None:
        blocks.append(range(start, len(lines)))
    return blocks


def _size_pieces(lines: list, span: range) -> list:
    """Cut span into consecutive runs of whole lines of at most MAX_PASSAGE_BYTES each (greedy)."""
    # Never inside a line: a passage must stay a range of whole lines to be checkable against its
    # line numbers, so one over-long line is a piece of its own.
    pieces, start, size = [], span.start, 0
    for i in span:
        line_size = len(lines[i].encode("utf-8"))
        if i == start:
            size = line_size
        elif size + 1 + line_size > MAX_PASSAGE_BYTES:  # + 1 for the joining "\n"
            pieces.append(range(start, i))
            start, size = i, line_size
        else:
            size += 1 + line_size
    pieces.append(range(start, span.stop))
    return pieces


def _paragraphs(lines: list, span: range, anchor: str | None) -> list:
    """Return span as paragraphs, split by size, all under one anchor."""
    return [
        Paragraph(piece.start + 1, piece.stop, "\n".join(lines[piece.start:piece.stop]), anchor)
        for piece in _size_pieces(lines, span)
    ]


# --- plain text ----------------------------------------------------------------------------------

def _parse_text(lines: list) -> list:
    # A plain text file has no headings a URL fragment could point at.
    return [p for block in _blank_separated(lines) for p in _paragraphs(lines, block, None)]


# --- Markdown ------------------------------------------------------------------------------------

# CommonMark: up to 3 spaces of indentation (4 would be an indented code block); a backtick
# fence's info string may not contain a backtick (that is inline code, not a fence).
_FENCE = re.compile(r" {0,3}(?:(`{3,})[^`]*|(~{3,}).*)")
_ATX_HEADING = re.compile(r" {0,3}#{1,6}(?:[ \t]+(.*))?")
_ATX_CLOSING = re.compile(r"(?:^|[ \t]+)#+$")
_MARKDOWN_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
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
    while _is_blank(lines[stop - 1]):
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
        elif _is_blank(lines[i]):
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
        text = _MARKDOWN_LINK.sub(r"\1", heading)  # a link's id comes from its visible text
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
        self._seen = set()
        self._attr_list = attr_list

    def heading(self, text: str) -> tuple:
        """Return (the heading as shown, its id): with attr_list, `{#id}` names the id itself."""
        given = _ATTR_LIST_ID.fullmatch(text) if self._attr_list else None
        if given is None:
            return text, self.slug(text)
        self._seen.add(given.group(2))
        return given.group(1), given.group(2)

    def slug(self, heading: str) -> str | None:
        text = _MARKDOWN_LINK.sub(r"\1", heading)
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
SLUGGERS = {"github": _GithubSlugger, "mkdocs": _TocSlugger,
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
    pieces, start, stop = [], None, None
    for span in spans:
        if start is not None and _span_bytes(lines, start, span.stop) <= MAX_PASSAGE_BYTES:
            stop = span.stop
            continue
        if start is not None and range(start, stop) != head:
            pieces.append(range(start, stop))
            start = None
        first = span.start if start is None else start
        if _span_bytes(lines, first, span.stop) > MAX_PASSAGE_BYTES:
            cut = _size_pieces(lines, range(first, span.stop))
            pieces.extend(cut[:-1])
            start, stop = cut[-1].start, cut[-1].stop
        else:
            start, stop = first, span.stop
    if start is not None and range(start, stop) != head:
        pieces.append(range(start, stop))
    return pieces


def markdown_sections(lines: list, flavour: str = "github") -> list:
    """Split Markdown into its sections' own text; a heading with no text of its own gives none."""
    slugger, found, path = SLUGGERS[flavour](), [], []
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


# --- reStructuredText ----------------------------------------------------------------------------

# docutils' explicit markup forms, tried in this order on a unit's first line (indent stripped).
_LABEL = re.compile(r"\.\.[ \t]+_(`[^`]+`|[^`:][^:]*):(?:[ \t]+(.*))?")
_FOOTNOTE = re.compile(r"\.\.[ \t]+\[[^\]]+\](?:[ \t].*)?")
_SUBSTITUTION = re.compile(r"\.\.[ \t]+\|")
_DIRECTIVE = re.compile(r"\.\.[ \t]+([A-Za-z0-9]+(?:[-_+:.][A-Za-z0-9]+)*) ?::(?:[ \t]+(.*))?")
_OPTION = re.compile(r"[ \t]+:([\w-]+):(?:[ \t]+(.*))?")
_OBJECT_NAME = re.compile(r"[\w.]+")
_ROLE = re.compile(r":[\w.+:-]+:(?=`)")

# Sphinx's Python domain directives plus CPython's own (Doc/tools/extensions/pyspecific.py); each
# gives its object an id equal to its fully qualified name. Each maps to the kind of object it
# documents, as the ranking's priors name kinds.
_OBJECT_DIRECTIVES = {
    "function": "function", "decorator": "function", "coroutinefunction": "function",
    "awaitablefunction": "function",
    "method": "method", "classmethod": "method", "staticmethod": "method",
    "abstractmethod": "method", "decoratormethod": "method", "coroutinemethod": "method",
    "awaitablemethod": "method",
    "class": "class", "exception": "exception",
    "attribute": "attribute", "property": "attribute", "data": "data",
}
# Their bodies are the namespace of nested objects (Sphinx's allow_nesting).
_CLASS_DIRECTIVES = frozenset({"class", "exception"})
# Navigation and index entries: markup for Sphinx, not prose for a reader.
_DROPPED_DIRECTIVES = frozenset({"toctree", "index"})
# docutils' recommended title adornment characters.
_ADORNMENT = frozenset("=-~^\"'`#*+<>:._")


def _docutils_id(text: str) -> str | None:
    """Return the HTML id docutils (hence Sphinx) makes from a label or section title."""
    # docutils.nodes.make_id: ASCII-folded, lowercase, runs of anything but [a-z0-9] -> "-",
    # no leading digits or hyphens, no trailing hyphens ("_" too, so "a_b" becomes "a-b").
    folded = unicodedata.normalize("NFKD", text.lower()).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"^[-0-9]+|-+$", "", re.sub(r"[^a-z0-9]+", "-", folded)) or None


def _is_adornment(line: str) -> bool:
    # Adornment starts in column 0 and repeats one punctuation character.
    stripped = line.rstrip()
    return bool(stripped) and stripped[0] in _ADORNMENT and stripped == stripped[0] * len(stripped)


def _is_explicit_markup(line: str) -> bool:
    # ".." followed by whitespace or the end of the line starts a comment, label or directive.
    stripped = line.strip()
    return stripped == ".." or stripped.startswith((".. ", "..\t"))


def _section_title(lines: list, unit: range) -> str | None:
    """Return the title if the unit starts with a section title (with or without overline)."""
    first = [lines[i].rstrip() for i in unit[:3]]
    if len(first) >= 3 and _is_adornment(first[0]) and first[2] == first[0]:
        title = first[1].strip()
        if title and not _is_adornment(first[1]) and len(title) <= len(first[0]):
            return title
    if (len(first) >= 2 and first[0] and not first[0][0].isspace()
            and not _is_adornment(first[0]) and _is_adornment(first[1])
            and len(first[1]) >= len(first[0])):
        return first[0]
    return None


def _rst_units(lines: list, block: range) -> list:
    """Cut a block where an explicit markup construct ends without a blank line."""
    # docutils ends a comment, label or directive at the first line indented no deeper than its
    # "..", and starts a new element there: ".. _a:" directly above ".. _b:" are two labels.
    # Cutting there lets each construct be kept, dropped or anchored on its own.
    units, start, markup_indent = [], block.start, None
    for i in block:
        if i > start and markup_indent is not None and _indent(lines[i]) <= markup_indent:
            units.append(range(start, i))
            start = i
        if i == start:
            markup_indent = _indent(lines[i]) if _is_explicit_markup(lines[i]) else None
    units.append(range(start, block.stop))
    return units


def _options(lines: list, unit: range) -> dict:
    """Return a directive's options (":name: value" lines of its first unit)."""
    found = {}
    for i in unit[1:]:
        match = _OPTION.fullmatch(lines[i].rstrip())
        if match:
            found[match.group(1)] = (match.group(2) or "").strip()
    return found


def _qualify(name: str, module: str | None, class_path: str | None) -> str:
    """Return an object's dotted path below its module, qualified as Sphinx's Python domain does."""
    if module and name.startswith(module + "."):
        return name[len(module) + 1:]  # already fully qualified: do not qualify twice
    if class_path and not name.startswith(class_path + "."):
        return f"{class_path}.{name}"  # "write_text" inside class Path
    return name  # "Path.write_text" inside or outside class Path


@dataclass
class _Scope:
    """The body of an object directive (or the whole file): where an anchor stays in force."""

    indent: int  # the directive's indentation; a line at this indentation or less ends the body
    anchor: str | None  # the anchor in force in the body; labels and sections inside replace it
    class_path: str | None = None  # for a class body: the class's path below the module


@dataclass
class _RstReader:
    """Walks a reST file's units in order, tracking what Sphinx would anchor each one under."""

    module: str | None = None
    # The file level never ends (indent -1); object directives push, dedents pop.
    scopes: list = field(default_factory=lambda: [_Scope(-1, None)])
    after_label: bool = False  # the previous unit was a label: it names the section that follows
    skip_deeper_than: int | None = None  # inside the body of a dropped construct
    used_ids: set = field(default_factory=set)

    @property
    def anchor(self) -> str | None:
        return self.scopes[-1].anchor

    def skips(self, indent: int) -> bool:
        """Tell whether a unit belongs to the body of a dropped comment, toctree or index."""
        if self.skip_deeper_than is not None and indent > self.skip_deeper_than:
            return True
        self.skip_deeper_than = None
        return False

    def read(self, lines: list, unit: range) -> bool:
        """Update the state for one unit; tell whether the unit is worth keeping as a passage."""
        first = lines[unit.start]
        indent = _indent(first)
        while self.scopes[-1].indent >= indent:  # a dedent ends the enclosing bodies
            self.scopes.pop()
        after_label, self.after_label = self.after_label, False
        if _is_explicit_markup(first):
            return self._explicit_markup(lines, unit, first.strip(), indent)
        title = _section_title(lines, unit)
        if title is not None:
            self._section(title, after_label)
            return True
        # Lone adornment (a transition, a stray underline) is nothing a person would read.
        return not all(_is_adornment(lines[i]) for i in unit)

    def _set_anchor(self, anchor: str | None):
        self.scopes[-1].anchor = anchor
        if anchor is not None:
            self.used_ids.add(anchor)

    def _explicit_markup(self, lines, unit, head, indent) -> bool:
        label = _LABEL.fullmatch(head)
        if label:
            name, target = label.group(1).strip("`"), label.group(2)
            # ".. _name: URL" (or a URL on the next line) and anonymous ".. __:" are links to
            # elsewhere, not anchors on this page; like labels, they hold nothing to read.
            if not target and len(unit) == 1 and name != "_":
                label_id = _docutils_id(name)
                if label_id is not None:
                    self._set_anchor(label_id)
                    self.after_label = True
            return False
        if _FOOTNOTE.fullmatch(head) or _SUBSTITUTION.match(head):
            return True  # footnotes and citations are prose; substitutions define text
        directive = _DIRECTIVE.fullmatch(head)
        if directive is None:
            # A comment, with every indented line after it (blank lines included). A bare ".."
            # followed by a blank line is an "empty comment" that owns no body (docutils).
            if len(unit) > 1 or head != "..":
                self.skip_deeper_than = indent
            return False
        name = directive.group(1).lower().removeprefix("py:")
        argument = (directive.group(2) or "").strip()
        if name in _DROPPED_DIRECTIVES:
            self.skip_deeper_than = indent
            return False
        options = _options(lines, unit)
        no_index = "no-index" in options or "noindex" in options  # Sphinx creates no id then
        if name in ("module", "currentmodule"):
            module = argument.split()[0] if argument else None
            self.module = None if module == "None" else module  # "currentmodule:: None" resets
            if name == "module" and module and not no_index:
                self._set_anchor(f"module-{module}")  # Sphinx's module target id
        elif name in _OBJECT_DIRECTIVES:
            self._object(name, argument, options, no_index, indent)
        # Every directive not dropped above is read: object signatures, notes, versionadded, ...
        return True

    def _object(self, name, argument, options, no_index, indent):
        match = _OBJECT_NAME.match(argument)
        if match is None:
            return
        module = options.get("module") or self.module
        enclosing = next((s.class_path for s in reversed(self.scopes) if s.class_path), None)
        path = _qualify(match.group(0), module, enclosing)
        class_path = path if name in _CLASS_DIRECTIVES else None
        if no_index:  # Sphinx makes no id: the body stays under the enclosing anchor
            self.scopes.append(_Scope(indent, self.anchor, class_path))
            return
        anchor = f"{module}.{path}" if module else path
        self.scopes.append(_Scope(indent, anchor, class_path))
        self.used_ids.add(anchor)

    def _section(self, title, after_label):
        # docutils computes the id from the parsed title, where ":mod:`x`" reads "x".
        section_id = _docutils_id(_ROLE.sub("", title))
        if section_id in self.used_ids:
            # docutils then numbers the section ("id3") with a counter shared by the whole
            # document; that cannot be predicted from here, so point at the page instead.
            section_id = None
        if section_id is not None:
            self.used_ids.add(section_id)
        if not after_label:  # a label right above a section names it (Sphinx's :ref: target)
            self._set_anchor(section_id)


def _parse_rst(lines: list) -> list:
    reader, out = _RstReader(), []
    for block in _blank_separated(lines):
        for unit in _rst_units(lines, block):
            if reader.skips(_indent(lines[unit.start])):
                continue
            if reader.read(lines, unit):
                out.extend(_paragraphs(lines, unit, reader.anchor))
    return out
