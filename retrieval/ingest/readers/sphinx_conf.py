"""A Sphinx project's conf.py, read as text with `ast`: never executed, never imported.

What a build needs of it to publish pages as Sphinx would: which files are pages (`source_suffix`,
`exclude_patterns`, `templates_path` and the HTML asset folders), the root document,
`html_baseurl`, the extensions, and the object types the project adds
(`app.add_crossref_type` / `add_object_type` in conf.py's `setup()` or in a local extension
module it names, as Django's docs/_ext/djangodocs.py adds `setting`). Only literal
values are understood (a string, a list or dict of them, a name bound earlier to one); anything
computed is left at Sphinx's default, as if the line were not there.
"""

import ast
import posixpath
import re
from dataclasses import dataclass, field

from . import apidoc, automodapi, notebooks, sphinx_gallery
from .apidoc import ApidocSettings
from .code_deprecation import base_name

CONF = "conf.py"
RST, MARKDOWN = "rst", "markdown"
# Sphinx's defaults.
_DEFAULT_SUFFIXES = {".rst": RST}
_DEFAULT_ROOT = "index"
_DEFAULT_TYPEHINTS = "signature"
_TYPEHINTS = frozenset({"signature", "description", "both", "none"})
_DEFAULT_TYPEHINTS_TARGET = "all"
_TYPEHINTS_TARGETS = frozenset({"all", "documented", "documented_params"})
# Extensions that register Markdown (.md) as a source suffix of their own.
_MARKDOWN_EXTENSIONS = frozenset({"myst_parser", "myst_nb", "recommonmark"})
# What a source_suffix dict names the Markdown parser by (Sphinx's file types).
_MARKDOWN_TYPES = frozenset({"markdown", "myst", "myst-nb"})
# How a crossref type's directive marks its target: Sphinx's Target makes its id from the
# directive's full name "std:NAME" (":" is no id character: "std-setting-DEBUG").
CROSSREF, OBJECT_TYPE = "crossref", "object"
# Known helpers whose settings a conf.py takes whole (`globals().update(build_config(...))`):
# helper -> (the extensions it enables, the keyword argument that adds more). sphinx_celery's
# (2.0) is the celery family's conf.py (celery, kombu, amqp, vine, billiard).
_CONF_HELPERS = {
    "sphinx_celery.conf.build_config": ((
        "sphinx.ext.autodoc", "sphinx.ext.intersphinx", "sphinx.ext.todo",
        "sphinx.ext.coverage", "sphinx.ext.imgmath", "sphinx.ext.ifconfig",
        "sphinx.ext.viewcode", "sphinx.ext.extlinks", "sphinx_celery.autodocargspec",
        "sphinx_celery.github_issues", "sphinx_celery.signal_crossref",
        "sphinx_celery.setting_crossref", "sphinx_celery.apicheck",
        "sphinx_celery.configcheck"), "extra_extensions"),
}
# The object types known extensions of other packages add (object_types of their setup()).
_EXTENSION_TYPES = {
    "sphinx_celery.setting_crossref": {"setting": (CROSSREF, "setting")},
    "sphinx_celery.signal_crossref": {"signal": (CROSSREF, "signal")},
}


