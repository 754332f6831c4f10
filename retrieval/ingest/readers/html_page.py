"""Rendered HTML -> retrievable units, for documentation whose text exists only in the HTML.

Most libraries generate their API reference with autodoc: the Sphinx `_sources` copy of such a
page is a list of `.. autofunction::` lines, and the words a reader needs are only in the rendered
page. This reads them from there, with the same units as `units.py`: one per documented object
(`<dl class="py KIND">`: its signatures and its own description, nested objects apart) and one per
section's own text, from the page's main content only (no navigation, sidebars, footers, search
boxes or permalink pilcrows); and one per glossary entry (`<dl class="glossary">`: a term, its
synonyms and its description), a section of its own at the term's id, which a reST glossary's
source has no id for.

A unit's text is the text a reader sees, extracted: whitespace folded outside code, code blocks
kept line for line. Its provenance is the HTML file (its sha256) and the lines of that file the
quoted text was extracted from, so anyone can re-extract it; its digest is over the text.
"""

import bisect
import html
import re
from dataclasses import dataclass, field

from ...core.ranking import SECTION
from ..unit import Unit
from ..version_notes import rendered_notes
from .blocks import MAX_PASSAGE_BYTES
from .hidden import HiddenElement, hides, is_prose
from .rendered import (
    GLOSSARY,
    HEADINGS,
    MAIN_DIV_CLASSES,
    MAX_SECTION_DEPTH,
    NAME_CLASSES,
    PRENAME_CLASSES,
    PYTHON_DOMAIN,
    SIGNATURE_PARTS,
    STANDARD_DOMAIN,
    VOID,
    class_names,
    described_object,
    main_start,
    scan,
    tag_attributes,
)
from .rst import OBJECT_DIRECTIVES

# Elements that end a run of text: what follows starts a new line of the extracted text.
_BLOCKS = frozenset(("p", "div", "li", "dt", "dd", "pre", "tr", "table", "section", "dl",
                     "blockquote", "ul", "ol", "br", "hr", "figure", "figcaption", "caption",
                     "article", "main", "header")) | HEADINGS
# Elements whose content is never documentation text, wherever they are.
_SKIPPED_TAGS = frozenset(("script", "style", "nav", "footer", "form", "button", "template",
                           "noscript", "svg", "header"))
# Classes that mark navigation or decoration inside the main content (Sphinx, MkDocs themes).
# "prev-next-area": the pydata theme's previous/next page links (pandas), inside its <main>;
# "bd-toc": the book theme's table of contents of the page, "Contents" over a <nav> (dask).
_SKIPPED_CLASSES = frozenset(("headerlink", "quote", "toctree-wrapper", "sphinxsidebar", "related",
                              "md-sidebar", "md-source-file", "rst-footer-buttons",
                              "viewcode-link", "md-content__button", "prev-next-area",
                              "bd-toc"))
_SPACE = re.compile(r"\s+")


@dataclass
class _Block:
    """One run of extracted text: a paragraph (whitespace folded) or a code block (kept)."""

    text: str
    code: bool
    first_line: int
    last_line: int


@dataclass
class _Owner:
    """A section or documented object while its text is collected."""

    kind: str
    anchor: str | None  # a section's id; an object's enclosing section's (its ids are below)
    start_line: int
    context: tuple = ()  # page title and the headings of the enclosing sections
    title: str = ""
    heading: str = ""
    ids: list = field(default_factory=list)  # signature ids (an object's names)
    signatures: list = field(default_factory=list)  # [prefix, prename, name, rest] each
    blocks: list = field(default_factory=list)
    level: int = 0  # a section a heading opens (MkDocs): the heading's level; else 0
    # A Python object's ids are its qualified names; a standard-domain object's are not
    # (`envvar-PYTHONPATH`): it is named by its signatures.
    named_by_ids: bool = True
    hidden: bool = False  # the page hides prose in it (hidden.py)


@dataclass
class _Glossary:
    """A glossary (`<dl class="glossary">`) while its entries are read."""

    depth: int  # its place in the reader's open container elements
    entry: _Owner | None = None  # the open entry: a term, its synonyms and their description
    described: bool = False  # the open entry's <dd> has begun: the next term opens another


