"""A Sphinx page's `.. include::` and `.. literalinclude::`, read as Sphinx renders them.

Sphinx renders an included reST file's text inside the including page: its sections get their ids
on that page (docutils' numbering and duplicate suffixes continuing the page's), its objects are
described there, its labels land there. So a page is read expanded (`expand`): each top-level
`.. include:: FILE` is replaced by the lines of FILE (its own includes expanded in turn), and every
line of the expanded text remembers the file and line it came from (`Origin`), so a unit read from
it is still quoted byte-exact from the file the bytes are in, at the including page's URL.

What Sphinx and docutils do, and what is done here:

- the path is Sphinx's (`env.relfn2path`): `/x` below the Sphinx root, else relative to the
  including *page's* directory (a nested include too); docutils' `<standard>` includes are not
  files of the release and are left as written;
- `:start-line:`/`:end-line:` select lines, then `:start-after:`/`:end-before:` cut at the first
  occurrence of their text; docutils cuts there inside a line, here at whole lines (the rest of
  the marker's line, blank in practice, is left out), so that every line quoted is a whole line;
- docutils ends each inclusion with a blank line and a comment: the expanded text has a blank
  line there, from no file (`Origin` None);
- only an include at the page's top level (column 0) is expanded: one inside a directive's body
  is that directive's business (SQLAlchemy's `changelog_imports`, pytest's `.. only::`), which
  Sphinx may not render;
- bounded: an include may reach outside the Sphinx root but never outside the release's tree
  (and no link out of it: tree.read_tree_file), at most MAX_DEPTH deep, never circular, and the
  expanded page is held to the cap on one file; what is not included is reported by name;
- `:literal:`/`:code:` includes and `.. literalinclude::` show a file as code: their lines stay
  the directive's, and the code (its `:lines:`, `:start-after:`/`:start-at:`,
  `:end-before:`/`:end-at:` honoured) is indexed as code of the unit the directive is in
  (`ExpandedPage.code`); a `:pyobject:` selects the class or function it names first (as
  Sphinx's ModuleAnalyzer finds it: decorators on, `Class.method` too); a `:diff:` is not made,
  and reported.

An `.. automodule::` at the page's top level is read the same way where its module's docstring
holds sections (SQLAlchemy's dialect and extension pages are their modules' docstrings): autodoc
renders the docstring in the page, so its sections are the page's sections, at the ids docutils
gives them there (numbered on with the page's) and its labels are the page's labels. The
docstring's lines from its first section title on follow the directive, each line's origin the
module's file (`Docstring`, given by the caller who reads the package source); what precedes
that title stays the module's own description (the caller's).

A Markdown page that MyST reads (a project with `myst_parser`) includes a file by a fenced
` ```{include} FILE ` directive, its `:option: value` lines YAML (quotes out), the same options
taken the same way: the page is read expanded alike (`expand(..., myst=True)`).

Whether an included file is also a page of its own is the project's `source_suffix` and
`exclude_patterns`, as for any file (sphinx_conf.SphinxConf.page_kind): Sphinx publishes it
then, and so is it read.
"""

import ast
import hashlib
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ..readers import automodapi
from ..readers.rst import DELIMITER, OPTION
from ..tree import Progress, SourceTree, Unreadable, decode_source, not_read, read_tree_file

# How deep includes nest (docutils refuses only circular ones; real projects nest 1 or 2).
MAX_DEPTH = 8

# Matched against a line with its trailing blanks out (a lazy group before [ \t]* would be
# quadratic in a run of blanks inside the line).
_INCLUDE = re.compile(r"\.\.[ \t]+include" + DELIMITER + r"[ \t]*(\S.*)")
_LITERALINCLUDE = re.compile(r"[ \t]*\.\.[ \t]+literalinclude" + DELIMITER + r"[ \t]*(\S.*)")
_LINE_SPEC = re.compile(r"(\d*)(?:(-)(\d*))?")
# A line of a page that is a Jinja expression of one name: `{{ header }}`.
_CONTEXT_NAME = re.compile(r"\{\{-?\s*(\w+)\s*-?\}\}")
_AUTOMODULE = re.compile(r"\.\.[ \t]+(?:py:)?automodule" + DELIMITER + r"[ \t]*([\w.]+)")
# A MyST page's include directive: a fence of backticks or colons (colon_fence) whose info
# string is `{include}` and the path, then its `:option: value` lines, then the closing fence.
_MYST_INCLUDE = re.compile(r"(`{3,}|:{3,})\{include\}[ \t]*(\S.*)")
_MYST_EVAL_RST = re.compile(r"(`{3,}|~{3,})\{eval-rst\}[ \t]*")
_MYST_OPTION = re.compile(r":([\w-]+):(?:[ \t]+(.*))?")


