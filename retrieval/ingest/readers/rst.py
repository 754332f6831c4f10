"""reStructuredText -> paragraphs under the anchors Sphinx gives them: the reST reader.

RstReader walks a file's units (rst_units: blocks cut where explicit markup ends) in order,
tracking the module, the object bodies and the anchor in force, as docutils and Sphinx's Python
domain would; parse_rst gives its paragraphs, and units.py extends the reader (its on_section
and on_object hooks) into one unit per documented object and section.
"""

import bisect
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from .blocks import blank_separated, indentation, paragraphs

# docutils' explicit markup forms, tried in this order on a unit's first line (indent stripped).
_LABEL = re.compile(r"\.\.[ \t]+_(`[^`]+`|[^`:][^:]*):(?:[ \t]+(.*))?")
_FOOTNOTE = re.compile(r"\.\.[ \t]+\[[^\]]+\](?:[ \t].*)?")
_SUBSTITUTION = re.compile(r"\.\.[ \t]+\|")
# docutils' directive delimiter: the name, at most one space, then "::" (`.. note ::` and
# `.. automodule :: nose2.events` are directives); every pattern of a directive takes it.
DELIMITER = " ?::"
DIRECTIVE = re.compile(r"\.\.[ \t]+([A-Za-z0-9]+(?:[-_+:.][A-Za-z0-9]+)*)" + DELIMITER
                       + r"(?:[ \t]+(.*))?")
OPTION = re.compile(r"[ \t]+:([\w-]+):(?:[ \t]+(.*))?")
OBJECT_NAME = re.compile(r"[\w.]+")
ROLE = re.compile(r":[\w.+:-]+:(?=`)")

# Sphinx's Python domain directives plus CPython's own (Doc/tools/extensions/pyspecific.py); each
# gives its object an id equal to its fully qualified name. Each maps to the kind of object it
# documents, as the ranking's priors name kinds.
OBJECT_DIRECTIVES = {
    "function": "function", "decorator": "function", "coroutinefunction": "function",
    "awaitablefunction": "function",
    "method": "method", "classmethod": "method", "staticmethod": "method",
    "abstractmethod": "method", "decoratormethod": "method", "coroutinemethod": "method",
    "awaitablemethod": "method",
    "class": "class", "exception": "exception",
    # repoze.sphinx.autointerface's `py:interface`, a class-like description (pyramid's).
    "interface": "class",
    "attribute": "attribute", "property": "attribute", "data": "data",
}
# Their bodies are the namespace of nested objects (Sphinx's allow_nesting).
_CLASS_DIRECTIVES = frozenset({"class", "exception", "interface"})
# Navigation and index entries: markup for Sphinx, not prose for a reader.
DROPPED_DIRECTIVES = frozenset({"toctree", "index"})
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


def first_section_title(lines: list, span: range, not_titles: frozenset = frozenset(),
                        indent: int = 0) -> int | None:
    """Return the index of the first section title of lines[span] that starts in column indent
    (its overline's where it has one), or None: a line of text underlined by an adornment at
    least as long, after a blank line or the span's start; not_titles: texts (lowercase) that
    are no title there (NAPOLEON_SECTIONS); indent: the columns the text is dedented by before
    it is parsed (a docstring's margin)."""
    def dedented(line: str) -> str:
        return line.rstrip()[indent:] if not line[:indent].strip() else ""
    for i in span[:-1]:
        text = dedented(lines[i])
        if not text or text[0] in " \t" or _is_adornment(text) or is_explicit_markup(text) \
                or text.strip().lower() in not_titles:
            continue
        under = dedented(lines[i + 1])
        if not _is_adornment(under) or len(under) < len(text):
            continue
        above = dedented(lines[i - 1]) if i > span.start else ""
        if above == under:
            return i - 1
        if not above:
            return i
    return None


# Directives whose body is code, not prose.
CODE_DIRECTIVES = frozenset({"code-block", "sourcecode", "code", "doctest", "testcode",
                             "testoutput", "testsetup", "productionlist"})


class LiteralLines:
    """Which lines of reST, read in order, are a literal block's (below a paragraph ending in
    `::`, deeper than it) or a code directive's body: text, where docutils reads no markup
    (no directive, so no autodoc directive or description, is in an example).

    breaks: the line indices where a run of another file's lines starts in an expanded page
    (ExpandedPage.breaks: an include's, a module docstring's automodule renders, which Sphinx
    parses apart): no block goes on across one (kombu's docstring ending in a code-block, then
    the page's indented autoclass)."""

    def __init__(self, breaks: frozenset = frozenset()):
        self._indent: int | None = None  # lines deeper than this are the block's
        self._breaks = sorted(breaks)
        self._passed = 0  # how many breaks are at or above the line read last

    def is_literal(self, stripped: str, indent: int, index: int = 0) -> bool:
        """Tell whether a line that is not blank (stripped, at indent; the index-th of the
        text) is in a literal block; else note whether it starts one."""
        passed = bisect.bisect_right(self._breaks, index)
        if passed != self._passed:  # a break (maybe on a blank line) since the last line
            self._passed, self._indent = passed, None
        if self._indent is not None and indent > self._indent:
            return True
        directive = DIRECTIVE.fullmatch(stripped)
        starts = (stripped.endswith("::") and directive is None
                  or directive is not None and directive.group(1).lower() in CODE_DIRECTIVES)
        self._indent = indent if starts else None
        return False