@dataclass(frozen=True)
class SphinxConf:
    """What a build reads of one Sphinx project's configuration."""

    source_suffix: dict = field(default_factory=lambda: dict(_DEFAULT_SUFFIXES))  # -> RST/...
    root_doc: str = _DEFAULT_ROOT
    html_baseurl: str | None = None
    extensions: tuple = ()
    exclude_patterns: tuple = ()  # with the folders Sphinx excludes too (_NOT_SOURCE_PATHS)
    # directive name -> (CROSSREF: a target before what it names, or OBJECT_TYPE: a
    # description; the role that refers to it)
    object_types: dict = field(default_factory=dict)
    # Shorthand module prefixes of Python cross-references (`:meth:`_sql.Select.join``), as the
    # zzzeeksphinx extension (SQLAlchemy's, Alembic's, Mako's) expands them: prefix -> module.
    module_prefixes: dict = field(default_factory=dict)
    # autodoc_typehints: where autodoc shows a signature's annotations (each a link to what
    # it names), "signature" (the default), "description", "both", or "none": nowhere.
    typehints: str = _DEFAULT_TYPEHINTS
    # autodoc_typehints_description_target: which annotations a "description" shows, "all"
    # (the default), "documented" (those of the parameters and return the docstring
    # describes) or "documented_params" (those, and the return's unless it is None).
    typehints_target: str = _DEFAULT_TYPEHINTS_TARGET
    # smartquotes: whether Sphinx educates the text it renders (its SmartQuotes transform).
    smartquotes: bool = True
    # myst_enable_extensions has "smartquotes": MyST's parser curls a Markdown page's quotes,
    # before docutils makes its headings' ids.
    myst_smartquotes: bool = False
    # add_function_parentheses: whether a function's or method's reference shows `()`.
    function_parentheses: bool = True
    # autodoc_inherit_docstrings: whether autodoc shows, for an object without a docstring of
    # its own, the one its bases give the same name (its default, True).
    inherit_docstrings: bool = True
    # autoclass_content: what autodoc shows as a class's description, its docstring ("class",
    # the default), its __init__'s ("init") or both.
    class_content: str = "class"
    # autodoc_default_options: {option: its value, None where conf.py gives None or True (a
    # flag, all members), False as given}, what each autodoc directive takes unless it says
    # otherwise (autodoc.with_defaults reads each as the option's converter does).
    autodoc_defaults: dict = field(default_factory=dict)
    # sphinx.ext.extlinks' roles: ((role, URL pattern, caption pattern or None), ...).
    extlinks: tuple = ()
    # The directives a project adds whose class is Sphinx's CodeBlock's (Django's `console`):
    # their body is code, as a code-block's.
    code_directives: tuple = ()
    # The object types a project adds that set the program the options after them are of, as
    # `.. program::` does (program_directives: Django's `django-admin`).
    program_directives: tuple = ()
    # default_role: whether it is a Python object's role (`"autolink"`, `"py:obj"`), so that
    # interpreted text without a role (`` `name` ``) is a cross-reference to an object.
    object_default_role: bool = False
    # numpydoc or napoleon: a docstring's See Also names render as cross-references.
    see_also: bool = False
    # numpydoc's numpydoc_show_class_members and numpydoc_show_inherited_class_members: which
    # members a class's docstring lists in its Methods and Attributes tables, each a link
    # ("all", "own", "" for none or without numpydoc).
    class_members: str = ""
    # The names each page's source is rendered with as Jinja by a conf.py's "source-read"
    # handler, and their text (page_context): a line `{{ name }}` is that text.
    page_context: dict = field(default_factory=dict)
    # autosummary_filename_map: {object's name: its stub page's file name without suffix}
    # (scipy's "scipy.signal.czt": "czt-function", beside scipy.signal.CZT's stub).
    stub_names: dict = field(default_factory=dict)
    # autosummary_generate: the pages whose `:toctree:` tables autosummary writes stub pages
    # for, None for every page (True, its default since Sphinx 4.0), else their paths below
    # the docs root as conf.py lists them (False: none), each with or without its suffix.
    stub_sources: tuple | None = None
    # templates_path: the folders autosummary looks up its templates in first, below the
    # conf.py's folder ('/'-separated, maybe `../_templates`).
    templates_path: tuple = ()
    # The directories conf.py puts on sys.path, '/'-separated and relative to its own folder
    # (Sphinx runs it there): what autodoc imports beside the package (SQLAlchemy's
    # `sys.path.insert(0, os.path.abspath("../.."))  # examples`).
    sys_path: tuple = ()
    # The special members (`__eq__`) an extension's autodoc-skip-member handler has autodoc
    # document under :members: where they have a docstring of their own, though
    # :special-members: does not name them: ((names, "*" for every one but __init__; whether
    # a base's count too, under :inherited-members:), ...) (_special_members).
    special_members: tuple = ()
    # The autodoc documenters conf.py defines and its setup() registers
    # (`app.add_autodocumenter(AccessorMethodDocumenter)`): `auto` + objtype -> the Python
    # directive its descriptions are ("method": pandas' `autoaccessormethod`).
    autodocumenters: dict = field(default_factory=dict)
    # Sphinx-Gallery's galleries: ((examples folder, gallery folder), ...), each a
    # '/'-separated path below the conf.py's folder (sphinx_gallery_conf's examples_dirs and
    # gallery_dirs, paired in order), and the pattern of the scripts it never publishes.
    galleries: tuple = ()
    gallery_ignore: str = sphinx_gallery.DEFAULT_IGNORE
    # Whether its pages leave out the scripts' `# sphinx_gallery_<option>` comments
    # (sphinx_gallery_conf's remove_config_comments, default False).
    gallery_remove_config_comments: bool = False
    # The heading ids of the notebooks an extension publishes as pages (`.ipynb` below the
    # root): "nbsphinx" (Jupyter's) with nbsphinx, "sphinx" (docutils') with MyST-NB, "" none.
    notebook_ids: str = ""
    # sphinx-automodapi's automodapi_toctreedirnm (its stubs' folder below the docs' root),
    # automodsumm_inherited_members and automodapi_inheritance_diagram.
    automodapi_toctree: str = automodapi.DEFAULT_TOCTREE
    automodsumm_inherited: bool = False
    automodapi_diagram: bool = True
    # sphinxcontrib-apidoc's settings (apidoc.py), where it is enabled with a module dir.
    apidoc: ApidocSettings | None = None

    def full_name(self, target: str) -> str:
        """Return a Python cross-reference's target with its shorthand prefix expanded."""
        head, dot, rest = target.partition(".")
        module = self.module_prefixes.get(head)
        return f"{module}.{rest}" if module is not None and dot else target

    def page_kind(self, relative: str) -> str | None:
        """Return RST or MARKDOWN for a file Sphinx reads as a page, else None."""
        for suffix in sorted(self.source_suffix, key=len, reverse=True):
            if relative.endswith(suffix):
                if self.excluded(relative):
                    return None
                return self.source_suffix[suffix]
        return None

    def writes_stubs(self, relative: str) -> bool:
        """Tell whether autosummary writes the stub pages of a page's `:toctree:` tables: its
        process_generate_options reads the files autosummary_generate names (a name without
        a suffix given the first of source_suffix's), all pages where it is True."""
        if self.stub_sources is None:
            return True
        first = next(iter(self.source_suffix), "")
        return any(relative == (name if name.endswith(tuple(self.source_suffix))
                                else name + first) for name in self.stub_sources)

    def excluded(self, relative: str) -> bool:
        """Tell whether a file below the root is left out of the project (exclude_patterns)."""
        return any(_excluded(relative, pattern) for pattern in self.exclude_patterns)

    def docname(self, relative: str) -> str:
        """Return a page's document name: its path below the root without its suffix."""
        for suffix in sorted(self.source_suffix, key=len, reverse=True):
            if relative.endswith(suffix):
                return relative[: -len(suffix)]
        return posixpath.splitext(relative)[0]