@dataclass(frozen=True)
class Docstring:
    """A module docstring's lines a page renders as its own text: the file's lines and the
    span of them that is read in the page (from the docstring's first section title on)."""

    source_id: str
    sha256: str
    lines: list
    span: range
    margin: int = 0  # the columns autodoc dedents its lines by (prepare_docstring)


@dataclass(frozen=True)
class Origin:
    """Where one line of an expanded page comes from: a file of the tree and its line (1-based)."""

    source_id: str
    sha256: str
    line: int


@dataclass
class ExpandedPage:
    """A page's text with its includes expanded, each line's origin, and literal includes' code."""

    text: str
    origins: list  # per line of text: Origin, or None for the blank line after an inclusion
    code: dict = field(default_factory=dict)  # directive's line index -> the code it shows
    # The line indices of each module docstring an automodule renders: Sphinx parses it apart
    # (nested_parse_with_titles), its titles' adornments levels of their own below the
    # section the directive is in, not the page's.
    nested: tuple = ()
    # The line indices of the text a page's `{{ name }}` lines are rendered into.
    context: frozenset = frozenset()
    # (line indices, columns) of each run of lines parsed dedented by those columns: a
    # module docstring's margin (prepare_docstring), an automodule's content's indentation.
    dedent: tuple = ()

    def breaks(self) -> tuple:
        """Return the line indices where a run of one file's consecutive lines starts."""
        found = []
        previous = None
        for index, origin in enumerate(self.origins):
            # A line rendered into several (a page's `{{ name }}`) goes on with the same run.
            if (origin is None or previous is None or origin.source_id != previous.source_id
                    or origin.line not in (previous.line, previous.line + 1)):
                found.append(index)
            previous = origin
        return tuple(found)

    def where(self, line: int) -> str:
        """Return `file:line` of a line (1-based) of the expanded text, as a skip line names it."""
        origin = self.origins[line - 1] if 0 < line <= len(self.origins) else None
        return f"{origin.source_id}:{origin.line}" if origin else f"line {line}"


def _no_automodapi(module: str, options: dict) -> None:
    return None


def _file_lines(text: str) -> list:
    lines = text.split("\n")
    return lines[:-1] if text.endswith("\n") else lines


def _options(lines: list, head: int) -> tuple:
    """Return ({option: value}, index past the directive) of a directive starting at head."""
    options = {}
    end = head + 1
    while end < len(lines) and lines[end].strip() and lines[end][:1] in " \t":
        option = OPTION.fullmatch(lines[end].rstrip())
        if option:
            options[option.group(1).lower()] = (option.group(2) or "").strip()
        end += 1
    return options, end


def _myst_options(lines: list, head: int, stop: int, fence: str) -> tuple:
    """Return ({option: value}, index past the closing fence) of a MyST fenced directive
    starting at head (its `:option: value` lines first, each value YAML's; the fence closes
    with at least as many of its character, as CommonMark's does)."""
    options = {}
    end = head + 1
    while end < stop and (option := _MYST_OPTION.fullmatch(lines[end].strip())):
        value = (option.group(2) or "").strip()
        if len(value) > 1 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]  # a YAML string in quotes, as MyST reads its options
        options[option.group(1).lower()] = value
        end += 1
    while end < stop:
        end += 1
        if _closes(lines[end - 1], fence):
            break
    return options, end


def _closes(line: str, fence: str) -> bool:
    """Tell whether a line closes a MyST fence: at least as many of its character alone."""
    closing = line.strip()
    return len(closing) >= len(fence) and closing == fence[0] * len(closing)


