"""Sphinx documentation -> retrievable units: one per documented object, one per section's own text.

A unit of a documented object (function, method, class, attribute, data, exception) is its
signature plus its own description, without nested members (they are units of their own). A unit
of a section is the text of the section that lies in no subsection and no object. Each unit's
quoted text is a byte-exact run of whole source lines starting at its heading or directive, so
the verifiability contract is the one every passage has; what is indexed is normalised (reST
markup removed, code apart from prose) and may cover more of the object than is quoted.

Anchors and names come from the rendered page (`rendered.py`), matched in document order: the
ids Sphinx really wrote, including each later signature of a multi-signature object. A docs
folder read without its rendered site (sphinx_source.py) gives the page it predicts, and the
directives only such a build reads from the source (`Directives`: standard-domain descriptions,
crossref targets, autodoc directives whose units come from the package source).
"""

import bisect
import re
from dataclasses import dataclass, field

from ...core.ranking import SECTION
from ..unit import Unit
from ..version_notes import rst_notes
from .blocks import blank_separated, indentation, size_pieces
from .hidden import hidden_in_markup
from .html_page import STD_OBJECT_KIND
from .rendered import GLOSSARY_TERM, STANDARD_DOMAIN, RenderedPage
from .rst import (
    CODE_DIRECTIVES,
    DELIMITER,
    DIRECTIVE,
    OBJECT_DIRECTIVES,
    OBJECT_NAME,
    OPTION,
    LiteralLines,
    RstReader,
    _is_adornment,
    _section_title,
    is_explicit_markup,
    plain_text,
    rst_units,
    signature_texts,
)
from .sphinx_conf import shown_extlinks

# How far ahead document-order matching looks for the rendered twin of a directive or title
# (rendered pages may hold elements the source does not, e.g. from an included file).
_LOOKAHEAD = 12

_NOT_WORD = re.compile(r"[\W_]+")
# An autodoc or autosummary directive in a page's source: its text is generated, so it exists
# only in the HTML, which a published site's reader (formats/sphinx.py) reads instead.
_GENERATED = re.compile(r"^[ \t]*\.\.[ \t]+auto\w+::", re.M)


def generates_text(source: str) -> bool:
    """Tell whether a page's reST source has a directive whose text exists only in the HTML
    Sphinx renders from it (autodoc's, autosummary's)."""
    return _GENERATED.search(source) is not None


# A description of another domain than Python's and the standard one (`.. rst:directive::`,
# `.. c:function::`), each an objects.inv entry; a namespace or alias directive describes
# nothing.
_OTHER_DOMAIN = re.compile(r"[ \t]*\.\.[ \t]+(?:c|cpp|js|rst):([\w:-]+?)" + DELIMITER + ".*")
_NO_DESCRIPTION = ("namespace", "namespace-push", "namespace-pop", "alias")


def other_domain_descriptions(source: str, breaks: frozenset = frozenset()) -> int:
    """Count a page's reST source's descriptions of other domains than Python's and the
    standard one (in no literal block; breaks: LiteralLines')."""
    literal, count = LiteralLines(breaks), 0
    for index, line in enumerate(source.split("\n")):
        stripped = line.strip()
        if not stripped or literal.is_literal(stripped, indentation(line), index):
            continue
        described = _OTHER_DOMAIN.fullmatch(line.rstrip("\r"))
        count += described is not None and not described.group(1).endswith(_NO_DESCRIPTION)
    return count


# The name a standard-domain description is known by: its argument's first word ("-k" of
# "-k EXPRESSION", "--fixtures" of "--fixtures, --funcargs").
STD_NAME = re.compile(r"[^\s,=\[]+")
# The kind of the owner of an autodoc directive's lines: no unit of the page (the package
# source's docstring units stand in its place), but it ends the section's first run.
_HIDDEN = "hidden"


@dataclass(frozen=True)
class Directives:
    """Directives a page's source is read by beyond the Python domain's, by name: a rendered
    site's units take these from its HTML, a source-only build from the source."""

    objects: frozenset = frozenset()  # descriptions of standard-domain objects: a unit each
    targets: frozenset = frozenset()  # crossref targets (Django's `setting`): read as labels
    hidden: frozenset = frozenset()  # autodoc directives: their units come from elsewhere
    glossary: bool = False  # a `.. glossary::`'s entries: a unit each, at its terms' ids
    extlinks: tuple = ()  # sphinx.ext.extlinks' roles (SphinxConf.extlinks): shown as captions
    code: frozenset = frozenset()  # a project's directives whose body is code (CodeBlock's)
    # The directives besides `program` that set the program the options after them are of
    # (SphinxConf.program_directives).
    programs: frozenset = frozenset()