def _excluded(relative: str, pattern: str) -> bool:
    """Tell whether a path matches one of Sphinx's exclude patterns (`**` any depth, `*` one)."""
    regex = re.escape(pattern).replace(r"\*\*", ".*").replace(r"\*", "[^/]*") \
        .replace(r"\?", "[^/]")
    # A pattern naming a directory excludes everything below it.
    return re.fullmatch(regex + "(?:/.*)?", relative) is not None


def _literal(node, known: dict):
    """Return the value of a literal expression (a name bound to one too), else None."""
    if isinstance(node, ast.Name):
        return known.get(node.id)
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def _strings(value) -> tuple:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, (list, tuple)) and all(isinstance(item, str) for item in value):
        return tuple(value)
    return ()


def _myst_extensions(value) -> frozenset:
    """Return the names myst_enable_extensions lists, which MyST takes as a list or a set."""
    if isinstance(value, (set, frozenset)) and all(isinstance(item, str) for item in value):
        return frozenset(value)
    return frozenset(_strings(value))


def _string_map(value) -> dict:
    """Return a dict of strings to strings as it is, else {}."""
    if isinstance(value, dict) and all(isinstance(key, str) and isinstance(item, str)
                                       for key, item in value.items()):
        return dict(value)
    return {}


def _stub_sources(value) -> tuple | None:
    """Return SphinxConf.stub_sources of autosummary_generate's value: a list of files, or
    False (none); None for True and what this reader cannot evaluate."""
    if value is False:
        return ()
    if isinstance(value, (list, tuple)) and all(isinstance(item, str) for item in value):
        return tuple(posixpath.normpath(item) for item in value)
    return None


def _autodoc_defaults(value) -> dict:
    """Return autodoc_default_options' string keys with a value a flag, a string or False has
    (None for None or True; what False means is its option's: autodoc.with_defaults)."""
    if not isinstance(value, dict):
        return {}
    return {key: None if item is None or item is True else item for key, item in value.items()
            if isinstance(key, str) and (item is None or isinstance(item, (bool, str)))}


def _parse(text: str):
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None


def _assignments(tree) -> dict:
    """Return the module-level names bound to literals, in order (later bindings win), with
    `extensions.append/extend(...)` and `+=` applied."""
    known: dict = {}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            value = _literal(node.value, known)
            for target in node.targets:
                if isinstance(target, ast.Name):
                    if value is None:
                        known.pop(target.id, None)
                    else:
                        known[target.id] = value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) \
                and node.value is not None:
            value = _literal(node.value, known)
            if value is not None:
                known[node.target.id] = value
        elif (added := _added(node)) is not None and isinstance(known.get(added[0]), list):
            name, one, what = added
            value = _literal(what, known)
            if one and value is not None:
                known[name] = known[name] + [value]
            elif not one and isinstance(value, (list, tuple)):
                known[name] = known[name] + list(value)
    return known


def _helper_extensions(tree) -> tuple:
    """Return the extensions a known helper's settings enable where conf.py takes them whole
    (`globals().update(conf.build_config(..., extra_extensions=[...]))`, _CONF_HELPERS), or
    () where it does not."""
    imported = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            imported.update({alias.asname or alias.name: f"{node.module}.{alias.name}"
                             for alias in node.names})
        elif isinstance(node, ast.Import):
            imported.update({alias.asname or alias.name.partition(".")[0]:
                             alias.name if alias.asname else alias.name.partition(".")[0]
                             for alias in node.names})
    for node in tree.body:
        call = node.value if isinstance(node, ast.Expr) else None
        if not (isinstance(call, ast.Call) and ast.unparse(call.func) == "globals().update"
                and len(call.args) == 1 and isinstance(call.args[0], ast.Call)):
            continue
        helper = call.args[0]
        head, _, rest = ast.unparse(helper.func).partition(".")
        found = _CONF_HELPERS.get(f"{imported.get(head, head)}.{rest}".rstrip("."))
        if found is not None:
            enabled, more = found
            extra = next((keyword.value for keyword in helper.keywords
                          if keyword.arg == more), None)
            return enabled + _strings(_literal(extra, {}) if extra is not None else None)
    return ()


