"""A reST page of a Sphinx project -> the page Sphinx would render from it, predicted from source.

A docs folder read without its rendered site (a release's sdist) is cut as the rendered-site
build cuts it (sphinx_page.page_units: one unit per section's own text and per object
description) against the RenderedPage predicted here: its sections with the ids docutils gives
them, the ids of its labels and object descriptions, and its cross-references, resolved across
the project's pages (`in_links`) as a rendered page's links are.

The ids follow docutils' and Sphinx's rules, in document order:

- a section's id is `make_id` of its title's text; a title whose id is taken (by an earlier
  section, a label, a named hyperlink `text <url>`_) gets docutils' next `idN`, a counter that
  footnotes, anonymous targets and their references share;
- a `.. _label:` (or a crossref type's target, `.. setting:: DEBUG` -> `std-setting-DEBUG`)
  right before a section is an extra id inside it; the section keeps its title's id (but
  where that id is taken, by the label or else: then the section is at the label nearest it,
  its own `idN` last);
- a `.. module::` (or an automodule's `.. py:module::`) first in a section leads its ids
  (Sphinx's MoveModuleTargets): the section is at `module-NAME`, unless docutils reported the
  title's name a duplicate (a label of that name above it), the report then coming first;
- a Python object's id is its qualified name (module, enclosing classes, the name as written:
  Sphinx does not strip a module written again); a standard-domain object's is Sphinx's
  `make_id` of its type and name (`envvar-HOME`, `cmdoption-pytest-k`, `confval-addopts`).

The id functions are docutils' and Sphinx's, replicated in docutils_ids.py.
"""

import posixpath
import re
from collections import Counter
from dataclasses import dataclass, field

from .autodoc import field_types
from .blocks import indentation
from .docutils_ids import DocumentIds, make_id, sphinx_id
from .rendered import (
    GLOSSARY_TERM,
    PYTHON_DOMAIN,
    STANDARD_DOMAIN,
    RenderedObject,
    RenderedPage,
    RenderedSection,
)
from .rst import (
    _ADORNMENT,
    DIRECTIVE,
    OBJECT_NAME,
    OPTION,
    RstReader,
    _section_title,
    is_explicit_markup,
    short_underline,
    signature_texts,
)
from .smartquotes import educate
from .sphinx_conf import CROSSREF, OBJECT_TYPE, SphinxConf, shown_extlinks
from .sphinx_page import (
    STD_NAME,
    Directives,
    GlossaryBody,
    LiteralBlocks,
    glossary_terms,
    markup_view,
    reader_units,
)

# Inline markup, reduced to the text docutils makes ids from.
_ROLE_WITH_TITLE = re.compile(r":[\w.+:-]+:`([^`<]*?)\s*<[^`>]*>`")
_ROLE = re.compile(r":[\w.+:-]+:`([~!]?)([^`]*)`")
_HYPERLINK = re.compile(r"`([^`<]*?)\s*(?:<[^`>]*>)?`__?")
_INLINE = re.compile(r"``(.+?)``|\*\*(.+?)\*\*|\*(.+?)\*|`([^`]+)`|\|([^|]+)\|")


_INLINE_LITERAL = re.compile(r"``(.+?)``")


def title_text(title: str) -> str:
    """Return a reST title's text as docutils parses it (what its id is made from): markup out,
    a `~a.b` target shown as `b`, an inline literal as written (``__init__()``)."""
    parts = _INLINE_LITERAL.split(title)  # odd: an inline literal's text
    return " ".join("".join(part if odd % 2 else _markup_out(part)
                            for odd, part in enumerate(parts)).split())


def _markup_out(text: str) -> str:
    text = _ROLE_WITH_TITLE.sub(r"\1", text)
    text = _ROLE.sub(lambda m: m.group(2).rsplit(".", 1)[-1] if m.group(1) == "~"
                     else m.group(2), text)
    text = _HYPERLINK.sub(r"\1", text)
    text = _INLINE.sub(lambda m: next(group for group in m.groups() if group is not None), text)
    return re.sub(r"\\(.)", r"\1", text)


# A Python role's reference without explicit title: its role and target as written.
_PY_REFERENCE = re.compile(r":(?:py:)?(\w+):`([^`<]*)`")
_WITH_PARENTHESES = frozenset({"func", "meth"})