def _cut(lines: list, window: range, after: str | None, before: str | None) -> range | None:
    """Return the lines of a window left after docutils' `:start-after:` and `:end-before:`
    cuts, at whole lines (the marker's lines left out); None where a marker is not found
    (docutils' error: nothing is included)."""
    first, stop = window.start, window.stop
    text = "\n".join(lines[first:stop])
    begin = 0  # where the included text starts in text
    if after:
        at = text.find(after)
        if at < 0:
            return None
        begin = at + len(after)
        first = window.start + text.count("\n", 0, begin) + 1
    if before:
        at = text.find(before, begin)
        if at < 0:
            return None
        stop = window.start + text.count("\n", 0, at)
    return range(first, max(first, stop))


class _Expander:
    """Expands one page: reads each included file once per inclusion, safely, within bounds."""

    def __init__(self, tree: SourceTree, sphinx_root: str, page_dir: str, progress: Progress,
                 docstrings: Callable[[str], Docstring | None], context: dict,
                 myst: bool = False, copies: dict | None = None,
                 automodapi_lines: Callable[[str, dict], list | None] = _no_automodapi):
        self.tree = tree
        self.automodapi_lines = automodapi_lines
        self.copies = copies or {}  # a file a build writes -> the file of the tree it copies
        self.myst = myst  # a Markdown page, read by MyST: its includes are fenced directives
        self.context = context
        self.docstrings = docstrings
        self.sphinx_root = sphinx_root
        self.page_dir = page_dir
        self.progress = progress
        self.budget = tree.max_file_bytes
        self.lines: list[str] = []
        self.origins: list = []
        self.code: dict = {}
        self.nested: list[range] = []
        self.dedent: list[tuple] = []
        self.rendered: set[int] = set()

    def _skip(self, where: str, what: str, reason: str):
        self.progress.skip(f"{self.tree.label}/{where}", f"{what}: {reason}")

    def _path(self, argument: str) -> str | None:
        """Return the tree path an include's argument names (Sphinx's relfn2path), the file
        it copies where a build writes it (copies), or None where it is outside the tree."""
        if argument.startswith("/"):
            path = posixpath.normpath(posixpath.join(self.sphinx_root, argument.lstrip("/")))
        else:
            path = posixpath.normpath(posixpath.join(self.page_dir, argument))
        return None if path == ".." or path.startswith(("../", "/")) \
            else self.copies.get(path, path)

    def _read(self, where: str, what: str, argument: str) -> tuple | None:
        """Return (path, lines, sha256) of an included file, or None (reported)."""
        if argument.startswith("<") and argument.endswith(">"):
            return None  # docutils' own standard definitions: nothing of the release
        path = self._path(argument)
        if path is None:
            self._skip(where, what, "outside the release's tree (not read)")
            return None
        try:
            data = read_tree_file(self.tree.root, path, self.tree.max_file_bytes)
            text = decode_source(data)
        except FileNotFoundError:
            self._skip(where, what, "no such file in the release")
            return None
        except (OSError, Unreadable) as error:
            self._skip(where, what, not_read(error))
            return None
        except UnicodeDecodeError as error:
            self._skip(where, what, f"not UTF-8 (byte {error.start})")
            return None
        if len(data) > self.budget:
            self._skip(where, what, "the page would be larger than the cap on one file "
                                    "(--max-file-bytes)")
            return None
        self.budget -= len(data)
        return path, _file_lines(text), hashlib.sha256(data).hexdigest()

    def _blank(self):
        """Append the blank line docutils puts after an inclusion: from no file."""
        self.lines.append("")
        self.origins.append(None)

    def _keep(self, source_id: str, sha256: str, lines: list, span: range):
        for index in span:
            self.lines.append(lines[index])
            self.origins.append(Origin(source_id, sha256, index + 1))

    def expand(self, source_id: str, sha256: str, lines: list, span: range, chain: tuple):
        """Append lines[span] of one file, expanding its top-level includes (chain: the files
        being expanded, the page first)."""
        i = span.start
        while i < span.stop:
            line = lines[i].rstrip()
            fenced = _MYST_INCLUDE.fullmatch(line) if self.myst else None
            if fenced is not None:
                options, end = _myst_options(lines, i, span.stop, fenced.group(1))
                self._include(f"{source_id}:{i + 1}", fenced.group(2).strip(), options, chain)
                i = end
                continue
            evaluated = _MYST_EVAL_RST.fullmatch(line) if self.myst else None
            markdown = self._markdown_include(lines, i, span.stop, evaluated.group(1)) \
                if evaluated is not None else None
            if markdown is not None:
                argument, options, end = markdown
                self._include(f"{source_id}:{i + 2}", argument, options, chain)
                i = end
                continue
            include = _INCLUDE.fullmatch(line)
            literal = _LITERALINCLUDE.fullmatch(line)
            directive = include or literal
            automodule = _AUTOMODULE.fullmatch(line)
            rendered = _CONTEXT_NAME.fullmatch(line.strip()) if len(chain) == 1 else None
            written = automodapi.DIRECTIVE.fullmatch(line) if len(chain) == 1 else None
            if written is not None:
                # sphinx-automodapi replaces its directive in the page's own source (an
                # included file's is not): the reST it writes is read in its place, each line
                # at the directive's, but what an automodule in it renders from a module.
                end = i + 1
                while end < span.stop and automodapi.OPTION.fullmatch(lines[end].rstrip()):
                    end += 1
                text = self.automodapi_lines(written.group(1),
                                             automodapi.options_of(lines[i + 1:end]))
                if text is not None:
                    start = len(self.lines)
                    self.expand(source_id, sha256, text, range(len(text)), chain)
                    self.origins[start:] = [
                        Origin(source_id, sha256, i + 1)
                        if origin is not None and origin.source_id == source_id else origin
                        for origin in self.origins[start:]]
                    i = end
                    continue
            if rendered is not None and rendered.group(1) in self.context:
                # The page's own source is rendered as Jinja (conf.py's "source-read"
                # handler), not what it includes: the name's text, each line from the line
                # `{{ name }}` (a unit around it quotes that line, as the file has it).
                for text in self.context[rendered.group(1)].split("\n"):
                    self.rendered.add(len(self.lines))
                    self.lines.append(text)
                    self.origins.append(Origin(source_id, sha256, i + 1))
                i += 1
                continue
            if automodule is not None:
                _, end = _options(lines, i)
                end = min(end, span.stop)
                self._keep(source_id, sha256, lines, range(i, end))
                self._docstring(automodule.group(1))
                i = self._module_content(source_id, sha256, lines, range(end, span.stop), chain)
                continue
            if directive is None:
                self._keep(source_id, sha256, lines, range(i, i + 1))
                i += 1
                continue
            options, end = _options(lines, i)
            end = min(end, span.stop)
            where, argument = f"{source_id}:{i + 1}", directive.group(1)
            if literal is not None or "literal" in options or "code" in options:
                # Shown as code: the directive's lines stay; its code is indexed with them.
                shown = self._code(where, argument, options, literal is not None)
                if shown:
                    self.code[len(self.lines)] = shown
                self._keep(source_id, sha256, lines, range(i, end))
            else:
                self._include(where, argument, options, chain)
            i = end

    @staticmethod
    def _markdown_include(lines: list, head: int, stop: int, fence: str) -> tuple | None:
        """Return (argument, options, index past the closing fence) of a MyST eval-rst block
        holding one `.. include::` of MyST's parser alone (structlog's index.md includes
        ../README.md so): MyST parses the file in the page, as a fenced `{include}`; else
        None."""
        start = head + 1
        while start < stop and not lines[start].strip():
            start += 1
        include = _INCLUDE.fullmatch(lines[start].rstrip()) if start < stop else None
        if include is None:
            return None
        options, end = _options(lines, start)
        while end < stop and not lines[end].strip():
            end += 1
        if not options.get("parser", "").startswith("myst") or end >= stop \
                or not _closes(lines[end], fence):
            return None
        return include.group(1).strip(), options, end + 1

    def _include(self, where: str, argument: str, options: dict, chain: tuple):
        """Append the lines an `.. include::` takes, expanded in turn; or none (reported)."""
        what = f"include {argument}"
        # A MyST page reads its include as MyST does: a `:parser:` of MyST's (structlog's
        # `myst_parser.sphinx_` for ../README.md) is the page's own; any other is not read.
        if "parser" in options and not (self.myst and options["parser"].startswith("myst")):
            self._skip(where, what, "a :parser: other than the page's (not read)")
            return
        if len(chain) > MAX_DEPTH:
            self._skip(where, what, f"includes nested deeper than {MAX_DEPTH} (not read)")
            return
        if self._path(argument) in chain:
            self._skip(where, what, "a circular inclusion (not read again)")
            return
        read = self._read(where, what, argument)
        if read is None:
            return
        path, included, digest = read
        selected = self._select(where, what, included, options)
        if selected is None:
            return
        self.expand(path, digest, included, selected, (*chain, path))
        # docutils ends an inclusion with a blank line and a comment: from no file.
        self._blank()

    def _module_content(self, source_id: str, sha256: str, lines: list, span: range,
                        chain: tuple) -> int:
        """Append an automodule's content (the indented lines from span's start on), parsed
        dedented, and return the index past it. ModuleDocumenter's titles_allowed: autodoc
        parses the docstring and the content as one (nested_parse_with_titles), so a title
        in the content is a section of the page (tornado's "Common protocols" in
        `.. automodule:: tornado.auth`), its styles the docstring's."""
        stop = span.start
        for index in span:
            if lines[index].strip() and lines[index][:1] not in " \t":
                break
            if lines[index].strip():
                stop = index + 1
        if stop == span.start:
            return stop
        start = len(self.lines)
        self.expand(source_id, sha256, lines, range(span.start, stop), chain)
        margin = min(len(line) - len(line.lstrip()) for line in lines[span.start:stop]
                     if line.strip())
        self.dedent.append((range(start, len(self.lines)), margin))
        docstring = self.nested[-1] if self.nested and self.nested[-1].stop + 1 == start \
            else None
        if docstring is not None:
            self.nested[-1] = range(docstring.start, len(self.lines))
        else:
            self.nested.append(range(start, len(self.lines)))
        return stop

    def _docstring(self, module: str):
        """Append the sectioned part of a module's docstring, as autodoc renders it in the
        page: apart from the directive and what follows by blank lines from no file."""
        found = self.docstrings(module)
        if found is None:
            return
        size = sum(len(line.encode("utf-8")) + 1 for line in found.lines[found.span.start:
                                                                            found.span.stop])
        if size > self.budget:
            return  # read as the module's description instead, as without sections
        self.budget -= size
        self._blank()
        start = len(self.lines)
        self._keep(found.source_id, found.sha256, found.lines, found.span)
        self.nested.append(range(start, len(self.lines)))
        if found.margin:
            self.dedent.append((self.nested[-1], found.margin))
        self._blank()

    def _select(self, where: str, what: str, lines: list, options: dict) -> range | None:
        """Return the lines an include takes (`:start-line:` ... `:end-before:`), or None."""
        try:
            first = int(options.get("start-line") or 0)
            last = int(options["end-line"]) if options.get("end-line") else len(lines)
        except ValueError:
            self._skip(where, what, "a :start-line: or :end-line: that is no number")
            return None
        window = range(len(lines))[first:last]
        selected = _cut(lines, window, options.get("start-after"), options.get("end-before"))
        if selected is None:
            self._skip(where, what, "its :start-after: or :end-before: text is not in the file")
        return selected

    def _code(self, where: str, argument: str, options: dict, literalinclude: bool) -> str:
        """Return the code a literal include shows ("" where none is read: reported)."""
        what = f"{'literalinclude' if literalinclude else 'include'} {argument}"
        if literalinclude and "diff" in options:
            self._skip(where, what, "a :diff: is not made (its code is not indexed)")
            return ""
        read = self._read(where, what, argument)
        if read is None:
            return ""
        _, lines, _ = read
        if not literalinclude:
            selected = self._select(where, what, lines, options)
            return "\n".join(lines[selected.start:selected.stop]) if selected else ""
        if options.get("pyobject"):
            # LiteralIncludeReader's first filter: the object's lines, then the others.
            found = _python_object(lines, options["pyobject"].strip())
            if found is None:
                self._skip(where, what, f"no object {options['pyobject'].strip()!r} in the "
                                        "file (its code is not indexed)")
                return ""
            lines = lines[found.start:found.stop]
        return _literal_lines(lines, options)