def _added(node) -> tuple | None:
    """Return (NAME, whether one item, what is added) of a module-level statement that grows a
    list: `NAME.append(item)`, `NAME.extend(items)` or `NAME += items`; else None."""
    if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) \
            and isinstance(node.target, ast.Name):
        return node.target.id, False, node.value
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \
            and isinstance(node.value.func, ast.Attribute) \
            and isinstance(node.value.func.value, ast.Name) and len(node.value.args) == 1 \
            and node.value.func.attr in ("append", "extend"):
        return node.value.func.value.id, node.value.func.attr == "append", node.value.args[0]
    return None


def _argument(call, position: int, keyword: str):
    node = call.args[position] if len(call.args) > position else next(
        (item.value for item in call.keywords if item.arg == keyword), None)
    value = _literal(node, {}) if node is not None else None
    return value if isinstance(value, str) and value else None


def object_types(tree) -> dict:
    """Return the object types a module's `setup(app)` adds: directive -> (kind, role)."""
    found: dict = {}
    if tree is None:
        return found
    for node in tree.body:
        if not (isinstance(node, ast.FunctionDef) and node.name == "setup"):
            continue
        for call in ast.walk(node):
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
                continue
            kind = {"add_crossref_type": CROSSREF, "add_object_type": OBJECT_TYPE}.get(
                call.func.attr)
            if kind is None:
                continue
            name = _argument(call, 0, "directivename")
            if name is not None:
                found[name] = (kind, _argument(call, 1, "rolename") or name)
    return found


def _setup(tree):
    """Return a module's `setup(app)` function as Python binds it (its last definition), or
    None."""
    return next((node for node in reversed(tree.body)
                 if isinstance(node, ast.FunctionDef) and node.name == "setup"), None)


def _method_calls(node, method: str) -> list:
    """Return the calls `X.method(...)` within a node (`app.add_directive(...)` in `setup`), in
    ast.walk's order; none within None."""
    return [call for call in (ast.walk(node) if node is not None else ())
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
            and call.func.attr == method]


def code_directives(tree) -> tuple:
    """Return the directives a module's `setup(app)` adds (`app.add_directive(NAME, CLASS)`)
    whose class is, or derives in the module from, Sphinx's `CodeBlock`."""
    if tree is None:
        return ()
    code = {"CodeBlock"}
    for node in tree.body:  # classes in order: a subclass of a subclass too
        if isinstance(node, ast.ClassDef) and any(base_name(base) in code
                                                  for base in node.bases):
            code.add(node.name)
    found = []
    for call in _method_calls(_setup(tree), "add_directive"):
        if len(call.args) >= 2 and base_name(call.args[1]) in code:
            name = _argument(call, 0, "name")
            if name is not None:
                found.append(name.lower())
    return tuple(found)


def program_directives(tree) -> tuple:
    """Return the object types a module's `setup(app)` adds whose `parse_node` function (of
    the module) sets `env.ref_context['std:program']`, as Sphinx's `.. program::` does: the
    options described after one are its command's (Django's `.. django-admin:: check`)."""
    if tree is None:
        return ()
    setters = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)
               and any(isinstance(target, ast.Subscript)
                       and isinstance(target.value, ast.Attribute)
                       and target.value.attr == "ref_context"
                       and _literal(target.slice, {}) == "std:program"
                       for statement in ast.walk(node) if isinstance(statement, ast.Assign)
                       for target in statement.targets)}
    found = []
    for call in _method_calls(_setup(tree), "add_object_type"):
        parse_node = next((item.value for item in call.keywords if item.arg == "parse_node"),
                          call.args[3] if len(call.args) > 3 else None)
        name = _argument(call, 0, "directivename")
        if name is not None and isinstance(parse_node, ast.Name) and parse_node.id in setters:
            found.append(name)
    return tuple(found)


# Sphinx's documenters: the Python directive a documenter deriving from one describes with
# (its directivetype), unless it sets its own.
_SPHINX_DOCUMENTERS = {"FunctionDocumenter": "function", "DecoratorDocumenter": "function",
                       "ClassDocumenter": "class", "ExceptionDocumenter": "exception",
                       "DataDocumenter": "data", "MethodDocumenter": "method",
                       "AttributeDocumenter": "attribute", "PropertyDocumenter": "property"}