def _reference_shown(markup: str, prefixes: dict, parentheses: bool = True) -> str:
    """Return how Sphinx shows a role in a title: a Python reference as its role renders it
    (PyXRefRole: `.` and `!` dropped, `~a.b` as `b`, `()` after a function or method, none
    where conf.py's `add_function_parentheses` is False (parentheses), zzzeeksphinx's module
    prefix dropped: `:func:`_orm.relationship`` is "relationship()"); another as title_text
    reads it."""
    match = _PY_REFERENCE.fullmatch(markup)
    if match is None or match.group(1) not in PY_ROLES:
        return title_text(markup)
    role, shown = match.groups()
    shown = shown.strip().lstrip("!")
    if role in _WITH_PARENTHESES:
        shown = shown.removesuffix("()") + ("()" if parentheses else "")
    shown = shown.lstrip(".")
    if shown.startswith("~"):
        shown = shown[1:].rpartition(".")[2] if "." in shown else shown[1:]
    head, dot, rest = shown.partition(".")
    return rest if dot and head in prefixes else shown


# What renders as literal text in a title: inline literals and roles (a Python role's target is
# a literal; so, approximately, are the rest).
_LITERAL = re.compile(r"``.+?``|:[\w.+:-]+:`[^`]*`")


def shown_title(title: str, smartquotes: bool = True, prefixes: dict | None = None,
                parentheses: bool = True) -> str:
    """Return a reST title's text as Sphinx shows it: title_text, its text (not its literals)
    educated by SmartQuotes where the project has them on (conf.py's `smartquotes`), its
    Python references as their roles render them (prefixes: zzzeeksphinx's module prefixes;
    parentheses: conf.py's `add_function_parentheses`)."""
    parts, before, at = [], " ", 0
    for match in [*_LITERAL.finditer(title), None]:
        text = title[at:match.start() if match else len(title)]
        if text:
            # title_text's reading of the run, its edge spaces kept: they separate the parts.
            shown = title_text(text)
            shown = (" " if text[:1].isspace() else "") + shown + (
                " " if text[-1:].isspace() and shown else "")
            parts.append(educate(shown, before) if smartquotes else shown)
            before = shown[-1:] or before
        if match is None:
            break
        literal = _reference_shown(match.group(0), prefixes or {}, parentheses)
        parts.append(literal)
        before, at = literal[-1:] or before, match.end()
    return " ".join("".join(parts).split())


# What gives a docutils node an id from the shared counter or a name, in running text.
_NAMED_LINK = re.compile(r"(?<![:`\w])`([^`<]+?)\s*<[^`>]+>`_(?!_)")
_FOOTNOTE_REF = re.compile(r"\[(?:#[\w-]*|\*|[0-9]+|[A-Za-z][\w.-]*)\]_")
_EXPLICIT_TARGET = re.compile(r"\.\.[ \t]+_(`[^`]+`|[^`:][^:]*):(?:[ \t]+(.*))?")
_FOOTNOTE = re.compile(r"\.\.[ \t]+\[([^\]]+)\](?:[ \t].*)?")
# Sphinx's py_sig_re: the signatures of a Python object it gives an id.
_PY_SIGNATURE = re.compile(r"([\w.]*\.)?(\w+)\s*(?:\(\s*(.*)\s*\)(?:\s*->\s*(.*))?)?")
# docutils' short form of an anonymous target (its Body state's `anonymous` pattern).
_ANONYMOUS_TARGET = re.compile(r"__(?: +|$)")
# A hyperlink reference to a name of the page (`.parents`_: a section title or a label on it),
# not a named link with its URL (`text <url>`_), nor an anonymous one (`text`__).
_INTERNAL_REF = re.compile(r"(?<![:`\w])`([^`<]+?)`_(?!_)")
# The role in SourcePage.references of such a reference: it resolves on its own page only.
INTERNAL = "_"
# The role of a link to a section of its own page by its id (a `.. contents::` table's entry).
SECTION_ID = "#"
# A cross-reference role: (role, explicit title text or None, target).
_XREF = re.compile(r":(?:(?:py|std):)?([\w-]+):`(?:([^`<]*?)\s*<([^`>]*)>|([^`]*))`")
PY_ROLES = frozenset({"func", "meth", "class", "attr", "data", "exc", "obj", "const",
                      "decorator", "mod"})
# Standard-domain description directives Sphinx itself has (GenericObject and Cmdoption).
_STD_OBJECTS = frozenset({"envvar", "option", "cmdoption"})
# One option of an option description: its name and what follows (Sphinx's option_desc_re).
_OPTION_NAME = re.compile(r"((?:/|--|-|\+)?[^\s=]+)(=?\s*.*)")
_LITERAL_DIRECTIVES = frozenset({"code-block", "sourcecode", "code", "doctest", "testcode",
                                 "testoutput", "testsetup", "productionlist", "literalinclude",
                                 "math", "raw", "parsed-literal", "highlight", "graphviz"})