class GlossaryBody:
    """What owns a `.. glossary::` directive's body: each unit directly in it is an entry."""


def glossary_terms(reader: RstReader, lines: list, unit: range) -> list:
    """Return the terms of a unit read (reader.read) directly in a glossary's body, an entry:
    its first lines, at its own indentation, before its deeper definition; else []."""
    if not isinstance(reader.scopes[-1].owner, GlossaryBody) \
            or is_explicit_markup(lines[unit.start]):
        return []
    indent = indentation(lines[unit.start])
    terms = []
    for i in unit:
        if indentation(lines[i]) != indent:
            break
        terms.append(lines[i].strip())
    return terms


NO_DIRECTIVES = Directives()


# A role's `~dotted.name` target: Sphinx shows its last component only (`find_one()` for
# :meth:`~pymongo.collection.Collection.find_one`), so a title is matched by that.
_SHORTENED_TARGET = re.compile(r"`~(?:\w+\.)*(\w+)")
_INLINE_LITERAL = re.compile(r"``(.+?)``")


def _folded(title: str, extlinks: tuple = ()) -> str:
    """Return a source title as it is compared with the rendered titles: its words only, an
    inline literal's as written (``<label>`` is no `text <target>`)."""
    parts = _INLINE_LITERAL.split(shown_extlinks(title, extlinks))  # odd: a literal's text
    return _NOT_WORD.sub("", "".join(
        part if odd % 2 else plain_text(_SHORTENED_TARGET.sub(r"`\1", part))
        for odd, part in enumerate(parts)).casefold())


@dataclass
class _Owner:
    """A section or object while its units are being collected."""

    kind: str
    head: int  # line index of its title or directive
    title: str
    anchor: str | None
    heading: str = ""
    anchors: tuple = ()
    noindex: bool = False
    names: tuple = ()
    bare_names: tuple = ()
    signature: str = ""
    context: str = ""
    first_run_end: int | None = None  # line index past its first run of units
    run_open: bool = True
    body: list = field(default_factory=list)
    code: list = field(default_factory=list)
    prose: list = field(default_factory=list)  # its prose's reST, as written: its notes'
    hidden: list = field(default_factory=list)  # line indices of prose hiding prose (hidden.py)
    around: "_Owner | None" = None  # an object's: the section or object its directive is in
    # Its lines of a field list parsed apart (a docstring's, an automodule content's), which
    # render, where no page metadata is taken out (pint's `:copyright:` under "pint.babel").
    fields: int = 0


@dataclass
class _InOrder:
    """A rendered page's sections or objects, matched with the source's in document order."""

    items: list
    at: int = 0  # past the last one matched

    def take(self, matches):
        """Return the first of the next few items that matches, and move past it; else None."""
        for offset, item in enumerate(self.items[self.at:self.at + _LOOKAHEAD]):
            if matches(item):
                self.at += offset + 1
                return item
        return None


