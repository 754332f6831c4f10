"""Markdown pages (MkDocs sources, GitHub trees, llms.txt pages) -> one unit per section's own text.

A unit is a heading and its content up to the next heading of any level (`parse.markdown_sections`),
never a heading alone; fenced code stays whole inside it; front matter is not text. Its anchor is
the id the publishing site gives the heading: MkDocs' (Python-Markdown's toc) for a tree published
by MkDocs, GitHub's otherwise. A tree is published by MkDocs when an `mkdocs.yml` beside it names
it as its `docs_dir` (or it holds one): its pages are then `page/` (`use_directory_urls`, MkDocs'
default) or `page.html`, and `index.md` / `README.md` the directory itself.

A page is untrusted input: every scan here is linear in its input (no pattern that backtracks
over a run of blanks, brackets or repeated headings), so a crafted page costs what a normal page
of its size costs.
"""

import os
import posixpath
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from ...core.ranking import SECTION
from ..unit import Unit
from . import mkdocstrings
from .blocks import MAX_PASSAGE_BYTES, Paragraph, is_blank, size_pieces
from .docutils_ids import DocumentIds, make_id
from .fences import closes_fence, fence_end, fence_marker
from .hidden import hidden_in_markup
from .notebooks import heading_id
from .rst import DROPPED_DIRECTIVES
from .smartquotes import educate_quotes

CONFIG = "mkdocs.yml"
# No mkdocs.yml comes near this; a larger one is read no further.
MAX_CONFIG_BYTES = 1024 * 1024
_OPENING_MARKS = re.compile(r" {0,3}#{1,6}[ \t]*")
# Top-level keys of mkdocs.yml: the two that decide where pages are published, and the config it
# extends (INHERIT: a translation's names its original's). A YAML reader is
# not needed for them (and mkdocs.yml often holds !!python tags a safe loader refuses).
_TOP_LEVEL = re.compile(r"(docs_dir|use_directory_urls|INHERIT)[ \t]*:[ \t]*")
_ATTR_LIST = re.compile(r"attr_list\b")
_BLANKS = re.compile(r"[ \t]*")


@dataclass(frozen=True)
class MkDocsSite:
    """Where an MkDocs project keeps its Markdown and how it publishes each page."""

    docs_dir: str  # absolute
    directory_urls: bool
    attr_list: bool = False  # markdown_extensions has attr_list: "{#id}" names a heading's id
    inherits: str | None = None  # the config its INHERIT names, absolute
    # Its plugins include mkdocstrings: the handler options it sets for every `::: name`
    # (readers/mkdocstrings.py); None without the plugin.
    mkdocstrings_options: mkdocstrings.Options | None = None

    @property
    def flavour(self) -> str:
        """Return how its pages' heading ids are made (a parse.SLUGGERS key)."""
        return "mkdocs+attr_list" if self.attr_list else "mkdocs"


def _config_value(rest: str) -> str:
    """Return a `key: value` line's value: quotes and a trailing comment out.

    What `(['"]?)(.*?)\\2[ \\t]*(?:#.*)?$` captured, in one pass: the shortest value after an
    opening quote that its closing quote ends (then only blanks or a comment), else the text up
    to the first "#" (or the end), trailing blanks out.
    """
    if rest[:1] in ("'", '"'):
        quote, start = rest[0], 1
        while (end := rest.find(quote, start)) != -1:
            after = _BLANKS.match(rest, end + 1).end()  # type: ignore[union-attr]
            if after == len(rest) or rest[after] == "#":
                return rest[1:end]
            start = end + 1
    cut = rest.find("#")
    return (rest if cut == -1 else rest[:cut]).rstrip(" \t")