# The section names of napoleon's docstrings (GoogleDocstring._sections, which NumpyDocstring
# shares): underlined, as NumPy writes them (`Examples` over `========`), napoleon's
# _is_section_header takes such a line for its section (a rubric, a field list), no title.
NAPOLEON_SECTIONS = frozenset({
    "args", "arguments", "attention", "attributes", "caution", "danger", "error", "example",
    "examples", "hint", "important", "keyword args", "keyword arguments", "methods", "note",
    "notes", "other parameters", "parameters", "receive", "receives", "return", "returns",
    "raise", "raises", "references", "see also", "tip", "todo", "warning", "warnings", "warn",
    "warns", "yield", "yields"})


def is_explicit_markup(line: str) -> bool:
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
            and (len(first[1]) >= _SHORT_UNDERLINE or not short_underline(first[0], first[1]))):
        return first[0]
    return None


# docutils reads an underline shorter than its title as one still ("Title underline too
# short.", a warning) where it is at least this long, else the lines as a paragraph.
_SHORT_UNDERLINE = 4


def short_underline(title: str, underline: str) -> bool:
    """Tell whether a title's underline is shorter than the title's column width (docutils'
    column_width: a wide East Asian character takes two)."""
    width = sum(2 if unicodedata.east_asian_width(char) in "WF" else 1
                for char in title.rstrip())
    return len(underline.rstrip()) < width


def rst_units(lines: list, block: range) -> list:
    """Cut a block where an explicit markup construct ends without a blank line."""
    # docutils ends a comment, label or directive at the first line indented no deeper than its
    # "..", and starts a new element there: ".. _a:" directly above ".. _b:" are two labels.
    # Cutting there lets each construct be kept, dropped or anchored on its own.
    units, start, markup_indent = [], block.start, None
    for i in block:
        if i > start and markup_indent is not None and indentation(lines[i]) <= markup_indent:
            units.append(range(start, i))
            start = i
        if i == start:
            markup_indent = indentation(lines[i]) if is_explicit_markup(lines[i]) else None
    units.append(range(start, block.stop))
    return units


def _options(lines: list, unit: range) -> dict:
    """Return a directive's options (":name: value" lines of its first unit)."""
    found = {}
    for i in unit[1:]:
        match = OPTION.fullmatch(lines[i].rstrip())
        if match:
            found[match.group(1)] = (match.group(2) or "").strip()
    return found


def signature_texts(lines: list, unit: range, argument: str) -> list:
    """Return an object directive's signatures: its argument, then each line of the unit up
    to its options, stripped; as Sphinx's get_signatures, a line ending in a backslash goes
    on on the next (it drops each backslash-newline, nl_escape_re, before splitting)."""
    texts = [argument]
    for i in unit[1:]:
        if OPTION.fullmatch(lines[i].rstrip()):
            break
        texts.append(lines[i].strip())
    joined = [texts[0]]
    for text in texts[1:]:
        if joined[-1].endswith("\\"):
            joined[-1] = joined[-1][:-1] + text
        else:
            joined.append(text)
    return joined


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
    owner: Any = None  # what a subclass reads the body as (sphinx_page.py)
    described: bool = False  # the body of a Python object's description (its docfields')