def directives_of(conf: SphinxConf) -> Directives:
    """Return what page_units reads beyond Python's directives, for a project's conf."""
    objects = set(_STD_OBJECTS) | {name for name, (kind, _) in conf.object_types.items()
                                   if kind == OBJECT_TYPE}
    targets = {name for name, (kind, _) in conf.object_types.items() if kind == CROSSREF}
    hidden = {f"auto{kind}" for kind in ("module", "class", "function", "method", "attribute",
                                         "data", "exception", "decorator", "property")}
    both = {f"std:{name}" for name in objects | targets}
    return Directives(frozenset(objects | {name for name in both if name[4:] in objects}),
                      frozenset(targets | {name for name in both if name[4:] in targets}),
                      frozenset(hidden | {f"py:{name}" for name in hidden}), glossary=True,
                      extlinks=conf.extlinks, code=frozenset(conf.code_directives),
                      programs=frozenset(conf.program_directives))


@dataclass
class SourcePage:
    """What a page's source says of its rendered page, and what it links to."""

    docname: str  # its document name (path below the Sphinx root, no suffix)
    page: RenderedPage  # predicted: ids, sections, objects (links are resolved across pages)
    title: str = ""
    # label name (lowercase) -> the id a :ref: to it lands on: its own, as Sphinx links it
    labels: dict = field(default_factory=dict)
    # (domain, name) -> id: ("py", "flask.Flask"), ("setting", "DEBUG"), ("envvar", "HOME")
    targets: dict = field(default_factory=dict)
    # (role, target as written, current module, current class) of each cross-reference
    references: list = field(default_factory=list)
    # A section title's name (lowercase) -> the id docutils gave that name, where a `Title`_
    # reference lands: the section's own id, or its idN where a label took the title's id.
    title_ids: dict = field(default_factory=dict)
    # The names of hyperlinks to elsewhere (`text <url>`_, `.. _name: url`): a `name`_
    # reference to one of them is that link, even where a section has the title.
    external: frozenset = frozenset()
    # (line, index) -> id of each object an autodoc directive describes (predict_page's
    # autodoc): its dotted name's, else Sphinx's `idN` where an earlier node took that.
    autodoc_ids: dict = field(default_factory=dict)


@dataclass(frozen=True)
class _PyClass:
    """A class whose body is being read: what its members' names are qualified by."""

    name: str  # below its module, as Sphinx's py:class context holds it
    module: str | None
    # A class description's (Sphinx's allow_nesting: on the py:classes stack), not another
    # description's name prefix (`.. data:: a.b.backend`'s `a.b`, py:class for its body only
    # until a description in it ends: _in_force).
    nesting: bool = True