class _UnitReader(RstReader):
    """The paragraph reader, also telling which section or object owns each unit."""

    def __init__(self, lines: list, page: RenderedPage, directives: Directives):
        super().__init__()
        self.lines = lines
        self.page = page
        self.directives = directives
        self.owners: list[_Owner] = []
        self.section: _Owner | None = None
        # The rendered page's sections and objects, each matched in document order.
        self._sections = _InOrder(page.sections)
        self._objects = _InOrder(page.python_objects())
        self._std_objects = _InOrder([obj for obj in page.objects
                                      if obj.domain == STANDARD_DOMAIN])
        self._unit = range(0)  # the unit being read

    # -- matching with the rendered page ----------------------------------------------------

    def _rendered_section(self, title: str):
        folded = _folded(title, self.directives.extlinks)
        return self._sections.take(
            lambda section: _NOT_WORD.sub("", (section.parsed or section.title).casefold())
            == folded)

    def _rendered_object(self, bare_name: str):
        return self._objects.take(lambda obj: obj.name == bare_name)

    def _rendered_std_object(self, name: str):
        return self._std_objects.take(lambda obj: obj.name == name)

    # -- reader hooks -----------------------------------------------------------------------

    def read(self, lines, unit) -> bool:
        self._unit = unit
        kept = super().read(lines, unit)
        terms = glossary_terms(self, lines, unit) if kept and self.directives.glossary else []
        if terms:
            self._glossary_entry(terms, indentation(lines[unit.start]))
        return kept

    def _glossary_entry(self, terms: list, indent: int):
        """Open a glossary entry: a section of its own at its terms' ids (as the rendered
        site's reader reads `<dl class="glossary">`), its definition the body."""
        rendered = self._std_objects.take(lambda obj: obj.kind == GLOSSARY_TERM)
        ids = tuple(rendered.ids) if rendered is not None else ()
        section = self.section
        title = plain_text(terms[0]).strip()
        owner = _Owner(SECTION, self._unit.start, title,
                       ids[0] if ids else (section.anchor if section else None),
                       heading=title, anchors=ids,
                       context=" ".join(filter(None, (section.context if section else "",
                                                      title))))
        self.open_body(indent, owner.anchor).owner = owner
        self.owners.append(owner)

    def on_section(self, title, after_label):
        super().on_section(title, after_label)
        rendered = self._rendered_section(title)
        page_title = self.page.sections[0].title if self.page.sections else title
        if rendered is not None:
            anchor, shown, path = rendered.section_id, rendered.title, rendered.path
        else:
            anchor = self.anchor if self.anchor in self.page.ids else None
            shown, path = plain_text(title), (page_title,)
        self.section = _Owner(SECTION, self._unit.start, shown, anchor, heading=shown,
                              anchors=(anchor,) if anchor else (),
                              context=" ".join(path + (shown,)))
        self.owners.append(self.section)

    def on_object(self, name, argument, options, no_index, indent):
        super().on_object(name, argument, options, no_index, indent)
        signatures = self._signatures(argument)
        if not signatures or name not in OBJECT_DIRECTIVES:
            return
        module = options.get("module") or self.module
        enclosing = next((s.owner for s in reversed(self.scopes[:-1])
                          if getattr(s, "owner", None)), None)
        bare = [sig_name.rsplit(".", 1)[-1] for sig_name, _ in signatures]
        rendered = self._rendered_object(bare[0])
        ids = tuple(rendered.ids) if rendered is not None else ()
        section_anchor = self.section.anchor if self.section else None
        if ids:
            anchor = ids[0]
        elif not no_index and rendered is None and self.anchor in self.page.ids:
            anchor = self.anchor  # the reader's prediction, where the page confirms it
        else:
            anchor = section_anchor
        qualified = ids or tuple(
            (f"{enclosing.names[0]}.{sig_name}" if enclosing and enclosing.names
             and "." not in sig_name else
             f"{module}.{sig_name}" if module and not sig_name.startswith(module + ".")
             else sig_name)
            for sig_name, _ in signatures)
        context = self.section.context if self.section else ""
        owner = _Owner(OBJECT_DIRECTIVES[name], self._unit.start, qualified[0], anchor,
                       heading=self.section.title if self.section else "", anchors=ids,
                       noindex=no_index, names=qualified, bare_names=tuple(bare),
                       signature=" ".join(rest for _, rest in signatures), context=context)
        self.scopes[-1].owner = owner
        self.owners.append(owner)

    def on_directive(self, name, argument, options, no_index, indent) -> bool:
        directives = self.directives
        if name == "glossary" and directives.glossary:
            self.open_body(indent, self.anchor).owner = GlossaryBody()
            return True
        if name in directives.targets:
            return False
        if name in directives.hidden:
            owner = _Owner(_HIDDEN, self._unit.start, "", None)
        elif name in directives.objects and (named := STD_NAME.match(argument)):
            bare = named.group(0)
            rendered = self._rendered_std_object(bare)
            ids = tuple(rendered.ids) if rendered is not None else ()
            section = self.section
            owner = _Owner(STD_OBJECT_KIND, self._unit.start, bare,
                           ids[0] if ids else (section.anchor if section else None),
                           heading=section.title if section else "", anchors=ids,
                           noindex=no_index or not ids, names=(bare,), bare_names=(bare,),
                           signature=argument[len(bare):].strip(),
                           context=section.context if section else "")
        else:
            return True
        self.open_body(indent, owner.anchor).owner = owner
        self.owners.append(owner)
        return True

    def _signatures(self, argument):
        """Return [(name, rest)] of a directive's signature lines (continuations included)."""
        found = []
        for text in signature_texts(self.lines, self._unit, argument):
            match = OBJECT_NAME.match(text)
            if match:
                found.append((match.group(0), text[match.end():].strip()))
        return found

    def around(self) -> _Owner | None:
        """Return the section or object around the current object's directive."""
        for scope in reversed(self.scopes[:-1]):
            owner = getattr(scope, "owner", None)
            if isinstance(owner, _Owner):
                return owner
        return self.section

    def owner(self) -> _Owner | None:
        """Return the object or section that owns the current unit."""
        for scope in reversed(self.scopes):
            owner = getattr(scope, "owner", None)
            if isinstance(owner, _Owner):
                return owner
        return self.section