def _read_config(config_path: str) -> MkDocsSite | None:
    try:
        with open(config_path, encoding="utf-8", errors="replace") as f:
            text = f.read(MAX_CONFIG_BYTES)
    except OSError:
        return None
    keys, attr_list = {}, False
    for line in text.split("\n"):
        key = _TOP_LEVEL.match(line)
        if key is not None:
            keys[key.group(1)] = _config_value(line[key.end():])
        # Listed as "- attr_list" or "- attr_list:" (with options) under markdown_extensions.
        item = line.lstrip(" \t")
        item = item[1:].lstrip(" \t") if item.startswith("-") else item
        attr_list = attr_list or _ATTR_LIST.match(item) is not None
    docs_dir = os.path.join(os.path.dirname(config_path), keys.get("docs_dir") or "docs")
    directory_urls = keys.get("use_directory_urls", "true").lower() not in ("false", "no", "off")
    inherits = keys.get("INHERIT")
    return MkDocsSite(os.path.abspath(docs_dir), directory_urls, attr_list, os.path.abspath(
        os.path.join(os.path.dirname(config_path), inherits)) if inherits else None,
        mkdocstrings.config_options(text))


def mkdocs_site(root: str) -> MkDocsSite | None:
    """Return the MkDocs project a tree is the docs of (its own or its parent's mkdocs.yml)."""
    root = os.path.abspath(root)
    for config in (os.path.join(root, CONFIG), os.path.join(os.path.dirname(root), CONFIG)):
        site = _read_config(config) if os.path.isfile(config) else None
        if site is not None and (site.docs_dir == root or config.startswith(root + os.sep)) \
                and os.path.isdir(site.docs_dir):
            return site
    return None


def translated_site(folder: str) -> tuple | None:
    """Return (the original site, its translations' folders) where a docs folder holds one MkDocs
    site per language, each translation's mkdocs.yml INHERITing the original's from a folder
    beside it (FastAPI's docs/es/mkdocs.yml: `INHERIT: ../en/mkdocs.yml`); else None.

    Each language is a site of its own, published under its own path: read together, one
    question's answers came back once per language (the same section in 14 translations). A
    folder that is an MkDocs project itself (mkdocs_site) is read as that project: None."""
    folder = os.path.abspath(folder)
    if mkdocs_site(folder) is not None:
        return None
    try:
        subfolders = sorted(entry.name for entry in os.scandir(folder) if entry.is_dir())
    except OSError:
        return None
    configs = {name: os.path.join(folder, name, CONFIG) for name in subfolders}
    sites = {name: _read_config(path) for name, path in configs.items() if os.path.isfile(path)}
    translations: dict = {}
    for name, site in sites.items():
        original = site.inherits if site is not None else None
        if original is not None and os.path.dirname(original) != os.path.dirname(configs[name]):
            translations.setdefault(original, []).append(name)
    originals = [name for name, path in configs.items() if path in translations]
    if len(originals) != 1:
        return None
    site = sites[originals[0]]
    if site is None or not os.path.isdir(site.docs_dir) or \
            not os.path.realpath(site.docs_dir).startswith(os.path.realpath(folder) + os.sep):
        return None
    return site, tuple(translations[configs[originals[0]]])


def page_path(relative_path: str, site: MkDocsSite | None) -> str:
    """Return the path below the base URL of the page built from a Markdown file."""
    stem = relative_path[:-len(".md")]
    if site is None:
        return stem + ".html"
    directory, name = posixpath.split(stem)
    if name in ("index", "README"):
        return directory + "/" if directory else ""
    return stem + "/" if site.directory_urls else stem + ".html"


def _without_heading_marks(line: str) -> str:
    """Return a line without its opening `#`s and its closing sequence (` ##` at its end)."""
    opening = _OPENING_MARKS.match(line)
    start = opening.end() if opening else 0
    # A closing sequence: blanks, then the line's last run of "#", then blanks to its end.
    body = line.rstrip(" \t")
    hashes = len(body) - len(body.rstrip("#"))
    blanks = body[:len(body) - hashes].rstrip(" \t")
    cut = max(len(blanks), start)
    if hashes and cut < len(body) - hashes:
        return line[start:cut]
    return line[start:]