def _may_start_main(tag: str, raw_attributes: str) -> bool:
    """Tell, before parsing its attributes, whether a tag could be main_start's."""
    return tag in ("main", "article") or "main" in raw_attributes \
        or any(name in raw_attributes for name in MAIN_DIV_CLASSES)


def _object_kind(tag: str, classes: list, inside_class: bool) -> str | None:
    """Return the kind of object an element documents (Sphinx `dl.py`, `dl.std`, mkdocstrings),
    or None."""
    described = described_object(classes) if tag == "dl" else None
    if described is not None and described[0] == PYTHON_DOMAIN:
        return OBJECT_DIRECTIVES.get(described[1])  # Sphinx names the class after the directive
    if _is_standard_object(tag, classes):
        # An environment variable, a command-line option, a setting: a named value, not code.
        return STD_OBJECT_KIND
    if tag == "div" and "doc-object" in classes:
        for name in classes:
            if name.startswith("doc-") and name[4:] in _MKDOCSTRINGS_KIND:
                kind = _MKDOCSTRINGS_KIND[name[4:]]
                return "method" if kind == "function" and inside_class else kind
    return None


def _is_standard_object(tag: str, classes: list) -> bool:
    """Tell whether an element describes a Sphinx standard-domain object (`dl.std KIND`)."""
    return tag == "dl" and len(classes) >= 2 and classes[0] == STANDARD_DOMAIN


# The kind of a Sphinx standard-domain object (`dl.std`: `envvar`, `cmdoption`, a project's own
# `confval`...): the ranking's kinds are Python's, and its nearest is a documented value.
STD_OBJECT_KIND = "data"
# mkdocstrings' object classes (`doc-object doc-KIND`); a module is a section of its own.
_MKDOCSTRINGS_KIND = {"function": "function", "class": "class", "attribute": "attribute",
                      "module": SECTION}
# Elements whose end closes what their start opened (a section or an object).
_CONTAINERS = frozenset(("section", "dl", "div"))