def _python_object(lines: list, name: str) -> range | None:
    """Return the line indices of a Python file's definition `:pyobject:` names, as Sphinx's
    ModuleAnalyzer.find_tags finds it: a class or function at the top level or in a class
    (`Class.method`), from its first decorator to its last statement, the last of one name
    where several are; None where none is (or the file is no Python)."""
    try:
        tree = ast.parse("\n".join(lines))
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    found: dict = {}
    pending = [("", tree.body)]
    while pending:
        prefix, body = pending.pop()
        for node in body:
            if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([node.lineno, *(item.lineno for item in node.decorator_list)])
                # Later definitions of a name replace earlier ones: their order is the file's.
                found[prefix + node.name] = (first, node.end_lineno or node.lineno)
                if isinstance(node, ast.ClassDef):  # a function's own definitions are none
                    pending.append((f"{prefix}{node.name}.", node.body))
    if name not in found:
        return None
    first, last = found[name]
    return range(first - 1, last)


def _literal_lines(lines: list, options: dict) -> str:
    """Return what Sphinx's LiteralIncludeReader shows of a file, its filters in its order:
    `:start-after:`/`:start-at:` and `:end-before:`/`:end-at:` (the first line holding the
    text), then `:lines:` of what is left; "" where a marker or a line spec does not fit."""
    start = options.get("start-after") or options.get("start-at")
    if start:
        at = next((i for i, line in enumerate(lines) if start in line), None)
        if at is None:
            return ""
        lines = lines[at + (1 if options.get("start-after") else 0):]
    end = options.get("end-before") or options.get("end-at")
    if end:
        at = next((i for i, line in enumerate(lines) if end in line), None)
        if at is None:
            return ""
        lines = lines[:at + (0 if options.get("end-before") else 1)]
    if options.get("lines"):
        chosen = []
        for spec in options["lines"].split(","):
            match = _LINE_SPEC.fullmatch(spec.strip())
            if match is None or not (match.group(1) or match.group(3)):
                return ""
            first = int(match.group(1) or 1)
            last = int(match.group(3) or len(lines)) if match.group(2) else first
            chosen.extend(lines[first - 1:last])
        lines = chosen
    return "\n".join(lines)