def link_texts(text: str) -> str:
    """Return text with each Markdown link or image `[text](target)` as its text alone.

    What `!?\\[([^\\]]*)\\]\\([^)]*\\)` replaced by its group, in one pass: the "]" and
    ")" searched for are found once and remembered, never searched for again from each "[".
    """
    out, done = [], 0
    close = target_end = -2  # the next "]" and ")" found so far (-1: there is none)
    at = text.find("[")
    while at != -1:
        if close < at:
            close = text.find("]", at + 1)
            if close == -1:
                break  # no "]" after this "[": no link from here on
        if text.startswith("(", close + 1):
            if target_end < close + 2:
                target_end = text.find(")", close + 2)
                if target_end == -1:
                    break
            start = at - 1 if at > done and text[at - 1] == "!" else at
            out.append(text[done:start])
            out.append(text[at + 1:close])
            done = target_end + 1
            at = text.find("[", done)
        else:
            at = text.find("[", at + 1)
    out.append(text[done:])
    return "".join(out)


def _plain(text: str) -> str:
    """Return Markdown prose as a reader reads it: heading marks out, links as their text."""
    return link_texts("\n".join(_without_heading_marks(line) for line in text.split("\n")))


def page_units(text: str, flavour: str, fallback_title: str, breaks: tuple = ()) -> list:
    """Split one Markdown page into section units, anchored as `flavour` ("github", "mkdocs");
    breaks: where a run of one file's lines starts in a page read with its includes expanded
    (sphinx_include.ExpandedPage.breaks): a unit's quoted lines end at the next, its words past
    it indexed all the same."""
    lines = text.split("\n")
    sections = markdown_sections(lines, flavour)
    # A page's title: Sphinx's (MyST's) is its first heading, whatever its level; MkDocs' and
    # GitHub's a level-1 heading only (rich's README opens with an image: its first heading,
    # `## Compatibility`, titles its own section, not the text above it), else the fallback.
    any_level = not flavour.startswith(("github", "mkdocs"))
    page_title = next((section.path[0] for section in sections
                       if section.path and (any_level or section.outermost_level == 1)),
                      fallback_title)
    units = []
    for section in sections:
        code_lines = {i for span, code in section.blocks if code for i in span}
        title = section.heading or page_title
        context = section.path if section.path and section.path[0] == page_title \
            else (page_title, *section.path)
        for piece in section.pieces:
            prose = [lines[i] for i in piece if i not in code_lines]
            code = [lines[i] for i in piece if i in code_lines]
            stop = min((at for at in breaks if piece.start < at < piece.stop),
                       default=piece.stop)
            units.append(Unit(
                start_line=piece.start + 1, end_line=stop,
                text="\n".join(lines[piece.start:stop]), anchor=section.anchor,
                title=title, heading=section.heading or "", kind=SECTION,
                anchors=(section.anchor,) if section.anchor else (), noindex=False,
                names="", name="", signature="", body=_plain("\n".join(prose)).strip(),
                code="\n".join(code), context=" ".join(context),
                hidden=hidden_in_markup("\n".join(prose))))
    return units


_ATX_HEADING = re.compile(r" {0,3}#{1,6}(?:[ \t]+(.*))?")
_SETEXT = re.compile(r" {0,3}(?:(=+)|-+)[ \t]*")
# Paragraphs an underline does not make a heading: list items, quotes, tables, HTML.
_NOT_SETEXT = re.compile(r" {0,3}(?:[-*+>|<]|\d+[.)])")
_NOT_SLUG = re.compile(r"[^\w\- ]")