class _PageReader:
    """One pass over a page's tags and text, collecting each section's and object's own text.

    Sections are `<section id>` elements (Sphinx) or, where a page has none, the span from a
    heading with an id to the next heading of the same or a higher level (MkDocs), and a
    glossary's entries. Objects are Sphinx's `<dl class="py KIND">` and mkdocstrings' `<div
    class="doc-object doc-KIND">`.
    """

    def __init__(self, text: str):
        self._line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.owners: list = []
        self._owners: list = []  # the open section and object owners, innermost last
        self._elements: list = []  # per open container element: the owner it opened, or None
        self._main: list | None = None  # [tag, nesting] of the main content element
        self._skip: list | None = None  # [tag, nesting] of an element being skipped
        self._pre = 0  # nesting of <pre>
        self._signature: list | None = None  # [prefix, prename, name, rest] being read
        self._signature_part = 0  # which of those the text goes to
        self._signature_end = ""  # the tag that ends it: dt (Sphinx) or a heading
        self._span_parts: list = []  # per open <span> in a signature: the part it set, or None
        self._heading: _Owner | None = None  # a section whose heading is being read
        self._glossary: _Glossary | None = None  # the glossary being read
        self._run: list = []  # pieces of the text run being read
        self._run_lines: list | None = None  # [first, last] line of that run
        self.title = ""  # the page's title: its first heading
        # (object, the owner around it) for an object that closed with no text and no member of
        # its own (`<dd></dd>`: Django's and pytest's sources describe it after the directive,
        # unindented): the text that follows it in that owner, up to the next section, object
        # or heading, is its description too. The owner keeps it: a reader landing on either
        # place finds the text, and no unit holds less than before.
        self._undescribed: tuple | None = None
        # An element styled invisible inside the main content, and the owner its text went to.
        self._hidden: tuple[HiddenElement, _Owner] | None = None

    def line(self, offset: int) -> int:
        """Return the 1-based line of a character offset."""
        return bisect.bisect_right(self._line_starts, offset)

    def feed(self, text: str):
        """Read a whole page."""
        for data_start, start, closing, tag, raw in scan(text):
            if start > data_start:
                self._data(text[data_start:start], data_start)
            if tag is None:  # a comment: no text, unless it hides prose
                if self._main is not None and self._skip is None and self._owners and \
                        is_prose(raw or ""):
                    self._owners[-1].hidden = True
                continue
            if closing:
                self._end(tag)
                continue
            self_closing = raw.rstrip().endswith("/")
            if self._skip is not None:
                if tag == self._skip[0] and not self_closing and tag not in VOID:
                    self._skip[1] += 1
            elif self._main is not None or _may_start_main(tag, raw):
                # Attributes are parsed only where they can matter: most of a page's tags are
                # navigation outside its main content (a pandas API page: 50 KB of sidebar).
                self._start(tag, tag_attributes(raw) if "=" in raw or "hidden" in raw else {},
                            start, self_closing)
        self._flush()

    # -- structure ---------------------------------------------------------------------------

    def _start(self, tag: str, attrs: dict, offset: int, self_closing: bool):
        if self._main is None:
            if main_start(tag, attrs):
                self._main = [tag, 1]
                self._open(_Owner(SECTION, None, self.line(offset)))
            return
        classes = class_names(attrs)
        if tag in _SKIPPED_TAGS or _SKIPPED_CLASSES.intersection(classes):
            # Its end tag is the skip's, so it is not counted in the main element's nesting.
            if tag not in VOID and not self_closing:
                self._skip = [tag, 1]
            return
        if tag == self._main[0] and tag not in VOID:
            self._main[1] += 1
        if tag not in VOID and not self_closing:
            if self._hidden is not None:
                self._hidden[0].start(tag)
            elif hides(attrs) and self._owners:
                self._hidden = (HiddenElement(tag), self._owners[-1])
        if tag in _BLOCKS:
            self._flush()
        if tag in _CONTAINERS:
            self._elements.append(self._container(tag, attrs, classes, offset))
            if tag == "dl" and GLOSSARY in classes and self._glossary is None:
                self._glossary = _Glossary(len(self._elements))
        elif tag in ("dt", "dd") and self._glossary is not None and \
                self._glossary.depth == len(self._elements):
            self._glossary_entry(tag, attrs.get("id"), offset)
        elif tag == "pre":
            self._pre += 1
        elif tag == "dt" and self._owners[-1].kind != SECTION and (
                "sig-object" in classes
                or bool(self._elements) and self._elements[-1] is self._owners[-1]):
            # Sphinx 4 marks a signature `dt.sig-object`; before it, a description's signature
            # was any <dt> of its <dl> (`<dt id="mptt.admin.DraggableMPTTAdmin">`).
            self._begin_signature(attrs.get("id"), "dt")
        elif tag in SIGNATURE_PARTS and self._signature is not None:
            part = (1 if not PRENAME_CLASSES.isdisjoint(classes) else
                    2 if not NAME_CLASSES.isdisjoint(classes) else None)
            if part is not None:
                self._signature_part = part
            self._span_parts.append(part)
        elif tag in HEADINGS:
            self._begin_heading(tag, attrs, offset)

    def _container(self, tag: str, attrs: dict, classes: list, offset: int) -> _Owner | None:
        """Open the section or object a container element starts, if it starts one."""
        if len(self._owners) > MAX_SECTION_DEPTH:
            # Deeper, an element's text is its enclosing owner's: each owner holds its context
            # and is looked through for classes, so thousands of levels would cost quadratic
            # memory and time.
            return None
        inside_class = any(owner.kind == "class" for owner in self._owners)
        kind = _object_kind(tag, classes, inside_class)
        if kind is not None:
            section = self._section()
            context = section.context + ((section.title,) if section.title else ())
            # Where a `:noindex:` object (no id of its own) points: its nearest anchored section.
            section_anchor = next((owner.anchor for owner in reversed(self._owners)
                                   if owner.kind == SECTION and owner.anchor), None)
            return self._open(_Owner(kind, section_anchor, self.line(offset),
                                     heading=section.title, context=context,
                                     named_by_ids=not _is_standard_object(tag, classes)))
        if attrs.get("id") and (tag == "section" or (tag == "div" and "section" in classes)):
            enclosing = self._section()
            context = enclosing.context + ((enclosing.title,) if enclosing.title else ())
            return self._open(_Owner(SECTION, attrs["id"], self.line(offset), context=context))
        return None

    def _begin_heading(self, tag: str, attrs: dict, offset: int):
        self._undescribed = None  # a heading ends an undescribed object's description
        owner = self._owners[-1]
        if owner.kind != SECTION and not owner.ids and attrs.get("id"):
            # mkdocstrings: the object's heading carries its id and its signature.
            self._begin_signature(attrs["id"], tag)
            return
        if attrs.get("id") and owner.kind == SECTION and owner.anchor != attrs["id"] and (
                owner.level or not owner.anchor) and len(self._owners) <= MAX_SECTION_DEPTH:
            # A heading that opens a section of its own (no <section> element around it).
            level = int(tag[1])
            while self._owners[-1].level >= level:
                self._owners.pop()
            enclosing = self._section()
            context = enclosing.context + ((enclosing.title,) if enclosing.title else ())
            owner = self._open(_Owner(SECTION, attrs["id"], self.line(offset), context=context,
                                      level=level))
        if owner.kind == SECTION and not owner.title:
            self._heading = owner

    def _glossary_entry(self, tag: str, term_id: str | None, offset: int):
        """Read a glossary's <dt> or <dd>: a term with an id after a description opens the next
        entry, a section of its own at the term's id; the ids of its synonyms join it."""
        glossary = self._glossary
        assert glossary is not None
        if tag == "dd":
            glossary.described = glossary.entry is not None
            return
        if not term_id:
            return
        if glossary.entry is not None and not glossary.described:
            glossary.entry.ids.append(term_id)  # a synonym: the same description
            return
        if glossary.entry is not None:
            self._close(glossary.entry)
        section = self._section()
        context = section.context + ((section.title,) if section.title else ())
        glossary.entry = self._open(_Owner(SECTION, term_id, self.line(offset), context=context))
        glossary.described = False
        self._heading = glossary.entry  # the term's words are its title

    def _close(self, owner: _Owner):
        """Take an owner, and any opened inside it and still open, off the open owners."""
        while self._owners and self._owners.pop() is not owner:
            pass

    def _begin_signature(self, signature_id: str | None, end_tag: str):
        owner = self._owners[-1]
        if signature_id:
            owner.ids.append(signature_id)
        self._signature = ["", "", "", ""]
        self._signature_part = 0
        self._signature_end = end_tag
        owner.signatures.append(self._signature)

    def _end(self, tag: str):
        if self._skip is not None:
            if tag == self._skip[0]:
                self._skip[1] -= 1
                if not self._skip[1]:
                    self._skip = None
            return
        if self._main is None:
            return
        if self._hidden is not None and self._hidden[0].end(tag):
            element, owner = self._hidden
            owner.hidden = owner.hidden or element.hides_prose()
            self._hidden = None
        if tag in _BLOCKS:
            self._flush()
        if tag == self._main[0]:
            self._main[1] -= 1
            if not self._main[1]:
                self._main = None
                self._owners.clear()
                self._hidden = None
                return
        if self._signature is not None and tag == self._signature_end:
            self._signature[:] = [_SPACE.sub(" ", part).strip() for part in self._signature]
            self._signature = None
        elif tag in _CONTAINERS and self._elements:
            if self._glossary is not None and self._glossary.depth == len(self._elements):
                if self._glossary.entry is not None:
                    self._close(self._glossary.entry)
                self._glossary = None
            owner = self._elements.pop()
            if owner is not None:
                self._close(owner)  # sections its headings opened end with it
                if owner.kind != SECTION and not owner.blocks and self.owners[-1] is owner \
                        and self._owners:
                    self._undescribed = (owner, self._owners[-1])
        elif tag == "pre" and self._pre:
            self._pre -= 1
        elif tag in SIGNATURE_PARTS and self._signature is not None and self._span_parts:
            if self._span_parts.pop() is not None:
                self._signature_part = 3  # what follows a name is its parameters
        elif (tag in HEADINGS or tag == "dt") and self._heading is not None:
            self._heading.title = _SPACE.sub(" ", self._heading.title).strip()
            self._heading.heading = self._heading.title
            self.title = self.title or self._heading.title
            self._heading = None

    def _open(self, owner: _Owner) -> _Owner:
        self._undescribed = None
        self.owners.append(owner)
        self._owners.append(owner)
        return owner

    def _section(self) -> _Owner:
        return next(owner for owner in reversed(self._owners) if owner.kind == SECTION)

    # -- text ---------------------------------------------------------------------------------

    def _data(self, raw: str, offset: int):
        if self._main is None or self._skip is not None:
            return
        text = html.unescape(raw)
        if self._hidden is not None:
            self._hidden[0].text.append(text)
        if self._signature is not None:
            self._signature[self._signature_part] += text
            return
        if self._heading is not None:
            self._heading.title += text
        if not self._pre and not text.strip():
            if self._run:
                self._run.append(" ")
            return
        first, last = self.line(offset), self.line(offset + len(raw.rstrip()) - 1)
        if self._run_lines is None:
            self._run_lines = [first, last]
        else:
            self._run_lines[1] = last
        self._run.append(text)

    def _flush(self):
        """End the current run of text: a block of the innermost owner, if it holds any text."""
        run, lines = "".join(self._run), self._run_lines
        self._run, self._run_lines = [], None
        if lines is None or not self._owners:
            return
        code = self._pre > 0
        text = run.strip("\n").rstrip() if code else _SPACE.sub(" ", run).strip()
        if text:
            block = _Block(text, code, lines[0], lines[1])
            owner = self._owners[-1]
            owner.blocks.append(block)
            if self._undescribed is not None and self._undescribed[1] is owner:
                self._undescribed[0].blocks.append(block)


