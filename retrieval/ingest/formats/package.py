"""A Python package's own tree -> units: its docs folder with autodoc resolved, or its docstrings.

With a docs folder (an sdist's `docs/` or `doc/`), every reST, Markdown and text page gives its
paragraphs as any plain tree does, except that an autodoc directive gives, in its place, the
docstring units of what it names, read from the package source (autodoc.py, docstrings.py);
after the pages, each public object the pages do not document is a unit of its docstring, out of
the index of objects (noindex: the docs' own descriptions rank above it). Docs with autodoc
directives that give no API object, nor do the docstrings, stop the tree's build. Without one (a
wheel, an installed environment), the API reference is the docstrings alone: one unit per public
module, class, function, method and documented attribute; and the release's description (its
README, sources/description.py) is its guide, a unit per section.

A docstring unit quotes its `.py` file's lines byte-exact (source_id the file, its sha256, its line
range). Its URL is the published page and the id Sphinx gives the object (its dotted name) where a
docs page documents it and the docs' site is known; otherwise it is the file and its lines,
`<source base><path>#L<first>-L<last>` (GitHub's form; `retrieval verify --rendered` checks such a
fragment against the tree's file).
"""

import dataclasses
import functools
import os
import posixpath
import re
import textwrap
import urllib.parse
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from ...core.checks import SnapshotError
from ...core.ranking import SECTION, IndexFields
from ..readers import autodoc, automodapi, markdown, mkdocstrings
from ..readers.autosummary_templates import (
    Unrendered,
    automodsumm_context,
    class_context,
    class_members,
    render,
)
from ..readers.blocks import indentation, size_pieces
from ..readers.docstrings import (
    ATTRIBUTE,
    CLASS,
    DATA,
    EXCEPTION,
    FUNCTION,
    METHOD,
    MODULE,
    DocObject,
    Module,
    PackageSource,
    aliases,
    derived_exceptions,
    exports,
    inherited_members,
    inherited_names,
    inheriting,
    is_private,
    merged_constructor,
    module_name,
    public_name,
    public_objects,
    read_package,
)
from ..readers.docutils_ids import sphinx_id
from ..readers.rendered import PYTHON_DOMAIN, RenderedPage
from ..readers.rst import (
    NAPOLEON_SECTIONS,
    OBJECT_DIRECTIVES,
    LiteralLines,
    first_section_title,
    plain_text,
)
from ..readers.sphinx_conf import MARKDOWN, RST, SphinxConf
from ..readers.sphinx_page import (
    generates_text,
    other_domain_descriptions,
    page_units,
    renders_nothing,
)
from ..readers.sphinx_source import (
    SourcePage,
    cross_references,
    directives_of,
    in_links,
    predict_page,
)
from ..readers.templates import delegated_members, resolve_templates
from ..readers.text import page_url, parse_source
from ..tree import PackageLayout, Progress, SourceTree, iter_source_files, read_file, source_kind
from ..unit import UnitDraft, merge_same_passages, passage_key
from ..version_notes import rst_notes
from .sphinx_docs import (
    SphinxProject,
    apidoc_pages,
    default_project,
    docname_path,
    gallery_pages,
    notebook_pages,
    page_path,
    python_files,
    sphinx_project,
)
from .sphinx_include import Docstring, Origin, expand

# The most names one object's passages are indexed under (its own, the names it is exported
# and aliased by, the other targets of its assignment), in that order.
MAX_NAMES = 64
# Where a source tree keeps its documentation sources, in the order looked for.
DOCS_FOLDERS = ("docs", "doc", "Doc")
# A string literal's opening and closing triple quotes, where a piece of a docstring has them
# (after `__doc__ = ` where an assignment gives a module its docstring).
_QUOTES = re.compile(r"^(?:__doc__[ \t]*=[ \t]*)?[rRuUbB]*(?:\"\"\"|\'\'\')|(?:\"\"\"|\'\'\')$")
# The Sphinx extension of the Pallets projects' themes: it has autodoc skip `:internal:` members.
_PALLETS = "pallets_sphinx_themes"
# Sphinx's napoleon extension: Google and NumPy docstring sections as reST descriptions.
_NAPOLEON = "sphinx.ext.napoleon"
# A line that is only a docstring's closing quotes.
_CLOSING_QUOTES = re.compile(r"[ \t]*(?:\"\"\"|\'\'\')[ \t]*")
# A docstring's closing quotes at the end of its last line.
_CLOSING_AT_END = re.compile(r"(?:\"\"\"|\'\'\')[ \t]*$")


def _docstring_margin(lines: list) -> int:
    """Return the columns autodoc dedents a docstring's lines by (prepare_docstring's margin:
    the least indentation of its lines after the first that hold text); lines: those after the
    one its opening quotes are on, through the one its closing quotes end."""
    indents = [len(text) - len(text.lstrip()) for text in
               (_CLOSING_AT_END.sub("", line).rstrip().expandtabs() for line in lines) if text]
    return min(indents, default=0)


# A line that is only a docstring's opening quotes (a `\` after them escapes the line's end),
# or `__doc__ = ` and them.
_OPENING_QUOTES = re.compile(
    r"[ \t]*(?:__doc__[ \t]*=[ \t]*)?[rRuU]?(?:\"\"\"|\'\'\')\\?[ \t]*")


def docs_folder(root: str) -> str | None:
    """Return the docs folder of a source tree (below root), or None if it has none."""
    for name in DOCS_FOLDERS:
        if os.path.isdir(os.path.join(root, name)):
            return name
    return None


def summed(counts) -> Counter:
    """Return the sum of Counters of positive counts, as sum(counts, Counter()) would, in one
    Counter: `+` copies the sum so far once per term (the references of Django 3.2.25's 538
    pages, 3,970 names: 0.12 s a sum, this 1 ms)."""
    total: Counter = Counter()
    for count in counts:
        total.update(count)
    return total


# The format a package source (sources/packages.py) names for its trees: never detected, since
# what to read (modules, docs folder, links) is what the source found (SourceTree.package).
PACKAGE_FORMAT = "package"


def read_package_contents(tree: SourceTree, progress: Progress) -> list:
    """Read one package collection into its units' drafts (UnitDraft), in path order."""
    layout = tree.package
    if layout is None:
        raise ValueError(f"{tree.label}: a package tree comes from a package source")
    package = read_package(tree.root, layout.modules, tree.max_file_bytes)
    _read_dependencies(package, layout.dependencies, tree.max_file_bytes)
    progress.files += len(package.modules) + len(package.dependencies)
    for path, reason in package.skipped:
        progress.skip(f"{tree.label}/{path}", reason)
    resolved, in_part, left = resolve_templates(package)
    if resolved or left:
        part = (f" ({in_part} of them in part: a piece the source does not give left out)"
                if in_part else "")
        progress.note(f"{tree.label}: {resolved} docstrings assembled at import time resolved "
                      f"from the source{part}, {left} left as written")
    delegated, unread = delegated_members(package)
    if delegated or unread:
        progress.note(f"{tree.label}: {delegated} members class decorators take from another "
                      f"class read from the source, {unread} such decorators left unread")
    builder = _Units(layout, tree, package)
    if layout.docs is None:
        contents = builder.api_reference() + builder.description_units(progress)
    else:
        contents = builder.docs_pages(layout.docs, progress)
        if builder.rendered or builder.unrendered:
            progress.note(
                f"{tree.label}: autosummary templates rendered from the source: "
                f"{len(builder.rendered)} ({builder.member_stubs} member stubs listed); not "
                f"rendered (what they use is not read): {len(builder.unrendered)}"
                + "".join(f" {name}" for name in sorted(builder.unrendered)))
        added, drafts = builder.undescribed(contents)
        progress.note(f"{tree.label}: {added} public objects the docs do not describe added "
                      "from docstrings")
        contents = merge_same_passages(contents + drafts, builder.place_preference)
        directives = progress.autodoc.get(tree.label, (0, 0))[1]
        if directives and not builder.described and not any(
                draft.content["kind"] != SECTION for draft in contents):
            # Its docs mean to describe an API, and neither they nor its docstrings give one:
            # what was read is not the package (no module of it found), so nothing is built.
            raise SnapshotError(
                f"its docs have {directives} autodoc directive{'' if directives == 1 else 's'}, "
                "yet neither they nor its docstrings give an API object (no public module of "
                "the package was read)")
    progress.passages += len(contents)
    progress.tick(tree.label, force=True)
    return contents


def _read_dependencies(package: PackageSource, dependencies: tuple, max_file_bytes: int) -> None:
    """Read into package.dependencies the modules of each dependency (tree.Dependency) that a
    class of the package derives from a class of: its top-level module a base is imported
    from (an environment's other distributions are read only where so needed)."""
    if not dependencies:
        return
    wanted = {name.partition(".")[0] for module in package.modules.values()
              for obj in module.objects.values() if obj.kind in (CLASS, EXCEPTION)
              for name in package.foreign_bases(module, obj)}
    for dependency in dependencies:
        if wanted & {dotted.partition(".")[0] for _, dotted in dependency.modules}:
            read = read_package(dependency.root, dependency.modules, max_file_bytes,
                                dependency.source)
            package.dependencies.update(read.modules)
            package.skipped.extend(read.skipped)
    package.changed()
    derived_exceptions(package)  # a class of the package may derive from a dependency's