def autodocumenters(tree) -> dict:
    """Return SphinxConf.autodocumenters of a module: each class its `setup(app)` registers
    with `app.add_autodocumenter(Class)`, defined in the module with a string `objtype`, and
    a string `directivetype` of its own or of its nearest base that has one (a class of the
    module, or one of Sphinx's documenters: a MethodDocumenter subclass describes methods)."""
    if tree is None:
        return {}
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}

    def own(node, name: str) -> str | None:
        return next((statement.value.value for statement in node.body
                     if isinstance(statement, ast.Assign) and len(statement.targets) == 1
                     and isinstance(statement.targets[0], ast.Name)
                     and statement.targets[0].id == name
                     and isinstance(statement.value, ast.Constant)
                     and isinstance(statement.value.value, str)), None)

    def directive(name: str, seen: frozenset) -> str | None:
        if name in _SPHINX_DOCUMENTERS:
            return _SPHINX_DOCUMENTERS[name]
        node = classes.get(name)
        if node is None or name in seen:
            return None
        written = own(node, "directivetype")
        if written:
            return written
        # Python's MRO, left first, is enough here: the first base that says.
        return next(filter(None, (directive(base_name(base), seen | {name})
                                  for base in node.bases)), None)

    found: dict = {}
    for call in _method_calls(_setup(tree), "add_autodocumenter"):
        if call.args and isinstance(call.args[0], ast.Name) and call.args[0].id in classes:
            node = classes[call.args[0].id]
            objtype, kind = own(node, "objtype"), directive(node.name, frozenset())
            if objtype and kind:
                found[objtype] = kind
    return found


def page_context(tree) -> dict:
    """Return the names a conf.py renders each page's source with, as Jinja, and their text:
    `{name: text}` of its html_context, where its `setup(app)` connects to "source-read" a
    function of its own that renders the source with `render_string(..., ...html_context)`
    (the "jinja in reST" recipe: pandas' `{{ header }}`), else {}. A value is a string written
    in conf.py, or a name bound to one; an f-string's replacement fields are left out (what
    they compute is not known without running it)."""
    if tree is None:
        return {}
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    renders = False
    for call in _method_calls(_setup(tree), "connect"):
        if len(call.args) >= 2 \
                and isinstance(call.args[0], ast.Constant) and call.args[0].value == "source-read" \
                and isinstance(call.args[1], ast.Name) and call.args[1].id in functions:
            renders = renders or any(
                len(inner.args) >= 2 and isinstance(inner.args[1], ast.Attribute)
                and inner.args[1].attr == "html_context"
                for inner in _method_calls(functions[call.args[1].id], "render_string"))
    if not renders:
        return {}
    strings: dict = {}  # module-level name -> the string it is bound to
    context: dict = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            text = _written_string(node.value, strings)
            strings[node.targets[0].id] = text
            if node.targets[0].id == "html_context" and isinstance(node.value, ast.Dict):
                context = {key.value: text for key, value in zip(node.value.keys,
                                                                 node.value.values, strict=True)
                           if isinstance(key, ast.Constant) and isinstance(key.value, str)
                           and (text := _written_string(value, strings)) is not None}
    return context


def _written_string(node, strings: dict) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return strings.get(node.id)
    if isinstance(node, ast.JoinedStr):
        return "".join(part.value for part in node.values
                       if isinstance(part, ast.Constant) and isinstance(part.value, str))
    return None


# What Sphinx leaves out of its sources beside exclude_patterns (BuildEnvironment.find_files):
# the template folders (an autosummary template `class.rst` is Jinja, no page) and the HTML
# builder's asset folders, each a path below the conf.py's folder.
_NOT_SOURCE_PATHS = ("templates_path", "html_static_path", "html_extra_path")


def _listed(tree, name: str) -> list:
    """Return the strings written in the list or tuple a module-level name is last bound to,
    its computed items left out (xarray's `templates_path = ["_templates",
    sphinx_autosummary_accessors.templates_path]` leaves out "_templates" all the same), and
    those module-level statements add to it after (_added: astropy's
    `exclude_patterns.append(...)`, the list itself bound by a `from ... import *` of another
    package's conf)."""
    found: list = []
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(target, ast.Name) and target.id == name for target in node.targets):
            found = _written_strings(node.value)
        elif (added := _added(node)) is not None and added[0] == name:
            found.extend(_written_strings(ast.List(elts=[added[2]]) if added[1] else added[2]))
    return found


def _written_strings(node) -> list:
    """Return the string literals a list or tuple expression holds (none of another one)."""
    return [item.value for item in getattr(node, "elts", ())
            if isinstance(item, ast.Constant) and isinstance(item.value, str)] \
        if isinstance(node, (ast.List, ast.Tuple)) else []