def _heading_text(line: str) -> str | None:
    """Return an ATX heading's text (without #s and closing sequence), or None if not a heading."""
    match = _ATX_HEADING.fullmatch(line.rstrip())
    if match is None:
        return None
    text = (match.group(1) or "").strip()
    # The closing sequence: the text's last run of "#" when blanks come before it, or all of it.
    hashes = len(text) - len(text.rstrip("#"))
    if hashes == len(text):
        return ""
    before = text[:len(text) - hashes]
    if hashes and before[-1] in " \t":
        return before.rstrip(" \t").strip()
    return text


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
        marker = fence_marker(lines[i])
        heading = None if marker else _heading_text(lines[i])
        if marker or heading is not None:
            # A fence is one block whatever it holds. A heading is one line that interrupts a
            # paragraph: its own passage, so that the lines after it fall under its anchor even
            # without a blank line between.
            close_paragraph(i)
            stop = fence_end(lines, i, marker) if marker else i + 1
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
        text = link_texts(heading)  # a link's id comes from its visible text
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
        # For an id taken, one taken later on its chain of candidates (id, id_1, id_2 ...):
        # where the next search for a free one may resume. Without it, n equal headings cost
        # n * n / 2 steps, as markdown.extensions.toc.unique's own loop does.
        self._resume: dict[str, str] = {}
        self._attr_list = attr_list

    def heading(self, text: str) -> tuple:
        """Return (the heading as shown, its id): with attr_list, `{#id}` names the id itself."""
        given = attr_list_id(text) if self._attr_list else None
        if given is None:
            return text, self.slug(text)
        self._seen.add(given[1])
        return given

    def slug(self, heading: str) -> str | None:
        text = link_texts(heading)
        text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
        slug = re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", text).strip().lower())
        if not slug:
            slug = _next_candidate(slug)  # markdown.extensions.toc.unique: "" is never an id
        passed = []
        while slug in self._seen:  # the unique loop, resuming where it last ended
            passed.append(slug)
            resume = self._resume.get(slug)
            slug = _next_candidate(slug) if resume is None or resume == slug else resume
        for taken in passed:
            self._resume[taken] = slug
        self._seen.add(slug)
        return slug


def _next_candidate(slug: str) -> str:
    """Return the id markdown.extensions.toc.unique tries after a taken one: x_1 after x, x_3
    after x_2 (its int() + 1, as digits of any length)."""
    counted = _TOC_COUNT.fullmatch(slug)
    if counted is None:
        return f"{slug}_1"
    digits = counted.group(2).lstrip("0") or "0"
    nines = len(digits) - len(digits.rstrip("9"))
    kept = digits[:len(digits) - nines]
    bumped = (kept[:-1] + str(int(kept[-1]) + 1)) if kept else "1"
    return f"{counted.group(1)}_{bumped}{'0' * nines}"


_TOC_COUNT = re.compile(r"(.*)_([0-9]+)")
_ID = re.compile(r"[\w-]+")


def attr_list_id(text: str) -> tuple | None:
    """Return (heading text, id) of a heading ending in attr_list's `{... #id ...}`, or None.

    What `(.*?)[ \\t]*\\{:?[ \\t]*(?:[^}#]*[ \\t])?#([\\w-]+)[^}]*\\}` matched whole, in one
    pass: the braces are the first "{" after the last "}" before the final one whose content's
    first "#" is at its start (after an optional ":" and blanks) or after a blank, and begins an
    id.
    """
    if not text.endswith("}"):
        return None
    end = len(text) - 1
    opening = text.find("{", text.rfind("}", 0, end) + 1, end)
    hash_at = -1
    while opening != -1:
        if hash_at <= opening:
            hash_at = text.find("#", opening + 1, end)
            if hash_at == -1:
                return None  # no "#" after this "{": none after a later one either
        between, last = hash_at - opening - 1, text[hash_at - 1]
        if between == 0 or (between == 1 and last == ":") or last in " \t":
            given = _ID.match(text, hash_at + 1, end)
            if given is not None:
                return text[:opening].rstrip(" \t"), given.group()
        opening = text.find("{", opening + 1, end)
    return None