def page_units(text: str, page: RenderedPage, directives: Directives = NO_DIRECTIVES,
               breaks: tuple = (), code: dict | None = None,
               predicted: bool = False, dedent: tuple = ()) -> list:
    """Split one reST source into units, anchored and named from its rendered page.

    A page read with its includes expanded (formats/sphinx_include.py) gives breaks, the sorted
    line indices where a run of one file's consecutive lines starts: a unit's quoted lines end
    at the next (its words past it are indexed all the same, as those past its first piece
    are); and code, {line index of a literal include: the code it shows}, indexed as code of
    the unit it is in.

    predicted: the page is one sphinx_source.py predicted (a docs folder without its rendered
    site), read as the rendered site's reader (html_page.py) reads the page Sphinx renders:
    an object directive with no body of its own (Django's and pytest's sources describe an
    object unindented after its directive: Sphinx renders `<dd></dd>`) is described by the
    text that follows it in the enclosing section or object, up to the next section or object,
    the enclosing one keeping that text too, its run of lines going on past the directive; a
    literal block's lines are code, never markup (a directive shown in an example); a section
    title is a unit of its own (reader_units' titles_apart), and explicit markup first in a
    list item is read as markup (markup_view; the lines quoted are the source's), and the runs
    dedent gives are read dedented (markup_view).
    """
    lines = text.split("\n")
    view = markup_view(lines, dedent) if predicted else lines
    apart = {index for span, _ in dedent for index in span} if predicted else set()
    reader = _UnitReader(view, page, directives)
    literal = LiteralBlocks(directives.code)
    current = None
    describing: _Owner | None = None  # an object without a body: what follows describes it
    for unit, indent in reader_units(view, reader, titles_apart=predicted):
        is_code = literal.enter(view, unit, indent)
        if not (predicted and is_code) and not reader.read(view, unit):
            continue
        owner = reader.owner()
        if owner is None:  # text before the first title: the page's own section
            reader.section = owner = _Owner(SECTION, unit.start, "", None)
            reader.owners.append(owner)
        head = owner.kind not in (SECTION, _HIDDEN) and unit.start == owner.head
        if head:
            owner.around = reader.around()
        if predicted:
            # A unit in an object's body (its text, or an object inside it) ends the run of
            # the section or object around the object; a bodyless one's text is that one's.
            inside = owner.around if head else owner
            if inside is not None and inside.around is not None:
                inside.around.run_open = False
        if describing is not None and owner is not describing.around:
            describing.run_open = False
            describing = None
        if current is not None and current is not owner:
            if predicted and current.around is owner and not current.body \
                    and not current.code:
                describing = current  # undescribed: the text after it describes it
            elif not (predicted and head and owner.around is current):
                current.run_open = False
        current = owner
        for each in (owner, describing):
            if each is not None:
                if each.run_open:
                    each.first_run_end = unit.stop
                _read_into(each, lines, unit, is_code, code, directives.extlinks)
        if not is_code:
            owner.fields += sum(index in apart and _FIELD.fullmatch(view[index]) is not None
                                for index in unit)
        literal.leave(view, unit, indent, is_code)
    # Before a page's first title, what renders nothing (`:orphan:`, a `highlight`)
    # is no unit: the rendered page shows nothing above its title; nor is anything where the
    # rendered page read shows no text there.
    return [_unit(lines, owner, _quoted_end(lines, owner.head, owner.first_run_end, breaks))
            for owner in reader.owners
            if owner.first_run_end is not None and owner.kind != _HIDDEN
            and not (owner.kind == SECTION and not owner.title
                     and (not _rendered_lines(owner.prose) or not page.text_above_title))]