def _no_docstrings(module: str) -> None:
    return None


def expand(tree: SourceTree, sphinx_root: str, relative: str, text: str, sha256: str,
           progress: Progress,
           docstrings: Callable[[str], Docstring | None] = _no_docstrings,
           context: dict | None = None, myst: bool = False,
           copies: dict | None = None,
           automodapi_lines: Callable[[str, dict], list | None] = _no_automodapi
           ) -> ExpandedPage:
    """Return a page of a Sphinx project (relative: below sphinx_root) with its includes
    expanded, each line's origin, and the code its literal includes show; docstrings(module)
    gives the part of a module's docstring an `.. automodule::` renders as page text; context:
    the names a line `{{ name }}` of the page is rendered with (SphinxConf.page_context);
    myst: the page is Markdown, its includes MyST's fenced `{include}` directives; copies:
    {path a build writes a file at: the tree's file it copies} (sphinx_docs.GalleryPages.copies);
    automodapi_lines(module, options) gives the lines sphinx-automodapi writes for a `..
    automodapi::` of the page (readers/automodapi.py), None where it writes none."""
    source_id = f"{sphinx_root}/{relative}"
    expander = _Expander(tree, sphinx_root, posixpath.dirname(source_id), progress, docstrings,
                         context or {}, myst, copies, automodapi_lines)
    expander.budget -= len(text.encode("utf-8"))
    lines = text.split("\n")
    expander.expand(source_id, sha256, lines, range(len(lines)), (source_id,))
    return ExpandedPage("\n".join(expander.lines), expander.origins, expander.code,
                        tuple(expander.nested), frozenset(expander.rendered),
                        tuple(expander.dedent))
