"""Version notes read off a unit's own text: reST directives and their rendered Sphinx forms.

A unit quoted from reST (a Sphinx source, a docs folder, a docstring) says `.. versionadded::
3.2`, `.. versionchanged::`, `.. deprecated::`, `.. versionremoved::` (CPython's
`.. deprecated-removed:: 3.4 3.6` is a deprecation) or has a numpydoc-style underlined
"Deprecated" section; a unit quoted from a rendered page (its text, as the readers quote it)
has what Sphinx renders of them, `<div class="versionadded">` and the others, whose
`span.versionmodified` label opens a paragraph ("New in version 3.2.", "Deprecated since version
3.4, will be removed in version 3.6: Use h."). Each becomes a core.notes.VersionNote of
the unit that holds it, its text as written (reST markup and all), whitespace collapsed. It sits
beside unit.py, which applies it to every unit's text, below the readers.
"""

import re

from ..core.notes import VersionNote
from .readers.rst import DELIMITER

# A directive's kind.
KINDS = {"versionadded": "since", "versionchanged": "changed", "deprecated": "deprecated",
         "deprecated-removed": "deprecated", "versionremoved": "removed"}
# How Sphinx renders each kind's label (its current English wording): what a reST note adds to
# its unit's indexed prose, so a question in the rendered page's words finds the source's unit.
LABELS = {"since": "Added in version {}", "changed": "Changed in version {}",
          "deprecated": "Deprecated since version {}", "removed": "Removed in version {}"}
_HTML_SOURCES = (".html", ".htm")
_RST_SOURCES = (".rst", ".txt", ".py", ".pyi", ".rest", "")

_DIRECTIVE = re.compile(r"^([ \t]*)\.\.[ \t]+(" + "|".join(map(re.escape, KINDS)) +
                        ")" + DELIMITER + r"[ \t]*(.*)$")
_VERSION = re.compile(r"\d+(?:\.[0-9A-Za-z]+)*")
# A numpydoc-style section header: the word on its own line, underlined.
_DEPRECATED_HEADER = re.compile(r"^([ \t]*)Deprecated[ \t]*$")
_UNDERLINE = re.compile(r"^[ \t]*([-=~^])\1{2,}[ \t]*$")
_SPACE = re.compile(r"\s+")
# A rendered note's label, as Sphinx writes it in English (older and current wordings), at the
# start of a paragraph of the page's text; a deprecation's planned removal is part of its label.
_RENDERED_LABEL = re.compile(
    r"^\s*(?P<label>New in version|Added in version|Changed in version|Deprecated since version"
    r"|Deprecated in version|Removed in version)\s+(?P<version>\d+(?:\.[0-9A-Za-z]+)*)"
    r"(?:,\s*will be removed in version\s+[0-9A-Za-z.]*?)?\s*[.:]?(?:\s+|$)(?P<rest>.*)$")
_RENDERED_KINDS = {"new": "since", "added": "since", "changed": "changed",
                   "deprecated": "deprecated", "removed": "removed"}


def _extension(source_id: str) -> str:
    """Return a source's suffix, lowercase with its dot ("" for none)."""
    stem, dot, suffix = source_id.rpartition("/")[2].rpartition(".")
    return "." + suffix.lower() if dot and stem else ""


def notes_in(source_id: str, text: str) -> tuple:
    """Return the version notes of a unit's text, read as its source's markup (by the source's
    suffix: rendered HTML, or reST and docstrings; Markdown has none of these forms)."""
    extension = _extension(source_id)
    if extension in _HTML_SOURCES:
        return rendered_notes(text)
    if extension in _RST_SOURCES:
        return rst_notes(text)
    return ()


def unrendered_labels(source_id: str, notes) -> str:
    """Return the labels Sphinx would render for the notes of a source that is not a rendered
    page (a rendered page's prose has its own), one a line: what the index adds to its prose."""
    if _extension(source_id) in _HTML_SOURCES:
        return ""
    return "\n".join(LABELS[note.kind].format(note.version).rstrip() for note in notes)


def _collapsed(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def rst_notes(text: str) -> tuple:
    """Return the notes of reST (or a docstring's) lines: directives and Deprecated sections."""
    lines = text.split("\n")
    notes = []
    for at, line in enumerate(lines):
        directive = _DIRECTIVE.match(line)
        if directive is not None:
            indent, name, argument = directive.groups()
            version, _, inline = argument.strip().partition(" ")
            if name == "deprecated-removed":  # its second argument is the removal's version
                inline = inline.strip().partition(" ")[2]
            body = [inline] + _block(lines, at + 1, len(indent))
            notes.append(VersionNote(KINDS[name], version.rstrip(":,."),
                                     _collapsed("\n".join(body))))
            continue
        header = _DEPRECATED_HEADER.match(line)
        if header is not None and at + 1 < len(lines) and _UNDERLINE.match(lines[at + 1]):
            body = _section(lines, at + 2, len(header.group(1)))
            said = _collapsed("\n".join(body))
            version = _VERSION.search(said)
            notes.append(VersionNote("deprecated", version.group() if version else "", said))
    return tuple(notes)


def _block(lines: list, start: int, indent: int) -> list:
    """Return a directive's content: the lines after it that are blank or indented deeper."""
    end = start
    while end < len(lines) and (not lines[end].strip() or _indent(lines[end]) > indent):
        end += 1
    return lines[start:end]


def _section(lines: list, start: int, indent: int) -> list:
    """Return an underlined section's text: up to the next underlined header or a dedent."""
    end = start
    while end < len(lines):
        line = lines[end]
        if line.strip() and (_indent(line) < indent or (
                end + 1 < len(lines) and _UNDERLINE.match(lines[end + 1]))):
            break
        end += 1
    return lines[start:end]


def rendered_notes(text: str) -> tuple:
    """Return the notes of a rendered page's text: each paragraph that opens with a label
    Sphinx renders ("New in version 3.2.", "Deprecated since version 3.4, will be removed in
    version 3.6: Use h."), its text the rest of that paragraph."""
    lines = text.split("\n")
    notes = []
    for at, line in enumerate(lines):
        label = _RENDERED_LABEL.match(line)
        if label is None or (at and lines[at - 1].strip()):
            continue  # a label opens a paragraph
        end = at + 1
        while end < len(lines) and lines[end].strip():
            end += 1
        said = " ".join([label.group("rest")] + lines[at + 1:end])
        notes.append(VersionNote(_RENDERED_KINDS[label.group("label").split()[0].lower()],
                                 label.group("version"), _collapsed(said)))
    return tuple(notes)