class _Predictor(RstReader):
    """Walks a page's units as page_units does, giving ids as docutils and Sphinx would."""

    def __init__(self, lines: list, directives: Directives, nested: tuple = (),
                 smartquotes: bool = True, prefixes: dict | None = None,
                 parentheses: bool = True, autodoc: dict | None = None):
        super().__init__()
        self.lines = lines
        self.autodoc = autodoc or {}  # predict_page's: what each autodoc directive describes
        self.autodoc_ids: dict = {}
        # id() of a scope of a name prefix's class -> (it, the descriptions' scopes in it).
        self._described_in: dict = {}
        self.directives = directives
        self.smartquotes = smartquotes  # whether titles are shown educated (SmartQuotes)
        self.prefixes = prefixes or {}  # zzzeeksphinx's module prefixes, dropped when shown
        self.parentheses = parentheses  # add_function_parentheses: `()` after a function's
        # The line ranges parsed apart (an automodule's docstring), and the one being read:
        # (its range, its adornment styles, the level its first style is at).
        self._nested = nested
        self._scope: tuple | None = None
        # Each section's id with its enclosing sections' ids (outermost first), and each
        # `.. contents::` as (the id of the section it lists the subsections of, None: the
        # page's, its depth): docutils links every section it lists.
        self._ancestry: list = []
        self._contents: list = []
        self.document = DocumentIds()
        self.ids = self.document.ids
        self._serial: Counter = Counter()  # Sphinx's serial numbers, per prefix
        self.sections: list[RenderedSection] = []
        self.objects: list[RenderedObject] = []
        self._styles: list = []  # adornment styles, in the order first used (their levels)
        self._open: list = []  # (level, section) of the sections the current one is in
        self._pending: list = []  # (label name, id, key) of targets waiting for what follows
        self.labels: dict = {}
        self.targets: dict = {}
        self.title_ids: dict = {}
        self.external: set = set()
        self.references: list = []
        self._program: str | None = None
        self._unit = range(0)
        self._titled: RenderedSection | None = None  # the section the last unit titled

    # -- ids ------------------------------------------------------------------------------

    def _object_id(self, prefix: str, term: str) -> str:
        """Sphinx's make_id(env, document, prefix, term)."""
        candidate = sphinx_id(f"{prefix}-{term}" if prefix else term)
        if candidate == prefix:
            candidate = ""
        while not candidate or candidate in self.ids:
            candidate = f"{prefix or 'id'}{'-' if prefix else ''}{self._serial[prefix]}"
            self._serial[prefix] += 1
        self.ids.add(candidate)
        return candidate

    # -- reading ----------------------------------------------------------------------------

    def read_unit(self, unit: range, is_code: bool) -> bool:
        self._unit = unit
        # The section whose title the previous unit was: what this one is first in, if any.
        titled, self._titled = self._titled, None
        head = self.lines[unit.start]
        if is_code:
            return True  # a literal block's lines: code, never markup (page_units' predicted)
        if is_explicit_markup(head):
            self._explicit(head.strip(), unit, titled)
        elif _ANONYMOUS_TARGET.match(head.strip()):
            self._targets(unit)
        else:
            self._inline("\n".join(self.lines[unit.start:unit.stop]))
            if _section_title(self.lines, unit) is None and not all(
                    set(self.lines[i].strip()) <= _ADORNMENT for i in unit):
                self._settle_targets()
        kept = self.read(self.lines, unit)
        terms = glossary_terms(self, self.lines, unit) if kept else []
        if terms:
            # Sphinx's make_id("term", text) of each term (a synonym too), in document order.
            signatures = []
            for term in terms:
                text = title_text(shown_extlinks(term, self.directives.extlinks))
                term_id = self._object_id("term", text)
                self.targets.setdefault(("term", text.lower()), term_id)
                signatures.append((term_id, text))
            self.objects.append(RenderedObject(GLOSSARY_TERM, signatures, STANDARD_DOMAIN))
            self.open_body(indentation(head), self.anchor)
        return kept

    def _targets(self, unit: range):
        """Read a unit of `__ URL` lines (docutils' short form of `.. __: URL`, an anonymous
        target taking the next idN) and explicit targets, each line at the unit's indentation
        an element of its own."""
        indent = indentation(self.lines[unit.start])
        starts = [i for i in unit if self.lines[i].strip()
                  and indentation(self.lines[i]) == indent]
        for i, stop in zip(starts, [*starts[1:], unit.stop], strict=True):
            line = self.lines[i].strip()
            if _ANONYMOUS_TARGET.match(line):
                self.document.auto()
            elif is_explicit_markup(line):
                self._explicit(line, range(i, stop))

    def _explicit(self, head: str, unit: range, titled: RenderedSection | None = None):
        target = _EXPLICIT_TARGET.fullmatch(head)
        if target:
            name = target.group(1).strip("`")
            if name == "_":
                self.document.auto()  # an anonymous target
            elif target.group(2) or len(unit) > 1:
                self.document.named(name)  # a link to elsewhere: an id all the same
                self.external.add(" ".join(name.lower().split()))
            else:
                self._pending.append((name.lower(), self.document.named(name), None))
            return
        footnote = _FOOTNOTE.fullmatch(head)
        if footnote:
            label = footnote.group(1)
            if label.startswith("#") and len(label) > 1:
                self.document.named(label[1:])
            else:
                self.document.auto()  # numbered and auto-numbered footnotes have no name id
            self._inline("\n".join(self.lines[unit.start:unit.stop]))
            return
        directive = DIRECTIVE.fullmatch(head)
        if directive is None:
            return  # a comment
        name = directive.group(1).lower().removeprefix("py:")
        argument = (directive.group(2) or "").strip()
        if name == "currentmodule":
            self._titled = titled  # no node: what follows is still first in the section
        # An automodule's autodoc writes `.. py:module::` first: the same target (a `:mod:`
        # reference lands on it), the module's description (its docstring, a unit of the
        # package's source) the text of a section it moves.
        if name in ("module", "automodule") and argument and not any(
                OPTION.fullmatch(self.lines[i].rstrip()) and "index" in self.lines[i]
                for i in unit[1:]):
            module = argument.split()[0]
            self._settle_targets()
            module_id = self._object_id("module", module)
            self.targets.setdefault((PYTHON_DOMAIN, module), module_id)
            if titled is not None:
                self._move_section(titled, module_id)
        if name not in _LITERAL_DIRECTIVES:
            self._inline("\n".join(self.lines[unit.start + 1:unit.stop]))

    def _inline(self, text: str):
        for match in _NAMED_LINK.finditer(text):
            name = " ".join(match.group(1).split())
            self.document.named(name)
            self.external.add(name.lower())
        for _ in _FOOTNOTE_REF.finditer(text):
            self.document.auto()
        within = self._within()
        self.references.extend(cross_references(text, self.module, within))
        if self._described():
            # A Python description's docfields (`:param VirtualLayout layout:`, `:rtype:`,
            # `:raises E:`): Sphinx's typed fields link each name of their types.
            self.references.extend(("class", name, self.module, within)
                                   for line in text.split("\n") for name in field_types(line))

    def _described(self) -> bool:
        """Tell whether the unit being read is in a Python object description's body."""
        indent = indentation(self.lines[self._unit.start]) if self._unit else 0
        return any(scope.described and scope.indent < indent for scope in self.scopes)

    def _within(self) -> str | None:
        """Return the class (dotted, with its module) whose body the unit being read is in:
        Sphinx looks a cross-reference's name up under it too (py:class)."""
        indent = indentation(self.lines[self._unit.start]) if self._unit else 0
        classes = self._in_force([scope for scope in self.scopes if scope.indent < indent])
        if not classes:
            return None
        owner = classes[-1]
        return f"{owner.module}.{owner.name}" if owner.module else owner.name

    def _move_section(self, section: RenderedSection, section_id: str):
        """Render a section at a module's id: Sphinx's MoveModuleTargets puts the target of a
        `.. module::` that is the first thing in a section first among the section's ids
        (`<section id="module-jinja2.ext">`, its title's id a span inside)."""
        moved = RenderedSection(section_id, section.title, section.path, section.parsed)
        self.sections[self.sections.index(section)] = moved
        self._ancestry = [(moved.section_id if own == section.section_id else own, ancestors)
                          for own, ancestors in self._ancestry]
        self._open = [(level, moved if open_section is section else open_section)
                      for level, open_section in self._open]

    def _settle_targets(self):
        """Record the targets waiting before an element at their own ids: Sphinx links a :ref:
        (or a crossref role) to the label's id, `page#label`, even where the label opens a
        section and the section is rendered at its title's id (`<section id="title"><span
        id="label">`): the rendered site's link lands on that id, and is counted by it."""
        for name, own_id, key in self._pending:
            if key is None:
                self.labels.setdefault(name, own_id)
            else:
                self.targets.setdefault(key, own_id)
        self._pending = []

    # -- RstReader hooks ----------------------------------------------------------------------

    def on_section(self, title, after_label):
        title = shown_extlinks(title, self.directives.extlinks)  # an extlink is its caption
        super().on_section(title, after_label)
        lines, unit = self.lines, self._unit
        overline = len(unit) >= 3 and lines[unit.start + 1].strip() == title \
            and lines[unit.start].rstrip() == lines[unit.start + 2].rstrip()
        style = (lines[unit.start if overline else unit.start + 1].rstrip()[0], overline)
        styles, base = self._styles, 0
        nested = next((span for span in self._nested if unit.start in span), None)
        if nested is not None:
            # Sphinx's nested_parse_with_titles: the docstring's styles start afresh, its
            # first one a level below the section the directive stands in.
            if self._scope is None or self._scope[0] != nested:
                self._scope = (nested, [], self._open[-1][0] + 1 if self._open else 0)
            _, styles, base = self._scope
        if style not in styles:
            styles.append(style)
        level = base + styles.index(style)
        while self._open and self._open[-1][0] >= level:
            self._open.pop()
        text = title_text(title)
        path = tuple(section.title for _, section in self._open)
        # A title whose id is taken (by a label above it of the same name, `.. _database_urls:`
        # before "Database URLs"; by an earlier section, a second "Unicode") gives its section
        # docutils' next idN, last among its ids: the section is rendered at the labels right
        # above it, the nearest first (pytest's `.. _`recording warnings`:` then `.. _recwarn:`
        # give `<section id="recwarn"><span id="recording-warnings"><span id="id3">`).
        title_id = make_id(text)
        labels = [own for _, own, _ in self._pending]  # a crossref target is one too
        labelled = labels[-1] if labels and (not title_id or title_id in self.ids) else None
        own = self.document.auto() if labelled is not None else self.document.named(text)
        # A title whose name another target has (a label `.. _aiomysql:` above "aiomysql", an
        # earlier title) makes docutils report "Duplicate implicit target name" inside the
        # section, right after the title: a module's target is then not first in it.
        name = text.lower()
        duplicate = name in self.title_ids or name in self.labels or name in self.external \
            or any(" ".join(label.split()) == name for label, _, key in self._pending
                   if key is None)
        self.title_ids.setdefault(name, own)
        section = RenderedSection(labelled or own, shown_title(
            title, self.smartquotes, self.prefixes, self.parentheses), path, text)
        self.sections.append(section)
        self._ancestry.append((section.section_id,
                               tuple(open_section.section_id for _, open_section in self._open)))
        self._open.append((level, section))
        # docutils' "Title underline too short." warning is the section's first thing after
        # its title: a module's target is then not first in it (MoveModuleTargets runs
        # before Sphinx filters the warning out).
        warned = not overline and short_underline(lines[unit.start], lines[unit.start + 1])
        self._titled = None if duplicate or warned else section
        self._settle_targets()

    def listed(self) -> list:
        """Return the ids of the sections the page's `.. contents::` tables list, once per
        table listing it (docutils' Contents transform: a `:local:` one its section's
        subsections, else the page's, to `:depth:` levels)."""
        found = []
        for scope, depth in self._contents:
            for section_id, ancestors in self._ancestry:
                if scope is None:
                    level = len(ancestors) + 1
                elif scope in ancestors:
                    level = len(ancestors) - ancestors.index(scope)
                else:
                    continue
                if depth is None or level <= depth:
                    found.append(section_id)
        return found

    def _in_force(self, scopes: list) -> list:
        """Return the classes of scopes (outermost first) that are still Sphinx's py:class in
        them: a name prefix's is no longer once a description in its body has ended, as
        PyObject's after_content sets py:class to the innermost class description's (or
        None): cryptography's `.. data:: a.b.backend` holding `.. method:: one()` then
        `.. method:: two()` describes `a.b.one` then `two`."""
        return [scope.owner for scope in scopes if isinstance(scope.owner, _PyClass) and (
            scope.owner.nesting or all(any(inner is open_scope for open_scope in self.scopes)
                                       for inner in self._described_in.get(id(scope),
                                                                           (scope, ()))[1]))]

    def on_object(self, name, argument, options, no_index, indent):
        super().on_object(name, argument, options, no_index, indent)
        if OBJECT_NAME.match(argument) is None:
            return  # no scope of its own: nothing to name
        enclosing = self._in_force(self.scopes[:-1])
        for scope in self.scopes[:-1]:
            if isinstance(scope.owner, _PyClass) and not scope.owner.nesting:
                self._described_in.setdefault(id(scope), (scope, []))[1].append(self.scopes[-1])
        classname = enclosing[-1].name if enclosing else None
        # An option given empty (`:module:`) is no module, as Sphinx reads it: the name as
        # written is the object's full name (Django's `.. data:: django.db.models.signals.X`).
        module = (options["module"] or None) if "module" in options else (
            enclosing[-1].module if enclosing else None) or self.module
        signatures = []
        for text in self._signature_lines(argument):
            match = OBJECT_NAME.match(text)
            if match is None:
                continue
            written = match.group(0)
            prefix, _, bare = written.rpartition(".")
            name_prefix = prefix  # the class Sphinx's py:class is in the body (before_content)
            if classname and prefix and (prefix == classname
                                         or prefix.startswith(classname + ".")):
                fullname = written
                name_prefix = prefix[len(classname):].lstrip(".")
            elif classname:
                fullname = f"{classname}.{written}"
            else:
                fullname = written
            qualified = f"{module}.{fullname}" if module else fullname
            # A signature Sphinx's py_sig_re does not read (`lookup_name = 'day'`) is shown
            # as written, with no id.
            object_id = None if no_index or _PY_SIGNATURE.fullmatch(text.strip()) is None \
                else self._object_id("", qualified)
            signatures.append((object_id, bare, fullname, name_prefix))
            if object_id is not None:
                self.targets.setdefault((PYTHON_DOMAIN, qualified), object_id)
        if not signatures:
            return
        self.objects.append(RenderedObject(name, [(i, bare) for i, bare, _, _ in signatures],
                                           PYTHON_DOMAIN))
        if name in ("class", "exception"):
            # Of several signatures, the last names the class its content is in (the Python
            # domain's before_content takes names[-1]: PyWavelets' `.. class::
            # BaseNode(...)` then `WaveletPacket2D(...)`, whose `.. attribute:: data` is
            # `pywt.WaveletPacket2D.data`).
            self.scopes[-1].owner = _PyClass(signatures[-1][2], module)
        elif signatures[-1][3]:
            # `.. method:: ModelAdmin.change_view` sets py:class to its written prefix for its
            # body: a reference there is looked up under that class too.
            self.scopes[-1].owner = _PyClass(signatures[-1][3], module, nesting=False)
        self._settle_targets()

    def _signature_lines(self, argument: str) -> list:
        return signature_texts(self.lines, self._unit, argument)

    def on_directive(self, name, argument, options, no_index, indent) -> bool:
        directives = self.directives
        short = name.removeprefix("std:")
        if short in directives.programs and argument.split():
            # Django's `.. django-admin:: check [app_label ...]`: its parse_node sets the
            # program, and it is described as the object it is too.
            self._program = argument.split()[0]
        if name == "program":
            self._program = None if argument.strip() in ("", "None") else argument.split()[0]
        elif name == "contents":
            self._settle_targets()
            self.document.named(argument or "Contents")  # the table's own id (its topic's)
            depth = options.get("depth", "").strip()
            local = "local" in options and self._open
            self._contents.append((self._open[-1][1].section_id if local else None,
                                   int(depth) if depth.isdigit() else None))
        elif name in directives.targets:
            term = " ".join(argument.split())
            self._pending.append((None, self._object_id(f"std:{short}", term), (short, term)))
            return True
        elif name == "glossary" and directives.glossary:
            self._settle_targets()
            self.open_body(indent, self.anchor).owner = GlossaryBody()
        elif name in directives.objects and STD_NAME.match(argument):
            self._settle_targets()
            self._std_object(short, argument, no_index)
        elif name in directives.hidden:
            self._settle_targets()
            # autodoc's descriptions take their ids as a hand-written one does (PyObject's
            # add_target_and_index, make_id), in document order: a later description of the
            # same name is Sphinx's `idN` (pexpect's `.. class:: spawn` after its autoclass).
            line = self._unit.start + 1
            for index, described in enumerate(self.autodoc.get(line, ())):
                if described is not None:
                    self.autodoc_ids[line, index] = self._object_id("", described)
            written = OBJECT_NAME.match(argument)
            if name.endswith(("autoclass", "autoexception")) and written:
                # autodoc writes `.. py:class:: NAME` with `:module:` (the name's own dotted
                # prefix, else the current module): the content's objects are its members.
                prefix, _, bare = written.group(0).rpartition(".")
                self.open_body(indent, self.anchor).owner = _PyClass(bare, prefix or self.module)
        elif name not in _NO_NODE:
            self._settle_targets()
        return True

    def _option_ids(self, argument: str) -> str | None:
        """Take the ids Sphinx's Cmdoption gives an option description and return its first.

        handle_signature names each `, `-separated option (`-f, --force`: -f and --force);
        add_target_and_index takes make_id(prefix, name) for each, and its old, lowercased
        docutils id too where no node has it yet: a later `-t` after `-T` (whose old id is
        `cmdoption-prog-t`) is Sphinx's serial `cmdoption-prog-0`."""
        taken: list = []
        for option in (part for line in argument.split("\n") for part in line.split(", ")):
            written = _OPTION_NAME.match(option.strip())
            if written is None:
                continue  # Sphinx warns "Malformed option description"
            name = written.group(1)
            if name.endswith("[") and written.group(2).endswith("]"):
                name = name[:-1]  # an optional value in brackets: `--color[=WHEN]`
            prefix = "-".join(["cmdoption", *([self._program] if self._program else []),
                               *([] if name.startswith(("-", "/")) else ["arg"])])
            taken.append(self._object_id(prefix, name))
            self.ids.add(make_id(f"{prefix}-{name}"))
        return taken[0] if taken else None

    def _std_object(self, kind: str, argument: str, no_index: bool):
        bare = STD_NAME.match(argument).group(0)  # type: ignore[union-attr]
        if no_index:
            object_id = None
        elif kind in ("option", "cmdoption"):
            object_id = self._option_ids(argument)
        else:
            object_id = self._object_id(kind, bare)
        if object_id is not None:
            self.targets.setdefault((kind, bare), object_id)
        self.objects.append(RenderedObject(kind, [(object_id, bare)], STANDARD_DOMAIN))