class _DocutilsSlugger:
    """Heading ids as Sphinx renders a MyST page: a section's docutils id (docutils_ids.py);
    smartquotes: MyST's `smartquotes` extension is on (conf.py's myst_enable_extensions), so
    its parser curls a heading's quotes outside code before docutils makes the id of it, which
    drops them (structlog's "Don't Integrate" is #dont-integrate, not #don-t-integrate)."""

    def __init__(self, smartquotes: bool = False):
        self._document = DocumentIds()
        self._smartquotes = smartquotes
        self._labels: list = []  # the ids of the targets right above what comes next

    def heading(self, text: str) -> tuple:
        """Return (the heading as shown, its id): a target `(name)=` right above it took its
        id first, so a title of the same name takes docutils' next idN, and the section is
        rendered at the target's id (as a reST label's; structlog's `(chains)=` over
        "## Chains" makes a later second "Examples" #id2)."""
        shown = _id_text(text, self._smartquotes)
        own = self._document.named(shown)
        labels, self._labels = self._labels, []
        return text, labels[-1] if labels and own != make_id(shown) else own

    def block(self, lines: list) -> None:
        """Read a block that is no heading: its targets `(name)=` take their ids, in order,
        and stand right above what follows where the block is nothing else."""
        names = [match.group(1) for line in lines
                 if (match := _MYST_TARGET.fullmatch(line.strip()))]
        ids = [self._document.named(name) for name in names]
        self._labels = ids if len(names) == len(lines) else []


class _JupyterSlugger:
    """Heading ids as nbsphinx renders a notebook's: Jupyter's, the heading's text with each
    space a hyphen (notebooks.heading_id: `#Toy-weather-data`); smartquotes: Sphinx educates
    the heading's quotes first (xarray's "Control the plot’s colorbar")."""

    def __init__(self, smartquotes: bool = False):
        self._smartquotes = smartquotes

    def heading(self, text: str) -> tuple:
        """Return (the heading as shown, its id)."""
        return text, heading_id(_id_text(text, self._smartquotes))


def _id_text(text: str, smartquotes: bool) -> str:
    """Return a Markdown heading's text as Sphinx makes its id of it: plain, its quotes
    outside code curled first where smartquotes is on, backquotes out."""
    shown = _plain(text)
    if smartquotes:
        shown = _educated_outside_code(shown)
    return shown.replace("`", "").strip()


# A Markdown code span: a run of backquotes, what they enclose, the same run.
_CODE_SPAN = re.compile(r"(`+).+?\1")


def _educated_outside_code(text: str) -> str:
    """Return Markdown text with its quotes outside code spans curled (markdown-it's
    smartquotes rule reads text tokens only), each run in the context of what precedes it."""
    parts, at, before = [], 0, " "
    for match in [*_CODE_SPAN.finditer(text), None]:
        plain = text[at:match.start() if match else len(text)]
        if plain:
            parts.append(educate_quotes(plain, before))
        if match is None:
            break
        parts.append(match.group(0))
        at, before = match.end(), parts[-1][-1]
    return "".join(parts)


# How a site renders Markdown heading ids: GitHub's (github-slugger) or MkDocs' (toc), the
# latter with or without the attr_list extension a project's mkdocs.yml may enable.
SLUGGERS: dict[str, Callable[[], _GithubSlugger | _TocSlugger | _DocutilsSlugger
                                 | _JupyterSlugger]] = {
    "github": _GithubSlugger, "mkdocs": _TocSlugger,
    "mkdocs+attr_list": lambda: _TocSlugger(attr_list=True), "sphinx": _DocutilsSlugger,
    "sphinx+smartquotes": lambda: _DocutilsSlugger(smartquotes=True),
    "nbsphinx": _JupyterSlugger, "nbsphinx+smartquotes": lambda: _JupyterSlugger(True)}


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
    outermost_level: int  # the level of path's first heading (0: no heading)
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
                heading, anchor, tuple(text for _, text in path), path[0][0] if path else 0,
                tuple(_section_pieces(lines, head, spans)),
                tuple((span, bool(fence_marker(lines[span.start]))) for span in content)))

    for span, text, level in _markdown_blocks(lines, _front_matter_end(lines)):
        if text is not None:
            close()
            text, anchor = slugger.heading(text)
            path = [(depth, shown) for depth, shown in path if depth < level] + [(level, text)]
            heading, head, spans = text, span, [span]
        else:
            if isinstance(slugger, _DocutilsSlugger):
                slugger.block([lines[index] for index in span if lines[index].strip()])
            if not (flavour.startswith("sphinx") and (
                    all(_MYST_NOTHING.fullmatch(lines[index]) for index in span)
                    or _renders_no_text(lines, span))):
                spans.append(span)
    close()
    return found