def _quoted(owner: _Owner) -> tuple:
    """Return (text, last line) of what a unit quotes: its signatures and blocks up to the cap."""
    parts: list[str] = []
    size, last = 0, owner.start_line
    signatures = [" ".join(part for part in (prefix, prename + name + rest) if part)
                  for prefix, prename, name, rest in owner.signatures]
    for text, line in [(s, owner.start_line) for s in signatures if s] + [
            (block.text, block.last_line) for block in owner.blocks]:
        size_with = size + (2 if parts else 0) + len(text.encode("utf-8"))
        if parts and size_with > MAX_PASSAGE_BYTES:
            break
        if not parts and size_with > MAX_PASSAGE_BYTES:
            # One block over the cap on its own: cut it on a line (or word) boundary.
            text = text.encode("utf-8")[:MAX_PASSAGE_BYTES].decode("utf-8", "ignore")
            cut = max(text.rfind("\n"), text.rfind(" "))
            text = text[:cut] if cut > 0 else text
            parts.append(text)
            last = line
            break
        parts.append(text)
        size, last = size_with, max(last, line)
    return "\n\n".join(parts), last


def _unit(owner: _Owner, page_title: str) -> Unit | None:
    """Return the unit of one section or object, or None if it holds no text of its own."""
    if not owner.signatures and all(block.text == owner.title for block in owner.blocks):
        return None  # nothing but a heading: its subsections and objects say it all
    quoted, last_line = _quoted(owner)
    if not quoted:
        return None
    context = owner.context or ((page_title,) if page_title else ())
    if owner.kind == SECTION:  # a glossary entry's synonyms are its ids too
        anchors = (owner.anchor, *owner.ids) if owner.anchor else ()
        names, bare, signature = (), (), ""
        title = owner.title or page_title
        context += (owner.title,) if owner.title else ()
    else:
        anchors = tuple(owner.ids)
        names = anchors if anchors and owner.named_by_ids else tuple(
            prename + name for _, prename, name, _ in owner.signatures if name)
        bare = tuple(name for _, _, name, _ in owner.signatures if name) or tuple(
            qualified.rsplit(".", 1)[-1] for qualified in anchors)
        signature = " ".join(f"{prefix} {rest}".strip()
                             for prefix, _, _, rest in owner.signatures)
        title = names[0] if names else owner.heading
    return Unit(
        start_line=owner.start_line, end_line=max(last_line, owner.start_line), text=quoted,
        anchor=anchors[0] if anchors else owner.anchor, title=title,
        heading=owner.heading or owner.title, kind=owner.kind, anchors=anchors,
        noindex=owner.kind != SECTION and not anchors, names=" ".join(names),
        name=" ".join(bare), signature=signature,
        body="\n".join(block.text for block in owner.blocks if not block.code),
        code="\n".join(block.text for block in owner.blocks if block.code),
        context=" ".join(context), notes=rendered_notes("\n\n".join(
            block.text for block in owner.blocks if not block.code)), hidden=owner.hidden)


def page_units(text: str) -> list:
    """Split one rendered HTML page into units: documented objects and sections' own text."""
    reader = _PageReader(text)
    reader.feed(text)
    return [unit for unit in (_unit(owner, reader.title) for owner in reader.owners) if unit]