# autodoc's options that leave a description out of the index, without an id.
_NOINDEX = frozenset({"noindex", "no-index"})
# The kinds of a page's Python object descriptions (rst.OBJECT_DIRECTIVES' values).
_PYTHON_KINDS = frozenset(OBJECT_DIRECTIVES.values())


def _template_members(rendered: str | None) -> list:
    """Return (toctree below the class's stub, dotted name) of each member stub the
    autosummary template of a class's stub lists (rendered: the template rendered for the
    class from the source, _rendered_template; None: autosummary's own class.rst, which lists
    none, or one this reader does not render): its `:toctree:` tables' entries, found by line
    as autosummary finds them (in a reST comment too)."""
    if rendered is None:
        return []
    return list(dict.fromkeys(  # a member two tables list has one stub
        (found.toctree, found.name) for found in autodoc.autosummary_entries(rendered)))


def _default_template(documented) -> str:
    """Return the autosummary template a class's stub is written with where its entry names
    none: `autosummary/` + its documenter's objtype."""
    kind = documented.kind or documented.obj.kind
    return "autosummary/exception.rst" if kind == EXCEPTION else "autosummary/class.rst"


def _autodoc_settings(conf: SphinxConf) -> autodoc.Settings:
    """Return what of a project's conf.py changes what autodoc documents."""
    return autodoc.Settings(conf.inherit_docstrings, _PALLETS in conf.extensions,
                            conf.class_content, _NAPOLEON in conf.extensions,
                            conf.special_members)


def _is_reference_page(found: dict, page: RenderedPage, text: str,
                       breaks: frozenset = frozenset()) -> bool:
    """Tell whether a page is a reference page of the rendered site, as site.reference_pages
    reads its objects.inv: its Python objects at an id of their own (autodoc's, {line:
    [Documented]}, and hand-written ones; a `:noindex:` one has no id and no entry there; a
    module's entry does not count) at least as many as, and more than none, its objects of
    domains other than Python's and the standard one (Sphinx's autodoc page describes two
    functions beside its `rst:directive`s: no reference page)."""
    python = sum(item.obj.kind != MODULE and not _NOINDEX & item.directive.options.keys()
                 for documented in found.values() for item in documented) + sum(
        bool(obj.ids) for obj in page.python_objects())
    return python > 0 and python >= other_domain_descriptions(text, breaks)


def _described_names(found: dict) -> dict:
    """Return {line: [dotted name, or None]} of a page's autodoc directives ({line:
    [Documented]}): the name each object's description takes its id by, None for one without
    an id of its own (`:noindex:`, a mapping's entry) or a module (sphinx_source reads its
    `.. py:module::` target itself)."""
    return {line: [None if item.keyed or item.obj.kind == MODULE
                   or _NOINDEX & item.directive.options.keys() else item.name
                   for item in documented] for line, documented in found.items()}


def _rendered_only(context: frozenset, lines: list, unit) -> bool:
    """Tell whether a unit is only a page's `{{ name }}` text (sphinx_include: a conf.py's
    Jinja context, pandas' `{{ header }}`: a currentmodule and a suppressed ipython block)
    and lines that render nothing: no text of its own on the page."""
    return any(index in context for index in range(unit.start_line - 1, unit.end_line)) and all(
        index in context or renders_nothing(lines[index])
        for index in range(unit.start_line - 1, unit.end_line))


def _title_only(text: str) -> bool:
    """Tell whether a section unit's text is its title alone (its adornment aside)."""
    return sum(len(set(line.strip())) > 1 for line in text.split("\n")) <= 1


def _section_at(units: list, line: int):
    """Return the section unit a line of a page is in (of page_units' units), else None."""
    found = None
    for unit in units:
        if unit.start_line > line:
            break
        if unit.kind == SECTION and unit.anchor:
            found = unit
    return found


def _split_code(text: str) -> tuple:
    """Return (prose, code) of a docstring: doctest lines and their output, literal blocks and
    code directives' bodies are code, as the rendered page shows them (in a `pre`)."""
    prose: list[str] = []
    code: list[str] = []
    in_example = False
    literal = LiteralLines()
    for line in text.split("\n"):
        stripped = line.strip()
        # Every line that is not blank is shown to LiteralLines, which notes where blocks start.
        in_literal = bool(stripped) and literal.is_literal(stripped, indentation(line))
        if stripped.startswith(">>>"):
            in_example = True
        elif not stripped:
            in_example = False
        (code if in_example or in_literal else prose).append(line)
    return plain_text("\n".join(prose)), "\n".join(code)


def _piece_docstring(lines: list) -> str:
    """Return the docstring text a piece of a long object quotes (quotes and indent removed)."""
    text = textwrap.dedent("\n".join(line.rstrip("\r") for line in lines)).strip()
    return _QUOTES.sub("", text)


# _Units._inheritance_steps of a name no inheritance relates to where it is defined.
NOT_INHERITED = 1 << 16


def name_rank(name: str, path: str) -> tuple:
    """Return how well a dotted name names the object a file defines, best least: the shortest
    name first (the one users import: `scipy.stats.zscore`, not `scipy.stats.mstats.zscore`),
    then the one sharing most of the file's path (`pandas.core.groupby.GroupBy.get_group` for
    pandas/core/groupby/groupby.py, not `pandas.core.resample.Resampler.get_group`)."""
    parts = name.split(".")
    folders = path.rsplit(".", 1)[0].split("/")
    if parts[0] in folders:
        folders = folders[folders.index(parts[0]):]  # below a src/ or lib/ folder
    shared = 0
    while shared < min(len(parts), len(folders)) and parts[shared] == folders[shared]:
        shared += 1
    return len(parts), -shared


@dataclass(frozen=True)
class Documented:
    """An object a package's units document: where it is defined and how its unit is named.

    names: what the docs name it by, first the one its unit is titled with; links: in-links
    besides the docs' cross-references to its first name; noindex: out of the package's index
    of objects (its internals); anchor: the id on the page it is linked at, if not its own
    ("": the page alone); python_names: whether the names Python knows it by are its names too
    (not for a mapping's entry, which the site shows by its key alone); inherited: the names it
    has as a member of the public classes that inherit it (inherited_names), after its own.
    """

    module: Module
    obj: DocObject
    names: tuple
    links: int = 0
    noindex: bool = False
    anchor: str | None = None
    python_names: bool = True
    inherited: tuple = ()
    kind: str | None = None  # the kind its autodoc directive describes it as, if not its own


# The autodoc directive that describes an object of each kind (mkdocstrings' injections).
_DIRECTIVE_OF_KIND = {MODULE: "module", CLASS: "class", EXCEPTION: "exception",
                      FUNCTION: "function", METHOD: "method", ATTRIBUTE: "attribute"}

# A numpydoc section header of a docstring (cleaned): its title, then a line of dashes.
_MEMBER_SECTION = re.compile(r"^(Methods|Attributes)[ \t]*\n-{3,}[ \t]*$", re.MULTILINE)
_SECTION_ENTRY = re.compile(r"([A-Za-z_]\w*)")


def _member_sections(docstring: str) -> dict:
    """Return {"Methods"/"Attributes": [names]} of the sections a numpydoc docstring writes
    itself: each entry's name, a line starting at the section's own indentation."""
    found: dict = {}
    for header in _MEMBER_SECTION.finditer(docstring):
        names: list = []
        lines = docstring[header.end():].split("\n")[1:]
        for at, line in enumerate(lines):
            if at + 1 < len(lines) and re.fullmatch(r"-{3,}\s*", lines[at + 1]):
                break  # the next section's title
            entry = _SECTION_ENTRY.match(line)
            if entry:
                names.append(entry.group(1))
        found[header.group(1)] = names
    return found


def _importable(top: str, directory: str, name: str) -> list:
    """Return (path below top, module name) of each module of the top-level package or module
    `name` importable from a directory below top ('/'-separated), [] if none is."""
    if not name.isidentifier():
        return []
    below = posixpath.normpath(posixpath.join(directory, name))
    if os.path.isfile(os.path.join(top, below, "__init__.py")):
        return [(path, dotted) for path in python_files(top, below)
                if (dotted := module_name(posixpath.relpath(path, directory))) is not None]
    module = f"{below}.py"
    return [(module, name)] if os.path.isfile(os.path.join(top, module)) else []