# A MyST fenced directive's opening: its fence, `{name}` and argument (```{autoclass} X```).
_MYST_DIRECTIVE = re.compile(r" {0,3}(`{3,}|~{3,})\{([\w:.+-]+)\}[ \t]*(.*)")
# The MyST directives whose reST a page's Python descriptions come from: eval-rst's body is
# reST as written; autodoc's and the module directives are reST's own, written fenced.
_MYST_PYTHON = re.compile(r"(?:py:)?(?:auto\w+|module|currentmodule)")
# A reST line of one of those directives.
_REST_PYTHON = re.compile(r"\.\.[ \t]+" + _MYST_PYTHON.pattern + r"::.*")


def _renders_no_text(lines: list, span: range) -> bool:
    """Tell whether a block is a MyST fenced directive that renders no text of its section:
    a toctree or index (navigation, as reST's: the site's reader skips a toctree's links;
    structlog's "API Reference" is its title alone), an autodoc or module directive, or an
    eval-rst block of nothing else (each line one's, or indented below one): its objects
    are units of their own (myst_rest)."""
    opening = _MYST_DIRECTIVE.fullmatch(lines[span.start].rstrip())
    if opening is None:
        return False
    if _MYST_PYTHON.fullmatch(opening.group(2)) or opening.group(2) in DROPPED_DIRECTIVES:
        return True
    body = lines[span.start + 1:span.stop]
    # One with no such directive is left as text: what it held may be what the page's
    # expansion skipped (an include of another parser's file).
    return opening.group(2) == "eval-rst" and any(
        _REST_PYTHON.fullmatch(line.rstrip()) for line in body) and all(
        not line.strip() or line[:1] in " \t" or _REST_PYTHON.fullmatch(line.rstrip())
        or closes_fence(line, opening.group(1)) for line in body)


def myst_rest(text: str) -> str | None:
    """Return the reST of a MyST page's Python descriptions, line for line (each other line
    blank): the bodies of its ```{eval-rst}``` blocks, and its fenced autodoc and module
    directives written as reST (`{autofunction} f` as `.. autofunction:: f`, its `:option:`
    and content lines indented below it), as MyST parses them, the page's py:module going on
    from one to the next; None where it has none."""
    lines = text.split("\n")
    out = [""] * len(lines)
    found = False
    i = 0
    while i < len(lines):
        opening = _MYST_DIRECTIVE.fullmatch(lines[i].rstrip())
        if opening is None:
            i += 1
            continue
        fence, name, argument = opening.groups()
        stop = fence_end(lines, i, fence)
        body = range(i + 1, stop - 1 if stop - 1 > i and closes_fence(lines[stop - 1], fence)
                     else stop)
        if name == "eval-rst":
            for index in body:
                out[index] = lines[index]
            found = True
        elif _MYST_PYTHON.fullmatch(name):
            out[i] = f".. {name}:: {argument}".rstrip()
            for index in body:
                out[index] = "   " + lines[index] if lines[index].strip() else ""
            found = True
        i = stop
    return "\n".join(out) if found else None


# A MyST role: `{role}` right before its backquoted content (`{py:func}` too).
_MYST_ROLE = re.compile(r"\{([\w:+-]+)\}`")


def myst_roles(text: str) -> str:
    """Return a MyST page's text with each role `{func}`name`` written as reST's
    `:func:`name``, which MyST renders alike."""
    return _MYST_ROLE.sub(r":\1:`", text)


# A MyST line that renders nothing: a target `(label)=` (a label of what follows), a `%`
# comment, or blank.
_MYST_NOTHING = re.compile(r"[ \t]*(?:\([^()\s]+\)=|%.*)?[ \t]*")
# A MyST target `(label)=`, and its name.
_MYST_TARGET = re.compile(r"\(([^()\s]+)\)=")


def parse_markdown(lines: list) -> list:
    """Return a Markdown file's lines as paragraphs, one piece of a section each."""
    return [Paragraph(piece.start + 1, piece.stop, "\n".join(lines[piece.start:piece.stop]),
                      section.anchor)
            for section in markdown_sections(lines) for piece in section.pieces]