@dataclass
class RstReader:
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
        indent = indentation(first)
        while self.scopes[-1].indent >= indent:  # a dedent ends the enclosing bodies
            self.scopes.pop()
        after_label, self.after_label = self.after_label, False
        if is_explicit_markup(first):
            return self._explicit_markup(lines, unit, first.strip(), indent)
        title = _section_title(lines, unit)
        if title is not None:
            self.on_section(title, after_label)
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
        directive = DIRECTIVE.fullmatch(head)
        if directive is None:
            # A comment, with every indented line after it (blank lines included). A bare ".."
            # followed by a blank line is an "empty comment" that owns no body (docutils).
            if len(unit) > 1 or head != "..":
                self.skip_deeper_than = indent
            return False
        name = directive.group(1).lower().removeprefix("py:")
        argument = (directive.group(2) or "").strip()
        if name in DROPPED_DIRECTIVES:
            self.skip_deeper_than = indent
            return False
        options = _options(lines, unit)
        no_index = "no-index" in options or "noindex" in options  # Sphinx creates no id then
        if name == "automodule" and argument:
            # autodoc writes `.. py:module:: NAME` first, which sets py:module for the rest of
            # the page: the objects of the directive's content (`.. data:: X`) are NAME.X.
            self.module = argument.split()[0]
        if name in ("module", "currentmodule"):
            module = argument.split()[0] if argument else None
            self.module = None if module == "None" else module  # "currentmodule:: None" resets
            if name == "module" and module and not no_index:
                self._set_anchor(f"module-{module}")  # Sphinx's module target id
        elif name in OBJECT_DIRECTIVES:
            self.on_object(name, argument, options, no_index, indent)
        else:
            return self.on_directive(name, argument, options, no_index, indent)
        # Every directive not dropped above is read: object signatures, notes, versionadded, ...
        return True

    def on_directive(self, name, argument, options, no_index, indent) -> bool:
        """Read any other directive (a subclass hook): tell whether its unit is kept."""
        return True

    def open_body(self, indent: int, anchor: str | None) -> _Scope:
        """Open a directive's body, which ends at the next line indented no deeper."""
        self.scopes.append(_Scope(indent, anchor))
        return self.scopes[-1]

    def on_object(self, name, argument, options, no_index, indent):
        """Open an object directive's body under the id Sphinx gives it (a subclass hook)."""
        match = OBJECT_NAME.match(argument)
        if match is None:
            return
        module = options.get("module") or self.module
        enclosing = next((s.class_path for s in reversed(self.scopes) if s.class_path), None)
        path = _qualify(match.group(0), module, enclosing)
        class_path = path if name in _CLASS_DIRECTIVES else None
        if no_index:  # Sphinx makes no id: the body stays under the enclosing anchor
            self.scopes.append(_Scope(indent, self.anchor, class_path, described=True))
            return
        anchor = f"{module}.{path}" if module else path
        self.scopes.append(_Scope(indent, anchor, class_path, described=True))
        self.used_ids.add(anchor)

    def on_section(self, title, after_label):
        """Put a section title's id in force, unless a label above it names it (a subclass hook)."""
        # docutils computes the id from the parsed title, where ":mod:`x`" reads "x".
        section_id = _docutils_id(ROLE.sub("", title))
        if section_id in self.used_ids:
            # docutils then numbers the section ("id3") with a counter shared by the whole
            # document; that cannot be predicted from here, so point at the page instead.
            section_id = None
        if section_id is not None:
            self.used_ids.add(section_id)
        if not after_label:  # a label right above a section names it (Sphinx's :ref: target)
            self._set_anchor(section_id)


def parse_rst(lines: list) -> list:
    reader, out = RstReader(), []
    for block in blank_separated(lines):
        for unit in rst_units(lines, block):
            if reader.skips(indentation(lines[unit.start])):
                continue
            if reader.read(lines, unit):
                out.extend(paragraphs(lines, unit, reader.anchor))
    return out


_EXPLICIT_TARGET = re.compile(r"`([^`<]*?)\s*<[^`>]*>`")
_DIRECTIVE_MARKER = re.compile(r"^(\s*)\.\.\s+([\w:.+-]+?)" + DELIMITER + r"([^\n]*)", re.M)
# Directives whose argument is markup for the builder, not words of the page: a code block's
# language (`.. code-block:: python`), the file an include, image or plot reads, an `only` or
# `ifconfig` expression, a raw block's format, the classes `rst-class` or `container` set, a
# doctest group. Read as prose, theirs put "python", "html+jinja" or
# "examples/cache_extension.py" among the words of the unit around them. Index entries, module
# and program names stay: Sphinx's own search indexes them (`class` is Sphinx's py:class, whose
# signature is shown). A `py:` prefix is dropped first, as RstReader drops it; another domain's
# directive (`rst:role`, which describes a role) is no builder markup.
_ARGUMENT_NOT_SHOWN = frozenset({
    "code-block", "sourcecode", "code", "highlight", "highlightlang", "literalinclude",
    "include", "image", "figure", "raw", "only", "ifconfig", "rst-class", "cssclass",
    "container", "tabularcolumns", "default-role", "role", "testsetup", "testcleanup",
    "testcode", "testoutput", "doctest", "graphviz", "plot", "meta", "sectnum",
    "jupyter-execute", "ipython"})


def _directive_shown(match: re.Match) -> str:
    """Return what the rendered page shows of a directive's first line: its argument, if any."""
    name = match.group(2).lower().removeprefix("py:")
    return match.group(1) + ("" if name in _ARGUMENT_NOT_SHOWN else match.group(3))


_OPTION_LINE = re.compile(r"^[ \t]+:[\w-]+:(?:[ \t].*)?$", re.M)


def plain_text(rst: str) -> str:
    """Return reST as a reader would read it: roles, targets, directive and option markers out."""
    text = _OPTION_LINE.sub("", rst)
    text = _DIRECTIVE_MARKER.sub(_directive_shown, text)
    text = ROLE.sub("", text)
    text = _EXPLICIT_TARGET.sub(r"`\1`", text)
    return text.replace("`~", "`").replace("`!", "`")