class _Units:
    """Units of one package collection: page paragraphs and docstring units."""

    def __init__(self, layout: PackageLayout, tree: SourceTree, package: PackageSource):
        self.layout = layout
        self.tree = tree
        self.package = package
        self.aliases = aliases(package)
        # An autosummary template's name -> its text (None: none in templates_path), read
        # once; the names of those rendered for a class and of those this reader does not
        # render (autosummary_templates.py), for the build's report.
        self.templates: dict = {}
        self.rendered: set = set()
        self.unrendered: set = set()
        # How many member stubs rendered templates list (of what the source defines).
        self.member_stubs = 0
        # An autosummary template's name -> the kind its stubs describe their objects as
        # (autodoc.template_kind), read once.
        self.template_kinds: dict = {}
        # The names the docs' autosummary tables give stub pages (their page entries).
        self.summarized_names: set = set()
        # The folders below the top that conf.py puts on sys.path, and the top-level names
        # looked for there (_read_beside).
        self.beside: list = []
        self.looked_beside: set = set()
        # The classes whose stub's template text was read (_template_described): once each.
        self.templated: set = set()
        # Without a docs folder, a public class's inherited members are its own (flask.Flask.
        # route), and an assignment bound to a documented function is that function; with one,
        # its `:inherited-members:` and directives say so, and the objects it does not describe
        # are read as they are defined (bs4's `NavigableString.strings`, bound to the private
        # `_all_strings`, took an evidence read from its docs' pages).
        self.docstrings_only = layout.docs is None
        # Computed once: public_objects and inherited_members read it too.
        self.exported = exports(package)
        self.inherited = inherited_members(package, self.aliases, self.exported) \
            if self.docstrings_only else {}
        self.references: Counter = Counter()
        # The object each unit's lines define, by (path, first line, last line): which of the
        # names of one passage is its place (place_preference).
        self.defined: dict[tuple, DocObject] = {}
        # The defining names of the objects its units document so far (objects_contents).
        self.described: set = set()
        # Module -> the line (1-based) of its docstring's first section title, for each module
        # whose docstring a page renders from there on as its own sections (sectioned_docstring).
        self.sectioned: dict[str, int] = {}

    def _source_link(self, path: str, first: int, last: int) -> str:
        return (self.layout.source_url + urllib.parse.quote(path, safe="/")
                + f"#L{first}-L{last}")

    def place_preference(self, draft: UnitDraft) -> tuple:
        """Return how a unit's place ranks among the places of its passage (least first).

        One passage documented under several names (a re-export, an inherited member on each
        subclass's page) is linked at one of them: a page of the site before the release's
        file, then a member under the class nearest the one that defines it (sqlalchemy's
        `ClauseElement.compare`, not `Column.compare`; 2.0's `Result.keys`, defined on its
        base `_WithKeys`, not its subclass `CursorResult`'s), then as name_rank says (pandas'
        `GroupBy.get_group`, defined on their base, not `Resampler.get_group`).
        """
        content = draft.content
        title = content["title"]
        defined = self.defined.get(
            (content["source_id"], content["start_line"], content["end_line"]))
        return (content["url"].startswith(self.layout.source_url),
                self._inheritance_steps(title, defined),
                *name_rank(title, content["source_id"]))

    def _inheritance_steps(self, name: str, defined: DocObject | None) -> int:
        """Return how many steps of inheritance the class a member is named under is from the
        class that defines it (defined): 0 for that class, NOT_INHERITED where it is no member
        or no base of that class defines it."""
        if defined is None or defined.kind not in (METHOD, ATTRIBUTE):
            return NOT_INHERITED
        if name.split(".")[-2:] == defined.name.split(".")[-2:]:
            return 0  # its own class, by whichever module's name
        found = self.package.resolve(name.rpartition(".")[0])
        owner = defined.name.rpartition(".")[0]
        return next((depth for _, base, depth in self.package.base_depths(*found)
                     if base.name == owner), NOT_INHERITED) if found else NOT_INHERITED

    def _cited(self, name: str) -> int:
        """Return the docs' cross-references to a name (or to a tail of it: `.Engine`)."""
        return self.references[name] + sum(self.references["." + name.split(".", cut)[-1]]
                                           for cut in range(1, name.count(".") + 1))

    def objects_contents(self, objects, page: str | None, context: str | None,
                         reference: bool = True) -> list:
        """Return the units of objects (Documented), in order; context None: each object's
        module name; reference: whether the page they are on is a reference page.

        Objects quoting the same lines (the targets of `a = b = c = None` under its `#:`
        comments, documented by `automodule :members:`) are one passage, as merge_same_passages
        makes them: made once, at the first, with every name and the most in-links any has, so
        their lines are cut and indexed once, not once per target (1,000 targets under 1,000
        comment lines took 45 s; 4,000 as many minutes).
        """
        same_lines: dict = {}  # (path, first, last line) -> [first Documented, names, links]
        for item in objects:
            obj = item.obj
            known = [obj.name, *self.aliases.get(obj.name, ())] if item.python_names else []
            self.described.add(obj.name)  # a mapping's entry too: described, by its key
            links = item.links + self._cited(item.names[0])
            if page is not None and item.python_names and obj.name != item.names[0]:
                # autodoc gives a description its `:canonical:` name (where it is defined):
                # Sphinx resolves a reference by that name to it, as docstrings read in their
                # own module write them (`:class:`Template`` in jinja2.environment).
                links += self.references[obj.name]
            found = same_lines.setdefault((item.module.path, obj.start_line, obj.end_line),
                                          [item, [], links])
            found[1].extend([*item.names, *known, *item.inherited])
            found[2] = max(found[2], links)
        contents = []
        for item, names, links in same_lines.values():
            contents.extend(self._object_contents(
                item.module, item.obj, names, page, context or item.module.name, links,
                item.noindex, item.anchor, reference, item.kind))
        return contents

    def _object_contents(self, module, obj, names: list, page: str | None, context: str,
                         in_links: int, noindex: bool, anchor: str | None,
                         reference: bool, kind: str | None = None) -> list:
        """Return one object's units: its quoted lines cut by size, each linked and indexed
        under its names (the first MAX_NAMES of them); noindex: whether it is out of the
        package's index of objects (its internals); anchor: the id on the page it is linked
        at, if not its own ("": the page alone); reference: whether its page is a reference
        page (a description on a guide is ranked as the guide's units are); kind: the kind
        its directive describes it as, where not the kind it is defined as."""
        names = list(dict.fromkeys(names))
        # Each piece is indexed under every name: a crafted `a0 = a1 = ... = 1` under thousands
        # of `#:` lines would otherwise index pieces x targets names. Real objects have a few.
        indexed = names[:MAX_NAMES]
        qualified = " ".join(indexed)
        bare = " ".join(dict.fromkeys(name.rsplit(".", 1)[-1] for name in indexed))
        lines = module.lines
        pieces = size_pieces(lines, range(obj.start_line - 1, obj.end_line))
        # Without a docs folder, the place its published site's objects.inv gives it.
        published = None if page is not None else next(
            (self.layout.published[name] for name in names if name in self.layout.published),
            None)
        if page is not None or published is not None:
            # Described on a page, an object is one unit, as the rendered site's reader makes
            # it: quoting its first piece, indexed by its whole docstring.
            pieces = pieces[:1]
        # The object's own docstring's notes (its lines hold its members' too), on its first
        # piece: the one a page anchors; a deprecation its code states where they say none.
        notes = rst_notes(obj.docstring or "")
        if obj.deprecation is not None and all(note.kind != "deprecated" for note in notes):
            notes += (obj.deprecation,)
        contents = []
        for piece in pieces:
            if len(pieces) == 1 or (obj.assembled and piece is pieces[0]):
                # An assembled docstring is in none of the pieces' lines: the first piece is
                # indexed by it all (pandas' DataFrame.groupby, `@Appender(examples)` above
                # `_shared_docs["groupby"] % kwargs`).
                docstring = obj.docstring or ""
            else:
                docstring = _piece_docstring(lines[piece.start:piece.stop])
            body, code = _split_code(docstring)
            if page is not None:
                # Sphinx's make_id of the name: `_pytest.nodes.Node` is at `pytest.nodes.Node`.
                own = sphinx_id(f"module-{names[0]}" if obj.kind == MODULE else names[0])
                fragment = own if anchor is None else anchor
                url = f"{page}#{urllib.parse.quote(fragment, safe='')}" if fragment else page
            elif published is not None:
                url = published
            else:
                # Every piece links the object's lines: the passages of one source under one
                # url and title are the pieces of one unit (database._PIECES), read whole and
                # hit once.
                url = self._source_link(module.path, obj.start_line, obj.end_line)
            facts = IndexFields.of(
                kind=SECTION if obj.kind == MODULE else kind or obj.kind, in_links=in_links,
                noindex=noindex,
                reference_page=reference, names=qualified, name=bare,
                signature=" ".join(self.package.signature_of(module, obj).split()),
                body=body, code=code,
                context=context)
            parent = names[0].rsplit(".", 1)[0] if "." in names[0] else names[0]
            contents.append(UnitDraft.of(
                self.tree, module.path, module.sha256, url, piece.start + 1, piece.stop,
                "\n".join(lines[piece.start:piece.stop]), names[0], facts, parent,
                notes=notes if piece is pieces[0] else ()))
            self.defined[module.path, piece.start + 1, piece.stop] = obj
        return contents

    def api_reference(self) -> list:
        """Return the units of the public API (public_objects), where each is defined, under
        the name users import it by (public_name) with every other name it has.

        Its in-links, as a rendered site's links would be counted: each public name the package
        exports it by (`exports`: its face links to it; a module-level object only), and each
        Python cross-reference to it in the package's docstrings (`:class:`Response``, looked
        up in the module of the docstring, as Sphinx would). So what the package exports, and
        what its own documentation points to, ranks above its other helpers.

        Where the package exports anything, its index of objects is what it exports (a public
        module, and a module-level object the package exports, with their members); another
        documented object (requests' `sessions.merge_setting`) is read as the package's
        internals, documented but in no index, as Sphinx's `:noindex:` says: noindex, which
        the ranking reads (and weighs below an indexed description of the same words).
        """
        exported = self.exported
        cited = self._docstring_references()
        objects = [self._documented(module, obj, exported[obj.name] + cited[obj.name],
                                    internal)
                   for module, obj, internal in self._public_api(exported)]
        objects += self._inherited_from_dependencies()
        return merge_same_passages(self.objects_contents(objects, None, None),
                                   self.place_preference)

    def description_units(self, progress: Progress) -> list:
        """Return the units of the release's description (its README: the index's page of
        it), each section at its file and lines, read as the index renders its markup:
        a guide's sections, as a docs folder's pages would give."""
        description = self.layout.description
        if description is None:
            return []
        read = read_file(self.tree, description.path, progress)
        if read is None:
            return []
        text, sha256 = read
        # A metadata file's headers read as blank lines: each unit quotes the file's lines.
        lines = text.split("\n")
        text = "\n".join([""] * description.header_lines + lines[description.header_lines:])
        if description.markup == "markdown":
            units = markdown.page_units(text, "github", self.tree.collection)
        elif description.markup == "rst":
            directives = directives_of(SphinxConf())
            # A section of a title alone (tqdm's "Installation" over its subsections) is no
            # evidence, as Markdown's reader gives none.
            units = [unit for unit in page_units(text, predict_page("index", text,
                                                                    directives).page,
                                                 directives, predicted=True)
                     if not unit.title_only]
        else:
            return [UnitDraft.of_paragraph(
                self.tree, description.path, sha256,
                self._source_link(description.path, paragraph.start_line, paragraph.end_line),
                paragraph, False)
                for paragraph in parse_source(description.path, text, "text")]
        return [UnitDraft.of_unit(self.tree, description.path, sha256,
                                  self._source_link(description.path, unit.start_line,
                                                    unit.end_line),
                                  unit, reference_page=False, in_links=0)
                for unit in units]

    def _inherited_from_dependencies(self) -> list:
        """Return a Documented of each documented member a public class inherits from a class
        another distribution defines (an environment's flask.Request, werkzeug's `args`),
        titled by the first name a public class inherits it by, as Sphinx's
        `:inherited-members:` and `inspect` show it; the package's own are in _public_api."""
        found = []
        for name in self.inherited:
            resolved = self.package.resolve(name)
            if resolved is None or resolved[0].name not in self.package.dependencies \
                    or resolved[1].docstring is None:
                continue
            inherited = tuple(inherited_names(name, self.inherited, self.aliases,
                                              self.exported))
            if inherited:
                module, obj = resolved
                found.append(Documented(module, obj, (inherited[0],), inherited=inherited))
        return found

    def _documented(self, module: Module, obj: DocObject, links: int,
                    noindex: bool) -> Documented:
        """Return a docstring unit's object, titled by the name users import it by (public_name;
        a member only a base outside the API defines, by the first name a public class inherits
        it by), known by the names public classes inherit it by too."""
        inherited = tuple(inherited_names(obj.name, self.inherited, self.aliases,
                                          self.exported))
        title = public_name(obj.name, self.aliases)
        if inherited and (is_private(title) or not self._in_api(module, obj)):
            title = inherited[0]
        constructor = merged_constructor(module, obj)
        # A class's unit that quotes its constructor is the constructor's: known by its names.
        names = (title,) if constructor is None else (
            title, public_name(constructor.name, self.aliases), constructor.name,
            *self.aliases.get(constructor.name, ()))
        return Documented(module, obj, names, links, noindex, inherited=inherited)

    def _in_api(self, module: Module, obj: DocObject) -> bool:
        """Tell whether a member's class is part of the API itself: documented or exported
        (geopandas' undocumented, unexported GeoPandasBase is not: users reach its members
        through GeoSeries and GeoDataFrame alone)."""
        owner = module.objects.get(obj.name[len(module.name) + 1:].rpartition(".")[0])
        return owner is None or owner.docstring is not None or owner.name in self.exported

    def _public_api(self, exported: Counter) -> list:
        """Return (Module, DocObject, internal) of each public object (public_objects),
        internal where the package exports anything (exported) and it is not a module, nor a
        module-level object the package exports, nor one's member, nor a member a class of
        one inherits."""
        def is_exported(name: str) -> bool:
            # It is, or is a member of, a module-level object the package exports (the part
            # after the longest module name its name starts with).
            parts = name.split(".")
            cut = self.package.module_cut(parts, len(parts) - 1)
            return ".".join(parts[:cut + 1]) in exported

        found = []
        for module, obj in public_objects(self.package, self.aliases, self.inherited,
                                          bound=self.docstrings_only, exported=exported,
                                          class_docs=self.docstrings_only):
            internal = bool(exported) and obj.kind != MODULE and not is_exported(obj.name) \
                and not any(is_exported(cls) for _, cls in self.inherited.get(obj.name, ()))
            found.append((module, obj, internal))
        return found

    def undescribed(self, contents: list) -> tuple:
        """Return (how many, their units) of the public objects (public_objects) that none of
        a docs folder's units (contents) documents, by any name Python knows it by.

        The docs pages document what their authors chose; the rest of the public API users
        import (numpy's deprecated `sometrue`, which only its docstring describes) is still
        the release's. Each is a unit of its docstring, linked at its file and lines (it has
        no page on the published site), and out of the index of objects (noindex), as the
        package's internals are: so the docs' own description of the same words ranks above
        it. Its in-links are the names the package exports it by and the docs' references.
        """
        described = set(self.described)
        for draft in contents:
            described.update(draft.content["fields"]["names"].split())
        exported = self.exported
        objects = [
            self._documented(module, obj, exported[obj.name], noindex=True)
            for module, obj, _ in self._public_api(exported)
            if obj.name not in described
            and described.isdisjoint(self.aliases.get(obj.name, ()))]
        return len(objects), self.objects_contents(objects, None, None)

    def _docstring_references(self) -> Counter:
        """Count the Python cross-references of the package's docstrings, by the defining name
        of what each resolves to: looked up in the module the docstring is in, else as an
        absolute name, else (requests' `:class:`Response <Response>`` in a module that does not
        import it) the one module-level class or function the package defines by that name."""
        counts: Counter = Counter()
        by_name: dict = {}
        for module in self.package.modules.values():
            for member in module.objects[""].members:
                by_name.setdefault(member, set()).add(module.objects[member].name)
        targets: dict = {}  # docstring -> its references: one docstring may document many
        for module in self.package.modules.values():
            for obj in module.objects.values():
                text = obj.docstring or ""
                if text not in targets:
                    targets[text] = autodoc.reference_targets(text)
                for target in targets[text]:
                    found = (self.package.resolve(f"{module.name}.{target.lstrip('.')}")
                             or self.package.resolve(target.lstrip(".")))
                    name = found[1].name if found is not None else None
                    if name is None and len(by_name.get(target.lstrip("."), ())) == 1:
                        [name] = by_name[target.lstrip(".")]
                    if name is not None and name != obj.name:
                        counts[name] += 1
        return counts

    def docs_pages(self, docs: str, progress: Progress) -> list:
        """Return the units of every page of the docs folder, autodoc directives resolved: as
        Sphinx renders it where it has a conf.py (sphinx_docs.py) or, without one, its root
        document (Sphinx's defaults); an MkDocs site's by its sections; else paragraph by
        paragraph."""
        project = sphinx_project(self.tree.root, docs, self.tree.max_file_bytes)
        site = None if project is not None else markdown.mkdocs_site(
            os.path.join(self.tree.root, *docs.split("/")))
        if project is None and site is None:
            project = default_project(self.tree.root, docs)
            if project is not None:
                progress.note(f"{self.tree.label}: {docs}/ has no conf.py: "
                              f"{project.root}/ read as Sphinx renders it by default")
        units = self._sphinx_pages(project, progress) if project is not None \
            else self._folder_pages(docs, site, progress)
        # An object two directives document is one passage, with both names, linked at the
        # place of the one users import (place_preference).
        return merge_same_passages(units, self.place_preference)

    def _read_pages(self, below: str, progress: Progress, kind) -> list:
        """Return (path below `below`, kind, text, sha256) of each page kind(path) names."""
        pages = []
        for relative, _ in iter_source_files(os.path.join(self.tree.root, below)):
            page_kind = kind(relative)
            if page_kind is None:
                continue
            read = read_file(self.tree, f"{below}/{relative}", progress)
            if read is not None:
                pages.append((relative, page_kind, *read))
        # The docs' own cross-references, for the in-link prior of autodoc's objects (as the
        # rendered pages' links are counted for a site).
        self.references = summed(autodoc.references(text) for _, page_kind, text, _ in pages
                                 if page_kind == "rst")
        return pages

    def _folder_pages(self, docs: str, site: markdown.MkDocsSite | None,
                      progress: Progress) -> list:
        """Return a docs folder's units without a Sphinx project: a Markdown page's sections
        (anchored as MkDocs renders them where site, an mkdocs.yml, names the folder, else as
        GitHub does) and the objects its mkdocstrings `::: name` lines render; without site,
        another file's paragraphs, autodoc resolved."""
        contents = []
        for relative, _, text, sha256 in self._read_pages(docs, progress, source_kind):
            source_id = f"{docs}/{relative}"
            if source_kind(relative) == "markdown":
                contents.extend(self._markdown_page(relative, source_id, text, sha256, site))
            elif site is not None:
                continue  # MkDocs copies any other file as it is: no page (humanize's .txt)
            else:
                contents.extend(self._page(relative, source_id, text, sha256, progress))
        return contents

    def _markdown_page(self, relative: str, source_id: str, text: str, sha256: str,
                       site: markdown.MkDocsSite | None) -> list:
        """Return a Markdown page's section units: at its published page where the folder's
        site is known (an MkDocs site's `page/`), else at their files' lines."""
        docs_url = self.layout.docs_url
        page = (docs_url + urllib.parse.quote(markdown.page_path(relative, site), safe="/")
                if docs_url else None)
        contents = []
        for unit in markdown.page_units(text, site.flavour if site else "github", relative):
            url = (page + ("#" + unit.anchor if unit.anchor else "") if page is not None
                   else self._source_link(source_id, unit.start_line, unit.end_line))
            contents.append(UnitDraft.of_unit(self.tree, source_id, sha256, url, unit,
                                              reference_page=False, in_links=0))
        if site is not None and site.mkdocstrings_options is not None:
            for injection in mkdocstrings.injections(text, site.mkdocstrings_options):
                contents.extend(self.objects_contents(self._injected(injection), page,
                                                      source_id))
        return contents

    def _injected(self, injection: mkdocstrings.Injection) -> list:
        """Return the Documented an mkdocstrings `::: name` renders: the object and, of a
        module or class, the members its options select, as autodoc's :members: does (none
        with a leading `_`, those without a docstring where show_if_no_docstring), each at
        its dotted name under the name written (its heading's id)."""
        found = self.package.resolve(injection.identifier)
        if found is None:
            return []
        kind = _DIRECTIVE_OF_KIND.get(found[1].kind, "data")
        options = injection.options
        given: dict = {}
        if kind in ("module", "class") and options.members != ():
            given["members"] = ", ".join(options.members or ())
            if options.show_if_no_docstring:
                given["undoc-members"] = ""
            if options.inherited_members:
                given["inherited-members"] = ""
        described = autodoc.resolve(
            autodoc.Directive(injection.line, kind, injection.identifier, None, given),
            self.package) or []
        # A module's heading id is its name too (Sphinx's would be `module-NAME`).
        return [Documented(item.module, item.obj, (item.name, *item.aliases), kind=item.kind,
                           anchor=item.name if item.obj.kind == MODULE else None)
                for item in described]

    def _autodoc(self, where: Callable[[int], str], text: str, progress: Progress,
                 conf: SphinxConf | None = None, breaks: frozenset = frozenset()) -> dict:
        """Return {line: [autodoc.Documented]} of a reST page's autodoc directives (a directive
        naming what the source does not define, or with an option autodoc does not take given
        conf.py's extensions, is reported, with none, at where(line)); conf: the project's;
        breaks: where another file's lines start in the page (ExpandedPage.breaks)."""
        conf = conf or SphinxConf()
        settings = _autodoc_settings(conf)
        found: dict = {}
        for directive in autodoc.directives(text, breaks):
            directive = autodoc.with_defaults(directive, conf.autodoc_defaults)
            unknown = autodoc.unknown_options(directive, conf.extensions)
            if unknown:
                progress.directive(self.tree.label, False)
                progress.skip(f"{self.tree.label}/{where(directive.line)}",
                              f"auto{directive.kind} {directive.name or '(no name)'}: "
                              f"autodoc takes no option {', '.join(unknown)}, so Sphinx "
                              "renders nothing of it")
                found[directive.line] = []
                continue
            documented = autodoc.resolve(directive, self.package, settings)
            if documented is None and self._read_beside(directive, progress):
                documented = autodoc.resolve(directive, self.package, settings)
            progress.directive(self.tree.label, documented is not None)
            if documented is None:
                progress.skip(f"{self.tree.label}/{where(directive.line)}",
                              f"auto{directive.kind} {directive.name or '(no name)'}: "
                              "the package source defines no such object")
            found[directive.line] = documented or []
        for directive in autodoc.own_directives(text, breaks):
            documented = autodoc.resolve_own(directive, self.package)
            if documented is not None:  # else a directive of its own about something else
                found.setdefault(directive.line, []).extend(documented)
                if any(item.keyed for item in documented):
                    # The mapping is described too, by its entries (pallets' `jinja:filters`
                    # of `DEFAULT_FILTERS`): no unit of its own among the undescribed.
                    mapping = self.package.resolve(directive.name)
                    if mapping is not None:
                        self.described.add(mapping[1].name)
        return found

    def _read_beside(self, directive: autodoc.Directive, progress: Progress) -> bool:
        """Read into package.dependencies (importable, none of the release's API) the package
        or module of the release a directive's top-level name is, where conf.py puts its
        folder on sys.path (self.beside) and the package is not of the release's API: autodoc
        imports it there (SQLAlchemy's `.. automodule:: examples.adjacency_list`, with
        `sys.path.insert(0, os.path.abspath("../.."))` in doc/build/conf.py). Tell whether
        any was read."""
        own = {name.partition(".")[0] for name in self.package.modules}
        read_any = False
        for written in (directive.name, directive.module or ""):
            name = written.partition(".")[0]
            if not name or name in own or name in self.looked_beside:
                continue
            self.looked_beside.add(name)
            for directory in self.beside:
                files = _importable(self.tree.root, directory, name)
                if files:
                    read = read_package(self.tree.root, files, self.tree.max_file_bytes)
                    self.package.dependencies.update(read.modules)
                    for path, reason in read.skipped:
                        progress.skip(f"{self.tree.label}/{path}", reason)
                    progress.files += len(read.modules)
                    self.package.changed()
                    read_any = True
                    break
        return read_any

    def _place_described(self, found: dict, units: list, source: SourcePage,
                         address: str | None, reference: bool, placed: list,
                         modules: dict) -> None:
        """Append to placed (line, order, draft) of each object a page's autodoc directives
        (found: _autodoc's) describe, each in its section (of units) at the id source (the
        page predicted) gives it; modules: {url: (where in placed a module's description is,
        whether the section is at the module's target)}, filled in."""
        for line, documented in found.items():
            # Linked at its section if `:noindex:`; in its context (the page title and
            # section path) as the rendered site's reader places a description.
            section = _section_at(units, line)
            documented_here = []
            moved = False  # whether the section is at this automodule's target
            for index, item in enumerate(documented):
                obj = item.obj
                if obj.kind == MODULE and not obj.docstring:
                    # autodoc renders no description of a module without a
                    # docstring: its section is its title and what follows.
                    self.described.add(obj.name)
                    continue
                if obj.kind == MODULE and obj.name in self.sectioned:
                    # Its docstring's sections are the page's (read above).
                    self.described.add(obj.name)
                    obj = self._module_intro(item.module, obj)
                    if obj is None:
                        continue
                # A `:noindex:` description has no id (nor have its members'): it is
                # linked at its section, as the rendered site's reader links it. So is
                # a module's: autodoc renders its docstring as the section's own
                # paragraphs after its `.. py:module::` target (a span, where
                # MoveModuleTargets does not put the section at it: kombu's automodule
                # after a `.. contents::`), no description of its own.
                hidden = _NOINDEX & item.directive.options.keys()
                if item.obj.kind == MODULE:
                    moved = section is not None and section.anchor == source.targets.get(
                        (PYTHON_DOMAIN, item.name))
                documented_here.append(Documented(
                    item.module, obj, (item.name, *item.aliases),
                    noindex=bool(hidden),
                    anchor=(section.anchor if section else "")
                    if hidden or item.obj.kind == MODULE
                    else source.autodoc_ids.get((line, index)),
                    python_names=not item.keyed, kind=item.kind))
            for draft in self.objects_contents(documented_here, address,
                                               section.context if section else None,
                                               reference):
                if draft.content["kind"] == SECTION:
                    modules.setdefault(draft.content["url"], (len(placed), moved))
                placed.append((line, len(placed), draft))

    def sectioned_docstring(self, name: str, napoleon: bool = False) -> Docstring | None:
        """Return the lines of a module's docstring that an `.. automodule::` renders as
        sections of its page (from its first section title on), or None where it has none;
        napoleon: whether the project's napoleon reads it first, whose section headers are no
        titles (NAPOLEON_SECTIONS: celery.bin.multi's `Examples` is a rubric)."""
        module = self.package.modules.get(name)
        if module is None:
            return None
        obj = module.objects.get("")
        if obj is None or not obj.docstring:
            return None
        start = obj.start_line - 1
        if _OPENING_QUOTES.fullmatch(module.lines[start].rstrip("\r")):
            # `"""` alone on its line: the docstring's text starts on the next, where a title
            # is the docstring's first line, as after a blank one.
            start += 1
        margin = _docstring_margin(module.lines[obj.start_line:obj.end_line])
        first = first_section_title(module.lines, range(start, obj.end_line),
                                    NAPOLEON_SECTIONS if napoleon else frozenset(), margin)
        if first is None:
            return None
        stop = obj.end_line
        if _CLOSING_QUOTES.fullmatch(module.lines[stop - 1]):
            stop -= 1
        self.sectioned[name] = first + 1
        return Docstring(module.path, module.sha256, module.lines, range(first, stop), margin)

    def _module_intro(self, module: Module, obj: DocObject) -> DocObject | None:
        """Return a module whose docstring's sections its page renders (sectioned), described
        by what precedes them; None where nothing does."""
        end = self.sectioned[obj.name] - 1
        while end >= obj.start_line and not module.lines[end - 1].strip():
            end -= 1
        text = _piece_docstring(module.lines[obj.start_line - 1:end])
        if not text.strip():
            return None
        return dataclasses.replace(obj, end_line=end, docstring=text)

    @staticmethod
    def _rendered_once(found: dict, shown: Callable[..., bool]):
        """Yield the autodoc.Documented of each object a page's autodoc directives (found:
        _autodoc's) render that shown(item) accepts, each object once, at its first such."""
        seen: set = set()
        for documented in found.values():
            for item in documented:
                if item.obj.name not in seen and shown(item):
                    seen.add(item.obj.name)
                    yield item

    def _rendered_docstrings(self, found: dict) -> list:
        """Return (docstring, its module, its class) of each object a page's autodoc
        directives (found: _autodoc's) render on it, each once; a module whose docstring's
        sections are the page's own text (sectioned) is read there already. Its module: the
        one it is documented in (the longest prefix of its documented name that is a module),
        not the one defining it: autodoc writes `:module: flask` for flask.Blueprint's members
        defined in flask/blueprints.py, and Sphinx looks a docstring's `:meth:`Flask.run`` up
        there. Its class: the class it documents or is a member of, dotted as documented
        (autodoc renders a member in its class's directive's body, where Sphinx looks a name
        up under the class too)."""
        rendered = []
        for item in self._rendered_once(found, lambda item: bool(item.obj.docstring) and not (
                item.obj.kind == MODULE and item.obj.name in self.sectioned)):
            obj = item.obj
            within = item.name if obj.kind in (CLASS, EXCEPTION) else (
                item.name.rpartition(".")[0] if obj.kind in (METHOD, ATTRIBUTE) else None)
            parts = item.name.split(".")
            cut = self.package.module_cut(parts)
            module = ".".join(parts[:cut]) if cut else item.module.name
            rendered.append((obj.docstring, module, within or None))
        return rendered

    @staticmethod
    def _docstring_cites(docstring: str, module: str, within: str | None,
                         conf: SphinxConf) -> Counter:
        """Count what a docstring autodoc renders cross-references, as the project's conf.py
        has it rendered (its default role; numpydoc's See Also)."""
        return autodoc.references(docstring, module, within, conf.object_default_role,
                                  conf.see_also)

    def _rendered_annotations(self, found: dict, conf: SphinxConf) -> Counter:
        """Count the names the annotations of the objects a page's autodoc directives render
        hold (found: _autodoc's), each object once: autodoc links each to what it names (in
        the signature, or its description's types), looked up as written and in the object's
        module, as autodoc.references counts a reference; one the package defines, by the
        name it is defined at: autodoc evaluates an annotation to the object it names
        (`"Parameter"` in click/exceptions.py, imported there for type checking only, is
        click.core.Parameter, documented as click.Parameter), as a description's canonical
        name is linked. Shown in the description only (conf.py's autodoc_typehints), those
        its autodoc_typehints_description_target has autodoc show."""
        counts: Counter = Counter()
        documented = conf.typehints == "description" and conf.typehints_target != "all"
        for item in self._rendered_once(found, lambda item: True):
            for name in autodoc.annotation_names(
                    self.package.signature_of(item.module, item.obj),
                    (item.obj.docstring or "") if documented else None,
                    conf.typehints_target == "documented_params"):
                resolved = self.package.resolve(f"{item.module.name}.{name}")
                if resolved is not None and resolved[1].kind != MODULE:
                    counts[resolved[1].name] += 1
                else:
                    counts.update({name, f"{item.module.name}.{name}"})
        return counts

    def _rendered_bases(self, found: dict) -> Counter:
        """Count the bases the classes of a page's autodoc directives (found: _autodoc's) show
        with `:show-inheritance:` (a class :members: takes too, the option being its
        directive's), each class once: autodoc writes "Bases: X", a link to each base the class
        names, by the name it is defined at (which autodoc's `:canonical:` resolves)."""
        counts: Counter = Counter()
        for item in self._rendered_once(found, lambda item: item.obj.kind in (CLASS, EXCEPTION)
                                        and "show-inheritance" in item.directive.options):
            counts.update(base.name for _, base, depth
                          in self.package.base_depths(item.module, item.obj) if depth == 1)
        return counts

    def _numpydoc_members(self, found: dict, conf: SphinxConf) -> Counter:
        """Count the members numpydoc lists in the Methods and Attributes tables it adds to
        each class's docstring the page renders (found: _autodoc's), each class once, where
        conf.py has it list them (class_members): an autosummary table, each entry a link,
        of those with a docstring (numpydoc's ClassDoc). Its methods: public, or __call__;
        its attributes: public properties. A docstring with a Methods or Attributes section of
        its own lists that section's names instead. A member without a docstring of its own
        shows its bases' (pydoc.getdoc)."""
        counts: Counter = Counter()
        if not conf.class_members:
            return counts
        for item in self._rendered_once(found, lambda item: item.obj.kind in (CLASS, EXCEPTION)
                                        and (item.kind or CLASS) in (CLASS, EXCEPTION)):
            members = class_members(self.package, item.module, item.obj)
            written = _member_sections(item.obj.docstring or "")
            for field, shown in (("Methods", lambda name, obj: obj.kind == METHOD and (
                    not name.startswith("_") or name == "__call__")), (
                    "Attributes", lambda name, obj: obj.kind == ATTRIBUTE and bool(obj.signature)
                    and not name.startswith("_"))):
                names = written.get(field)
                if names is None:
                    names = [name for name, (obj, own) in members.items() if shown(name, obj)
                             and (own or conf.class_members == "all")]
                counts.update(f"{item.name}.{name}" for name in names if name in members
                              and members[name][0].kind in (METHOD, ATTRIBUTE)
                              and inheriting(self.package, item.module, members[name][0],
                                             (item.module, item.obj)).docstring)
        return counts

    def _summarized(self, project: SphinxProject, relative: str, entries: list,
                    progress: Progress) -> list:
        """Return (line, stub page address or None, autodoc.Documented) of each object a page's
        autosummary tables give a stub page of its own (entries: autodoc.Summarized of its
        tables with a `:toctree:`): Sphinx generates
        `TOCTREE/NAME.html` documenting it at the id NAME (pandas'
        `reference/api/pandas.DataFrame.merge.html#pandas.DataFrame.merge`); a class's, the
        stubs of the members its template's tables list too (_template_members)."""
        conf, found = project.conf, []
        directory = posixpath.dirname(conf.docname(relative))
        for entry in entries:
            documented = autodoc.resolve_name(entry.name, self.package)
            if documented is None:
                continue  # what the source does not define (or autosummary imports elsewhere)
            described = self._stub_described(project, entry.template, documented[0], progress)
            # (toctree, the Documented, the object whose stub page describes it)
            stubs = [(entry.toctree, described, described.name)]
            if (documented[0].kind or documented[0].obj.kind) == MODULE:
                stubs.extend((entry.toctree, item, described.name)
                             for item in self._module_described(project, entry,
                                                                documented[0], progress))
            if (documented[0].kind or documented[0].obj.kind) in (CLASS, EXCEPTION):
                # What the template's autodoc directives describe besides the class itself,
                # on the class's stub; the template rendered once for both.
                rendered = self._rendered_template(project, entry, documented[0], progress)
                stubs.extend((entry.toctree, item, described.name)
                             for item in self._template_described(project, entry,
                                                                  documented[0], rendered))
                for toctree, name in _template_members(rendered):
                    if name in self.summarized_names:
                        # Listed on a page too: autosummary writes that stub from the page's
                        # entry (with its template), before the stubs its stubs list.
                        continue
                    member = autodoc.resolve_name(name, self.package)
                    if member is not None:
                        self.member_stubs += 1
                        item = self._stub_described(project, None, member[0], progress)
                        stubs.append((posixpath.join(entry.toctree, toctree), item, item.name))
            for toctree, item, page_name in stubs:
                # conf.py's autosummary_filename_map names a stub's file otherwise.
                stub = docname_path(posixpath.normpath(posixpath.join(
                    directory, toctree, conf.stub_names.get(page_name, page_name))),
                    self.layout.dirhtml)
                address = (self.layout.docs_url + urllib.parse.quote(stub, safe="/")
                           if self.layout.docs_url else None)
                found.append((entry.line, address, item))
        return found

    def _stub_described(self, project: SphinxProject, template: str | None, documented,
                        progress: Progress):
        """Return the autodoc.Documented a stub describes, written with template (a page
        entry's `:template:`, None: autosummary's own): described as the one autodoc directive
        the template writes describes it (autodoc.template_kind: pandas' accessor_method.rst,
        a method), else as it is defined; without a docstring of its own, with the one autodoc
        shows, quoting its own lines still (another name bound to the same object is another
        stub, where the site has another page): of the class a class attribute is read on its
        class (PackageSource.accessed: pandas' `Series.str`, StringMethods; its bases' where it
        has none, as for any class); of the function
        a class attribute is bound to (PackageSource.shown: `density = kde`; a function bound
        in a class body is a method there); else the one its bases give (inheriting)."""
        kind = None
        if template is not None:
            if template not in self.template_kinds:
                text = self._template_text(project, template, progress)
                self.template_kinds[template] = None if text is None else \
                    autodoc.template_kind(text, project.conf.autodocumenters)
            kind = self.template_kinds[template]
        module, obj = documented.module, documented.obj
        if obj.docstring is None:
            accessed = self.package.accessed(module, obj)
            shown = self.package.shown(module, obj)[1]
            if accessed is not None:
                shown_class = inheriting(self.package, accessed[0], accessed[1], None) \
                    if project.conf.inherit_docstrings else accessed[1]
                obj = dataclasses.replace(obj, docstring=shown_class.docstring)
            elif shown is not obj:
                obj = dataclasses.replace(obj, docstring=shown.docstring, kind=METHOD if (
                    obj.kind == ATTRIBUTE and obj.bound is not None) else obj.kind)
            elif project.conf.inherit_docstrings and "." in documented.name:
                owner = self.package.resolve(documented.name.rpartition(".")[0])
                obj = inheriting(self.package, module, obj, owner)
        # Else the kind it was resolved as (an instance of a class the package defines is
        # data, shown by its class: autodoc.resolve_name).
        return dataclasses.replace(documented, obj=obj, kind=kind or documented.kind)

    def _automodapi(self, conf: SphinxConf, relative: str, name: str,
                    options: dict) -> list | None:
        """Return the lines sphinx-automodapi writes for a `.. automodapi:: name` of a page
        (relative: below the docs' root), its stubs in conf's automodapi_toctreedirnm; None
        where the source has no such module (the directive is read as written)."""
        found = automodapi.listing(self.package, name, sort="sort" in options)
        if found is None:
            return None
        toctree = posixpath.relpath(conf.automodapi_toctree,
                                    posixpath.dirname(relative) or ".")
        return automodapi.written(name, options, found, toctree, conf.automodapi_diagram)

    def _template_text(self, project: SphinxProject, name: str,
                       progress: Progress) -> str | None:
        """Return the text of an autosummary template the project has, looked up in conf.py's
        templates_path as autosummary looks it up first, else sphinx-automodapi's own of that
        name (its stubs'), or None (autosummary's own then); each read once."""
        if name not in self.templates:
            self.templates[name] = automodapi.TEMPLATES.get(name)
            for folder in project.conf.templates_path:
                path = posixpath.normpath(posixpath.join(project.root, folder, name))
                if not path.startswith("../") \
                        and os.path.isfile(os.path.join(self.tree.root, path)):
                    read = read_file(self.tree, path, progress)
                    self.templates[name] = None if read is None else read[0]
                    break
        return self.templates[name]

    def _rendered_template(self, project: SphinxProject, entry, documented,
                           progress: Progress) -> str | None:
        """Return the text of a class's stub as its autosummary template (the entry's
        `:template:`, else `autosummary/class.rst`, `autosummary/exception.rst` for an
        exception, as autosummary names it by the documenter's objtype, looked up in conf.py's
        templates_path) renders it from the source, or None: autosummary's own template, or
        one this reader does not render (counted: self.unrendered)."""
        name = entry.template or _default_template(documented)
        template = self._template_text(project, name, progress)
        if template is None:
            return None
        # automodsumm renders its stubs itself, with names of its own.
        context = automodsumm_context(
            self.package, documented.module, documented.obj, entry.name,
            project.conf.automodsumm_inherited if entry.inherited is None else entry.inherited
        ) if name in automodapi.TEMPLATES else \
            class_context(self.package, documented.module, documented.obj, entry.name)
        try:
            rendered = render(template, context)
        except Unrendered:
            self.unrendered.add(name)
            return None
        self.rendered.add(name)
        return rendered

    def _module_described(self, project: SphinxProject, entry, documented,
                          progress: Progress) -> list:
        """Return the autodoc.Documented a module's stub describes besides the module, written
        with autosummary's own module.rst: its `.. automodule::`, with conf.py's
        autodoc_default_options (pydicom's `'members': None`: the functions of
        pixel_data_handlers.util on its stub); none for a template of the project's own.
        Each entry of its tables (the public functions, classes, exceptions and documented
        data the module defines) links to its object."""
        conf = project.conf
        if self._template_text(project, entry.template or "autosummary/module.rst",
                               progress) is not None:
            return []
        if entry.name not in self.templated:  # two tables listing it write one stub
            self.templated.add(entry.name)
            module = documented.module
            self.references.update(
                f"{entry.name}.{name}" for name in documented.obj.members
                if not name.startswith("_") for obj in [module.objects[name]]
                if obj.kind in (FUNCTION, CLASS, EXCEPTION)
                or obj.kind == DATA and obj.docstring is not None)
        directive = autodoc.with_defaults(
            autodoc.Directive(0, "module", entry.name, None, {}), conf.autodoc_defaults)
        return (autodoc.resolve(directive, self.package, _autodoc_settings(conf)) or [])[1:]

    def _template_described(self, project: SphinxProject, entry, documented,
                            rendered: str | None) -> list:
        """Return the autodoc.Documented a class's stub describes besides the class: what the
        autodoc directives its template (rendered: _rendered_template's) writes document, with
        conf.py's autodoc_default_options (pydicom's `'members': None` gives each class stub
        its members), as on any page; autosummary's own class.rst writes `.. autoclass::` and,
        in its content, `.. automethod:: __init__` and tables of its public methods and
        attributes. Each entry of the template's tables links to its member."""
        conf = project.conf
        settings = _autodoc_settings(conf)
        text = rendered
        if text is None:
            # autosummary's own: exception.rst writes `.. autoexception::` alone.
            context = class_context(self.package, documented.module, documented.obj,
                                    entry.name)
            text = f".. currentmodule:: {context['module']}\n\n" + (
                f".. autoexception:: {context['objname']}\n"
                if _default_template(documented) == "autosummary/exception.rst" else
                f".. autoclass:: {context['objname']}\n\n   .. automethod:: __init__\n\n"
                + "".join("   .. autosummary::\n\n" + "".join(
                    f"      ~{context['name']}.{name}\n" for name in context[names]) + "\n"
                    for names in ("methods", "attributes") if context[names]))
        if entry.name not in self.templated:  # two tables listing it write one stub
            self.templated.add(entry.name)
            self.references.update(found.name for found in autodoc.autosummary_entries(
                text, toctree_only=False))
        found: list = []
        for directive in autodoc.directives(text):
            directive = autodoc.with_defaults(directive, conf.autodoc_defaults)
            if autodoc.unknown_options(directive, conf.extensions):
                continue  # Sphinx renders nothing of it
            found.extend(item for item in autodoc.resolve(directive, self.package, settings)
                         or [] if item.name != documented.name)
        return found

    def _sphinx_pages(self, project: SphinxProject, progress: Progress) -> list:
        """Return a Sphinx project's units: one per section and object description of each
        page, at the ids Sphinx gives them (sphinx_source.py), autodoc's objects in place."""
        conf, layout = project.conf, self.layout
        # Sphinx runs conf.py in its folder; a folder outside the release is none of it.
        self.beside = [directory for directory in (
            posixpath.normpath(posixpath.join(project.root, path)) for path in conf.sys_path)
            if directory != ".." and not directory.startswith(("../", "/"))]
        # Sphinx-Gallery's example pages, written from its scripts (a page of the same path in
        # the folder is the one it overwrites), each with its lines' origins.
        written = gallery_pages(self.tree, project, progress)
        gallery = written.pages
        # sphinx-apidoc's pages, written on each build over any of their paths.
        apidoc_written = apidoc_pages(self.tree, project, progress)
        pages = [page for page in self._read_pages(project.root, progress, conf.page_kind)
                 if page[0] not in gallery and page[0] not in apidoc_written]
        pages += [(relative, RST, page.text, "") for relative, page in gallery.items()]
        pages += [(relative, RST, text, "") for relative, text in apidoc_written.items()]
        # The notebooks nbsphinx or MyST-NB publishes, as Markdown with their lines' origins.
        notebooks = notebook_pages(self.tree, project, progress)
        pages += [(relative, MARKDOWN, page.text, "") for relative, page in notebooks.items()]
        directives = directives_of(conf)
        # Each reST page as Sphinx reads it: its includes' lines in place (sphinx_include.py).
        # A page may include the copy of a script Sphinx-Gallery writes beside its page.
        copies = written.copies
        expanded = {relative: gallery[relative] if relative in gallery else expand(
            self.tree, project.root, relative, text, sha256, progress,
            functools.partial(self.sectioned_docstring, napoleon=_NAPOLEON in conf.extensions),
            conf.page_context, copies=copies,
            automodapi_lines=functools.partial(self._automodapi, conf, relative))
                    for relative, kind, text, sha256 in pages if kind == RST}
        # Each Markdown page MyST reads, its `{include}`s in place likewise.
        myst = {relative: expand(self.tree, project.root, relative, text, sha256, progress,
                                 myst=True, copies=copies)
                for relative, kind, text, sha256 in pages if kind != RST
                and relative not in notebooks
                and any(name.startswith("myst") for name in conf.extensions)}
        self.references = summed(autodoc.references(page.text,
                                                    default_role=conf.object_default_role)
                                 for page in expanded.values())
        # MyST's roles (`{func}`attrs.define``) are reST's: references of their pages too.
        self.references.update(summed(autodoc.references(markdown.myst_roles(page.text))
                                      for page in myst.values()))
        # Each page's autodoc directives resolved, in page order (skips reported as read).
        autodocs = {relative: self._autodoc(page.where, page.text, progress, conf,
                                            frozenset(page.breaks()))
                    for relative, page in expanded.items()}
        # Each page's autosummary entries, read once; those of a `:toctree:` table are stubs.
        entries = {relative: autodoc.autosummary_entries(page.text, toctree_only=False)
                   for relative, page in expanded.items()}
        # conf.py's autosummary_generate names the pages whose tables get stubs (False: none).
        stubs_of = {relative: [entry for entry in found if entry.stub
                               and conf.writes_stubs(relative)]
                    for relative, found in entries.items()}
        self.summarized_names = {entry.name for found in stubs_of.values() for entry in found}
        predicted = {}
        summarized: dict = {}  # page -> its autosummary stubs (_summarized)
        stub_pages: set = set()  # the addresses of the stubs read so far
        for relative, kind, _, _ in pages:
            if kind == RST:
                page = page_path(conf, relative, layout.dirhtml)
                predicted[page] = predict_page(conf.docname(relative), expanded[relative].text,
                                               directives, expanded[relative].nested, conf,
                                               _described_names(autodocs[relative]),
                                               expanded[relative].dedent)
                # The docstrings autodoc renders on the page link from it too, each read under
                # its object's module, as a rendered site's links are counted.
                for docstring, module, within in self._rendered_docstrings(
                        autodocs[relative]):
                    self.references.update(self._docstring_cites(docstring, module, within,
                                                                 conf))
                    predicted[page].references.extend(
                        cross_references(docstring, module, within))
                # Each autosummary entry is a link to its object.
                self.references.update(entry.name for entry in entries[relative])
                if conf.typehints != "none":
                    self.references.update(self._rendered_annotations(autodocs[relative], conf))
                self.references.update(self._rendered_bases(autodocs[relative]))
                self.references.update(self._numpydoc_members(autodocs[relative], conf))
                # Each stub page autosummary writes renders its object's docstring: its
                # references link from there, as an autodoc directive's do from its page.
                summarized[relative] = self._summarized(
                    project, relative, stubs_of[relative], progress)
                for line, address, item in summarized[relative]:
                    for docstring, module, within in self._rendered_docstrings({line: [item]}):
                        self.references.update(self._docstring_cites(docstring, module,
                                                                     within, conf))
                    # Two tables listing one class write one stub page: its tables link once.
                    if address is None or address not in stub_pages:
                        self.references.update(self._numpydoc_members({line: [item]}, conf))
                    stub_pages.add(address)
        if conf.module_prefixes:  # `_sql.Select.join` is `sqlalchemy.sql.expression.Select.join`
            expanded_names: Counter = Counter()
            for target, count in self.references.items():
                expanded_names[conf.full_name(target)] += count
            self.references = expanded_names
        links = in_links(predicted, conf)
        contents: list[UnitDraft] = []
        included: set = set()  # id() of the drafts quoting a file the page includes
        for relative, kind, text, sha256 in pages:
            source_id = f"{project.root}/{relative}"
            page = page_path(conf, relative, layout.dirhtml)
            address = (layout.docs_url + urllib.parse.quote(page, safe="/")
                       if layout.docs_url else None)
            placed: list[tuple] = []  # (line, order, draft)
            # url -> (where in placed a module's description is, whether the section is at
            # the module's target)
            modules: dict = {}
            # Where each line of what is read comes from: the page, or a file it includes.
            origins = [Origin(source_id, sha256, line) for line in
                       range(1, text.count("\n") + 2)]
            context_lines: frozenset = frozenset()  # lines a `{{ name }}` is rendered into
            generated = False  # whether the site's reader reads the page's HTML
            if kind == RST:
                generated = generates_text(text)
                read = expanded[relative]
                text, origins = read.text, read.origins
                context_lines, page_lines = read.context, text.split("\n")
                units = page_units(text, predicted[page].page, directives, read.breaks(),
                                   read.code, predicted=True, dedent=read.dedent)
                found = autodocs[relative]
                reference = _is_reference_page(found, predicted[page].page, text,
                                               frozenset(read.breaks()))
                self._place_described(found, units, predicted[page], address, reference,
                                      placed, modules)
                for line, stub, item in summarized[relative]:
                    for draft in self.objects_contents(
                            [Documented(item.module, item.obj, (item.name,), kind=item.kind)],
                            stub, source_id):
                        placed.append((line, len(placed), draft))
            else:
                breaks = ()
                flavour = "sphinx+smartquotes" if conf.myst_smartquotes else "sphinx"
                if relative in notebooks:
                    # A notebook's Markdown, each line at the file's line it is written on:
                    # a unit quotes the span of the file its cells are on, as a rendered
                    # page's unit quotes the span of its HTML (no breaks).
                    text, origins = notebooks[relative].text, notebooks[relative].origins
                    if conf.notebook_ids == "nbsphinx":
                        # Its ids are made of the heading Sphinx has educated (smartquotes);
                        # MyST-NB's are docutils', as a MyST page's.
                        flavour = "nbsphinx+smartquotes" if conf.smartquotes else "nbsphinx"
                elif relative in myst:
                    # MyST renders an `{include}` directive's file in the page, as docutils
                    # does reST's: read expanded, each line from the file it is in.
                    read = myst[relative]
                    text, origins, breaks = read.text, read.origins, read.breaks()
                units = markdown.page_units(text, flavour, conf.docname(relative), breaks)
                reference, found = False, {}
                rest = markdown.myst_rest(text) if relative in myst else None
                if rest is not None:
                    # MyST's eval-rst blocks and fenced autodoc directives are reST parsed
                    # in the page: their objects are described in its sections, at the ids
                    # they would have on a reST page (structlog's thread-local.md).
                    found = self._autodoc(myst[relative].where, rest, progress, conf)
                    described = predict_page(conf.docname(relative), rest, directives,
                                             conf=conf, autodoc=_described_names(found))
                    reference = _is_reference_page(found, described.page, rest)
                    self._place_described(found, units, described, address, reference, placed,
                                          modules)
            for unit in units:
                unit = self._with_package_names(unit)
                # Quoted from the file its lines are in (page_units ends a unit's quoted lines
                # where that file's run does), published on this page.
                if context_lines and _rendered_only(context_lines, page_lines, unit):
                    continue  # Sphinx renders nothing of it: no unit, as on the site
                first, last = origins[unit.start_line - 1], origins[unit.end_line - 1]
                url = (address + ("#" + unit.anchor if unit.anchor else "") if address
                       else self._source_link(first.source_id, first.line, last.line))
                linked = sum(links[page, anchor] for anchor in unit.anchors)
                module, at_target = modules.get(url, (None, False)) if unit.kind == SECTION \
                    else (None, False)
                if module is not None and (unit.title_only
                                           or at_target and _title_only(unit.text)):
                    # A section whose first thing is an automodule is at the module's id
                    # (sphinx_source: MoveModuleTargets), the module's description its text:
                    # one unit, as the rendered page's section, titled and linked as it is;
                    # what renders nothing between (a `currentmodule`) is no text of it. So is
                    # one rendering nothing else whose module's target is a span inside
                    # (sqlalchemy's `.. _aiomysql:` over "aiomysql", docutils' duplicate name
                    # report first in it).
                    at, order, described = placed[module]
                    described.content["title"] = unit.title
                    described.content["in_links"] += linked
                    placed[module] = (at, order, dataclasses.replace(described,
                                                                      heading=unit.heading))
                    continue
                if relative in apidoc_written:
                    continue  # its lines are no file of the release: its objects are its units
                if generated and unit.title_only:
                    # On a page autodoc or autosummary fills, a section rendering nothing but
                    # its title is no unit: its objects (indexed in its context), tables and
                    # subsections say it all, as the rendered site's reader reads that
                    # rendered page (formats/sphinx.py reads such a page's HTML).
                    continue
                draft = UnitDraft.of_unit(
                    self.tree, first.source_id, first.sha256, url, unit, reference, linked,
                    lines=(first.line, last.line))
                placed.append((unit.start_line, len(placed), draft))
                if first.source_id != source_id:
                    included.add(id(draft))
            contents.extend(draft for _, _, draft in sorted(placed, key=lambda p: p[:2]))
        # A file included that is a page too (Sphinx publishes both): the same lines are one
        # passage, at its own page.
        own = {passage_key(draft.content) for draft in contents if id(draft) not in included}
        return [draft for draft in contents
                if id(draft) not in included or passage_key(draft.content) not in own]

    def _with_package_names(self, unit):
        """Return a page's own description of a Python object the package defines (Django's
        `.. method:: filter` under `.. class:: QuerySet` in `django.db.models.query`) known
        by the names Python binds it to as well (`django.db.models.QuerySet.filter`, as
        `from .query import QuerySet` in django/db/models/__init__.py binds it), as an autodoc
        description is; any other unit as it is."""
        names = unit.names.split()
        if unit.kind not in _PYTHON_KINDS or not names or "." not in names[0]:
            return unit
        resolved = self.package.resolve(names[0])
        if resolved is None or resolved[1].kind == MODULE:
            return unit
        more = [name for name in (resolved[1].name, *self.aliases.get(resolved[1].name, ()))
                if name not in names]
        return dataclasses.replace(unit, names=" ".join([*names, *more])) if more else unit

    def _page(self, relative, source_id, text, sha256, progress) -> list:
        docs_url = self.layout.docs_url
        page = page_url(docs_url, relative) if docs_url else None
        kind = source_kind(relative)
        found = (self._autodoc(lambda line: f"{source_id}:{line}", text, progress)
                 if kind == "rst" else {})
        contents = []
        for paragraph in parse_source(relative, text):
            if paragraph.start_line in found:
                contents.extend(self.objects_contents(
                    [Documented(item.module, item.obj, (item.name, *item.aliases),
                                python_names=not item.keyed)
                     for item in found.pop(paragraph.start_line)], page, source_id))
                continue
            if page is not None:
                url = page + ("#" + paragraph.anchor if paragraph.anchor else "")
            else:
                url = self._source_link(source_id, paragraph.start_line, paragraph.end_line)
            contents.append(UnitDraft.of_paragraph(
                self.tree, source_id, sha256, url, paragraph, True,
                body=plain_text(paragraph.text) if kind == "rst" else None))
        return contents