def _path_value(node, known: dict):
    """Return a literal (a name bound to one too: known), or a path conf.py builds from
    literals with `os.path.join` and `os.sep` (in an f-string too), or a list of those, as on
    the POSIX hosts docs are built on (sunpy's `'gallery_dirs': os.path.join('generated',
    'gallery')`); else None."""
    value = _literal(node, known)
    if value is not None:
        return value
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [_path_value(item, known) for item in node.elts]
        return items if all(isinstance(item, str) for item in items) else None
    if ast.unparse(node) == "os.sep":
        return "/"
    if isinstance(node, ast.Call) and ast.unparse(node.func) == "os.path.join" \
            and node.args and not node.keywords:
        parts = [_path_value(arg, known) for arg in node.args]
        return posixpath.join(*parts) if all(isinstance(part, str) for part in parts) \
            else None
    if isinstance(node, ast.JoinedStr):
        parts = [_path_value(part.value, known) if isinstance(part, ast.FormattedValue)
                 and part.conversion == -1 and part.format_spec is None
                 else part.value if isinstance(part, ast.Constant) else None
                 for part in node.values]
        return "".join(parts) if all(isinstance(part, str) for part in parts) else None
    return None


# The extension that generates Sphinx-Gallery's pages.
_GALLERY_EXTENSION = "sphinx_gallery.gen_gallery"


def _guarded(tree) -> list:
    """Return conf.py's module-level statements, the body of each module-level `try:` that
    imports in its place: Sphinx runs that body where the import succeeds, as it does on a
    host that builds the docs with it (astropy enables Sphinx-Gallery so)."""
    found: list = []
    for node in tree.body:
        if isinstance(node, ast.Try) and any(isinstance(statement, (ast.Import, ast.ImportFrom))
                                             for statement in node.body):
            found.extend(node.body)
        else:
            found.append(node)
    return found


def _adds_extension(statements: list, name: str) -> bool:
    """Tell whether statements add an extension to `extensions` (`+= [...]`, `.append(...)`,
    `.extend([...])`), whatever `extensions` was bound to before (an import of it too)."""
    for node in statements:
        added = None
        if isinstance(node, ast.AugAssign) and ast.unparse(node.target) == "extensions":
            added = _literal(node.value, {})
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \
                and ast.unparse(node.value.func) in ("extensions.append", "extensions.extend") \
                and len(node.value.args) == 1:
            added = _literal(node.value.args[0], {})
        if added == name or isinstance(added, (list, tuple)) and name in added:
            return True
    return False


def _dict_entries(statements: list, name: str, known: dict) -> dict:
    """Return the entries with literal keys and values of the dict a module-level name is last
    bound to (`name = {...}`), its computed values left out but paths and names bound to
    literals (_path_value, known: _assignments'), with `name["key"] = value` assignments
    after it applied: sphinx_gallery_conf's folders beside its scrapers."""
    found: dict = {}
    for node in statements:
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            if isinstance(target, ast.Name) and target.id == name:
                found = {}
                if isinstance(node.value, ast.Dict):
                    for key, value in zip(node.value.keys, node.value.values, strict=True):
                        key_value = _literal(key, {}) if key is not None else None
                        item = _path_value(value, known)
                        if isinstance(key_value, str) and item is not None:
                            found[key_value] = item
            elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
                    and target.value.id == name:
                key_value, item = _literal(target.slice, {}), _path_value(node.value, known)
                if isinstance(key_value, str) and item is not None:
                    found[key_value] = item
    return found


def _galleries(conf: dict, enabled: bool) -> tuple:
    """Return SphinxConf.galleries: sphinx_gallery_conf's examples_dirs and gallery_dirs (a
    folder or a list of them) paired in order, where conf.py enables Sphinx-Gallery."""
    if not enabled:
        return ()
    examples = _strings(conf.get("examples_dirs", sphinx_gallery.DEFAULT_EXAMPLES))
    galleries = _strings(conf.get("gallery_dirs", sphinx_gallery.DEFAULT_GALLERY))
    return tuple((posixpath.normpath(source.replace("\\", "/")),
                  posixpath.normpath(gallery.replace("\\", "/")))
                 for source, gallery in zip(examples, galleries, strict=False))


def _folders(value) -> tuple:
    """Return a conf.py list of folders as '/'-separated paths below its own folder."""
    found = []
    for path in _strings(value):
        path = posixpath.normpath(path.replace("\\", "/"))
        if not posixpath.isabs(path) and path != "." and not path.startswith("../"):
            found.append(path)
    return tuple(found)


def _suffixes(value, extensions: tuple) -> dict:
    if isinstance(value, dict):
        suffixes = {suffix: (MARKDOWN if kind in _MARKDOWN_TYPES else RST)
                    for suffix, kind in value.items() if isinstance(suffix, str)}
    else:
        suffixes = {suffix: RST for suffix in _strings(value)} or dict(_DEFAULT_SUFFIXES)
    if any(name in _MARKDOWN_EXTENSIONS for name in extensions):
        suffixes.setdefault(".md", MARKDOWN)
    return suffixes