# Directives after which a label still waits for what follows: `index` and `toctree` (their
# nodes are invisible to docutils' PropagateTargets), and those giving no node at all: `title`
# (the page's <title>) and Sphinx's author directives without show_authors (pydicom's
# `.. _best_practices:` then `.. title::` labels the section below: #best-practices).
_NO_NODE = frozenset({"index", "toctree", "title", "sectionauthor", "moduleauthor",
                      "codeauthor"})


def cross_references(text: str, module: str | None, within: str | None = None) -> list:
    """Return (role, target as written, module, class) of each cross-reference of reST text,
    read under a current module (a docstring's: the module of the object it documents) and
    class (within: dotted, with its module; a class's or its member's docstring, a class
    directive's body: Sphinx's py:class context), and (INTERNAL, name, module, None) of each
    hyperlink reference to a name of its page. A role's text starting with `!` is no
    reference (Sphinx's XRefRole renders it unlinked); a target's runs of white space, a line
    break too, are one space but a Python role's (XRefRole.process_link, which PyXRefRole's
    replaces)."""
    return [(match.group(1), _target(match.group(1), match.group(3) if match.group(3)
                                     is not None else match.group(4)), module, within)
            for match in _XREF.finditer(text)
            if match.group(4) is None or not match.group(4).startswith("!")] + [
        (INTERNAL, " ".join(match.group(1).split()), module, None)
        for match in _INTERNAL_REF.finditer(text)]