def _read_into(owner: _Owner, lines: list, unit: range, is_code: bool, code: dict | None,
               extlinks: tuple):
    """Add a unit's text to an owner's: as code, as its signature (its head), or as prose (an
    extlinks role read as its caption shows it)."""
    chunk = "\n".join(lines[unit.start:unit.stop])
    if code and unit.start in code:
        owner.code.append(code[unit.start])
    if is_code:
        owner.code.append(chunk)
    elif unit.start == owner.head and owner.kind != SECTION:
        pass  # signatures and options: indexed as names and signature, not as prose
    else:
        owner.body.append(plain_text(shown_extlinks(chunk, extlinks)))
        owner.prose.append(chunk)
        if hidden_in_markup(chunk):  # a raw HTML comment or invisible element
            owner.hidden.append(unit.start)


def _quoted_end(lines: list, head: int, end: int, breaks: tuple) -> int:
    """Return where the lines quoted from head end: at end, or before the next break after
    head (without the blank lines before it)."""
    cut = bisect.bisect_right(breaks, head)
    if cut < len(breaks) and breaks[cut] < end:
        end = breaks[cut]
        while end > head + 1 and not lines[end - 1].strip():
            end -= 1
    return end


# A list item's marker before explicit markup (`* .. attribute:: CASCADE`, Django's): the
# markup is the item's first element, which docutils parses at the item's indentation.
_ITEM_MARKER = r"([ \t]*)([*+\-\u2022\u2023\u2043]|[0-9]+[.)]|#\.)( +)"
_ITEM_MARKUP = re.compile(_ITEM_MARKER + r"(?=\.\.[ \t])")
_ITEM = re.compile(_ITEM_MARKER + r"(?=\S)")


def markup_view(lines: list, dedent: tuple = ()) -> list:
    """Return a source's lines as they are parsed: a list item's marker before explicit
    markup blanked, the markup at the item's indentation; dedent: (line indices, columns) of
    each run parsed apart dedented (ExpandedPage.dedent: a docstring by its margin, an
    automodule's content by its indentation), whose titles are then titles."""
    view = []
    for line in lines:
        match = _ITEM_MARKUP.match(line)
        view.append(line if match is None else match.group(1) + " " * (
            match.end() - match.end(1)) + line[match.end():])
    for span, columns in dedent:
        for index in span:
            if not view[index][:columns].strip():
                view[index] = view[index][columns:]
    return view


def reader_units(lines: list, reader: RstReader, titles_apart: bool = False):
    """Yield (unit, indentation) of each unit of a reST source the reader does not skip (the
    body of a comment, toctree or index); titles_apart: a section title is a unit of its own,
    what follows it without a blank line another (docutils reads a directive right below a
    title's underline as a directive)."""
    for block in blank_separated(lines):
        for unit in _units(lines, block, titles_apart):
            indent = indentation(lines[unit.start])
            if not reader.skips(indent):
                yield unit, indent


def _units(lines: list, block: range, titles_apart: bool):
    for unit in rst_units(lines, block):
        title = _section_title(lines, unit) if titles_apart else None
        length = 3 if title is not None and _is_adornment(lines[unit.start]) else 2
        if title is None or len(unit) <= length:
            yield unit
            continue
        yield range(unit.start, unit.start + length)
        yield from _units(lines, range(unit.start + length, unit.stop), titles_apart)


class LiteralBlocks:
    """Which units of a reST source are code: a literal block after `::`, a code directive's
    body, a doctest."""

    def __init__(self, code: frozenset = frozenset()):
        self._indent: int | None = None  # units deeper than this are a literal (code) block
        self._code = CODE_DIRECTIVES | code  # with a project's own (Directives.code)

    def enter(self, lines: list, unit: range, indent: int) -> bool:
        """Tell whether a unit, the next read, is code."""
        if self._indent is not None and indent <= self._indent:
            self._indent = None
        return self._indent is not None or lines[unit.start].lstrip().startswith(">>>")

    def leave(self, lines: list, unit: range, indent: int, is_code: bool):
        """Open a literal block after a unit read that starts one."""
        head = lines[unit.start]
        directive = DIRECTIVE.fullmatch(head.strip()) if is_explicit_markup(head) else None
        if directive and directive.group(1).lower() in self._code:
            self._indent = indent
        elif not directive and not is_code and lines[unit.stop - 1].rstrip().endswith("::"):
            # The block is indented past the paragraph's text: a list item's is past its
            # marker (`- **To the low-level**: ...::` then `  Although ...` is the item's
            # next paragraph, no code), so its last line's, or its first's after the marker.
            last = lines[unit.stop - 1]
            item = _ITEM.match(last) if len(unit) == 1 else None
            self._indent = item.end() if item else max(indent, indentation(last))