def read_conf(text: str, local_module=None) -> SphinxConf:
    """Read a conf.py's text. local_module(dotted name) returns the text of an extension module
    the project keeps in its docs folder, or None: its `setup()` adds object types too."""
    tree = _parse(text)
    if tree is None:
        return SphinxConf()
    known = _assignments(tree)
    extensions = _strings(known.get("extensions")) or _helper_extensions(tree)
    root = known.get("root_doc", known.get("master_doc"))
    baseurl = known.get("html_baseurl")
    typehints = known.get("autodoc_typehints")
    target = known.get("autodoc_typehints_description_target")
    content = known.get("autoclass_content")
    types = {directive: kind for name in extensions
             for directive, kind in _EXTENSION_TYPES.get(name, {}).items()} | object_types(tree)
    code, programs = code_directives(tree), program_directives(tree)
    # Sphinx-Gallery's settings and extension, also where a `try:` importing it adds them.
    statements = _guarded(tree)
    gallery = _dict_entries(statements, "sphinx_gallery_conf", known)
    gallery_enabled = _GALLERY_EXTENSION in extensions or _adds_extension(statements,
                                                                          _GALLERY_EXTENSION)
    for name in extensions:
        module_text = local_module(name) if local_module is not None else None
        if module_text is not None:
            module_tree = _parse(module_text)
            types = object_types(module_tree) | types
            code += code_directives(module_tree)
            programs += program_directives(module_tree)
    return SphinxConf(
        source_suffix=_suffixes(known.get("source_suffix"), extensions),
        root_doc=root if isinstance(root, str) and root else _DEFAULT_ROOT,
        html_baseurl=baseurl if isinstance(baseurl, str) and baseurl.startswith(
            ("https://", "http://")) else None,
        # Bound by what is not read (another package's conf, `from sphinx_astropy.conf.v1
        # import *`), what conf.py itself adds to it is excluded all the same.
        extensions=extensions, exclude_patterns=(
            _strings(known["exclude_patterns"]) if "exclude_patterns" in known
            else tuple(_listed(tree, "exclude_patterns"))) + tuple(
            path for name in _NOT_SOURCE_PATHS for path in _folders(_listed(tree, name))),
        object_types=types, module_prefixes=_prefixes(known.get(_PREFIXES), extensions),
        typehints=typehints if typehints in _TYPEHINTS else _DEFAULT_TYPEHINTS,
        typehints_target=target if target in _TYPEHINTS_TARGETS else _DEFAULT_TYPEHINTS_TARGET,
        smartquotes=known.get("smartquotes") is not False,
        myst_smartquotes="smartquotes" in _myst_extensions(known.get("myst_enable_extensions")),
        function_parentheses=known.get("add_function_parentheses") is not False,
        inherit_docstrings=known.get("autodoc_inherit_docstrings") is not False,
        class_content=content if content in CLASS_CONTENT else "class",
        autodoc_defaults=_autodoc_defaults(known.get("autodoc_default_options")),
        extlinks=_extlinks(known.get("extlinks"), extensions), code_directives=code,
        program_directives=programs,
        object_default_role=_OBJECT_ROLE.fullmatch(str(known.get("default_role"))) is not None,
        see_also=bool({"numpydoc", "sphinx.ext.napoleon"} & set(extensions)),
        class_members="" if "numpydoc" not in extensions
        or known.get("numpydoc_show_class_members") is False
        else "own" if known.get("numpydoc_show_inherited_class_members") is False else "all",
        page_context=page_context(tree), autodocumenters=autodocumenters(tree),
        stub_names=_string_map(known.get("autosummary_filename_map")),
        stub_sources=_stub_sources(known.get("autosummary_generate")),
        special_members=_special_members(known, extensions),
        galleries=_galleries(gallery, gallery_enabled),
        notebook_ids="nbsphinx" if notebooks.NBSPHINX in extensions
        else "sphinx" if notebooks.MYST_NB in extensions else "",
        gallery_ignore=ignore if isinstance(ignore := gallery.get("ignore_pattern"), str)
        else sphinx_gallery.DEFAULT_IGNORE,
        gallery_remove_config_comments=gallery.get("remove_config_comments") is True,
        templates_path=tuple(posixpath.normpath(path.replace("\\", "/"))
                             for path in _listed(tree, "templates_path")),
        sys_path=_sys_path(tree),
        automodapi_toctree=toctree.strip("/") if isinstance(
            toctree := known.get("automodapi_toctreedirnm"), str) and toctree.strip("/")
        else automodapi.DEFAULT_TOCTREE,
        automodsumm_inherited=known.get("automodsumm_inherited_members") is True,
        automodapi_diagram=known.get("automodapi_inheritance_diagram") is not False,
        apidoc=apidoc.settings(known, extensions))