def _target(role: str, written: str) -> str:
    return written.strip() if role in PY_ROLES else " ".join(written.split())


def predict_page(docname: str, text: str, directives: Directives,
                 nested: tuple = (), conf: SphinxConf | None = None,
                 autodoc: dict | None = None, dedent: tuple = ()) -> SourcePage:
    """Return what one reST page of a project would render as, read from its source alone;
    nested: the line ranges whose titles are parsed apart (ExpandedPage.nested); conf: the
    project's (whether it renders text educated, its module prefixes); autodoc: {line of an
    autodoc directive: [the dotted name of each object it describes at an id, else None]};
    dedent: the runs of lines read dedented (ExpandedPage.dedent)."""
    lines = markup_view(text.split("\n"), dedent)  # as page_units reads a predicted page
    conf = conf or SphinxConf()
    reader = _Predictor(lines, directives, nested, conf.smartquotes, conf.module_prefixes,
                        conf.function_parentheses, autodoc)
    literal = LiteralBlocks(directives.code)  # as page_units reads them
    for unit, indent in reader_units(lines, reader, titles_apart=True):
        is_code = literal.enter(lines, unit, indent)
        if reader.read_unit(unit, is_code):
            literal.leave(lines, unit, indent, is_code)
    reader._settle_targets()
    page = RenderedPage(frozenset(reader.ids), reader.sections, reader.objects, [])
    title = reader.sections[0].title if reader.sections else ""
    references = reader.references + [(SECTION_ID, section_id, None, None)
                                      for section_id in reader.listed()]
    return SourcePage(docname, page, title, reader.labels, reader.targets, references,
                      reader.title_ids, frozenset(reader.external), reader.autodoc_ids)