def _unit(lines: list, owner: _Owner, first_run_end: int) -> Unit:
    piece = size_pieces(lines, range(owner.head, first_run_end))[0]
    return Unit(
        start_line=piece.start + 1, end_line=piece.stop,
        text="\n".join(lines[piece.start:piece.stop]),
        anchor=owner.anchor, title=owner.title, heading=owner.heading, kind=owner.kind,
        anchors=owner.anchors,
        noindex=owner.noindex, names=" ".join(owner.names), name=" ".join(owner.bare_names),
        signature=owner.signature, body="\n".join(owner.body), code="\n".join(owner.code),
        context=owner.context, notes=rst_notes("\n\n".join(owner.prose)),
        hidden=any(line in piece for line in owner.hidden),
        title_only=owner.kind == SECTION and bool(owner.title)
        and _rendered_lines(owner.prose) + owner.fields <= 1)


# A line that renders no text: blank, an adornment, a label, a `currentmodule`, `module`,
# `index`, `highlight` or `default-role` directive, a `title` or `meta` one (the page's
# <title> and <meta>, nothing in its body), an author one (Sphinx's Author directive renders
# nothing unless show_authors), a `program` one (Sphinx's Program only sets the std:program
# its options are named under, returning no node), an `rst-class` one (docutils' class
# directive: a class of what follows, or of its content), a `contents` one (its table is docutils'
# HTML5 `<nav>`, no text: an empty one is removed) or an option of one (a field: `:orphan:`,
# page metadata Sphinx takes out of the page; a field marker is followed by white space or the
# line's end, a role's by its text: ":mod:`regex` -- Tools" is a title's text).
# IPython's sphinx directive (IPython.sphinxext.ipython_directive).
_IPYTHON = re.compile(r"[ \t]*\.\.[ \t]+ipython" + DELIMITER + r".*\r?")
_RENDERS_NOTHING = re.compile(
    r"[ \t]*(?:\.\.[ \t]+(?:_[^:]+:|(?:py:)?(?:currentmodule|module)" + DELIMITER + ".*"
    r"|(?:index|highlight|default-role|title|meta|sectionauthor|moduleauthor|codeauthor"
    r"|contents|(?:std:)?program|rst-class)" + DELIMITER + ".*)"
    r"|:[\w-]+:(?:[ \t].*)?|([^\w\s])\1*)?[ \t]*\r?")


# A field list's field, in column 0 (an option of a directive is indented below it).
_FIELD = re.compile(r":[\w-]+:(?:[ \t].*)?")


def _rendered_lines(prose: list) -> int:
    """Return how many lines of a section's prose (its chunks of reST) render text (its title
    is one). An `.. ipython::` block with `:suppress:` renders none: IPython's directive runs
    it and shows neither its input nor its output (statsmodels' and pandas' imports)."""
    lines = [line for chunk in prose for line in chunk.split("\n")]
    count, suppressed = 0, None  # the indent of the suppressed block a line is in
    for index, line in enumerate(lines):
        if suppressed is not None and (not line.strip() or indentation(line) > suppressed):
            continue
        suppressed = None
        if _IPYTHON.fullmatch(line) and ":suppress:" in _directive_options(lines, index):
            suppressed = indentation(line)
            continue
        count += not _RENDERS_NOTHING.fullmatch(line)
    return count


def _directive_options(lines: list, head: int) -> list:
    """Return the field markers of the option lines right below a directive's line."""
    found = []
    for line in lines[head + 1:]:
        option = OPTION.fullmatch(line.rstrip("\r"))
        if option is None or indentation(line) <= indentation(lines[head]):
            break
        found.append(f":{option.group(1)}:")
    return found


def renders_nothing(line: str) -> bool:
    """Tell whether a reST line renders no text: blank, an adornment, a label, a field, a
    `currentmodule`, `module`, `index`, `highlight`, `default-role`, `title`, `meta`, author,
    `program` or `rst-class` directive or an option of one."""
    return _RENDERS_NOTHING.fullmatch(line) is not None