def _sys_path(tree) -> tuple:
    """Return the directories a conf.py's `sys.path.insert(i, PATH)` and
    `sys.path.append(PATH)` add, relative to its folder, where PATH is
    `os.path.abspath("DIR")` or `os.path.join(os.path.dirname(__file__), "DIR", ...)` (either
    within the other), in the order written; any other path is not known without running it."""
    found = []
    for call in ast.walk(tree):
        if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute) \
                or ast.unparse(call.func) not in ("sys.path.insert", "sys.path.append") \
                or len(call.args) != (2 if call.func.attr == "insert" else 1):
            continue
        directory = _conf_relative(call.args[-1])
        if directory is not None:
            found.append(posixpath.normpath(directory.replace("\\", "/")))
    return tuple(dict.fromkeys(found))


def _conf_relative(node) -> str | None:
    """Return the directory, relative to conf.py's folder, a path expression names, or None."""
    if not isinstance(node, ast.Call) or not node.args:
        return None
    function = ast.unparse(node.func)
    if function == "os.path.abspath" and len(node.args) == 1:
        inner = node.args[0]
        if isinstance(inner, ast.Constant) and isinstance(inner.value, str):
            return inner.value  # relative to the folder Sphinx runs conf.py in, its own
        return _conf_relative(inner)
    if function == "os.path.join" and ast.unparse(node.args[0]) in (
            "os.path.dirname(__file__)", "os.path.dirname(os.path.abspath(__file__))"):
        parts = [arg.value for arg in node.args[1:]
                 if isinstance(arg, ast.Constant) and isinstance(arg.value, str)]
        return posixpath.join(".", *parts) if len(parts) == len(node.args) - 1 else None
    return None


# autoclass_content's values (a `:class-doc-from:` option's too).
CLASS_CONTENT = frozenset({"class", "both", "init"})


# The default roles that make `` `name` `` a reference to a Python object: the Python
# domain's, `any`, and autosummary's `autolink` (a py:obj where the name is one).
_OBJECT_ROLE = re.compile(r"autolink|any|(?:py:)?(?:obj|func|meth|class|attr|data|exc|const|mod)")


def _extlinks(value, extensions: tuple) -> tuple:
    if "sphinx.ext.extlinks" not in extensions or not isinstance(value, dict):
        return ()
    return tuple((role, link[0], link[1]) for role, link in value.items()
                 if isinstance(role, str) and isinstance(link, (tuple, list))
                 and len(link) == 2 and isinstance(link[0], str)
                 and (link[1] is None or isinstance(link[1], str)))


_EXTLINK = re.compile(r":([\w-]+):`([^`]*)`")
_EXPLICIT_TITLE = re.compile(r"(.+?)\s*<(.*?)>", re.S)


def _expanded(pattern: str, part: str) -> str:
    # extlinks' %-formatting; a pattern without `%s` is a prefix (Sphinx 4 and 5 kept the
    # older form so, warning).
    try:
        return pattern % part
    except (TypeError, ValueError):
        return pattern + part


def shown_extlinks(text: str, extlinks: tuple) -> str:
    """Return reST text with each extlinks role as Sphinx renders it: its explicit title, else
    its caption with the target in (`:cve:`2022-28346`` with caption "CVE-%s" is
    "CVE-2022-28346"), else (no caption) its URL."""
    if not extlinks:
        return text
    links = {role: (base, caption) for role, base, caption in extlinks}

    def shown(match) -> str:
        link = links.get(match.group(1))
        if link is None:
            return match.group(0)
        explicit = _EXPLICIT_TITLE.fullmatch(match.group(2))
        if explicit is not None:
            return explicit.group(1)
        base, caption = link
        return _expanded(base if caption is None else caption, match.group(2))
    return _EXTLINK.sub(shown, text)


# zzzeeksphinx's autodoc-skip-member handler (autodoc_mods.autodoc_skip_member): a class's
# constructor, comparisons and __call__ with a docstring, its bases' too.
_ZZZEEK_SPECIALS = frozenset({"__init__", "__eq__", "__ne__", "__lt__", "__le__", "__call__"})


def _special_members(known: dict, extensions: tuple) -> tuple:
    """Return SphinxConf.special_members: napoleon's _skip_member keeps a class's own special
    members with a docstring where napoleon_include_special_with_doc is True (napoleon's
    Config default is False: pint's Quantity.__reduce__ is not rendered), __init__ where
    napoleon_include_init_with_doc is; zzzeeksphinx's handler keeps its six."""
    found = []
    if "sphinx.ext.napoleon" in extensions:
        names = ({"*"} if known.get("napoleon_include_special_with_doc") is True else set()
                 ) | ({"__init__"} if known.get("napoleon_include_init_with_doc") is True
                      else set())
        if names:
            found.append((frozenset(names), False))
    if "zzzeeksphinx" in extensions:
        found.append((_ZZZEEK_SPECIALS, True))
    return tuple(found)


# zzzeeksphinx's setting of reference prefixes, read where the extension is used.
_PREFIXES = "zzzeeksphinx_module_prefixes"


def _prefixes(value, extensions: tuple) -> dict:
    if "zzzeeksphinx" not in extensions or not isinstance(value, dict):
        return {}
    return {prefix: module for prefix, module in value.items()
            if isinstance(prefix, str) and isinstance(module, str) and module}