def in_links(pages: dict, conf: SphinxConf) -> Counter:
    """Count the cross-references of a project's pages ({page path: SourcePage}) by the
    (page path, id) each lands on, as a rendered site's links are counted: `:ref:` to a label,
    `:doc:` to a page's first section, a Python role to its object's description, a project's
    crossref role (`:setting:`) to its target."""
    labels: dict = {}
    targets: dict = {}
    by_docname: dict = {}
    for path, source in pages.items():
        by_docname[source.docname] = (path, source)
        for name, anchor in source.labels.items():
            labels.setdefault(name, (path, anchor))
        for key, anchor in source.targets.items():
            targets.setdefault(key, (path, anchor))
    python = {name: where for (domain, name), where in targets.items()
              if domain == PYTHON_DOMAIN}
    ending: dict = {}  # each dotted tail of a Python name (`QuerySet.difference`): the first
    for name, where in python.items():
        parts = name.split(".")
        for i in range(1, len(parts)):
            ending.setdefault(".".join(parts[i:]), where)
    roles = {"envvar": "envvar"} | {role: name for name, (_, role) in conf.object_types.items()}
    counts: Counter = Counter()
    for path, source in pages.items():
        for role, target, module, within in source.references:
            found = None
            if role == INTERNAL:
                # docutils resolves a `name`_ reference by name, an explicit target (a label,
                # a link to elsewhere) before a section title's implicit name.
                name = target.lower()
                anchor = source.labels.get(name) or (
                    None if name in source.external else source.title_ids.get(name))
                found = (path, anchor) if anchor else None
            elif role == SECTION_ID:
                found = (path, target)
            elif role == "ref":
                found = labels.get(target.lower())
            elif role == "doc":
                docname = target.lstrip("/") if target.startswith("/") else posixpath.normpath(
                    posixpath.join(posixpath.dirname(source.docname), target))
                linked = by_docname.get(docname)
                if linked is not None and linked[1].page.sections:
                    found = (linked[0], linked[1].page.sections[0].section_id)
            elif role in PY_ROLES:
                # Sphinx's find_obj skips a target's `()` (`:attr:`~Sitemap.items()``).
                target = target.removesuffix("()")
                name = conf.full_name(target.lstrip("~!."))
                if target.lstrip("~").startswith("."):
                    # Sphinx's find_obj, refspecific: under the current class, under the
                    # current module, as written, else the first name ending so.
                    found = (python.get(f"{within}.{name}") if within else None) or (
                        python.get(f"{module}.{name}") if module else None) or python.get(
                        name) or ending.get(name)
                else:
                    # Sphinx's find_obj: the name, under the current module, under its class.
                    found = python.get(name) or (
                        python.get(f"{module}.{name}") if module else None) or (
                        python.get(f"{within}.{name}") if within else None)
            elif role == "term":  # Sphinx looks a term up in lower case
                found = targets.get(("term", target.lower()))
            elif role in roles:
                found = targets.get((roles[role], target.lstrip("~!")))
            if found is not None:
                counts[found] += 1
    return counts
