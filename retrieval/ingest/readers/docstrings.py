"""Python package sources -> documented objects, read with `ast`: nothing is imported or run.

Each module, class, function, method and documented attribute is one DocObject: where it is
defined (file, lines, the file's sha256), its signature as written and its docstring. The lines an
object quotes run from its first decorator (or its `def`/`class` line, or the `#:` comment above
an attribute) to the end of its docstring, a byte-exact run of the file's lines, so a unit built
from it is checkable like every other passage. Names are resolved as Python would bind them
(`from .app import Flask as Flask` makes `flask.Flask` the class of `flask/app.py`), which is how
autodoc directives and re-exported names find their object.
"""

import ast
import builtins
import hashlib
import importlib
import inspect
import io
import itertools
import operator
import pickle
import re
import sys
import textwrap
import threading
import tokenize
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from ...core.notes import VersionNote
from ..tree import (
    DEFAULT_MAX_FILE_BYTES,
    Unreadable,
    decode_source,
    module_cap,
    not_read,
    read_tree_file,
)
from . import cython
from .code_deprecation import base_name as _base_name
from .code_deprecation import code_deprecation
from .rst import DELIMITER, LiteralLines

MODULE, CLASS, EXCEPTION, FUNCTION, METHOD, ATTRIBUTE, DATA = (
    "module", "class", "exception", "function", "method", "attribute", "data")
# How many `from x import y` hops a name may take before it is given up (a cycle, or worse).
_MAX_HOPS = 16
# A header longer than this is no signature a reader wants quoted whole; the object is still read.
_MAX_HEADER_LINES = 60
_EXCEPTION_BASES = ("Exception", "Error", "Warning")
# Python's exceptions whose names end otherwise: a class of one is an exception too (autodoc's
# ExceptionDocumenter takes any BaseException subclass: pytest's `Interrupted(KeyboardInterrupt)`).
_OTHER_EXCEPTIONS = frozenset({"KeyboardInterrupt", "SystemExit", "GeneratorExit",
                               "StopIteration", "StopAsyncIteration"})
# What, called in a class body, binds a method (`name = staticmethod(function)`).
_METHOD_WRAPPERS = frozenset({"staticmethod", "classmethod"})
# zope.interface's Attribute, as its modules bind it (_zope_attribute).
_ZOPE_ATTRIBUTES = frozenset({"zope.interface.Attribute", "zope.interface.interface.Attribute"})
# click's decorators that make a function a click.Command (or Group) object (_makes_command).
_CLICK_DECORATORS = frozenset({"click.command", "click.group", "click.decorators.command",
                               "click.decorators.group"})


@dataclass(frozen=True)
class DocObject:
    """One module, class, function, method or attribute as its source defines it."""

    name: str  # dotted, where it is defined: "flask.app.Flask.register_blueprint"
    kind: str  # MODULE, CLASS, EXCEPTION, FUNCTION, METHOD, ATTRIBUTE or DATA
    signature: str  # as written, without the name: "(self, blueprint, **options) -> None"
    docstring: str | None  # the docstring's value, cleaned (inspect.cleandoc); None if it has none
    path: str  # the file, relative to the tree it was read from, with '/'
    start_line: int  # 1-based, inclusive: the quoted lines
    end_line: int
    members: tuple = ()  # bare names of its members, in source order
    bases: tuple = ()  # a class's bases as written, where each is a (dotted) name
    # The decorators that assemble its docstring at import time (`@Appender(...)`, `@doc(...)`,
    # `@Substitution(...)`; templates.py), innermost last, as ast nodes; () if none.
    templates: tuple = field(default=(), compare=False)
    overload: bool = False  # a `@typing.overload` stub (or a package's own `@_overload`)
    # For a function without a docstring, the function its decorator is called with, as written
    # (`@wraps(f)`, jinja2's `@async_variant(sync_do_join)`): whose docstring such a decorator
    # copies onto it at import time (PackageSource.shown). For an undocumented assignment, the
    # function it is bound to or a call is given first (_Reader._assigned_from).
    wraps: str | None = field(default=None, compare=False)
    # For an undocumented module-level assignment of a call (`norm = norm_gen(name='norm')`),
    # what it calls, as written: where that is a class, the value is an instance, whose
    # __doc__ (what autodoc shows of module data) is the class's.
    called: str | None = field(default=None, compare=False)
    # For an undocumented module-level `NAME = other.name` (`Matrix = MutableDenseMatrix`), the
    # name it binds, as written: another name of what that names (PackageSource.resolve).
    alias: str | None = field(default=None, compare=False)
    # For an undocumented `name = Other` in a class body (`session_class = SecureCookieSession`),
    # the name it binds, as written: autodoc documents such a member as "alias of" what it names
    # where that is a documented class.
    bound: str | None = field(default=None, compare=False)
    # The deprecation its code states (a warning its body gives first thing, a `@deprecated`
    # decorator: code_deprecation.py), whatever its docstring says; None if none.
    deprecation: VersionNote | None = field(default=None, compare=False)
    # For a class-body `name = Call(...)` of a named callable: (the callable as written, its
    # positional arguments as written, "" where one is no name, and (keyword, argument) pairs
    # likewise), what PackageSource.accessed reads a descriptor's class access from.
    call: tuple | None = field(default=None, compare=False)
    # For a descriptor class whose instance read on a class gives back an argument it was made
    # with (_class_access): (that __init__ parameter's position after self, its name).
    class_access: tuple | None = field(default=None, compare=False)
    # For a method or a property, the decorator applied last (outermost) as written, where it
    # is a name (`cache_readonly`): a descriptor class of the package makes it an attribute
    # (descriptor_members).
    decorator: str | None = field(default=None, compare=False)
    # For a class: whether its `__get__` begins `if obj is None: return self`, so that its
    # instance read on a class is that instance, no function (_class_return).
    gives_itself: bool = field(default=False, compare=False)
    # For a class: whether it has a `__get__` that does not begin `if obj is None: return ...`,
    # so that read on a class it computes what it gives there as on an instance (pyparsing's
    # `_lazyclassproperty`): a value only running it tells (_class_return).
    computes_on_class: bool = field(default=False, compare=False)
    # For a function returning an inner function whose `__doc__` it sets from a parameter
    # (pandas' `_map_and_wrap(name, docstring)`), or a call given it as `doc=` (a property),
    # or an f-string of parameters (werkzeug's `property(..., f"accessor for {key!r}")`):
    # (its positional parameters' names, that parameter's or f-string's node, whether what it
    # returns is a routine).
    doc_parameter: tuple | None = field(default=None, compare=False)
    # For an undocumented `name = F(...)`: the call, whose F may give what it returns the
    # docstring an argument holds (doc_parameter; templates.py evaluates it).
    docstring_call: ast.Call | None = field(default=None, compare=False)
    # For a class or module whose body binds `__doc__` to an expression, not a literal
    # (statsmodels' `__doc__ = """...%(params_doc)s...""" % {...}`): it, which templates.py
    # evaluates where the source gives its names; the docstring is its template till then.
    doc_expression: ast.expr | None = field(default=None, compare=False)
    # Whether its docstring is one templates.py assembled (not written in its lines).
    assembled: bool = field(default=False, compare=False)
    # For a class: its DELEGATING_DECORATORS calls (pandas' `@delegate_names(delegate=
    # DatetimeArray, accessors=[...], typ="property")`, `@inherit_names([...], DatetimeArray)`),
    # which set members on it that are another class's (templates.delegated_members).
    delegations: tuple = field(default=(), compare=False)
    # For a module's function or class that a later assignment rebinds to a compiled module's
    # object (compiled_rebindings): what autodoc imports under the name is that object.
    compiled: bool = field(default=False, compare=False)
    # For a class attribute: whether it is a name its class's `__slots__` lists (a
    # SLOTSATTR of autodoc's get_class_members, which a subclass has too: _slot_members).
    slot: bool = field(default=False, compare=False)
    # For an entry of a class docstring's Attributes section: the module a `.. currentmodule::`
    # above it in the docstring makes current, where napoleon's `.. attribute::` is described
    # (mutagen's flac.Picture: `mutagen.Picture.type`); None if none.
    scope: str | None = field(default=None, compare=False)
    # Whether it is such an entry: no member autodoc finds on its class (numpydoc renders the
    # section in the class's docstring; napoleon, as `.. attribute::` in it).
    section_entry: bool = field(default=False, compare=False)
    # Whether such an entry is a Python-domain directive the docstring writes itself
    # (`.. attribute:: minute` in celery's crontab): described by Sphinx, napoleon or not.
    written_directive: bool = field(default=False, compare=False)
    # For a module's function: whether a decorator makes it a command object (click's
    # `@click.command()`, `@group.command()`: a click.Command), which no documenter of
    # autodoc's takes as a module's member (no function, class or commented data).
    command_object: bool = field(default=False, compare=False)
    # For a class: the members its docstring's own autodoc directives name (tinycss2's
    # `.. automethod:: serialize` in Node's): autodoc runs them where the docstring is
    # rendered, in the class's namespace, so each is described in the class's content.
    docstring_members: tuple = field(default=(), compare=False)


@dataclass
class Module:
    """One parsed module: its objects by path below it ("" is the module itself), its imports."""

    name: str
    path: str
    sha256: str
    lines: list  # the file's lines, split on "\n" only (a "\r" stays part of its line)
    objects: dict = field(default_factory=dict)
    all_names: tuple | None = None  # __all__, where the module defines it as a literal
    # Whether __all__ is also bound or grown by what is not a literal (numpy/core/__init__.py's
    # `__all__ += numeric.__all__`): all_names is then only part of it (computed_all reads the
    # rest where the source gives it).
    all_computed: bool = False
    # The statements that bind or change __all__, in order, each with whether it is in a
    # branch (`if`, `try`): (statement, branched), which computed_all evaluates.
    all_statements: list = field(default_factory=list, compare=False)
    imports: dict = field(default_factory=dict)  # local name -> absolute dotted target
    star_imports: list = field(default_factory=list)  # modules whose names `*` brings in
    # The line each module-level import binds a name on first (a local name, or a star
    # import's module), for what `dir()` holds at a line (_namespace).
    import_lines: dict = field(default_factory=dict, compare=False)
    # Module-level `NAME = value` (the last one) and `NAME["key"] = value` expressions, for
    # docstrings assembled at import time (templates.py resolves them statically).
    assigned: dict = field(default_factory=dict)
    items: dict = field(default_factory=dict)  # NAME -> {key: value expression}
    # A class's path -> (its body's `NAME = value` and `NAME["key"] = value` of a NAME it
    # binds, as `assigned` and `items` are the module's): what its methods' decorators read
    # first (templates.py), as Python's class scope does.
    class_scopes: dict = field(default_factory=dict)
    # Top-level name -> the absolute dotted name a DOCSTRING_SETTERS statement gives its
    # docstring to (torch/_torch_docs.py's `add_docstr(torch.abs, r"""...""")`: "torch.abs").
    documents: dict = field(default_factory=dict)
    # A function of two parameters whose body gives `getattr(OWNER, first)` the second as its
    # docstring -> OWNER as written (torch's `add_docstr_all(method, docstr)`).
    setter_wrappers: dict = field(default_factory=dict)
    # A class's path + "." + NAME -> the undocumented `self.NAME = ...` of its __init__: no
    # member autodoc lists, yet one an explicit autoattribute describes (autodoc's
    # RuntimeInstanceAttributeMixin finds it in the analyzer's tagorder).
    runtime_attributes: dict = field(default_factory=dict)
    # A module-level function whose body only binds names, branches and returns (_computes:
    # pandas' `create_section_header(header)`, `make_doc(name, ndim)`) -> (its `def` line, its
    # last line): what templates.py evaluates where a docstring's template calls it.
    computing_functions: dict = field(default_factory=dict)

    def quote(self, obj: DocObject) -> str:
        """Return an object's quoted lines, byte-exact."""
        return "\n".join(self.lines[obj.start_line - 1:obj.end_line])

    def imported_name(self, written: str) -> str | None:
        """Return the absolute dotted name a dotted name as written here stands for through
        the module's imports (`click.command` after `import click`), or None where its first
        part is not imported."""
        head, dot, rest = written.partition(".")
        bound = self.imports.get(head)
        return None if bound is None else bound + dot + rest

    def member(self, owner: DocObject, name: str) -> DocObject | None:
        """Return the member of that name of a class this module defines, or None."""
        return self.objects.get(f"{owner.name[len(self.name) + 1:]}.{name}")

    def is_public(self, name: str) -> bool:
        """Tell whether a top-level name is public: in __all__ where defined, else no '_'; an
        __all__ partly computed (numpy.ma's `__all__ += core.__all__`) is read as star_names
        reads it, as at most the public namespace, never fewer than its literal names."""
        if self.all_names is not None and not self.all_computed:
            return name in self.all_names
        return not name.startswith("_") or name in (self.all_names or ())


@dataclass
class PackageSource:
    """Every module read from a tree, and the files skipped with why."""

    modules: dict = field(default_factory=dict)  # dotted name -> Module
    skipped: list = field(default_factory=list)  # (path, reason)
    # Modules of other releases whose classes the package's derive from (Flask's `Request` from
    # werkzeug's): names resolve through them, as Python's imports do, but nothing of them is
    # documented for itself; dotted name -> Module (sources/dependencies.py fetches them).
    dependencies: dict = field(default_factory=dict)
    _resolved: dict = field(default_factory=dict, repr=False)  # dotted -> resolve()'s answer
    _stars: dict = field(default_factory=dict, repr=False)  # module -> star_names()' answer
    # Module.documents' names -> (Module, local name), made when first needed.
    _elsewhere: dict | None = field(default=None, repr=False)
    # A class's dotted name -> {a member name its DELEGATING_DECORATORS set: the dotted name
    # of the class whose member of that name it is} (templates.delegated_members).
    delegated: dict = field(default_factory=dict)

    def resolve(self, dotted: str, hops: int = 0):
        """Return (Module, DocObject) that a dotted name is bound to, or None if none is.

        Each name is looked up once (remembered until `changed`): star imports that import
        each other (scipy's) are followed once each, not once per path to them; a name met
        again while it is being looked up (a cycle) is bound to nothing."""
        if hops > _MAX_HOPS:
            return None
        if dotted in self._resolved:
            return self._resolved[dotted]
        self._resolved[dotted] = None
        found = self._rebound(dotted, hops)
        parts = dotted.split(".")
        for cut in range(len(parts), 0, -1) if found is None else ():
            module = self.module(".".join(parts[:cut]))
            if module is not None:
                # Below a submodule its package binds the name of to another object
                # (pyqtgraph's `from .Point import Point`), Python's attribute lookup (autodoc's
                # getattr along the path) reaches that object's member; a name only the
                # module has is the module's (automodule's members: `pkg.Point.Point`).
                rebound = self._rebound(".".join(parts[:cut]), hops) \
                    if cut < len(parts) else None
                if rebound is not None:
                    found = self.resolve(".".join([rebound[1].name, *parts[cut:]]), hops + 1)
                found = found or self._resolve_in(module, parts[cut:], hops)
                break
        if found is None:
            found = self._documented_as(parts)
        self._resolved[dotted] = found
        return found

    def _delegated(self, owner: DocObject, rest: list, hops: int):
        """Return (Module, DocObject) of the member a class decorator of owner's set as rest[0]
        (the other class's member of that name), below it rest[1:]; None if none did."""
        target = self.delegated.get(owner.name, {}).get(rest[0])
        return None if target is None else self.resolve(".".join([target, *rest]), hops + 1)

    def resolve_written(self, module: Module, written: str):
        """Return (Module, DocObject) a name as a module's source writes it is bound to: in
        that module, else as an absolute dotted name; None if neither is."""
        return self.resolve(f"{module.name}.{written}") or self.resolve(written)

    def _rebound(self, dotted: str, hops: int):
        """Return (Module, DocObject) of what a submodule's package binds the submodule's name
        to instead, or None: `from .least_squares import least_squares` in scipy's
        optimize/_lsq/__init__.py makes `_lsq.least_squares` the function (an attribute is what
        the package's namespace binds last; importing the submodule set it first)."""
        package, _, name = dotted.rpartition(".")
        parent = self.module(package) if package and self.module(dotted) is not None else None
        if parent is None:
            return None
        if not self.rebinds(parent, name, dotted):
            return None
        found = self._resolve_in(parent, [name], hops)
        return found if found is not None and found[1].kind != MODULE else None

    def rebinds(self, parent: Module, name: str, submodule: str) -> bool:
        """Tell whether a package's module binds the name of its submodule (submodule: its
        dotted name) to something else: an assignment or definition, an import of another
        thing, or a star import that brings the name (pyqtgraph's `from .Flowchart import *`,
        the class)."""
        imported = parent.imports.get(name)
        return name in parent.objects or imported is not None and imported != submodule or any(
            self.module(source) is not None and name in self.star_names(source)
            for source in parent.star_imports)

    def module(self, name: str) -> Module | None:
        """Return the module of a dotted name: the package's, else a dependency's, else None."""
        return self.modules.get(name) or self.dependencies.get(name)

    def foreign_bases(self, module: Module, obj: DocObject) -> list:
        """Return the absolute dotted names of the bases of a class and of its bases that the
        package does not define, as imported (`werkzeug.wrappers.Request`)."""
        return [imported for _, imported in self._unresolved_bases(module, obj)
                if imported is not None]

    def outside_bases(self, module: Module, obj: DocObject) -> list:
        """Return the dotted names of the bases of a class and of its bases that are neither
        the package's nor imported into it: as imported (`datetime.tzinfo`), or a builtin's
        name as written (`dict`), what autodoc's getdoc reaches last along the MRO."""
        return [imported or base for base, imported in self._unresolved_bases(module, obj)]

    def _unresolved_bases(self, module: Module, obj: DocObject):
        """Yield (the base as written, the name it is imported as or None) of each base of a
        class and of its bases (nearest first, as bases() orders them) that no module read
        defines."""
        for owner_module, owner in [(module, obj), *self.bases(module, obj)]:
            for base in owner.bases:
                written = f"{owner_module.name}.{base}"
                if self.resolve(written) is None:
                    yield base, self._imported(written)

    def _imported(self, dotted: str) -> str | None:
        """Return the name a dotted name of the package is imported as from outside it,
        following its modules' imports, or None where it is not imported."""
        for _ in range(_MAX_HOPS):
            parts = dotted.split(".")
            cut = self.module_cut(parts)
            if not cut:
                return dotted  # no module of the package: from outside it
            module = self.modules[".".join(parts[:cut])]
            rest = parts[cut:]
            if not rest or rest[0] not in module.imports:
                return None
            dotted = ".".join([module.imports[rest[0]], *rest[1:]])
        return None

    def binding(self, dotted: str):
        """Return (Module, DocObject) of the assignment a module's top-level name is bound by,
        following its imports and star imports (not the name it assigns, as resolve does),
        or None where no assignment binds it: `Optional = Opt` for pyparsing.Optional."""
        module_name, _, name = dotted.rpartition(".")
        for _ in range(_MAX_HOPS):
            module = self.module(module_name)
            if module is None:
                return None
            if name in module.objects:
                obj = module.objects[name]
                return (module, obj) if obj.kind == DATA and obj.alias is not None else None
            if name in module.imports:
                module_name, _, name = module.imports[name].rpartition(".")
                continue
            source = next((source for source in reversed(module.star_imports)
                           if self.module(source) is not None
                           and name in self.star_names(source)), None)
            if source is None:
                return None
            module_name = source
        return None

    def module_cut(self, parts: list, longest: int | None = None) -> int:
        """Return how many of a dotted name's parts (at most longest) name the longest module
        of the package it starts with; 0 if none does."""
        start = len(parts) if longest is None else longest
        return next((cut for cut in range(start, 0, -1) if ".".join(parts[:cut]) in self.modules),
                    0)

    def _documented_as(self, parts: list):
        """Return (Module, DocObject) that a module documents a compiled object (or its
        member) as, by the name its docstring is given to (Module.documents), or None."""
        if self._elsewhere is None:
            self._elsewhere = {}
            for module in self.modules.values():
                for local, target in module.documents.items():
                    self._elsewhere.setdefault(target, (module, local))
        for cut in range(len(parts), 0, -1):
            where = self._elsewhere.get(".".join(parts[:cut]))
            if where is not None:
                module, local = where
                obj = module.objects.get(".".join([local, *parts[cut:]]))
                return None if obj is None else (module, obj)
        return None

    def shown(self, module: Module, obj: DocObject) -> tuple[Module, DocObject]:
        """Return (Module, DocObject) whose docstring an object shows: its own; else, for a
        function or assignment without one, the documented function of the package its
        decorator wraps or it is bound to (obj.wraps, looked up where it is defined); for an
        assignment of a call of a class the package defines (obj.called), that class."""
        if obj.docstring is None and obj.called:
            # An instance of a class the package defines shows the class's docstring
            # (autodoc's getdoc reads its __doc__), however it was made.
            found = self.instance_of(module, obj)
            if found is not None:
                return found if found[1].docstring is not None else (module, obj)
        if obj.docstring is None and obj.wraps:
            # A bound method shows its function's docstring (Logbook's `debug =
            # _default_logger.debug`).
            found = self.resolve_written(module, obj.wraps) \
                or self.through_instance(f"{module.name}.{obj.wraps}")
            # Not a class: `pass_script_info = make_pass_decorator(ScriptInfo)` is no
            # ScriptInfo, nor is `session_class = SecureCookieSession` documented as one.
            if found is not None and found[1].kind in (FUNCTION, METHOD) \
                    and found[1].docstring is not None:
                return found
        return module, obj

    def through_instance(self, dotted: str):
        """Return (Module, DocObject) a dotted name below a module's instance of a class of the
        package names: the class's member, as getattr of the instance reaches it (distributed's
        `.. autofunction:: distributed.metrics.context_meter.meter` of `context_meter =
        ContextMeter()`), else None. resolve() never looks through an instance: a name a
        module binds to such a member keeps what it is, but for the docstring it shows."""
        parts = dotted.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            found = self.resolve(".".join(parts[:cut]))
            if found is not None:
                instance_of = self.instance_of(*found) if found[1].kind == DATA else None
                return self.resolve(".".join([instance_of[1].name, *parts[cut:]])) \
                    if instance_of is not None else None
        return None

    def instance_of(self, module: Module, obj: DocObject):
        """Return (Module, DocObject) of the class of the package an assignment's value is an
        instance of (a call of it, obj.called), or None."""
        found = self.resolve_written(module, obj.called) if obj.called else None
        # Not where the class has a __new__ of its own or its bases', which may return anything
        # (SQLAlchemy's `symbol("NAME", """doc""")` makes a `_symbol` of that __doc__).
        if found is None or found[1].kind not in (CLASS, EXCEPTION) or any(
                "__new__" in cls.members for _, cls in [found, *self.bases(*found)]):
            return None
        return found

    def accessed(self, module: Module, obj: DocObject):
        """Return (Module, DocObject) of the class a class attribute is when read on its class,
        or None: bound to a call of a descriptor class of the package whose __get__ gives back,
        on the class, the argument it was made with (DocObject.class_access), that argument
        naming a class of the package (`str = CachedAccessor("str", StringMethods)`:
        `Series.str` is StringMethods). Any other value is not known without running it."""
        if obj.kind != ATTRIBUTE or obj.call is None:
            return None
        function, positional, keywords = obj.call
        descriptor = self.resolve(f"{module.name}.{function}")
        if descriptor is None or descriptor[1].kind != CLASS \
                or descriptor[1].class_access is None:
            return None
        position, parameter = descriptor[1].class_access
        written = dict(keywords).get(parameter) or (
            positional[position] if position < len(positional) else "")
        found = self.resolve(f"{module.name}.{written}") if written else None
        return found if found is not None and found[1].kind in (CLASS, EXCEPTION) else None

    def changed(self):
        """Forget every name looked up: an object was replaced (templates.py), or modules
        were added (dependencies)."""
        self._resolved.clear()
        self._stars.clear()

    def star_names(self, name: str) -> tuple:
        """Return the names `from NAME import *` binds, as Python binds them: the module's
        __all__ where it defines one as a literal, else every name of its namespace without a
        leading "_" (with those a partly computed __all__ lists): what it defines, what it
        imports, and what its own star imports bring, of a module the package holds
        (networkx/algorithms/__init__.py's `from .link_analysis import *` brings `pagerank`,
        which link_analysis/__init__.py has only by its own star import). A module met again
        while its names are being gathered (a cycle) adds none."""
        if name in self._stars:
            return self._stars[name]
        module = self.module(name)
        assert module is not None, f"star_names of {name}, which is no module read"
        if module.all_names is not None and not module.all_computed:
            self._stars[name] = module.all_names
            return module.all_names
        # An __all__ partly computed is read as at most the public namespace: what `*` binds
        # is among those names, never fewer than its literal ones.
        self._stars[name] = ()
        found = dict.fromkeys([*(module.all_names or ()), *module.objects[""].members,
                               *module.imports])
        for source in module.star_imports:
            if self.module(source) is not None:
                found.update(dict.fromkeys(self.star_names(source)))
        self._stars[name] = tuple(local for local in found if not local.startswith("_")
                                  or module.all_names and local in module.all_names)
        return self._stars[name]

    def bases(self, module: Module, obj: DocObject) -> list:
        """Return (Module, DocObject) of a class's bases the package defines, in MRO-like
        order (nearest first, each once): what :inherited-members: documents members of."""
        return [(base_module, base) for base_module, base, _ in self.base_depths(module, obj)]

    def member_along(self, module: Module, obj: DocObject, name: str) -> tuple | None:
        """Return (Module, DocObject) of a class's member as getattr finds it: its own, else
        the nearest base's the package defines (bases()); None if none defines it."""
        for owner_module, owner in ((module, obj), *self.bases(module, obj)):
            found = owner_module.member(owner, name)
            if found is not None:
                return owner_module, found
        return None

    def signature_of(self, module: Module, obj: DocObject) -> str:
        """Return an object's signature: a class without an __init__ of its own has the one of
        its nearest base the package defines that has one, as autodoc shows it ("" if none)."""
        if obj.signature or obj.kind not in (CLASS, EXCEPTION):
            return obj.signature
        return next((base.signature for _, base in self.bases(module, obj) if base.signature),
                    "")

    def base_depths(self, module: Module, obj: DocObject) -> list:
        """Return (Module, DocObject, depth) of each of bases(): depth 1 for a base the class
        names, 2 for a base of one, and so on."""
        found, seen = [], {obj.name}
        pending = [(module, obj, 0)]
        while pending:
            owner_module, owner, depth = pending.pop(0)
            for base in owner.bases:
                # A base is named in the namespace of the module that defines the class.
                resolved = self.resolve(f"{owner_module.name}.{base}")
                if resolved is not None and resolved[1].kind != MODULE \
                        and resolved[1].name not in seen:
                    seen.add(resolved[1].name)
                    found.append((*resolved, depth + 1))
                    pending.append((*resolved, depth + 1))
        return found

    def _resolve_in(self, module: Module, rest: list, hops: int):
        for cut in range(len(rest), -1, -1):
            obj = module.objects.get(".".join(rest[:cut]))
            if obj is None:
                continue
            if obj.alias is not None:
                # `Matrix = MutableDenseMatrix`: bound as an import would be, where it names a
                # class or function of the package (or its member); else it is the data.
                # A name the module imports is that import, Python's global lookup, even
                # where a submodule has that name (pyparsing's `from .common import
                # pyparsing_common as common` then `pyparsing_common = common`).
                head, _, tail = obj.alias.partition(".")
                target = module.imports.get(head) if head not in module.objects else None
                found = self.resolve(".".join(
                    [target, *([tail] if tail else []), *rest[cut:]] if target
                    else [module.name, obj.alias, *rest[cut:]]), hops + 1)
                if found is not None and found[1].kind not in (MODULE, DATA):
                    return found
            if cut == len(rest):
                owner = module.objects.get(".".join(rest[:cut - 1])) if obj.section_entry \
                    else None
                # An entry of the class docstring's Attributes section is no member; a
                # delegated one of that name is (DatetimeIndex's `year`).
                found = self._delegated(owner, rest[cut - 1:], hops) if owner else None
                return found or (module, obj)
            if obj.kind == ATTRIBUTE and cut:
                # A name below a class attribute whose value, read on the class, is a class
                # of the package (`Series.str.contains`: StringMethods.contains), as Python's
                # attribute lookup (and autodoc's getattr) reaches it.
                accessed = self.accessed(module, obj)
                if accessed is not None:
                    return self.resolve(".".join([accessed[1].name, *rest[cut:]]), hops + 1)
            if obj.kind in (CLASS, EXCEPTION) and cut:
                # A member a class decorator set on it (DELEGATING_DECORATORS), then one it
                # inherits: Python's attribute lookup finds it on its bases, nearest first
                # (`pandas.DataFrame.loc`, defined on IndexingMixin).
                found = self._delegated(obj, rest[cut:], hops)
                if found is not None:
                    return found
                for _, base, _ in self.base_depths(module, obj):
                    found = self.resolve(".".join([base.name, *rest[cut:]]), hops + 1)
                    if found is not None:
                        return found
            break  # a defined prefix whose member is not defined: try what is imported
        head, tail = (rest[0], rest[1:]) if rest else ("", [])
        if head in module.imports:
            return self.resolve(".".join([module.imports[head], *tail]), hops + 1)
        if head and head not in module.objects:
            # Only from a module the package holds: a name under one it does not (an extension
            # module) would otherwise be looked up under its package's star imports, again.
            # Only a name `*` binds (star_names: never networkx's `_single_source_shortest_path_
            # basic as shortest_path` of a module whose __all__ leaves it out), and the last
            # star import that binds it wins, as Python rebinds it.
            for source in reversed(module.star_imports):
                if self.module(source) is not None and head in self.star_names(source):
                    found = self.resolve(".".join([source, *rest]), hops + 1)
                    if found is not None:
                        return found
        return None


def module_name(relative_path: str) -> str | None:
    """Return the dotted module name of a .py path below its import root, or None."""
    if not relative_path.endswith(".py"):
        return None
    parts = relative_path[:-3].split("/")
    if parts[-1] == "__init__":
        parts.pop()
    if not parts or not all(part.isidentifier() for part in parts):
        return None
    return ".".join(parts)


def read_package(root: str, files, max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
                 source: str = "") -> PackageSource:
    """Parse each (path below root, dotted module name) into a PackageSource; source: what each
    module's path starts with (another release's files are named by it: `pypi:NAME==1.0/`).

    A file is read as a tree's files are (tree.py: nothing outside root's real path, only a
    regular file, up to module_cap). One that is not read, is not UTF-8, has a syntax error or a
    lone carriage return (where `ast` and the quoted lines would count lines differently) is
    skipped and listed, never fatal.
    """
    package = PackageSource()
    max_bytes, cap = module_cap(max_file_bytes)
    for relative_path, name in files:
        try:
            data = read_tree_file(root, relative_path, max_bytes, cap)
        except (Unreadable, OSError) as exc:
            package.skipped.append((source + relative_path, not_read(exc)))
            continue
        try:
            module = PARSED.parse(name, source + relative_path, data)
        except UnicodeDecodeError as exc:
            package.skipped.append((source + relative_path, f"not UTF-8 (byte {exc.start})"))
        except SyntaxError as exc:
            package.skipped.append((source + relative_path, f"syntax error (line {exc.lineno})"
                                    if exc.lineno else f"syntax error ({exc.msg})"))
        except RecursionError:
            package.skipped.append((source + relative_path, "nested too deeply for the parser"))
        except ValueError as exc:
            package.skipped.append((source + relative_path, str(exc)))
        else:
            package.modules[name] = module
    shadowed_stubs(package)
    descriptor_members(package)
    derived_exceptions(package)
    compiled_rebindings(package)
    computed_all(package)
    return package


def shadowed_stubs(package: PackageSource) -> None:
    """Drop each module read from a stub (`.pyi`, a compiled module's: layout.py) whose name
    its package binds to something else, as Python's attribute lookup finds that first
    (numpy's char.pyi types `numpy.char`, which is numpy.core.defchararray: core's
    `__all__` lists `char`, numpy's `from .core import *` binds it)."""
    for name, module in list(package.modules.items()):
        parent_name, _, local = name.rpartition(".")
        parent = package.modules.get(parent_name) if module.path.endswith(".pyi") else None
        if parent is not None and package.rebinds(parent, local, name):
            del package.modules[name]
    package.changed()  # star_names read before every module was final


def _mentions(node: ast.FunctionDef, lines: list, text: str) -> bool:
    """Tell whether a function's lines (its module's lines) hold a text: looked at before its
    tree is walked, as walking every function's tree took a third of a build."""
    return any(text in line for line in lines[node.lineno - 1:node.end_lineno])


def _grows_all(node: ast.FunctionDef, lines: list) -> bool:
    """Tell whether a function (its module's lines) changes the module's __all__
    (`__all__.append(name)`)."""
    if not _mentions(node, lines, "__all__"):
        return False
    return any(isinstance(inner, ast.Attribute) and isinstance(inner.value, ast.Name)
               and inner.value.id == "__all__" or isinstance(inner, ast.AugAssign)
               and isinstance(inner.target, ast.Name) and inner.target.id == "__all__"
               for inner in ast.walk(node))


def _reexports(node: ast.FunctionDef, lines: list) -> bool:
    """Tell whether a function binds, in its module's globals, each name its first parameter's
    __all__ lists, as `from MODULE import *` does (patsy's `_reexport(mod)`: `for var in
    mod.__all__: globals()[var] = getattr(mod, var)`)."""
    if not node.args.args or not _mentions(node, lines, "globals()"):
        return False
    module = node.args.args[0].arg
    for loop in ast.walk(node):
        if isinstance(loop, ast.For) and isinstance(loop.target, ast.Name) \
                and ast.unparse(loop.iter) == f"{module}.__all__":
            name = loop.target.id
            if any(isinstance(inner, ast.Assign) and len(inner.targets) == 1
                   and ast.unparse(inner.targets[0]) == f"globals()[{name}]"
                   and ast.unparse(inner.value) == f"getattr({module}, {name})"
                   for inner in ast.walk(loop)):
                return True
    return False


def computed_all(package: PackageSource) -> None:
    """Give each module whose __all__ is partly computed (Module.all_computed) the names it
    binds, where the source gives every piece: lists of strings, another module's `__all__`
    of the package (numpy's `__all__ += numeric.__all__`; Django's `from .aggregates import
    __all__ as aggregates_all`), `+`, `list()`, `.extend()`, `.append()` and `.remove()`, and
    the names of `dir()` a comprehension keeps by a test of the name alone (python-gitlab's
    `[name for name in dir() if not name.startswith("_")]`, _dir_test). Any other piece
    leaves it as it was, read as at most its public namespace (star_names)."""
    done: dict = {}

    def names_of(name: str, seen: frozenset) -> tuple | None:
        module = package.modules.get(name)
        if module is None or not module.all_computed:
            return None if module is None else module.all_names
        if name not in done:
            try:
                done[name] = None if name in seen else _evaluated_all(
                    module, lambda other: names_of(other, seen | {name}),
                    lambda line: _namespace(package, module, line))
            except RecursionError:  # `[...] + [...] + ...` a thousand deep
                done[name] = None
        return done[name]

    changed = [(module, names_of(name, frozenset()))
               for name, module in package.modules.items() if module.all_computed]
    for module, names in changed:
        if names is not None:
            module.all_names, module.all_computed = names, False
    if changed:
        package.changed()


def _evaluated_all(module: Module, other, namespace) -> tuple | None:
    """Return the names a module's __all__ statements bind (other: a module's dotted name ->
    its __all__, or None; namespace: a line -> the names the module has bound before it),
    or None where a piece is not given."""
    names: list = []
    bound = False
    for statement, branched in module.all_statements:
        if branched:
            return None  # which branch runs, only importing tells (gevent's fileobject.py)
        if isinstance(statement, (ast.Assign, ast.AnnAssign)):
            # Bound twice, it is bound in two branches (`try:`/`except ImportError:`), which
            # only importing tells apart.
            value = _all_value(module, statement.value, other, namespace) if not bound else None
            if value is None:
                return None
            names, bound = list(value), True
            continue
        if not bound or isinstance(statement, ast.FunctionDef):
            # Grown before it is bound (a NameError, or a later binding's), or by a function
            # (_grows_all).
            return None
        if isinstance(statement, ast.AugAssign):
            value = _all_value(module, statement.value, other, namespace) \
                if isinstance(statement.op, ast.Add) else None
        else:
            call = statement.value
            method, arguments = call.func.attr, call.args
            one = arguments[0] if len(arguments) == 1 and not call.keywords else None
            if method == "extend" and one is not None:
                value = _all_value(module, one, other, namespace)
            elif method in ("append", "remove") and isinstance(one, ast.Constant) \
                    and isinstance(one.value, str):
                if method == "remove":
                    if one.value not in names:
                        return None  # a ValueError where it is imported
                    names.remove(one.value)
                    continue
                value = (one.value,)
            else:
                value = None
        if value is None:
            return None
        names += value
    return tuple(names) if bound else None


def _all_value(module: Module, node, other, namespace) -> tuple | None:
    """Return the names an expression of __all__ gives (_evaluated_all), or None."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return _literal_names(node)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = _all_value(module, node.left, other, namespace)
        right = _all_value(module, node.right, other, namespace)
        return None if left is None or right is None else left + right
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id in ("list", "tuple", "sorted") and len(node.args) == 1 \
            and not node.keywords:
        return _all_value(module, node.args[0], other, namespace)
    test = _dir_test(node)
    if test is not None:
        return tuple(name for name in namespace(node.lineno) if test(name))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr == "split" and isinstance(node.func.value, ast.Constant) \
            and isinstance(node.func.value.value, str) and not node.args and not node.keywords:
        return tuple(node.func.value.value.split())  # reportlab's `'''A B C'''.split()`
    if isinstance(node, ast.Attribute) and node.attr == "__all__" \
            and isinstance(node.value, ast.Name) and node.value.id in module.imports:
        return other(module.imports[node.value.id])
    if isinstance(node, ast.Name) and module.imports.get(node.id, "").endswith(".__all__"):
        return other(module.imports[node.id].removesuffix(".__all__"))
    return None


# What a module's namespace holds before its own code binds anything (`dir()` at its top).
_MODULE_DUNDERS = ("__builtins__", "__cached__", "__doc__", "__file__", "__loader__",
                   "__name__", "__package__", "__spec__")


def _namespace(package: PackageSource, module: Module, line: int) -> list:
    """Return, sorted as dir() gives them, the names a module has bound before a line: what
    it defines above it, what it imports, what its star imports of the package bring, and
    of a package, each of its submodules those imports import (which binds it there)."""
    def before(key: str) -> bool:
        return module.import_lines.get(key, line) < line

    imports = {local: target for local, target in module.imports.items() if before(local)}
    stars = [source for source in module.star_imports if before(f"*{source}")]
    names = set(_MODULE_DUNDERS) | set(imports)
    if module.path.endswith("/__init__.py"):
        names.add("__path__")
        for target in (*imports.values(), *stars):
            below = target.removeprefix(f"{module.name}.")
            first = below.partition(".")[0]
            if below != target and package.module(f"{module.name}.{first}") is not None:
                names.add(first)
    names.update(name for name in module.objects[""].members
                 if name in module.objects and module.objects[name].start_line < line)
    for source in stars:
        if package.module(source) is not None:
            names.update(package.star_names(source))
    return sorted(names)


def _dir_test(node):
    """Return the test a comprehension of `dir()` keeps a name by (`[name for name in dir()
    if not name.startswith("_")]`, in a list, a generator or a set), or None where it is no
    such comprehension or tests more than the name by str methods, `in` and `==`."""
    if not isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp)) \
            or len(node.generators) != 1:
        return None
    loop = node.generators[0]
    if not isinstance(loop.target, ast.Name) or loop.is_async \
            or not isinstance(node.elt, ast.Name) or node.elt.id != loop.target.id \
            or not isinstance(loop.iter, ast.Call) or not isinstance(loop.iter.func, ast.Name) \
            or loop.iter.func.id != "dir" or loop.iter.args or loop.iter.keywords:
        return None
    tests = [_name_test(condition, loop.target.id) for condition in loop.ifs]
    if any(test is None for test in tests):
        return None
    return lambda name: all(test(name) for test in tests)


# The str methods a test of a name may call: what they answer depends on the name alone.
_NAME_METHODS = frozenset({"startswith", "endswith", "isupper", "islower", "isidentifier"})


def _name_test(node, variable: str):
    """Return a function of a name that a condition on `variable` is, or None (_dir_test)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = _name_test(node.operand, variable)
        return None if inner is None else (lambda name: not inner(name))
    if isinstance(node, ast.BoolOp):
        parts = [_name_test(value, variable) for value in node.values]
        if any(part is None for part in parts):
            return None
        combine = all if isinstance(node.op, ast.And) else any
        return lambda name: combine(part(name) for part in parts)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and isinstance(node.func.value, ast.Name) and node.func.value.id == variable \
            and node.func.attr in _NAME_METHODS and not node.keywords:
        try:
            arguments = [ast.literal_eval(argument) for argument in node.args]
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return None
        method = node.func.attr
        if not all(isinstance(a, str) or isinstance(a, tuple)
                   and all(isinstance(p, str) for p in a) for a in arguments):
            return None
        try:
            getattr("", method)(*arguments)  # the arguments the method takes
        except TypeError:
            return None
        return lambda name: bool(getattr(name, method)(*arguments))
    if isinstance(node, ast.Compare) and len(node.ops) == 1 \
            and isinstance(node.left, ast.Name) and node.left.id == variable:
        try:
            other = ast.literal_eval(node.comparators[0])
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return None
        comparison = node.ops[0]
        if isinstance(comparison, (ast.In, ast.NotIn)) and isinstance(
                other, (tuple, list, set, frozenset)) and all(isinstance(o, str) for o in other):
            return (lambda name: name in other) if isinstance(comparison, ast.In) \
                else (lambda name: name not in other)
        if isinstance(comparison, (ast.Eq, ast.NotEq)) and isinstance(other, str):
            return (lambda name: name == other) if isinstance(comparison, ast.Eq) \
                else (lambda name: name != other)
    return None


def compiled_rebindings(package: PackageSource) -> None:
    """Mark (DocObject.compiled) each function or class a module defines that a later
    `NAME = ext.ATTRIBUTE` binds to what a compiled module of the package gives (imported
    from the package, no Python source of it read: pymongo's `if _USE_C: decode_all =
    _cbson.decode_all`): where the extension is built, as for the published docs, Python
    binds the name to the extension's object, whose __module__ is the extension's."""
    found = []
    for module in package.modules.values():
        for name in module.objects[""].members if "" in module.objects else ():
            obj, value = module.objects.get(name), module.assigned.get(name)
            if obj is None or obj.kind not in (FUNCTION, CLASS, EXCEPTION) \
                    or not isinstance(value, ast.Attribute) \
                    or not isinstance(value.value, ast.Name) or value.lineno <= obj.end_line:
                continue
            source = module.imports.get(value.value.id, "")
            if source.partition(".")[0] == module.name.partition(".")[0] \
                    and package.resolve(source) is None:
                found.append((module, name, obj))
    for module, name, obj in found:
        module.objects[name] = replace(obj, compiled=True)
    if found:
        package.changed()


def derived_exceptions(package: PackageSource) -> None:
    """Make each class that derives from an exception class of the package (or of a
    dependency read), however far up, an exception: autodoc's ExceptionDocumenter takes any
    subclass of BaseException (`class AutoReconnect(ConnectionFailure)` is `exception`), where
    the source says so only of a class naming an exception base itself."""
    found = [(module, key, obj) for module in package.modules.values()
             for key, obj in module.objects.items() if obj.kind == CLASS
             and any(base.kind == EXCEPTION for _, base in package.bases(module, obj))]
    for module, key, obj in found:
        module.objects[key] = replace(obj, kind=EXCEPTION)
    if found:
        package.changed()


def descriptor_members(package: PackageSource) -> None:
    """Make each method whose outermost decorator is a class of the package whose `__get__`
    gives the descriptor itself on class access (DocObject.gives_itself) an attribute: what
    autodoc's getattr gets on the class is then that instance, no function, which it documents
    as an attribute (pandas' `@cache_readonly`, bound to the CachedProperty class of
    pandas/_libs/properties.pyx); one that gives something else there may give a function
    (SQLAlchemy's hybridmethod gives a bound method: a method). One whose `__get__` tells no
    class access apart (DocObject.computes_on_class) computes a value there: an attribute
    without a docstring of its own. Read once all modules are, since the decorator's class
    may be defined in any of them."""
    found = []
    for module in package.modules.values():
        for key, obj in module.objects.items():
            if obj.decorator is None:
                continue
            decorator = package.resolve(f"{module.name}.{obj.decorator}")
            if decorator is not None and decorator[1].kind == CLASS \
                    and decorator[1].gives_itself:
                found.append((module, key, replace(obj, kind=ATTRIBUTE)))
            elif decorator is not None and decorator[1].kind == CLASS \
                    and decorator[1].computes_on_class:
                # Read on the class, it is what its __get__ computes (a class property's
                # value): a value whose docstring is its type's, which autodoc drops.
                found.append((module, key, replace(obj, kind=ATTRIBUTE, docstring=None)))
    for module, key, obj in found:
        module.objects[key] = obj
    if found:
        package.changed()


class ParsedModules:
    """Modules parsed before, kept pickled, each read back a fresh copy (read_package's passes
    change the modules they are given): a build reads a release's package twice, once to
    decide which other releases its docs need (sources/dependencies.py) and once to read it,
    and parsing sympy 1.9's again took 10 of its 25 seconds; read back, half a second (the
    layout's look at a test-named module's siblings, sources/layout.py, reads some before
    both). At most max_bytes of them are kept, the oldest dropped first."""

    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        self._kept: dict = {}  # (name, path, sha256 hex of the bytes) -> the pickled Module
        self._size = 0
        self._lock = threading.Lock()

    def parse(self, name: str, relative_path: str, data: bytes) -> Module:
        """Return parse_module's Module of a module's bytes (raising as it raises)."""
        sha256 = hashlib.sha256(data).hexdigest()
        key = (name, relative_path, sha256)
        with self._lock:
            kept = self._kept.get(key)
        if kept is not None:
            module = pickle.loads(kept)
            module.lines = list(map(sys.intern, module.lines))  # as parse_module shares them
            return module
        module = parse_module(name, relative_path, data, sha256)
        try:
            kept = pickle.dumps(module, protocol=pickle.HIGHEST_PROTOCOL)
        except RecursionError:  # an expression nested deeper than pickle goes: parsed again
            return module
        if len(kept) <= self.max_bytes:
            with self._lock:
                if key not in self._kept:
                    self._kept[key] = kept
                    self._size += len(kept)
                while self._size > self.max_bytes:
                    self._size -= len(self._kept.pop(next(iter(self._kept))))
        return module


# What read_package parses: sympy 1.9's 1,545 modules pickle to 36 MB.
PARSED = ParsedModules(64 * 1024 * 1024)


def parse_module(name: str, relative_path: str, data: bytes,
                 sha256: str | None = None) -> Module:
    """Parse one module's bytes (raises UnicodeDecodeError, SyntaxError or ValueError);
    sha256: their hex digest, where the caller has it already."""
    text = decode_source(data)
    if "\r" in text.replace("\r\n", ""):
        raise ValueError("a carriage return without a line feed (line numbers would differ)")
    python = cython.skeleton(text) if relative_path.endswith(".pyx") else text
    tree = ast.parse(python.removeprefix("\ufeff"), filename=relative_path)
    # Interned: a package's modules repeat lines (blank, `"""`, generated code), and every
    # module's lines are kept until the build is written. plotly 5.16.1's 864,770 lines are
    # 83,684 distinct: 69 MiB of line objects, 8 MiB shared.
    lines = list(map(sys.intern, text.split("\n")))
    module = Module(name, relative_path, sha256 or hashlib.sha256(data).hexdigest(), lines)
    reader = _Reader(module, relative_path.endswith("__init__.py"))
    reader.body(tree.body, name, "", is_class=False)
    reader.assigned_docs()
    for local in module.documents:
        # numpy's `add_newdoc(place, "ndarray", ("reshape", ...))`: a class of those members.
        obj = module.objects.get(local)
        if obj is not None and reader.members.get(local) and not obj.members:
            module.objects[local] = replace(obj, kind=CLASS,
                                            members=tuple(reader.members[local]))
    docstring = _docstring_node(tree.body)
    # Without a docstring, a module's `__doc__ = """..."""` is what Python binds as it
    # (pyparsing's, after its licence comment): autodoc shows it, as a class's.
    assigned_doc = None if docstring is not None else _assigned_doc(tree.body)
    if docstring is not None:
        module.objects[""] = DocObject(
            name, MODULE, "", _clean(docstring), relative_path, docstring.lineno,
            docstring.end_lineno, tuple(reader.members[""]))
    elif assigned_doc is not None:
        first, last, text, expression = assigned_doc
        module.objects[""] = DocObject(name, MODULE, "", text, relative_path, first, last,
                                       tuple(reader.members[""]), doc_expression=expression)
    else:
        module.objects[""] = DocObject(name, MODULE, "", None, relative_path, 0, 0,
                                       tuple(reader.members[""]))
    return module


def _docstring_node(body: list):
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        return body[0]
    return None


def _clean(node) -> str:
    return inspect.cleandoc(node.value.value)


def _literal_names(node) -> tuple | None:
    try:
        value = ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    if isinstance(value, (list, tuple)) and all(isinstance(item, str) for item in value):
        return tuple(value)
    return None


class DocComments:
    """The `#:` doc comments of a module's lines, read once: each assignment looks up its own.

    An assignment is documented by a `#:` comment after code on its own line, else by the run
    of lines right above it that hold only a `#:` comment starting at its column. Each line is
    scanned once here and each answer joined once, so a statement of thousands of targets under
    thousands of comment lines, or thousands of statements on one line, costs what its size
    does (re-read per target, a 51 KB module took over a minute).
    """

    def __init__(self, lines: list):
        self._lines = lines
        # Per line (0-based): the column of a line holding only a `#:` comment, else -1; and
        # the first line of the run of such lines at that column it ends.
        self._column = [-1] * len(lines)
        self._first = list(range(len(lines)))
        for index, line in enumerate(lines):
            if line.strip().startswith("#:"):
                self._column[index] = column = line.find("#:")
                if index and self._column[index - 1] == column:
                    self._first[index] = self._first[index - 1]
        self._inline: dict = {}  # line number -> text of a `#:` after code on it, or None
        self._above: dict = {}  # (line number, column) -> (first line, text) or None

    def of(self, lineno: int, column: int):
        """Return (first line, text) documenting an assignment at a line and column, or None."""
        if lineno not in self._inline:
            code, sep, text = self._lines[lineno - 1].partition("#:")
            self._inline[lineno] = text.strip() if sep and code.strip() else None
        if self._inline[lineno] is not None:
            return lineno, self._inline[lineno]
        key = (lineno, column)
        if key not in self._above:
            above = lineno - 2  # 0-based index of the line above
            if above < 0 or self._column[above] != column:
                self._above[key] = None
            else:
                first = self._first[above]
                self._above[key] = first + 1, "\n".join(
                    line.strip()[2:].strip() for line in self._lines[first:above + 1])
        return self._above[key]


class _Reader:
    """Walks module and class bodies, recording their objects, members and imports."""

    def __init__(self, module: Module, is_package: bool):
        self.module = module
        self.is_package = is_package
        # path -> {member name: None}: the names in order, each once (a dict, so that a
        # statement of thousands of targets is not looked up in a list once per target).
        self.members: dict = {}
        self.comments = DocComments(module.lines)
        # The classes (dotted) whose body sets `__module__` to another module's name: autodoc
        # reads their attributes' doc comments and strings from that module's source
        # (ModuleAnalyzer.for_module of the class's __module__), which has none of them.
        self.unanalyzed: set = set()
        # How many branches (`if`, `try`: _blocks) the statement read is inside.
        self.branched = 0
        self.type_checking = 0  # how many `if TYPE_CHECKING:` blocks the statement is in
        # The module's functions that bind a module's __all__ names in its globals (_reexports).
        self.reexporters: set = set()
        # A module body's `NAME.__doc__ = ...` (torch.optim's `Adam.__doc__ = r"..." +
        # fr"..."`): the dotted name below the module -> the statement (the last one).
        self.doc_assignments: dict = {}
        # Members a classmethod binds onto its class (pandas' NDFrame._add_numeric_operations:
        # `@doc(_num_doc, ...) def mean(...)` then `setattr(cls, "mean", mean)`): the class's
        # dotted name below the module -> {member name: the nested function's node}.
        self.bound_members: dict = {}

    def _package(self, level: int) -> str:
        parts = self.module.name.split(".")
        keep = len(parts) - level + (1 if self.is_package else 0)
        return ".".join(parts[:max(keep, 0)])

    def _imports(self, statement, imports: dict | None = None):
        """Record what an import statement binds: in the module's imports, else in imports."""
        bound = self.module.imports if imports is None else imports
        lines = self.module.import_lines if imports is None else {}
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                local = alias.asname or alias.name.split(".")[0]
                bound[local] = alias.name if alias.asname else local
                lines.setdefault(local, statement.lineno)
        elif isinstance(statement, ast.ImportFrom):
            base = statement.module or ""
            if statement.level:
                package = self._package(statement.level)
                base = f"{package}.{base}" if base and package else (base or package)
            for alias in statement.names:
                if alias.name == "*":
                    if imports is None:
                        self.module.star_imports.append(base)
                        lines.setdefault(f"*{base}", statement.lineno)
                else:
                    bound[alias.asname or alias.name] = f"{base}.{alias.name}"
                    lines.setdefault(alias.asname or alias.name, statement.lineno)

    def _reexported(self, statement):
        """Record a call of one of the module's re-exporting functions (_reexports) on a
        module as a star import of it (patsy's `_reexport(patsy.highlevel)`)."""
        if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)
                and isinstance(statement.value.func, ast.Name)
                and statement.value.func.id in self.reexporters
                and len(statement.value.args) == 1 and not statement.value.keywords):
            return
        written = ast.unparse(statement.value.args[0])
        bound = self.module.imported_name(written)
        if bound is not None and all(part.isidentifier() for part in written.split(".")):
            self.module.star_imports.append(bound)

    def _attached(self, statement, prefix: str):
        """Record a module-level `Class.name = function` of a class the module defined above
        it as that class's member, bound as a class body's `name = function` is (agate's
        `Table.aggregate = aggregate` for each method it keeps in a module of its own): a
        routine of the class, which autodoc's `:members:` documents, by the function's
        docstring."""
        if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Attribute)
                and isinstance(statement.targets[0].value, ast.Name)
                and isinstance(statement.value, (ast.Name, ast.Attribute))):
            return
        owner, name = statement.targets[0].value.id, statement.targets[0].attr
        cls = self.module.objects.get(owner)
        # Not a private or special name: `Class.__doc__ = other.__doc__` is a docstring
        # (_doc_assignment), no member.
        if cls is None or cls.kind not in (CLASS, EXCEPTION) or name in cls.members \
                or name.startswith("_") or self.branched:
            return
        found = self._assignment(statement, None, f"{prefix}.{owner}.{name}", ATTRIBUTE)
        if found is None:
            return
        self.module.objects[f"{owner}.{name}"] = replace(
            found, bound=ast.unparse(statement.value),
            wraps=self._assigned_from(statement, owner))
        self.module.objects[owner] = replace(cls, members=(*cls.members, name))
        self.members.setdefault(owner, {})[name] = None

    def _lazy_attributes(self, function: ast.FunctionDef) -> None:
        """Bind the names a module's `__getattr__` (PEP 562) returns under a literal name.

        autodoc imports the module and reads `getattr(module, NAME)`, which calls it for a
        name the module does not bind: each `if name == "NAME":` branch returning a name it
        imports (click 8.2's deprecated `BaseCommand`: `from .core import _BaseCommand`, then
        `return _BaseCommand`) or one the module binds is that object under NAME. A name the
        module binds itself is not replaced (Python never calls __getattr__ for it).
        """
        if not function.args.args:
            return
        parameter = function.args.args[0].arg
        for branch in ast.walk(function):
            if not isinstance(branch, ast.If) or not isinstance(branch.test, ast.Compare):
                continue
            test = branch.test
            if not (isinstance(test.left, ast.Name) and test.left.id == parameter
                    and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)
                    and isinstance(test.comparators[0], ast.Constant)
                    and isinstance(test.comparators[0].value, str)):
                continue
            returned = next((statement.value for statement in branch.body
                             if isinstance(statement, ast.Return)), None)
            if not isinstance(returned, ast.Name):
                continue
            local: dict = {}
            for statement in branch.body:
                self._imports(statement, local)
            self.module.imports.setdefault(
                test.comparators[0].value,
                local.get(returned.id) or f"{self.module.name}.{returned.id}")

    def body(self, statements: list, prefix: str, path: str, is_class: bool):
        """Record the objects a module or class body defines, in source order."""
        members = self.members.setdefault(path, {})
        for index, statement in enumerate(statements):
            if _type_checking(statement):
                # `if TYPE_CHECKING:` defines nothing on import (autodoc's): its `else:` is
                # what runs, read first so that its binding of a name is the one kept
                # (SQLAlchemy 2.0's `memoized_property = _memoized_property`, over the mypy-only
                # `generic_fn_descriptor`). What only the block defines stands for what the
                # module makes at run time, which it declares there for type checkers
                # (alembic's Operations stubs; transformers' imports its _LazyModule gives).
                self.branched += 1
                self.body(statement.orelse, prefix, path, is_class)
                self.type_checking += 1
                self.body(statement.body, prefix, path, is_class)
                self.type_checking -= 1
                self.branched -= 1
                continue
            decided = _decided_branch(statement)
            if decided is not None:
                self.body(decided, prefix, path, is_class)  # no branch: what always runs
                continue
            blocks = _blocks(statement)
            if blocks:
                # `if sys.version_info >= (3, 8):`, `try: ... except ImportError:`: what either
                # branch defines is defined (the first definition of a name is the one kept).
                self.branched += 1
                for block in blocks:
                    self.body(block, prefix, path, is_class)
                self.branched -= 1
                continue
            if not is_class:
                self._imports(statement)
                self._reexported(statement)
                self._attached(statement, prefix)
                self._all(statement)
                self._assigned(statement)
                self._doc_assignment(statement)
                if isinstance(statement, ast.FunctionDef) and statement.name == "__getattr__" \
                        and not path:
                    self._lazy_attributes(statement)
            else:
                self._module_items(statement, members)
                self._class_scope(statement, path, members)
                self._bound_onto_class(statement, path)
            following = statements[index + 1] if index + 1 < len(statements) else None
            for obj_name, obj in self._objects(statement, following, prefix, path, is_class):
                members.setdefault(obj_name)
                key = f"{path}.{obj_name}" if path else obj_name
                kept = _kept(self.module.objects.get(key), obj, bool(self.type_checking))
                if kept is not None:
                    self.module.objects[key] = kept

    def _all(self, statement):
        if isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) \
                else [statement.target]
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets) \
                    and statement.value is not None:
                self.module.all_statements.append((statement, self.branched > 0))
                names = _literal_names(statement.value)
                if names is not None:
                    before = self.module.all_names or ()
                    added = isinstance(statement, ast.AugAssign)
                    self.module.all_names = before + names if added else names
                else:
                    self.module.all_computed = True
        elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            func = statement.value.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
                    and func.value.id == "__all__":
                self.module.all_statements.append((statement, self.branched > 0))
                self.module.all_computed = True  # `__all__.extend(core.__all__)`

    def _assigned(self, statement):
        _record_assignment(statement, self.module.assigned, self.module.items)

    def _doc_assignment(self, statement):
        written = _doc_assigned_to(statement)
        if written is not None:
            self.doc_assignments[written] = statement

    def _bound_onto_class(self, statement, path: str):
        """Record the functions a class body's method defines and binds onto its first
        parameter (`setattr(cls, "mean", mean)`, `cls.mean = mean`)."""
        if not isinstance(statement, ast.FunctionDef) or not statement.args.args:
            return
        owner = statement.args.args[0].arg
        nested = {node.name: node for node in statement.body if isinstance(node, ast.FunctionDef)}
        for node in statement.body:
            if not isinstance(node, (ast.Expr, ast.Assign)):
                continue
            bound = _bound_member(node, owner)
            if bound is not None and bound[1] in nested:
                self.bound_members.setdefault(path, {})[bound[0]] = nested[bound[1]]

    def assigned_docs(self):
        """Give each class or function of the module whose `__doc__` its body later assigns
        (doc_assignments) that docstring, as Python binds it: the text written out, the
        expression for templates.py to evaluate where it is no literal."""
        for path, statement in self.doc_assignments.items():
            obj = self.module.objects.get(path)
            text = _literal_text(statement.value)
            if obj is None or obj.kind not in (CLASS, EXCEPTION, FUNCTION, METHOD) \
                    or text is None:
                continue
            expression = None if isinstance(statement.value, ast.Constant) else statement.value
            self.module.objects[path] = replace(obj, docstring=inspect.cleandoc(text),
                                                doc_expression=expression)
        for owner, bound in self.bound_members.items():
            for member, node in bound.items():
                # The class's own undocumented definition of it is replaced at import time:
                # its docstring is the one the bound function's decorators assemble.
                obj = self.module.objects.get(f"{owner}.{member}")
                if obj is not None and obj.kind == METHOD and obj.docstring is None \
                        and not obj.templates:
                    self.module.objects[f"{owner}.{member}"] = replace(
                        obj, templates=_template_decorators(node))

    def _module_items(self, statement, members: dict):
        """Record a class body's `NAME["key"] = value` where the class binds neither NAME nor
        a name the value reads before it (members: the names it binds so far) as the module's
        entry: a class body looks such a name up in its module, so the entry is the module's
        dict's (pandas' strings/accessor.py fills `_shared_docs["str_pad"]` inside
        StringMethods, for the `@Appender` of the methods below it)."""
        if not isinstance(statement, ast.Assign):
            return
        read = {node.id for node in ast.walk(statement.value) if isinstance(node, ast.Name)}
        if read & members.keys():
            return
        for target in statement.targets:
            item = _string_item(target)
            if item is not None and item[0] not in members:
                self.module.items.setdefault(item[0], {})[item[1]] = statement.value

    def _class_scope(self, statement, path: str, members: dict):
        """Record a class body's `NAME = value` and, of a NAME it binds, `NAME["key"] = value`
        in Module.class_scopes (pandas' StringMethods `_doc_args["lower"] = {...}`)."""
        if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None:
            assigned, items = self.module.class_scopes.setdefault(path, ({}, {}))
            _record_assignment(statement, assigned, items, item_names=members)

    def _objects(self, statement, following, prefix, path, is_class):
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if isinstance(statement, ast.FunctionDef) and not is_class:
                self._setter_wrapper(statement)
                if not path and _grows_all(statement, self.module.lines):
                    # numpy/core/numeric.py's `extend_all(fromnumeric)` appends to __all__
                    # from a function: what __all__ holds, only running it tells.
                    self.module.all_computed = True
                    self.module.all_statements.append((statement, self.branched > 0))
                if not path and _reexports(statement, self.module.lines):
                    self.reexporters.add(statement.name)
                if not path and _computes(statement):
                    self.module.computing_functions[statement.name] = (
                        statement.lineno, statement.end_lineno or statement.lineno)
            yield statement.name, self._definition(statement, prefix, path, is_class)
        elif isinstance(statement, ast.Expr) and not is_class:
            yield from self._documented_elsewhere(statement, prefix)
        elif isinstance(statement, (ast.Assign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) \
                else [statement.target]
            alias = bound = None
            if isinstance(statement.value, (ast.Name, ast.Attribute)):
                if is_class:
                    bound = ast.unparse(statement.value)
                else:
                    alias = ast.unparse(statement.value)
            kind = ATTRIBUTE if is_class else DATA
            if is_class and isinstance(statement.value, ast.Call) \
                    and isinstance(statement.value.func, ast.Name) \
                    and statement.value.func.id in _METHOD_WRAPPERS:
                # `default = staticmethod(_default)`: a routine of the class, which autodoc
                # documents as a method (`static default(o)`), not an attribute.
                kind = METHOD
            call = _call_written(statement.value) if is_class else None
            for target in targets:
                if isinstance(target, ast.Name) and target.id != "__all__":
                    found = self._assignment(statement, following, f"{prefix}.{target.id}",
                                             kind)
                    if found is not None and call is not None:
                        found = replace(found, call=call)
                    getter_name = _property_getter(statement.value) if is_class else None
                    getter = self.module.objects.get(f"{path}.{getter_name}") \
                        if getter_name else None
                    if found is not None and found.docstring is None \
                            and getter is not None and getter.docstring is not None:
                        # `accepts_html = property(fget=accept_html, doc=accept_html.__doc__)`
                        # (webob), or property(f) alone: the getter's docstring, as Python's
                        # property copies it where no doc is given.
                        found = replace(found, docstring=getter.docstring)
                    if found is not None and found.docstring is None:
                        found = replace(found, wraps=self._assigned_from(statement, path),
                                        alias=alias, bound=bound,
                                        # A class attribute's value shows no docstring
                                        # (autodoc's NonDataDescriptorMixin): a module's does.
                                        called=None if is_class else _called(statement),
                                        docstring_call=statement.value if isinstance(
                                            statement.value, ast.Call) else None)
                    same = self.module.objects.get(self._assigned_from(statement, path) or "") \
                        if found is not None and bound is not None else None
                    if same is not None and same.kind == METHOD:
                        # `product = prod` in a class body, prod a method above it: the same
                        # function, which autodoc documents as a method (by the docstring
                        # after the assignment where one follows: mako's `put = set`).
                        found = replace(found, kind=METHOD)
                    fields = _named_tuple_call(statement.value, target.id) \
                        if found is not None and isinstance(target, ast.Name) else None
                    if fields is not None:
                        found = self._named_tuple_class(found, fields, path)
                    if found is not None:
                        yield target.id, found
                    if is_class and isinstance(target, ast.Name) and target.id == "__slots__":
                        yield from self._slot_members(statement.value, prefix, path)
                elif isinstance(target, (ast.Tuple, ast.List)):
                    # `NEW_TAG, NEW_HEAD, ERROR = [1 << x for x in range(3)]` (GitPython's
                    # FetchInfo): each name is bound, and autodoc's analyzer gives each the
                    # doc comment or string of the assignment (get_lvar_names).
                    for name in _unpacked_names(target):
                        yield name, self._assignment(statement, following, f"{prefix}.{name}",
                                                     ATTRIBUTE if is_class else DATA)

    def _slot_members(self, value, prefix: str, path: str):
        """Yield (name, DocObject) of each name a class body's `__slots__` lists (_slot_entries):
        autodoc's get_class_members takes each as a member of the class (a `__slots__` dict's
        values are their docstrings); each quotes its entry."""
        scope = self.module.class_scopes.get(path, ({}, {}))[0]
        for key, doc in self._slot_entries(value, scope, 0) or ():
            if not isinstance(key, ast.Constant) or not isinstance(key.value, str) \
                    or not key.value.isidentifier():
                continue
            text = doc.value if isinstance(doc, ast.Constant) else None
            end = (doc if isinstance(text, str) and doc else key).end_lineno or key.lineno
            yield key.value, DocObject(
                f"{prefix}.{key.value}", ATTRIBUTE, "",
                inspect.cleandoc(text) if isinstance(text, str) else None, self.module.path,
                key.lineno, end, slot=True)

    def _slot_entries(self, value, scope: dict, depth: int) -> list | None:
        """Return (key node, docstring node or None) of each entry of a `__slots__` value as
        the class body evaluates it: a literal string, tuple, list or dict, sequences joined by
        `+`, and a name bound to one (`__slots__ = _fields + ("event",)`: celery's
        events.state.Worker), looked up in the class body first, then the module, as Python
        does; None where the source does not give it."""
        if depth > _MAX_HOPS:
            return None
        if isinstance(value, ast.Constant):
            return [(value, None)]
        if isinstance(value, (ast.Tuple, ast.List)):
            return [(element, None) for element in value.elts]
        if isinstance(value, ast.Dict):
            return list(zip(value.keys, value.values, strict=True))
        if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add) \
                and not isinstance(value.left, ast.Dict) \
                and not isinstance(value.right, ast.Dict):
            left = self._slot_entries(value.left, scope, depth + 1)
            right = self._slot_entries(value.right, scope, depth + 1)
            return None if left is None or right is None else left + right
        if isinstance(value, ast.Name):
            bound = scope.get(value.id, self.module.assigned.get(value.id))
            return None if bound is None else self._slot_entries(bound, scope, depth + 1)
        return None

    def _documented_elsewhere(self, statement, prefix: str):
        """Yield the compiled object a statement gives its docstring to (a DOCSTRING_SETTERS
        call on a dotted name, a call of this module's setter wrapper, or NEWDOC_SETTERS':
        _new_doc), under its last name here, and record the name it is documented by
        (Module.documents)."""
        value = statement.value
        if isinstance(value, ast.Call) and _base_name(value.func) in NEWDOC_SETTERS:
            yield from self._new_doc(statement, prefix)
            return
        owner = self.module.setter_wrappers.get(_base_name(value)) \
            if isinstance(value, ast.Call) else None
        docstring = _attached_docstring(value, owner is not None)
        if docstring is None:
            return
        target = value.args[0]
        if owner is not None and isinstance(target, ast.Constant) \
                and isinstance(target.value, str):
            written = [*owner.split("."), target.value]
        elif owner is None and isinstance(target, ast.Attribute):
            written = ast.unparse(target).split(".")
        else:
            return
        # A private member (`"_coalesced_"`) is no API, as everywhere else.
        if not all(part.isidentifier() for part in written) or written[-1].startswith("_") \
                or written[0] not in self.module.imports:
            return
        self.module.documents.setdefault(
            written[-1], ".".join([self.module.imports[written[0]], *written[1:]]))
        yield written[-1], DocObject(f"{prefix}.{written[-1]}", FUNCTION, "", docstring,
                                     self.module.path, statement.lineno, statement.end_lineno)

    def _new_doc(self, statement, prefix: str):
        """Yield the object numpy's `add_newdoc(place, obj, doc)` documents (doc: its text),
        or record the members it documents ((attribute, text), or a list of them), under obj
        here; the name it is documented by is `place.obj` (Module.documents). scipy.special's
        `add_newdoc(obj, doc)` (its _add_newdocs.py: the docstrings its build gives the
        compiled ufuncs the package star-imports) documents `obj` of the module's package."""
        call = statement.value
        if len(call.args) not in (2, 3, 4) or call.keywords \
                or len(call.args) == 2 and "." not in self.module.name:
            return
        first, second = (arg.value if isinstance(arg, ast.Constant) else None
                         for arg in call.args[:2])
        place, name = (self.module.name.rpartition(".")[0], first) if len(call.args) == 2 \
            else (first, second)
        if not (isinstance(place, str) and isinstance(name, str)
                and all(part.isidentifier() for part in f"{place}.{name}".split("."))
                and name.isidentifier() and not name.startswith("_")):
            return
        lines = (self.module.path, statement.lineno, statement.end_lineno)
        doc = call.args[1 if len(call.args) == 2 else 2]
        text = _literal_text(doc)
        # (attribute, text) alone, or a list of them.
        entries = doc.elts if isinstance(doc, ast.List) else [doc]
        pairs = [entry.elts for entry in entries
                 if isinstance(entry, ast.Tuple) and len(entry.elts) == 2]
        if text is None and (not pairs or len(pairs) != len(entries)):
            return
        self.module.documents.setdefault(name, f"{place}.{name}")
        existing = self.module.objects.get(name)
        if text is not None:
            if existing is None:
                # scipy's are all ufuncs, instances autodoc describes as data (`= <ufunc>`).
                kind = DATA if len(call.args) == 2 else FUNCTION
                yield name, DocObject(f"{prefix}.{name}", kind, "", inspect.cleandoc(text),
                                      *lines)
            elif existing.docstring is None:  # its members came first
                self.module.objects[name] = replace(existing, docstring=inspect.cleandoc(text))
            return
        if existing is None:
            yield name, DocObject(f"{prefix}.{name}", CLASS, "", None, *lines)
        members = self.members.setdefault(name, {})
        for attribute_node, member_node in pairs:
            attribute = attribute_node.value if isinstance(attribute_node, ast.Constant) \
                else None
            member_text = _literal_text(member_node)
            if not isinstance(attribute, str) or not attribute.isidentifier() \
                    or attribute.startswith("_") or member_text is None \
                    or f"{name}.{attribute}" in self.module.objects:
                continue
            members.setdefault(attribute)
            self.module.objects[f"{name}.{attribute}"] = DocObject(
                f"{prefix}.{name}.{attribute}", METHOD, "", inspect.cleandoc(member_text),
                *lines)

    def _setter_wrapper(self, node):
        """Record a function that gives a member of an object, named by its first parameter,
        the docstring its second is (Module.setter_wrappers)."""
        args = node.args
        names = [arg.arg for arg in args.args]
        body = node.body[1:] if _docstring_node(node.body) is not None else node.body
        if len(names) != 2 or args.vararg or args.kwarg or args.kwonlyargs or len(body) != 1 \
                or not isinstance(body[0], ast.Expr):
            return
        call = body[0].value
        if not (isinstance(call, ast.Call) and _base_name(call.func) in DOCSTRING_SETTERS
                and len(call.args) == 2 and isinstance(call.args[1], ast.Name)
                and call.args[1].id == names[1]):
            return
        target = call.args[0]
        if isinstance(target, ast.Call) and _base_name(target.func) == "getattr" \
                and len(target.args) == 2 and isinstance(target.args[1], ast.Name) \
                and target.args[1].id == names[0] \
                and isinstance(target.args[0], (ast.Name, ast.Attribute)):
            self.module.setter_wrappers[node.name] = ast.unparse(target.args[0])

    def _assigned_from(self, statement, path: str) -> str | None:
        """Return the function an undocumented assignment is bound to, as written below its
        module (or None): `notin_ = not_in` in a class body (the same function: a member of
        the class where the class defines it), `select = public_factory(Select._create, ...)`
        (a wrapper given it first, which copies its docstring at import time)."""
        value = statement.value
        if isinstance(value, ast.Call) and value.args:
            value = value.args[0]
        if not isinstance(value, (ast.Name, ast.Attribute)):
            return None
        written = ast.unparse(value)
        if path and isinstance(value, ast.Name) and written in self.members.get(path, ()):
            return f"{path}.{written}"
        return written

    def _definition(self, node, prefix: str, path: str, is_class: bool) -> DocObject:
        name = f"{prefix}.{node.name}"
        own_path = f"{path}.{node.name}" if path else node.name
        header_end, signature = self._header(node)
        docstring = _docstring_node(node.body)
        start = min([node.lineno] + [d.lineno for d in node.decorator_list])
        end = docstring.end_lineno if docstring is not None else header_end
        text = None if docstring is None else _clean(docstring)
        assigned_doc = None if docstring is not None or not isinstance(node, ast.ClassDef) \
            else _assigned_doc(node.body)
        if assigned_doc is not None:
            _, end, text, _ = assigned_doc
        elif text is None and isinstance(node, ast.ClassDef):
            text = _generated_class_doc(node)
        if isinstance(node, ast.ClassDef):
            if _module_set(node) not in (None, self.module.name):
                self.unanalyzed.add(name)
            self.body(node.body, name, own_path, is_class=True)
            if any(_base_name(base).rpartition(".")[2] == "NamedTuple" for base in node.bases):
                self._named_tuple_fields(node, own_path)
            kind = EXCEPTION if any(_base_name(base).endswith(_EXCEPTION_BASES)
                                    or _base_name(base) in _OTHER_EXCEPTIONS
                                    for base in node.bases) else CLASS
            init = next((s for s in node.body if isinstance(s, ast.FunctionDef)
                         and s.name == "__init__"), None)
            # A class's signature is its __init__'s; without one of its own, what it inherits
            # (PackageSource.signature_of), never its bases as written after its name.
            signature = "" if init is None else self._header(init)[1]
            self._instance_attributes(init, name, own_path)
            if docstring is not None:
                self._attributes_section(docstring, name, own_path)
            # Instance attributes are found after the class body: put them where __init__ is.
            members = tuple(sorted(self.members.get(own_path, ()), key=lambda member: self.module
                                   .objects[f"{own_path}.{member}"].start_line))
        else:
            decorators = {_base_name(d) for d in node.decorator_list}
            # A `*property` or `*_attribute` decorator (property, cached_property, sqlalchemy's
            # memoized_property, hybrid_property, memoized_attribute) makes a descriptor, no
            # routine: autodoc documents such a member as an attribute.
            is_property = any(name.endswith(("property", "_attribute")) for name in decorators)
            kind = (ATTRIBUTE if is_property else METHOD) if is_class else FUNCTION
            members = ()
        # A subscripted base is the generic class it parametrizes (pandas' `class
        # GroupBy(BaseGroupBy[NDFrameT])` inherits BaseGroupBy's get_group).
        bases = tuple(ast.unparse(base) for base in (
            written.value if isinstance(written, ast.Subscript) else written
            for written in getattr(node, "bases", ()))
            if isinstance(base, (ast.Name, ast.Attribute)))
        templates = _template_decorators(node)
        # `@typing.overload`, or a package's own overload decorator of that name (torch's
        # `@_overload` stubs of `torch.nn.functional.interpolate`, before its definition).
        overload = any(_base_name(d).lstrip("_") == "overload" for d in node.decorator_list)
        wraps = None if docstring is not None or isinstance(node, ast.ClassDef) else next(
            (ast.unparse(d.args[0]) for d in node.decorator_list
             if isinstance(d, ast.Call) and len(d.args) == 1 and not d.keywords
             and isinstance(d.args[0], (ast.Name, ast.Attribute))), None)
        # typing's `final` returns the function itself: what is applied before it decides.
        applied = [d for d in node.decorator_list if _base_name(d) != "final"]
        decorator = ast.unparse(applied[0]) if is_class and applied and isinstance(
            applied[0], (ast.Name, ast.Attribute)) and kind in (METHOD, ATTRIBUTE) else None
        return DocObject(name, kind, signature, text,
                         self.module.path, start, end, members, bases, templates, overload,
                         wraps, deprecation=code_deprecation(node),
                         command_object=not is_class and not path
                         and self._makes_command(node.decorator_list),
                         docstring_members=tuple(
                             name for name in auto_directive_names(
                                 self.module.lines, docstring.lineno, docstring.end_lineno)
                             if name in members)
                         if isinstance(node, ast.ClassDef) and docstring is not None else (),
                         class_access=_class_access(node) if isinstance(node, ast.ClassDef)
                         else None, decorator=decorator,
                         gives_itself=isinstance(node, ast.ClassDef) and _gives_itself(node),
                         computes_on_class=isinstance(node, ast.ClassDef)
                         and _computes_on_class(node),
                         doc_parameter=_instance_doc_parameter(node)
                         if isinstance(node, ast.ClassDef)
                         else None if is_class else _doc_parameter(node),
                         doc_expression=None if assigned_doc is None else assigned_doc[3],
                         delegations=tuple(
                             d for d in node.decorator_list if isinstance(d, ast.Call)
                             and _base_name(d) in DELEGATING_DECORATORS)
                         if isinstance(node, ast.ClassDef) else ())

    def _zope_attribute(self, value) -> bool:
        """Tell whether a value is a call of zope.interface's `Attribute` (an interface's
        attribute, whose documentation its arguments give)."""
        if not isinstance(value, ast.Call) or not isinstance(value.func, (ast.Name,
                                                                           ast.Attribute)):
            return False
        written = ast.unparse(value.func)
        return (self.module.imported_name(written) or written) in _ZOPE_ATTRIBUTES

    def _makes_command(self, decorators: list) -> bool:
        """Tell whether a module-level definition is decorated with click's command or group
        decorator, or a command group's `.command()`/`.group()` (`@amqp.command()`, amqp a
        group this module made so); a decorator above it gets the command (celery's
        `@with_plugins(...)` over `@click.group(...)`)."""
        for decorator in decorators:
            written = decorator.func if isinstance(decorator, ast.Call) else decorator
            if not isinstance(written, (ast.Name, ast.Attribute)):
                continue
            if self.module.imported_name(ast.unparse(written)) in _CLICK_DECORATORS:
                return True
            if isinstance(written, ast.Attribute) and written.attr in ("command", "group") \
                    and isinstance(written.value, ast.Name):
                group = self.module.objects.get(written.value.id)
                if group is not None and group.command_object:
                    return True
        return False

    def _attributes_section(self, docstring, prefix: str, path: str):
        """Record each entry of a class docstring's Attributes section (numpydoc's
        `Attributes` over dashes, Google's `Attributes:`) as an attribute of its own, quoting
        the entry's lines, unless the class documents that attribute itself."""
        members = self.members.setdefault(path, {})
        for attribute, type_, first, last, text, scope in attribute_entries(
                self.module.lines, docstring.lineno, docstring.end_lineno):
            key = f"{path}.{attribute}"
            existing = self.module.objects.get(key)
            if existing is not None and existing.docstring is not None:
                continue
            members.setdefault(attribute)
            self.module.objects[key] = DocObject(
                f"{prefix}.{attribute}", ATTRIBUTE, type_, text, self.module.path, first, last,
                scope=scope, section_entry=True)
        for member, kind, first, last, text, scope in directive_entries(
                self.module.lines, docstring.lineno, docstring.end_lineno):
            key = f"{path}.{member}"
            existing = self.module.objects.get(key)
            outer, _, own = key.rpartition(".")
            owner = self.module.objects.get(outer) if "." in member else None
            if existing is not None and existing.docstring is not None or "." in member and (
                    owner is None or not owner.written_directive):
                continue
            if owner is not None:  # a member of a `.. class::` the docstring describes
                self.module.objects[outer] = replace(owner, members=(*owner.members, own))
            else:
                members.setdefault(member)
            self.module.objects[key] = DocObject(
                f"{prefix}.{member}", kind, "", text, self.module.path, first, last,
                scope=scope, section_entry=True, written_directive=True)

    def _header(self, node) -> tuple:
        """Return (last line of the header, the signature after the name, as written but for
        its comments)."""
        lines = self.module.lines[node.lineno - 1:node.lineno - 1 + _MAX_HEADER_LINES]
        text = "\n".join(lines)[node.col_offset:]
        plain = plain_header(text, node.name)
        if plain is not None:
            name_end, offset = plain
            return node.lineno + text.count("\n", 0, offset), text[name_end:offset].strip()
        depth, name_end, offset = 0, None, None
        comments = []  # (start, end) offsets of the comments in it: no part of a signature
        line_starts = [0]
        for line in text.split("\n"):
            line_starts.append(line_starts[-1] + len(line) + 1)
        try:
            for token in tokenize.generate_tokens(io.StringIO(text).readline):
                if token.type == tokenize.NAME and name_end is None \
                        and token.string == node.name:
                    name_end = line_starts[token.end[0] - 1] + token.end[1]
                elif token.type == tokenize.OP and token.string in "([{":
                    depth += 1
                elif token.type == tokenize.OP and token.string in ")]}":
                    depth -= 1
                elif token.type == tokenize.OP and token.string == ":" and depth == 0 \
                        and name_end is not None:
                    offset = line_starts[token.start[0] - 1] + token.start[1]
                    break
                elif token.type == tokenize.COMMENT and name_end is not None:
                    at = line_starts[token.start[0] - 1] + token.start[1]
                    comments.append((at, at + len(token.string)))
        except (tokenize.TokenError, IndentationError, SyntaxError):
            offset = None
        if offset is None or name_end is None:
            return node.lineno, ""
        signature = "".join(text[start:end] for start, end in zip(
            [name_end] + [end for _, end in comments], [start for start, _ in comments] + [offset],
            strict=True))
        return node.lineno + text[:offset].count("\n"), signature.strip()

    def _assignment(self, statement, following, name, kind, undocumented=True):
        """Return an assignment, documented by a string right after it or `#:` comments above
        it (or, unless told not to, undocumented: an explicit directive may name it)."""
        start, end, docstring = statement.lineno, statement.end_lineno, None
        # A string after it or comments above it are what autodoc's analyzer reads, of the
        # source of the module its class says it is in (unanalyzed); the others are values'.
        analyzed = name.rpartition(".")[0] not in self.unanalyzed
        node = _docstring_node([following]) if following is not None and analyzed else None
        attached = _attached_docstring(statement.value)
        given = _doc_keyword(statement.value) if not self._zope_attribute(statement.value) \
            else _zope_attribute_doc(statement.value)
        if node is not None:
            end, docstring = node.end_lineno, _clean(node)
        elif attached is not None:
            # What it names is the function the call returns, documented.
            docstring, kind = attached, METHOD if kind == ATTRIBUTE else FUNCTION
        elif given is not None:
            docstring = given
        else:
            comments = self.comments.of(statement.lineno, statement.col_offset) \
                if analyzed else None
            if comments is None and not undocumented:
                return None
            if comments is not None:
                start, docstring = comments
        return DocObject(name, kind, "", docstring, self.module.path, start, end)

    def _named_tuple_fields(self, node: ast.ClassDef, path: str):
        """Document the undocumented fields of a typing.NamedTuple class as their getters'
        __doc__ does, which autodoc shows ("Alias for field number 1": pydicom's
        RawDataElement.VR)."""
        fields = [statement.target.id for statement in node.body
                  if isinstance(statement, ast.AnnAssign)
                  and isinstance(statement.target, ast.Name)]
        for index, field_name in enumerate(fields):
            found = self.module.objects.get(f"{path}.{field_name}")
            if found is not None and found.docstring is None:
                self.module.objects[f"{path}.{field_name}"] = replace(
                    found, docstring=f"Alias for field number {index}")

    def _named_tuple_class(self, found: DocObject, fields: list, path: str) -> DocObject:
        """Return an assignment of a namedtuple call (fields: _named_tuple_call's) as the class
        it binds, with a member per field quoting where the call names it: collections'
        namedtuple sets the class's __doc__ to `Name(a, b)` and each field getter's to "Alias
        for field number N", so autodoc's :members: documents the class and its fields
        (tornado's `RequestStartLine = collections.namedtuple(...)`)."""
        own_path = found.name[len(self.module.name) + 1:]
        members = self.members.setdefault(own_path, {})
        for index, (field_name, node) in enumerate(fields):
            members.setdefault(field_name)
            self.module.objects.setdefault(f"{own_path}.{field_name}", DocObject(
                f"{found.name}.{field_name}", ATTRIBUTE, "", f"Alias for field number {index}",
                self.module.path, node.lineno, node.end_lineno))
        arguments = f"({', '.join(name for name, _ in fields)})"
        return replace(found, kind=CLASS, signature=arguments,
                       docstring=f"{found.name.rpartition('.')[2]}{arguments}",
                       members=tuple(members), wraps=None, alias=None, called=None,
                       docstring_call=None)

    def _instance_attributes(self, init, prefix: str, path: str):
        """Record `self.name = ...` of __init__ documented with `#:` or a string after it."""
        if init is None:
            return
        self._documented_attributes(init.body, prefix, path)
        self._runtime_attributes(init.body, prefix, path)

    def _documented_attributes(self, statements: list, prefix: str, path: str):
        """Record the documented `self.name = ...` of __init__'s statements, in its branches
        too (autodoc's analyzer visits them: cssselect2's `if ...: #: doc` then `self.x`)."""
        members = self.members.setdefault(path, {})
        for index, statement in enumerate(statements):
            for block in _blocks(statement):
                self._documented_attributes(block, prefix, path)
            if not isinstance(statement, (ast.Assign, ast.AnnAssign)):
                continue
            targets = statement.targets if isinstance(statement, ast.Assign) \
                else [statement.target]
            following = statements[index + 1] if index + 1 < len(statements) else None
            for target in targets:
                if not isinstance(target, ast.Attribute) \
                        or not isinstance(target.value, ast.Name) or target.value.id != "self":
                    continue
                existing = self.module.objects.get(f"{path}.{target.attr}")
                # A slot without a docstring gets the comment's (the analyzer's attr_docs).
                if existing is None or (existing.slot and existing.docstring is None):
                    # Only documented ones: autodoc finds no other instance attribute either.
                    found = self._assignment(statement, following, f"{prefix}.{target.attr}",
                                             ATTRIBUTE, undocumented=False)
                    if found is not None:
                        found = replace(found, slot=existing is not None)
                        members.setdefault(target.attr)
                        self.module.objects[f"{path}.{target.attr}"] = found

    def _runtime_attributes(self, statements: list, prefix: str, path: str):
        """Record each other `self.NAME = ...` of __init__, in its branches too, as the class's
        runtime attribute (Module.runtime_attributes), the first where several bind it."""
        for statement in statements:
            for block in _blocks(statement):
                self._runtime_attributes(block, prefix, path)
            if not isinstance(statement, (ast.Assign, ast.AnnAssign)):
                continue
            targets = statement.targets if isinstance(statement, ast.Assign) \
                else [statement.target]
            for target in targets:
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                        and target.value.id == "self" \
                        and f"{path}.{target.attr}" not in self.module.objects:
                    self.module.runtime_attributes.setdefault(
                        f"{path}.{target.attr}",
                        DocObject(f"{prefix}.{target.attr}", ATTRIBUTE, "", None,
                                  self.module.path, statement.lineno,
                                  statement.end_lineno or statement.lineno))


# Decorators that assemble a docstring at import time (pandas.util._decorators).
TEMPLATE_DECORATORS = frozenset({"Appender", "Substitution", "doc"})
# pandas' class decorators that set on a class, for each name they list, a property or method
# with the docstring of another class's member of that name (pandas.core.accessor's
# delegate_names, for the `.dt`, `.cat` and `.sparse` accessors; indexes/extension.py's
# inherit_names, for DatetimeIndex and kin).
DELEGATING_DECORATORS = frozenset({"delegate_names", "inherit_names"})
# Functions that give a compiled function its docstring at import time, (function, docstring)
# as their arguments and the function returned: torch's `cholesky =
# _add_docstr(_linalg.linalg_cholesky, r"""...""")` (torch._C's).
DOCSTRING_SETTERS = frozenset({"add_docstr", "_add_docstr"})
# numpy's documented way to give a compiled object (or its members) docstrings at import time,
# `add_newdoc(place, obj, doc)` (numpy.lib.add_newdoc; numpy/core/_add_newdocs.py).
NEWDOC_SETTERS = frozenset({"add_newdoc"})


# What comes before a definition's name: the NAME tokens `async`, `def` or `class`.
_DEFINITION = re.compile(r"(?:async[ \t\f]+)?(?:def|class)[ \t\f]+")
# In a header, the characters tokenize tells apart: brackets, the colon, and where only it can
# read on (a comment, a string, a line continued by a backslash).
_HEADER_MARKS = re.compile(r"[][(){}:#'\"\\]")


def plain_header(text: str, name: str) -> tuple | None:
    """Return (where the name ends, where the colon ending the header is) in a definition's text
    that holds no comment, backslash or triple-quoted string before that colon; None for any
    other (tokenize reads it, _Reader._header).

    Without those, the header's tokens that matter are its brackets and colons, found by their
    characters, and its strings are each one line from a quote to the next (tokenize's STRING:
    what they hold is none of the header's). Tokenizing every header (54,544 in plotly 5.16.1's
    modules, 842,000 tokens) cost a third of reading them: the headers without strings read
    so took that build's user time to 0.976 of before (three A/B pairs, 0.95-0.99), those with
    one-line strings too read_package's from 5.09 to 4.32 s (medians of 3, in turn). Of 465,418
    headers (plotly's, Django's, scipy's, site-packages and the standard library), each read
    the same both ways, 99.6 % are read so.
    """
    start = _DEFINITION.match(text)
    if start is None or not text.startswith(name, start.end()):
        return None
    name_end = start.end() + len(name)
    after = text[name_end:name_end + 1]
    if after and (name + after).isidentifier():
        return None  # the name as written is longer (or NFKC-normalized): not this one
    depth, at = 0, name_end
    while (mark := _HEADER_MARKS.search(text, at)) is not None:
        character, at = mark.group(), mark.end()
        if character in "([{":
            depth += 1
        elif character in ")]}":
            depth -= 1
        elif character in "'\"":
            close = text.find(character, at)
            if text.startswith(character * 2, at) or close < 0 \
                    or "\n" in text[at:close] or "\\" in text[at:close]:
                return None  # triple-quoted, or not one line without a backslash
            at = close + 1
        elif character != ":":
            return None
        elif depth == 0:
            return name_end, mark.start()
    return None


def _string_item(target) -> tuple | None:
    """Return (NAME, key) of an assignment's target `NAME["key"]`, else None."""
    if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
            and isinstance(target.slice, ast.Constant) and isinstance(target.slice.value, str):
        return target.value.id, target.slice.value
    return None


@dataclass(frozen=True)
class DictUpdate:
    """A key of Module.items standing for the dict a `NAME.update(OTHER)` statement adds to
    NAME's entries where it is written (seaborn's `_categorical_docs.update(_facet_docs)`)."""

    index: int


def _record_assignment(statement, assigned: dict, items: dict, item_names=None) -> None:
    """Record an assignment's `NAME = value` in assigned and its `NAME["key"] = value` in
    items (NAME -> {key: value}), and `NAME.update(OTHER, key=value)` as OTHER (under a
    DictUpdate key) and such items; those of a NAME in item_names only where it is given."""
    updated = _dict_update(statement)
    if updated is not None and (item_names is None or updated[0] in item_names):
        for key, value in updated[1]:
            _add_entry(items.setdefault(updated[0], {}), key, value)
    if not isinstance(statement, (ast.Assign, ast.AnnAssign)) or statement.value is None:
        return
    for target in statement.targets if isinstance(statement, ast.Assign) \
            else [statement.target]:
        item = _string_item(target)
        if isinstance(target, ast.Name):
            assigned[target.id] = statement.value
        elif item is not None and (item_names is None or item[0] in item_names):
            _add_entry(items.setdefault(item[0], {}), item[1], statement.value)


def _add_entry(entries: dict, key: str | None, value) -> None:
    """Add an entry (key None: a dict `.update()` adds) last, as a later statement comes after
    every earlier one: an entry set again follows an update written between the two."""
    entries.pop(key, None)
    entries[DictUpdate(len(entries)) if key is None else key] = value


def _dict_update(statement) -> tuple | None:
    """Return (NAME, [(key or None for a positional dict, value expression)]) of a statement
    `NAME.update(OTHER, key=value)`, else None."""
    call = statement.value if isinstance(statement, ast.Expr) else None
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute) \
            or call.func.attr != "update" or not isinstance(call.func.value, ast.Name) \
            or len(call.args) > 1 or any(keyword.arg is None for keyword in call.keywords):
        return None
    return call.func.value.id, [*((None, argument) for argument in call.args),
                                *((keyword.arg, keyword.value) for keyword in call.keywords)]


def _called(statement) -> str | None:
    """Return what an assignment's value calls, as written, where it is a name (or None)."""
    written = _call_written(statement.value)
    return written[0] if written is not None else None


def _named_tuple_call(value, name: str) -> list | None:
    """Return [(field, the node naming it)] of a `collections.namedtuple("Name", fields)` or
    functional `typing.NamedTuple("Name", [(field, type), ...])` call that makes a class of
    the name it is bound to, else None (another name binds an alias of that class)."""
    if not isinstance(value, ast.Call) or not isinstance(value.func, (ast.Name, ast.Attribute)) \
            or ast.unparse(value.func).rpartition(".")[2] not in ("namedtuple", "NamedTuple"):
        return None
    arguments = dict(zip(("typename", "fields"), value.args[:2], strict=False))
    arguments.update((keyword.arg, keyword.value) for keyword in value.keywords
                     if keyword.arg in ("typename", "field_names", "fields"))
    typename = arguments.get("typename")
    fields = arguments.get("fields", arguments.get("field_names"))
    if not isinstance(typename, ast.Constant) or typename.value != name:
        return None
    if isinstance(fields, ast.Constant) and isinstance(fields.value, str):
        # namedtuple's field_names as one string: split at commas and whitespace.
        return [(field_name, fields) for field_name in fields.value.replace(",", " ").split()]
    if not isinstance(fields, (ast.List, ast.Tuple)):
        return None
    found = []
    for node in fields.elts:
        if isinstance(node, (ast.Tuple, ast.List)) and node.elts:
            node = node.elts[0]  # NamedTuple's (field, type) pair
        if not isinstance(node, ast.Constant) or not isinstance(node.value, str):
            return None
        found.append((node.value, node))
    return found


def _call_written(value) -> tuple | None:
    """Return DocObject.call of an assigned value: a call of a (dotted) name, else None."""
    if not isinstance(value, ast.Call) or not isinstance(value.func, (ast.Name, ast.Attribute)):
        return None

    def written(node) -> str:
        return ast.unparse(node) if isinstance(node, (ast.Name, ast.Attribute)) else ""
    return (ast.unparse(value.func), tuple(written(node) for node in value.args),
            tuple((keyword.arg, written(keyword.value)) for keyword in value.keywords
                  if keyword.arg is not None))


def _template_decorators(node) -> tuple:
    """Return the decorators of a definition that assemble its docstring (templates.py),
    innermost first."""
    return tuple(d for d in reversed(node.decorator_list)
                 if _base_name(d) in TEMPLATE_DECORATORS and isinstance(d, ast.Call))


def _bound_member(statement, owner: str) -> tuple | None:
    """Return (member, function name) of `setattr(OWNER, "member", name)` or
    `OWNER.member = name`, else None."""
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        call = statement.value
        if isinstance(call.func, ast.Name) and call.func.id == "setattr" \
                and len(call.args) == 3 and not call.keywords \
                and isinstance(call.args[0], ast.Name) and call.args[0].id == owner \
                and isinstance(call.args[1], ast.Constant) and isinstance(call.args[1].value, str) \
                and isinstance(call.args[2], ast.Name):
            return call.args[1].value, call.args[2].id
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                and target.value.id == owner and isinstance(statement.value, ast.Name):
            return target.attr, statement.value.id
    return None


def _is_self_attribute(node, self_name: str) -> str | None:
    """Return X of `self.X` (self_name the method's first parameter), else None."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
            and node.value.id == self_name:
        return node.attr
    return None


def _class_return(node: ast.ClassDef) -> tuple | None:
    """Return (the expression, the name of self) a descriptor class's `__get__(self, obj,
    owner)` returns where it begins `if obj is None: return EXPRESSION`: what the descriptor
    is read on a class; else None."""
    get = next((statement for statement in node.body if isinstance(statement, ast.FunctionDef)
                and statement.name == "__get__"), None)
    if get is None or len(get.args.args) < 2:
        return None
    self_name, instance = get.args.args[0].arg, get.args.args[1].arg
    first = next((statement for statement in get.body if not (
        isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant))), None)
    if not isinstance(first, ast.If) or len(first.body) != 1 \
            or not isinstance(first.body[0], ast.Return) or first.body[0].value is None:
        return None
    test = first.test
    if not (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name)
            and test.left.id == instance and len(test.ops) == 1
            and isinstance(test.ops[0], ast.Is) and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value is None):
        return None
    return first.body[0].value, self_name


# The statements a computing function's body is made of (Module.computing_functions).
_COMPUTING_STATEMENTS = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.If, ast.Return, ast.Raise,
                         ast.Assert, ast.Pass)


def _computes(node: ast.FunctionDef) -> bool:
    """Tell whether an undecorated function of named parameters only binds names, branches,
    asserts, raises and returns: a value its arguments alone may give (templates.py)."""
    args = node.args
    if node.decorator_list or args.vararg or args.kwarg:
        return False
    body = node.body[1:] if _docstring_node(node.body) is not None else node.body
    statements = list(body)
    while statements:
        statement = statements.pop()
        if not isinstance(statement, _COMPUTING_STATEMENTS):
            return False
        if isinstance(statement, ast.If):
            statements.extend(statement.body + statement.orelse)
    return any(isinstance(statement, ast.Return) for statement in ast.walk(node))


def _doc_parameter(node) -> tuple | None:
    """Return DocObject.doc_parameter of a function: where its body defines a function W,
    sets `W.__doc__ = PARAMETER` and ends `return W`, (its parameters, PARAMETER, True: it
    makes a routine); where it ends `return F(..., doc=DOC)` (property's and the descriptors'
    convention, _doc_keyword: pymongo's `_grid_in_property(field_name, docstring)` returns
    `property(getter, doc=docstring)`) or `return property(fget, fset, fdel, DOC)`, DOC a
    parameter or an f-string of parameters (_reads_parameters), or `return property(W)` of
    such a W (pandas' `_field_accessor(name, field, docstring)`), (its parameters, DOC,
    False)."""
    if not node.body or not isinstance(node.body[-1], ast.Return):
        return None
    parameters = tuple(argument.arg for argument in [*node.args.posonlyargs, *node.args.args])
    returned = node.body[-1].value
    if isinstance(returned, ast.Call):
        doc = next((keyword.value for keyword in returned.keywords if keyword.arg == "doc"),
                   None)
        is_property = isinstance(returned.func, ast.Name) and returned.func.id == "property"
        if doc is None and is_property and len(returned.args) == 4:
            doc = returned.args[3]  # property(fget, fset, fdel, doc)
        elif doc is None and is_property and len(returned.args) == 1 \
                and isinstance(returned.args[0], ast.Name):
            doc = _doc_set_from_parameter(node, returned.args[0].id, parameters)
        return (parameters, doc, False) if _reads_parameters(doc, parameters) else None
    if not isinstance(returned, ast.Name):
        return None
    doc = _doc_set_from_parameter(node, returned.id, parameters)
    return None if doc is None else (parameters, doc, True)


def _instance_doc_parameter(node: ast.ClassDef) -> tuple | None:
    """Return DocObject.doc_parameter of a class whose instances' docstring is an argument it
    is made with: its `__doc__` is a property returning `self.ATTR` or `self.ATTR.format(...)`,
    and `__init__` keeps a parameter as `self.ATTR` (_kept_parameter: pandas' `set_option =
    CallableDynamicDoc(_set_option, _set_option_tmpl)`): (__init__'s parameters after self,
    PARAMETER, False).
    The template is the docstring as written; what `format` fills in at run time is not."""
    doc = next((statement for statement in node.body
                if isinstance(statement, ast.FunctionDef) and statement.name == "__doc__"), None)
    if doc is None or not doc.body or not doc.args.args \
            or not any(_base_name(d) == "property" for d in doc.decorator_list) \
            or not isinstance(doc.body[-1], ast.Return):
        return None
    returned = doc.body[-1].value
    if isinstance(returned, ast.Call) and isinstance(returned.func, ast.Attribute) \
            and returned.func.attr == "format":
        returned = returned.func.value
    attribute = _is_self_attribute(returned, doc.args.args[0].arg)
    found = _kept_parameter(node, attribute) if attribute is not None else None
    return None if found is None else (*found, False)


def _doc_assigned_to(statement) -> str | None:
    """Return X, as written, of a statement `X.__doc__ = ...` (X a name or a dotted name),
    else None."""
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
        if isinstance(target, ast.Attribute) and target.attr == "__doc__" \
                and isinstance(target.value, (ast.Name, ast.Attribute)):
            return ast.unparse(target.value)
    return None


def _doc_set_from_parameter(node, inner: str, parameters: tuple) -> ast.expr | None:
    """Return the parameter (or f-string of them: pandas' TimedeltaArray fields) a function's
    body gives the function inner it defines as its docstring (one `inner.__doc__ = ...`), or
    None."""
    defined = any(isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef))
                  and statement.name == inner for statement in node.body)
    set_doc = [statement.value for statement in node.body
               if _doc_assigned_to(statement) == inner]
    if not defined or len(set_doc) != 1 or not _reads_parameters(set_doc[0], parameters):
        return None
    return set_doc[0]


def _reads_parameters(doc, parameters: tuple) -> bool:
    """Tell whether a docstring's node is a parameter, or an f-string whose fields are
    parameters (with a conversion, a literal format spec or none)."""
    if isinstance(doc, ast.Name):
        return doc.id in parameters
    if not isinstance(doc, ast.JoinedStr):
        return False
    return all(isinstance(part, ast.Constant) or (
        isinstance(part, ast.FormattedValue) and isinstance(part.value, ast.Name)
        and part.value.id in parameters
        and (part.format_spec is None or isinstance(part.format_spec, ast.JoinedStr)
             and all(isinstance(spec, ast.Constant) for spec in part.format_spec.values)))
        for part in doc.values)


def docstring_argument(package: PackageSource, module: Module, obj: DocObject):
    """Return (F's doc_parameter node, {each parameter it reads: the argument node an
    undocumented `name = F(...)` gives it}, whether what F returns is a routine) (what F
    returns has that docstring), or None where F is no such function or is not given one."""
    call = obj.docstring_call
    if call is None or not isinstance(call.func, (ast.Name, ast.Attribute)):
        return None
    found = package.resolve(f"{module.name}.{ast.unparse(call.func)}")
    if found is None or found[1].kind not in (FUNCTION, CLASS) \
            or found[1].doc_parameter is None:
        return None
    parameters, doc, routine = found[1].doc_parameter
    given = dict(zip(parameters, call.args, strict=False))  # a call may give fewer
    given.update((keyword.arg, keyword.value) for keyword in call.keywords if keyword.arg)
    read = {node.id for node in ast.walk(doc) if isinstance(node, ast.Name)}
    if not read <= given.keys():
        return None
    return doc, {name: given[name] for name in read}, routine


def made_function(obj: DocObject) -> DocObject:
    """Return an assignment's object as the function a call gives it: a method where a class
    binds it."""
    return replace(obj, kind=METHOD if obj.kind == ATTRIBUTE else
                   FUNCTION if obj.kind == DATA else obj.kind)


def _computes_on_class(node: ast.ClassDef) -> bool:
    """Tell whether a class has a `__get__` that tells no class access apart first."""
    return any(isinstance(statement, ast.FunctionDef) and statement.name == "__get__"
               for statement in node.body) and _class_return(node) is None


def _gives_itself(node: ast.ClassDef) -> bool:
    """Tell whether a class's `__get__` returns the descriptor itself on class access."""
    returned = _class_return(node)
    return returned is not None and isinstance(returned[0], ast.Name) \
        and returned[0].id == returned[1]


def _class_access(node: ast.ClassDef) -> tuple | None:
    """Return DocObject.class_access of a class: where its `__get__(self, obj, owner)` begins
    `if obj is None: return self.X` (what the descriptor is, read on the class rather than an
    instance) and `self.X` is assigned once in the whole class, in __init__'s body, from a
    parameter of it (pandas' CachedAccessor keeps its accessor class so), that parameter's
    (position after self, name); else None. Only then does the source say, without running
    anything, what `Owner.name` is for `name = Descriptor(..., Thing)` in Owner's body."""
    returned = _class_return(node)
    kept = _is_self_attribute(*returned) if returned is not None else None
    found = _kept_parameter(node, kept) if kept is not None else None
    if found is None:
        return None
    parameters, parameter = found
    return parameters.index(parameter.id), parameter.id


def _kept_parameter(node: ast.ClassDef, attribute: str) -> tuple | None:
    """Return (its __init__'s parameters after self, the Name of the one it keeps as
    `self.ATTRIBUTE`) where that assignment in __init__'s body is the class's only one to an
    attribute of that name (in any method, of any self); else None."""
    init = next((statement for statement in node.body
                 if isinstance(statement, ast.FunctionDef) and statement.name == "__init__"),
                None)
    if init is None or not init.args.args:
        return None
    init_self = init.args.args[0].arg
    parameters = tuple(argument.arg
                       for argument in [*init.args.posonlyargs, *init.args.args][1:])
    stores = [child for child in ast.walk(node)
              if isinstance(child, ast.Attribute) and child.attr == attribute
              and isinstance(child.ctx, (ast.Store, ast.Del))]
    assignment = next((statement for statement in init.body
                       if isinstance(statement, ast.Assign) and len(statement.targets) == 1
                       and _is_self_attribute(statement.targets[0], init_self) == attribute),
                      None)
    if len(stores) != 1 or assignment is None or not isinstance(assignment.value, ast.Name) \
            or assignment.value.id not in parameters:
        return None
    return parameters, assignment.value


def _assigned_doc(body: list) -> tuple | None:
    """Return (its first line, its last line, the text, the expression or None for a literal)
    of a class or module body's `__doc__ = ...` written out as _literal_text reads it, the
    class's or module's docstring (torch's `class Conv2d: __doc__ = r'...' +
    r'...'.format(**notes)`), or None."""
    for statement in body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
                and isinstance(statement.targets[0], ast.Name) \
                and statement.targets[0].id == "__doc__":
            text = _literal_text(statement.value)
            if text is not None:
                literal = isinstance(statement.value, ast.Constant)
                return (statement.lineno, statement.end_lineno, inspect.cleandoc(text),
                        None if literal else statement.value)
    return None


def _property_getter(value) -> str | None:
    """Return the name of the function whose docstring a `property(...)` call's property has:
    its getter's (`fget=`, else the first argument) where it gives no `doc`, or the function
    `doc=f.__doc__` names; None for any other value."""
    if not isinstance(value, ast.Call) or _base_name(value.func) != "property":
        return None
    doc = _doc_argument(value)
    fget = next((keyword.value for keyword in value.keywords if keyword.arg == "fget"),
                value.args[0] if value.args else None)
    source = doc.value if isinstance(doc, ast.Attribute) and doc.attr == "__doc__" else \
        fget if doc is None else None
    return source.id if isinstance(source, ast.Name) else None


def _doc_argument(value: ast.Call):
    """Return the expression a call gives as the docstring of what it makes: its `doc=`, or
    property's fourth argument (property(fget, fset, fdel, doc)); None if it gives none."""
    doc = next((keyword.value for keyword in value.keywords if keyword.arg == "doc"), None)
    if doc is None and _base_name(value.func) == "property" and len(value.args) > 3:
        doc = value.args[3]
    return doc


def _doc_keyword(value) -> str | None:
    """Return the docstring a call's `doc=` argument gives what it makes, where written out:
    `property(fget, doc="...")`'s convention, which descriptors follow (werkzeug's
    `content_type = header_property[str]("Content-Type", doc=\"\"\"...\"\"\")` is a
    property whose __doc__ is it, as autodoc shows it), or property's fourth argument; None
    for any other value."""
    if not isinstance(value, ast.Call):
        return None
    doc = _doc_argument(value)
    text = None if doc is None else _literal_text(doc)
    return None if text is None else inspect.cleandoc(text)


def _zope_attribute_doc(call: ast.Call) -> str | None:
    """Return the documentation a zope.interface `Attribute(__name__, __doc__='')` call gives,
    where written out: its `__doc__`, else its first argument where that holds a space (zope's
    Element takes such a name as the documentation: `Attribute("The jar")`)."""
    doc = next((keyword.value for keyword in call.keywords if keyword.arg == "__doc__"),
               call.args[1] if len(call.args) > 1 else None)
    text = _literal_text(doc) if doc is not None else None
    if not text and call.args:
        first = _literal_text(call.args[0])
        text = first if first is not None and " " in first else text
    return inspect.cleandoc(text) if text else None


def _attached_docstring(value, wrapped: bool = False) -> str | None:
    """Return the docstring a DOCSTRING_SETTERS call (or, wrapped, a call of a module's
    setter wrapper) gives the function it names, where the text is written out (literals,
    joined by `+`; a `.format(...)` template as written)."""
    if isinstance(value, ast.Call) and len(value.args) == 2 and not value.keywords \
            and (wrapped or _base_name(value.func) in DOCSTRING_SETTERS):
        text = _literal_text(value.args[1])
        return inspect.cleandoc(text) if text is not None else None
    return None


def _literal_text(node) -> str | None:
    """Return a string expression's text: a literal, literals joined by `+`, an f-string's
    literal parts, or `template.format(...)`'s, `.replace(...)`'s and `template % ...`'s
    template (its fields left as written: numpy's `${ARRAY_FUNCTION_LIKE}`), each maybe
    `dedent(...)` (seaborn's `boxplot.__doc__ = dedent('...').format(...)`)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _literal_text(node.left), _literal_text(node.right)
        return None if left is None or right is None else left + right
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return _literal_text(node.left)
    if isinstance(node, ast.JoinedStr):
        return "".join(str(part.value) if isinstance(part, ast.Constant)
                       else "{" + ast.unparse(part.value) + "}" for part in node.values
                       if isinstance(part, (ast.Constant, ast.FormattedValue)))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr in ("format", "replace"):
        return _literal_text(node.func.value)
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords \
            and ast.unparse(node.func) in ("dedent", "textwrap.dedent"):
        text = _literal_text(node.args[0])
        return None if text is None else textwrap.dedent(text)
    return None


_NUMPYDOC_ENTRY = re.compile(r"([A-Za-z_]\w*)\s*(?::\s*(.*?))?\s*$")
# A Google entry's colon may be left out: napoleon's _consume_field partitions the line on its
# first colon, if any, and reads `name (type)` from the start of what comes before, whatever
# follows the type (mutagen's `info (`AACInfo`)`, `version (`int`) Musepack stream version`).
_GOOGLE_ENTRY = re.compile(r"([A-Za-z_]\w*)\s*(?:\(([^)]*)\)(?:\s+[^:\s][^:]*)?)?\s*"
                           r"(?::(?:\s+(.*?))?)?\s*$")
_DASHES = re.compile(r"\s*-{3,}\s*$")
# A docstring's `.. currentmodule:: NAME` (or `.. module::`): the Python domain's module for
# what the docstring describes after it.
_CURRENT_MODULE = re.compile(r"\.\.\s+(?:py:)?(?:current)?module" + DELIMITER + r"\s+([\w.]+)\s*")
# A Python-domain directive describing a member, as a docstring writes it (directive_entries),
# and the kind of object each describes.
_MEMBER_KINDS = {"attribute": ATTRIBUTE, "data": ATTRIBUTE, "property": ATTRIBUTE,
                 "method": METHOD, "classmethod": METHOD, "staticmethod": METHOD,
                 "function": METHOD, "class": CLASS, "exception": EXCEPTION}
_MEMBER_DIRECTIVE = re.compile(r"\.\.\s+(?:py:)?(" + "|".join(_MEMBER_KINDS)
                               + ")" + DELIMITER + r"\s+([A-Za-z_]\w*)\b.*")
# A directive's option line (`:type: int`).
_FIELD_OPTION = re.compile(r":[\w-]+:")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def attribute_entries(lines: list, first: int, last: int) -> list:
    """Return (name, type, first line, last line, text, the module a `.. currentmodule::` above
    it makes current or None) of each entry of the Attributes section
    of the docstring on lines first..last (1-based) of a file: numpydoc's

        Attributes
        ----------
        name : type
            What it is.

    or Google's `Attributes:` with `name (type): What it is.` entries indented below it.

    Napoleon parses each section of a docstring, so every Google `Attributes:` section gives
    its entries (mutagen's MPEGInfo has a second one after "Useless attributes:"); numpydoc
    refuses a section given twice, so only its first counts."""
    found: list = []
    index = first - 1
    scope = None
    while index < last:
        line = lines[index].rstrip("\r")
        stripped = line.strip().lstrip("rRuU").strip("\"'")
        numpydoc = stripped == "Attributes" and index + 1 < last \
            and _DASHES.fullmatch(lines[index + 1].rstrip("\r")) is not None
        current = _CURRENT_MODULE.fullmatch(stripped)
        if current is not None:
            scope = current.group(1)
        if numpydoc or stripped == "Attributes:":
            start = index + (2 if numpydoc else 1)
            found.extend((*entry, scope) for entry in _entries(lines, start, last, _indent(line),
                                                               numpydoc))
            if numpydoc:
                break
        index += 1
    return found


def directive_entries(lines: list, first: int, last: int) -> list:
    """Return (name, kind, first line, last line, text, the module a `.. currentmodule::` above
    it makes current or None) of each Python-domain description the docstring on lines
    first..last (1-based) of a file writes itself (`.. attribute:: minute`, `.. method::
    add(x)`): rendered in its class's content, where the Python domain's handle_signature
    prefixes the class current there (ref_context's py:class), so it is a member of the class;
    one in a `.. class::` description's content is that class's (its before_content makes it
    current): its name is dotted below it (jinja2's `MinimalClientInterface.set`)."""
    found: list = []
    scope = None
    classes: list = []  # (indent, dotted name) of the `.. class::` descriptions around a line
    literal = LiteralLines()
    for index in range(first - 1, last):
        line = lines[index].rstrip("\r")
        stripped = line.strip().lstrip("rRuU").strip("\"'")
        if not stripped or literal.is_literal(stripped, _indent(line)):
            continue  # a literal block's or code directive's body is text, no markup
        current = _CURRENT_MODULE.fullmatch(stripped)
        if current is not None:
            scope = current.group(1)
        match = _MEMBER_DIRECTIVE.fullmatch(stripped)
        if match is None:
            continue
        indent, end = _indent(line), index
        body: list[str] = []
        for following in range(index + 1, last):
            text = lines[following].rstrip("\r")
            content = text.strip().removesuffix('"""').removesuffix("\'\'\'").rstrip()
            if content and _indent(text) <= indent:
                break
            if content:
                end = following
                if body or not _FIELD_OPTION.match(content):  # its options are no text
                    body.append(content)
        while classes and classes[-1][0] >= indent:
            classes.pop()
        name = ".".join([*(dotted for _, dotted in classes[-1:]), match.group(2)])
        kind = _MEMBER_KINDS[match.group(1)]
        if kind in (CLASS, EXCEPTION):
            classes.append((indent, name))
        found.append((name, kind, index + 1, end + 1, "\n".join(body) or match.group(2),
                      scope))
    return found


# An autodoc directive written in a docstring, naming a member by its own name.
_AUTO_DIRECTIVE = re.compile(r"\.\.\s+auto(?:" + "|".join(_MEMBER_KINDS)
                             + ")" + DELIMITER + r"\s+([A-Za-z_]\w*)\s*(?:\(.*)?")


def auto_directive_names(lines: list, first: int, last: int) -> list:
    """Return the names the autodoc directives of the docstring on lines first..last (1-based)
    name by a bare name (`.. automethod:: serialize`), outside literal blocks, in order."""
    found: list = []
    literal = LiteralLines()
    for index in range(first - 1, last):
        line = lines[index].rstrip("\r")
        stripped = line.strip().lstrip("rRuU").strip("\"'")
        if not stripped or literal.is_literal(stripped, _indent(line)):
            continue
        match = _AUTO_DIRECTIVE.fullmatch(stripped)
        if match is not None and match.group(1) not in found:
            found.append(match.group(1))
    return found


def _entries(lines: list, start: int, last: int, header_indent: int, numpydoc: bool) -> list:
    entries: list = []
    current: list | None = None  # [name, type, first index, last index, description lines]
    entry_indent = None
    for index in range(start, last):
        line = lines[index].rstrip("\r")
        body = line.strip()
        if not body or body in ('"""', "'''"):
            continue
        indent = _indent(line)
        if numpydoc:
            ends = indent < header_indent or (indent == header_indent and index + 1 < last
                                              and _DASHES.fullmatch(lines[index + 1]
                                                                    .rstrip("\r")) is not None)
            is_entry = indent == header_indent
        else:
            ends = indent <= header_indent
            entry_indent = indent if entry_indent is None else entry_indent
            is_entry = indent == entry_indent
        if ends:
            break
        text = body.removesuffix('"""').removesuffix("'''").rstrip()
        if is_entry:
            match = (_NUMPYDOC_ENTRY if numpydoc else _GOOGLE_ENTRY).fullmatch(text)
            if match is None:
                current = None
                continue
            described = [] if numpydoc or not match.group(3) else [match.group(3)]
            current = [match.group(1), (match.group(2) or "").strip(), index, index, described]
            entries.append(current)
        elif current is not None and indent > (header_indent if numpydoc or entry_indent is None
                                                else entry_indent):
            current[3] = index
            current[4].append(text)
    return [(name, type_, begin + 1, end + 1, "\n".join(described) or type_ or name)
            for name, type_, begin, end, described in entries]


def _module_set(node: ast.ClassDef) -> str | None:
    """Return the module name a class body binds `__module__` to (mutagen's ID3 says
    "mutagen.id3", defined in mutagen/id3/_file.py), or None."""
    for statement in node.body:
        if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Constant) \
                and isinstance(statement.value.value, str) \
                and any(isinstance(target, ast.Name) and target.id == "__module__"
                        for target in statement.targets):
            return statement.value.value
    return None


def _decided_branch(statement) -> list | None:
    """Return the one branch of an `if` that runs wherever Sphinx imports the module, or None
    where importing tells."""
    if not isinstance(statement, ast.If):
        return None
    if _is_main_guard(statement.test):
        # `if __name__ == "__main__":` runs as a script only: on import it binds nothing
        # (Pillow's SpiderImagePlugin reads a file into `im` there).
        return statement.orelse
    # A test of Python's major version (`if PY3:`, `if sys.version_info[0] == 2:`) holds the
    # same in every Python 3 a Sphinx runs on: only its branch binds (future 0.18's `if
    # utils.PY3: __all__ = ['newtypes']`, else its Python 2 types).
    python3 = _on_python3(statement.test)
    return None if python3 is None else statement.body if python3 else statement.orelse


# The comparison each of ast's operators makes.
_COMPARISONS = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt,
                ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge}
# Names compatibility modules give "this is Python 3" or "Python 2" (six's PY3, PY2).
_PY3_NAMES = frozenset({"PY3", "PY3K", "IS_PY3", "PY_3", "PYTHON3", "IS_PYTHON3"})
_PY2_NAMES = frozenset({"PY2", "IS_PY2", "PY_2", "PYTHON2", "IS_PYTHON2"})


def _on_python3(test) -> bool | None:
    """Return what a test of Python's major version is on Python 3 (`PY3`, `not PY2`,
    `sys.version_info[0] >= 3`, `sys.version_info.major == 2`, `sys.version_info < (3,)`,
    `sys.version_info >= (3, 0)`), or None where it tests more than that."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _on_python3(test.operand)
        return None if inner is None else not inner
    if isinstance(test, (ast.Name, ast.Attribute)):
        name = test.id if isinstance(test, ast.Name) else test.attr
        return True if name in _PY3_NAMES else False if name in _PY2_NAMES else None
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    left, comparison, right = ast.unparse(test.left), test.ops[0], test.comparators[0]
    try:
        value = ast.literal_eval(right)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    compare = _COMPARISONS.get(type(comparison))
    if compare is None:
        return None
    if left in ("sys.version_info[0]", "sys.version_info.major") and isinstance(value, int):
        return compare(3, value)
    if left == "sys.version_info" and isinstance(value, tuple) and value \
            and all(isinstance(part, int) for part in value) \
            and (value[0] != 3 or value in ((3,), (3, 0))):
        # Decided by the major version alone ((2, 7), (4,), (3,), (3, 0) against any 3.x,
        # whose version_info is longer): any Python 3 answers as 3.0.1 does.
        return compare((3, 0, 1), value)
    return None


def _is_main_guard(test) -> bool:
    """Tell whether an `if` test is `__name__ == "__main__"` (either way round)."""
    if not isinstance(test, ast.Compare) or len(test.ops) != 1 \
            or not isinstance(test.ops[0], ast.Eq):
        return False
    sides = {ast.dump(test.left), ast.dump(test.comparators[0])}
    return sides == {ast.dump(ast.Name("__name__", ast.Load())), ast.dump(ast.Constant("__main__"))}


def _generated_class_doc(node: ast.ClassDef) -> str | None:
    """Return the docstring Python gives a class written without one, or None: a
    typing.NamedTuple's is `Name(a, b)` (pyparsing's DebugActions), a dataclass's its
    signature, `Name(a: int, b: str = 'x')` (pint's Relation), autodoc shows it, and the
    class is documented by it. Its annotations and defaults are as written, and the fields
    its own (a base dataclass's come first in Python's)."""
    fields = [(statement.target.id, statement) for statement in node.body
              if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)]
    if any(_base_name(base) == "NamedTuple" for base in node.bases):
        return f"{node.name}({', '.join(name for name, _ in fields)})"
    if not any(_base_name(decorator) == "dataclass" for decorator in node.decorator_list):
        return None
    parameters = []
    for name, field_ in fields:
        annotation = ast.unparse(field_.annotation)
        value = field_.value
        written = field_.annotation.value if isinstance(field_.annotation, ast.Subscript) \
            else field_.annotation
        if _base_name(written) in ("ClassVar", "KW_ONLY"):
            continue  # no field; KW_ONLY marks those after it keyword-only
        default = None if value is None else f" = {ast.unparse(value)}"
        if isinstance(value, ast.Call) and _base_name(value.func) == "field":
            options = {keyword.arg: keyword.value for keyword in value.keywords}
            init = options.get("init")
            if isinstance(init, ast.Constant) and init.value is False:
                continue
            default = " = <factory>" if "default_factory" in options else \
                f" = {ast.unparse(options['default'])}" if "default" in options else None
        parameters.append(f"{name}: {annotation}{default or ''}")
    return f"{node.name}({', '.join(parameters)})"


def _unpacked_names(target) -> list:
    """Return the names an unpacking target binds, nested and starred ones too, in order."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Starred):
        return _unpacked_names(target.value)
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for element in target.elts for name in _unpacked_names(element)]
    return []  # `self.x`, `d[k]`: no name of this scope


def _type_checking(statement) -> bool:
    """Tell whether a statement is `if TYPE_CHECKING:` (typing's, by any module name)."""
    return isinstance(statement, ast.If) and (
        isinstance(statement.test, ast.Name) and statement.test.id == "TYPE_CHECKING"
        or isinstance(statement.test, ast.Attribute) and statement.test.attr == "TYPE_CHECKING")


def _blocks(statement) -> list:
    """Return the statement lists of a compound statement that is no definition, else []."""
    if isinstance(statement, ast.If):
        decided = _decided_branch(statement)
        return [decided] if decided is not None else [statement.body, statement.orelse]
    if isinstance(statement, (ast.Try, ast.TryStar)):
        # A body that only imports what every Sphinx build has (Sphinx's requirements, the
        # standard library) never falls back on its ImportError handler there (celery's `try:
        # from pygments import highlight`, a `def highlight` in the handler; pymongo's `from
        # ssl import SSLCertVerificationError as CertificateError`, a class in the handler):
        # the name is the import's, as autodoc finds it.
        handlers = [handler.body for handler in statement.handlers
                    if not (_catches_import_error(handler) and _imports_sphinx_has(statement.body))]
        return [statement.body, *handlers, statement.orelse, statement.finalbody]
    if isinstance(statement, (ast.With, ast.AsyncWith)):
        return [statement.body]
    return []


def _kept(existing: DocObject | None, obj: DocObject,
          type_checking: bool) -> DocObject | None:
    """Return what a name's object is after its new definition obj, or None to keep existing
    (the first definition of a name is the one kept, but for the cases below)."""
    if existing is None:
        return obj
    if existing.overload and not obj.overload:
        # A function's implementation over the `@overload` stubs before it (no docstrings).
        return obj
    undocumented_binding = existing.kind in (DATA, ATTRIBUTE) and existing.docstring is None
    if undocumented_binding and obj.kind not in (DATA, ATTRIBUTE) and obj.docstring is not None:
        # A documented definition over an undocumented assignment before it (numpy's
        # ctypeslib: `as_array = _dummy` where ctypes is missing, `def as_array` where it is).
        return obj
    if type_checking and undocumented_binding \
            and (obj.kind not in (DATA, ATTRIBUTE) or obj.docstring is not None):
        # `if TYPE_CHECKING:`'s definition over its else's binding, which the reader cannot
        # follow (jax's C `safe_zip`, sentry's `Client = (lambda: _Client)()`, pydantic's
        # `model_fields = {}`): the block's says what it is, and autodoc's analyzer reads the
        # block's doc comments all the same.
        return obj
    if existing.slot and existing.docstring is None and obj.docstring is not None:
        # A `__slots__` entry, then its annotation and the string after it (werkzeug's
        # LocalProxy._get_current_object): autodoc's analyzer documents the slot by that
        # string; the entry is still a slot.
        return replace(obj, slot=True)
    return None


# The top-level modules of Sphinx and of the distributions it requires (install_requires, and
# theirs): importable wherever Sphinx runs.
_SPHINX_HAS = frozenset({
    "sphinx", "sphinxcontrib", "docutils", "pygments", "jinja2", "markupsafe", "babel",
    "snowballstemmer", "alabaster", "imagesize", "requests", "packaging", "urllib3", "idna",
    "certifi", "charset_normalizer"})


def _imports_sphinx_has(body: list) -> bool:
    """Tell whether a block is imports alone, each (absolute) of a module Sphinx's build has:
    Sphinx's requirements' (_SPHINX_HAS) and the standard library's (this Python's)."""
    def has(module: str) -> bool:
        top = module.split(".")[0]
        return top in _SPHINX_HAS or top in sys.stdlib_module_names

    return bool(body) and all(
        isinstance(statement, ast.Import) and all(has(alias.name) for alias in statement.names)
        or isinstance(statement, ast.ImportFrom) and not statement.level
        and has(statement.module or "")
        for statement in body)


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    """Tell whether an except clause catches ImportError (or its ModuleNotFoundError) alone."""
    caught = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return all(isinstance(kind, ast.Name) and kind.id in ("ImportError", "ModuleNotFoundError")
               for kind in caught)


def is_private(dotted: str) -> bool:
    """Tell whether a dotted name has a part with a leading "_" (`scipy.ndimage._filters`)."""
    return any(part.startswith("_") for part in dotted.split("."))


# A docstring's `:meta private:` / `:meta public:` field, which autodoc reads as the member's
# privacy in place of its name's underscore.
_META = re.compile(r"^[ \t]*:meta[ \t]+(private|public):", re.MULTILINE)


def is_private_member(name: str, member: "DocObject | None") -> bool:
    """Tell whether autodoc takes a member as private: as its docstring's `:meta private:` or
    `:meta public:` says, else by a leading underscore."""
    meta = _META.search(member.docstring or "") if member is not None else None
    return meta.group(1) == "private" if meta else name.startswith("_")


def _is_public_member(module: Module, name: str, obj: DocObject) -> bool:
    """Tell whether automodule's :members: takes a top-level name of a module: one its __all__
    lists where it defines one, else one without a leading underscore; either as the
    docstring's `:meta private:` or `:meta public:` says, where it has one."""
    if module.all_names is not None:
        meta = _META.search(obj.docstring or "")
        return name in module.all_names and (meta is None or meta.group(1) == "public")
    return not is_private_member(name, obj)


def is_special(name: str) -> bool:
    """Tell whether a name is a special one, `__init__` or `__eq__` (Python's data model)."""
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def public_objects(package: PackageSource, names: dict | None = None,
                   inherited: dict | None = None, bound: bool = True,
                   exported: Counter | None = None, class_docs: bool = True):
    """Yield (Module, DocObject) of each module, class, function, method and attribute of the
    public API, where it is defined, modules in name order and members in source order.

    Public: a module no part of whose name starts with "_", and in it a top-level name in its
    __all__ where it defines one, else without a leading "_" (and a documented class or
    function without one that its __all__ leaves out); a member without a leading "_"; each
    as its docstring's `:meta private:` or `:meta public:` says, where it has one;
    and, in any module, what a public module re-exports (`from ._filters import
    median_filter` in scipy/ndimage/__init__.py; names: `aliases`, computed if not given), and
    a member a public class inherits (inherited: `inherited_members`; none if not given), from
    a private base too. An undocumented object is yielded only where the package exports it by
    name (exports: a module-level class or function; data that another public module
    re-exports or its public module's __all__ lists) or its code states its deprecation
    (code_deprecation), never another undocumented member or attribute, as autodoc leaves out
    undocumented members; but one that shows a documented
    function's docstring (PackageSource.shown: `select = public_factory(Select._create, ...)`)
    is yielded as that function's lines under its own name, after the rest (unless told not
    to: bound). Names a module imports are documented where they are defined. (names and
    exported: `aliases` and `exports`, computed if not given.) class_docs: a class without
    a docstring shows its bases' (inspect.getdoc), and is documented by it; where a docs
    folder describes the API, what it leaves out is the package's own documented objects
    alone (not the compiler classes of jinja2 that a base's docstring would make API).
    """
    names = aliases(package) if names is None else names
    inherited = inherited or {}
    exported = exports(package) if exported is None else exported
    # The assignments shown as the function they are bound to: last; None (not bound), each
    # read as it is defined.
    assigned: list | None = [] if bound else None
    for name in sorted(package.modules):
        module = package.modules[name]
        top = module.objects[""]
        private = is_private(name)
        if not private and top.docstring is not None:
            yield module, top
        for member in top.members:
            obj = module.objects[member]
            # A name a public module re-exports is public even where its own module's __all__
            # leaves it out (sqlalchemy's postgresql/__init__.py imports DATERANGE, which
            # postgresql/ranges.py's __all__ does not list).
            if obj.name in names or not private and _is_public_member(module, member, obj):
                yield from _public_tree(package, module, member, exported, assigned, inherited,
                                        _named_data(module, member, names), class_docs)
            elif not private and not is_private_member(member, obj) \
                    and obj.docstring is not None and obj.kind in (CLASS, EXCEPTION, FUNCTION):
                # __all__ says what `import *` binds, not what is private: a documented class
                # or function it leaves out is imported by its module's name and documented
                # (sqlalchemy's `orderinglist.OrderingList`, its docs' autoclass). It is API,
                # ranked below what the package exports (its in-links count exports).
                yield from _public_tree(package, module, member, exported, assigned, inherited,
                                        class_docs=class_docs)
            else:
                yield from _inherited_tree(package, module, member, inherited)
    # After every definition: quoting the same lines, a definition's own unit keeps its title.
    yield from assigned or ()


def _named_data(module: Module, member: str, names: dict) -> bool:
    """Tell whether a module's data is API because the package names it as such: another
    public module re-exports it (names: `from _pytest.config import hookimpl` in pytest's
    __init__, of `hookimpl = HookimplMarker("pytest")`) or its public module's __all__ lists
    it; never a name for another object (`alias`)."""
    obj = module.objects[member]
    return obj.kind == DATA and obj.alias is None and (
        obj.name in names or not is_private(module.name) and module.all_names is not None
        and member in module.all_names)


def _public_tree(package: PackageSource, module: Module, path: str, exported,
                 assigned: list | None, inherited: dict, named: bool = False,
                 class_docs: bool = True):
    """Yield an object of the API and its members by public_objects' rules (named: data the
    package names as API); collect the assignments bound to a function in assigned (None:
    each is read as it is defined, matplotlib's `pyplot.axis`, `@docstring.copy(Axes.axis)`)."""
    obj = module.objects[path]
    if obj.docstring is None and ("." in path or class_docs and obj.kind in (CLASS, EXCEPTION)):
        # A member without a docstring shows its bases' (inspect.getdoc, autodoc's default
        # autodoc_inherit_docstrings): click's `Group.get_command`, an override; a class its
        # bases' (ezdxf's `ColorDependentPlotStyles(PlotStyleTable)`, its methods documented).
        obj = inheriting(package, module, obj, (module, module.objects[path.rpartition(".")[0]])
                         if "." in path else None)
    if obj.docstring is None:
        shown_module, shown = package.shown(module, obj)
        if shown is not obj and assigned is not None:
            assigned.append((shown_module, replace(shown, name=obj.name, members=(),
                                                kind=METHOD if "." in path else FUNCTION)))
            return
        # One whose code states its deprecation is API all the same: what a caller of it
        # must hear (pydantic 2's `BaseModel.dict`, only `@deprecated(...)` on its def).
        if not named and obj.deprecation is None and (
                obj.kind in (ATTRIBUTE, DATA) or "." in path or obj.name not in exported):
            # An undocumented base's documented members are still those its public
            # subclasses inherit (sqlalchemy's `HasHints.with_hint`, `Select.with_hint`).
            yield from _inherited_tree(package, module, path, inherited)
            return
    if obj.kind in (CLASS, EXCEPTION) and own_constructor(module, obj) is not None:
        # No conf.py says what a class's description shows here: it shows its constructor's
        # docstring too (autoclass_content "both"), which says what each argument does
        # (gradio's `Image.__init__`), one unit known by both names (merged_constructor).
        obj = class_content(package, module, obj, "both")
    merged = merged_constructor(module, obj)
    yield module, obj
    for member in obj.members:
        child = module.objects[f"{path}.{member}"]
        if not is_private_member(member, child) or is_special(member) \
                and child.docstring is not None and child is not merged:
            # A special method with a docstring of its own is documented API (as napoleon's
            # napoleon_include_special_with_doc documents it): `__eq__` says what `==`
            # builds; an `__init__` its class's unit does not quote, what its arguments do.
            yield from _public_tree(package, module, f"{path}.{member}", exported, assigned,
                                    inherited, class_docs=class_docs)


def own_constructor(module: Module, obj: DocObject) -> DocObject | None:
    """Return a class's own `__init__` where it has a docstring, else None."""
    init = module.member(obj, "__init__")
    return init if init is not None and init.docstring else None


def merged_constructor(module: Module, obj: DocObject) -> DocObject | None:
    """Return a class's own documented `__init__` whose lines the class's quote holds (as
    class_content "both" quotes them), else None: the class's unit is the constructor's."""
    if obj.kind not in (CLASS, EXCEPTION):
        return None
    init = own_constructor(module, obj)
    return init if init is not None and obj.start_line <= init.start_line \
        and init.end_line <= obj.end_line else None


def _is_value(obj) -> bool:
    """Tell whether an attribute is a value bound by assignment (a `#:` comment or a string
    after it its docstring), not a routine or a property (a signature in parentheses, or
    `delete = property(lambda s: ...)`, whose __doc__ is None where its getter has none, so
    that getdoc looks along the MRO: mutagen's EasyID3.delete)."""
    return obj.kind in (ATTRIBUTE, DATA) and not obj.signature.startswith("(") \
        and not (obj.call is not None and obj.call[0] == "property")


def inheriting(package: PackageSource, module: Module, obj: DocObject, owner) -> DocObject:
    """Return an object as autodoc shows it where autodoc_inherit_docstrings is on: without a
    docstring of its own, with the first its class's bases (owner: (Module, DocObject) of the
    class it is a member of, or None) give a member of its name, or a class with the first
    its own bases have (Sphinx's getdoc, then inspect.getdoc, looking along the MRO). A value
    (`closed = False` over a base's documented property) has its type's docstring to getdoc,
    which autodoc drops: it inherits only a base value's comment or string (the analyzer's
    attribute docs of each class of the MRO)."""
    if obj.docstring is not None:
        return obj
    found: Iterable
    if obj.kind in (CLASS, EXCEPTION):
        found = (base.docstring for _, base in package.bases(module, obj))
    elif owner is not None and owner[1].kind in (CLASS, EXCEPTION):
        name = obj.name.rpartition(".")[2]
        # A base's docstring entry (`.. attribute:: configSection` written in its docstring,
        # napoleon's Attributes) is the base's text, no member's docstring getdoc reaches
        # (nose2's plugins, urwid's `BoxAdapter.keypress`).
        found = (package.shown(base_module, member)[1].docstring
                 for base_module, base in package.bases(*owner)
                 for member in [base_module.member(base, name)] if member is not None
                 and not member.section_entry and (_is_value(member) or not _is_value(obj)))
        special = is_special(name)
        if (special or not name.startswith("_")) and not _is_value(obj):
            # Every class derives from `object` (of metaclass `type`) last: a special method
            # shows what getattr(object, name) gives (`__call__`: "Call self as a function.").
            found = itertools.chain(found, (_python_doc(dotted, name) for dotted in (
                *package.outside_bases(*owner), *(("object",) if special else ()))))
    else:
        return obj
    docstring = next((text for text in found if text is not None), None)
    if docstring is not None and docstring == _OBJECT_DOCS.get(obj.name.rpartition(".")[2]):
        # MethodDocumenter.get_doc shows nothing of object's `__init__` or `__new__` docstring,
        # though filter_members documents the method by it.
        docstring = ""
    return obj if docstring is None else replace(obj, docstring=docstring)


# The docstrings of `object.__init__` and `object.__new__`, which autodoc never shows.
_OBJECT_DOCS = {name: inspect.cleandoc(getattr(object, name).__doc__ or "")
                for name in ("__init__", "__new__")}


def _python_doc(dotted: str, name: str) -> str | None:
    """Return the docstring Python's own class (`dict`, `unittest.TestResult`) gives its
    member name along its MRO, as autodoc's getdoc finds it, or None (testtools'
    `startTest` shows unittest.TestResult's; pymongo's `FixedOffset.dst`, tzinfo's)."""
    owner = python_class(dotted)
    doc = getattr(getattr(owner, name, None), "__doc__", None) if owner is not None else None
    return inspect.cleandoc(doc) if isinstance(doc, str) and doc.strip() else None


# Standard library modules whose import does more than define names (opens a browser,
# prints, starts a GUI): never imported for a docstring.
_NOT_IMPORTED = frozenset({"antigravity", "this", "__hello__", "__phello__", "idlelib",
                           "tkinter", "turtle", "turtledemo"})


def python_class(dotted: str) -> type | None:
    """Return the builtin or standard library class a dotted name, as a module imports it,
    names, or None. The standard library module is imported (it is Python's, never the
    release's: nothing fetched is imported), so the class is the one Sphinx's import finds,
    its C implementation's docstrings included."""
    parts = dotted.split(".")
    if len(parts) == 1:
        found = getattr(builtins, dotted, None)
        return found if isinstance(found, type) else None
    if parts[0] not in sys.stdlib_module_names or parts[0] in _NOT_IMPORTED:
        return None
    for cut in range(len(parts) - 1, 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:cut]))
        except Exception:  # a module this Python lacks or cannot import here
            continue
        for part in parts[cut:]:
            found = getattr(found, part, None)
        return found if isinstance(found, type) else None
    return None


def class_content(package: PackageSource, module: Module, obj: DocObject,
                  content: str) -> DocObject:
    """Return a class as autodoc's ClassDocumenter shows it under autoclass_content (or a
    directive's `:class-doc-from:`): "class" its own docstring; "init" its `__init__`'s (the
    first along the class and its bases with one), else its `__new__`'s, else its own; "both"
    its own, then that. Where that method is the class's own, its lines are quoted too."""
    if content not in ("both", "init") or obj.kind not in (CLASS, EXCEPTION):
        return obj
    owners = [(module, obj), *package.bases(module, obj)]
    method = next((found for name in ("__init__", "__new__") for owner_module, owner in owners
                   for found in [owner_module.member(owner, name)]
                   if found is not None and found.docstring), None)
    if method is None:
        return obj
    docstring = method.docstring if content == "init" or not obj.docstring \
        else f"{obj.docstring}\n\n{method.docstring}"
    # The method's lines are quoted with the class's where nothing documented of its own
    # stands between (a method before __init__ is a passage of its own).
    between = (module.member(obj, member) for member in obj.members)
    own = method.name.rpartition(".")[0] == obj.name and method.path == obj.path and not any(
        other is not None and other is not method and other.docstring is not None
        and obj.end_line < other.start_line < method.start_line for other in between)
    return replace(obj, docstring=docstring,
                   end_line=max(obj.end_line, method.end_line) if own else obj.end_line)


def _inherited_tree(package: PackageSource, module: Module, path: str, inherited: dict):
    """Yield the documented members below a non-public object that a public class inherits
    (sqlalchemy's `Result.keys`, defined on its private base `_WithKeys`)."""
    obj = module.objects[path]
    if obj.name in inherited:
        shown_module, shown = package.shown(module, obj)
        if shown.docstring is not None:
            yield shown_module, shown if shown is obj else replace(
                shown, name=obj.name, members=(), kind=METHOD)
    for member in obj.members:
        yield from _inherited_tree(package, module, f"{path}.{member}", inherited)


def inherited_members(package: PackageSource, names: dict,
                      exported: Counter | None = None) -> dict:
    """Return {defining name of a member: [(depth, defining name of a public class that
    inherits it)]}, each class once, in public_objects' order; depth: how far up its bases
    (base_depths) the member is defined.

    A public class (public_objects) inherits each public member of its bases the package
    defines (PackageSource.bases, nearest first) that neither it nor a nearer base defines:
    `flask.app.Flask` inherits `route` from `flask.scaffold.Scaffold`, as Sphinx's
    `:inherited-members:` documents it, and as users call it (`flask.Flask.route`). exported:
    `exports`, computed if not given."""
    found: dict = {}
    for module, cls in public_objects(package, names, exported=exported):
        if cls.kind not in (CLASS, EXCEPTION):
            continue
        defined = set(cls.members)
        for base_module, base, depth in package.base_depths(module, cls):
            below = base.name[len(base_module.name) + 1:]
            for member in base.members:
                if member.startswith("_") or member in defined:
                    continue
                defined.add(member)
                found.setdefault(base_module.objects[f"{below}.{member}"].name, []).append(
                    (depth, cls.name))
    return found


def inherited_names(dotted: str, inherited: dict, names: dict, exported) -> list:
    """Return the public names a member is called by as a member of the public classes that
    inherit it (inherited_members): each class's public names (its own and those it is
    re-exported by, `names`) with the member's bare name; those of a class the package
    exports (exported: `exports`) first, then of the nearest subclasses, then the shortest
    ("flask.Flask.route", "flask.Blueprint.route", "flask.app.Flask.route", ... for
    `flask.scaffold.Scaffold.route`), each once."""
    bare = dotted.rsplit(".", 1)[-1]
    found: dict = {}
    for depth, cls in inherited.get(dotted, ()):
        for name in (cls, *names.get(cls, ())):
            if not is_private(name):
                key = (cls not in exported, depth, name.count("."), len(name), name)
                found[f"{name}.{bare}"] = min(key, found.get(f"{name}.{bare}", key))
    return sorted(found, key=found.__getitem__)


def exports(package: PackageSource) -> Counter:
    """Count, by defining name, the public names the package exports each module-level object
    by: each public module's re-export of it (`from .api import get` in requests/__init__.py,
    `*` included) and its own name where its public module's __all__ lists it, or where it is
    defined in a public package's __init__ (the package's face) under a public name."""
    counts: Counter = Counter()
    for name, module in sorted(package.modules.items()):
        if is_private(name):
            continue
        for local in _exported_locals(package, module):
            resolved = package.resolve(f"{name}.{local}")
            if resolved is not None and resolved[1].kind != MODULE \
                    and resolved[1].name != f"{name}.{local}":
                counts[resolved[1].name] += 1
        face = is_face(module)
        for member in module.objects[""].members:
            if (member in module.all_names) if module.all_names is not None \
                    else (face and not member.startswith("_")):
                counts[module.objects[member].name] += 1
    return counts


def is_face(module: Module) -> bool:
    """Tell whether a module is a public face of its package, whose public imports are what it
    exports: a package's __init__, or a module without __all__ that defines no public name of
    its own, only imports (sqlalchemy/schema.py, "Compatibility namespace for
    sqlalchemy.sql.schema and related", which the docs document `sqlalchemy.schema.Column` by)."""
    if module.path.endswith("__init__.py"):
        return True
    return module.all_names is None and bool(module.imports) and not any(
        not member.startswith("_") for member in module.objects[""].members)


def _exported_locals(package: PackageSource, module: Module) -> list:
    """Return the public names a module binds to what it imports (or aliases: `Matrix =
    MutableDenseMatrix`): every public one of a package's face (is_face), and names `*` brings
    in (PackageSource.star_names); the ones a module's __all__ lists (any module)."""
    face = is_face(module)
    # Its own `NAME = other.name` aliases bind a name as its imports do.
    bound = [*module.imports, *(member for member in module.objects[""].members
                                if module.objects[member].alias is not None)]
    found = [local for local in dict.fromkeys(bound) if not local.startswith("_")
             and (module.all_names is not None and local in module.all_names
                  or face and module.is_public(local))]
    seen = set(found)
    for source in module.star_imports:
        if source in package.modules:
            for local in package.star_names(source):
                if module.is_public(local) and local not in module.objects and local not in seen:
                    seen.add(local)
                    found.append(local)
    return found


class Aliases(dict):
    """{defining dotted name: [public names]} (`aliases`), and the set of those names that
    rename what they name (`renamed`): bound by a name other than the object's own (`Matrix =
    MutableDenseMatrix`, `from .helpers import http_now as httpnow`), which public_name
    never titles an object with where a name of its own is public."""

    def __init__(self):
        super().__init__()
        self.renamed: set = set()
        # (defining name, public name) of every name listed, so that one object re-exported
        # by thousands of modules is not searched thousands of times per name.
        self.listed: set = set()

    def add(self, dotted: str, public: str) -> None:
        """List a public name of a defining name, once."""
        if (dotted, public) not in self.listed:
            self.listed.add((dotted, public))
            self.setdefault(dotted, []).append(public)


def aliases(package: PackageSource) -> Aliases:
    """Return {defining dotted name: [public names a package re-exports it by]}, members too.

    `from .app import Flask as Flask` in flask/__init__.py makes "flask.Flask" a name of
    "flask.app.Flask", and "flask.Flask.run" one of "flask.app.Flask.run"; `from ._filters
    import *` in scipy/ndimage/__init__.py "scipy.ndimage.median_filter" one of
    "scipy.ndimage._filters.median_filter". A package's face (is_face) re-exports its public
    imports; another public module only what its __all__ lists.
    """
    found = Aliases()
    for name, module in sorted(package.modules.items()):
        if is_private(name):
            continue
        for local in _exported_locals(package, module):
            resolved = package.resolve(f"{name}.{local}")
            if resolved is None or resolved[1].kind == MODULE:
                continue
            target_module, target = resolved
            public = f"{name}.{local}"
            if public == target.name:
                continue
            _name_tree(found, target_module, target, public)
    _instance_names(package, found)
    subclasses = _subclasses_by_base(package)
    for _, module in sorted(package.modules.items()):
        for local, target in module.documents.items():
            # A compiled function the package's source defines nowhere, named where its
            # docstring is given (`torch.abs`); a name the source defines is that object's.
            # A member of a compiled class is named under each class the source derives from
            # it too (`torch._C._TensorBase.abs`: `torch.Tensor.abs`, torch.Tensor's base).
            obj = module.objects.get(local)
            bound = package.resolve(target)
            if obj is None or bound is None or bound[1] is not obj:
                continue
            names = found.setdefault(obj.name, [])
            owner, _, member = target.rpartition(".")
            for subclass in subclasses.get(owner, ()):
                names += [f"{name}.{member}" for name in (subclass, *found.get(subclass, ()))]
            names.append(target)
    return found


def _name_tree(found: Aliases, module: Module, target: DocObject, public: str) -> None:
    """Add a public name of an object to found, and that name's members to its members'."""
    renames = public.rsplit(".", 1)[-1] != target.name.rsplit(".", 1)[-1]
    below = target.name[len(module.name) + 1:]
    for path, obj in module.objects.items():
        if path == below or path.startswith(below + "."):
            found.add(obj.name, public + path[len(below):])
            if renames:
                found.renamed.add(public + path[len(below):])


# The most instances that name one class (_instance_names): a unit is indexed under its first
# 64 names (formats/package.py MAX_NAMES), and thousands of instances of a class of hundreds of
# members would give each member thousands of names.
_MAX_INSTANCES = 64


def _instance_names(package: PackageSource, found: Aliases) -> None:
    """Name a class that no public name reaches by the public instances the package makes of
    it, as users call its members: `logger = _Logger(...)` in loguru/__init__.py (`Logger`
    defined in the private loguru/_logger.py) makes "loguru.logger" a name of the class and
    "loguru.logger.add" one of its `add`. Only an instance the package names as API, as
    public_objects takes undocumented data: its module's __all__ lists it, or another public
    module re-exports it (not Pygments' `newmod = _automodule(__name__)`). A class with a
    public name keeps its own (numpy's `c_ = CClass()` names no `CClass`); a class several
    instances are made of has each one's names (`numpy.ma`'s `add`, `subtract`, ... of
    `_MaskedBinaryOperation`: `numpy.ma.subtract.reduce`)."""
    named = []
    instances: Counter = Counter()  # a class's name -> how many instances name it
    for _, module in sorted(package.modules.items()):
        for member in module.objects[""].members:
            obj = module.objects[member]
            if obj.called is None or obj.docstring is not None \
                    or not _named_data(module, member, found):
                continue
            made = package.instance_of(module, obj)
            if made is not None and is_private(made[1].name) and all(
                    is_private(known) for known in found.get(made[1].name, ())) \
                    and instances[made[1].name] < _MAX_INSTANCES:
                instances[made[1].name] += 1
                named.append((made, [public for public in [obj.name, *found.get(obj.name, ())]
                                     if not is_private(public)]))
    # Named after every instance is found: an instance's name is no public name of its own
    # the class has (which would keep the next instance from naming it).
    for (made_module, cls), publics in named:
        for public in publics:
            _name_tree(found, made_module, cls, public)


def _subclasses_by_base(package: PackageSource) -> dict:
    """Return {a base as its absolute dotted name: [classes the package derives from it]}."""
    found: dict = {}
    for module in package.modules.values():
        for obj in module.objects.values():
            if obj.kind not in (CLASS, EXCEPTION):
                continue
            for base in obj.bases:
                absolute = module.imported_name(base)
                if absolute is not None:
                    found.setdefault(absolute, []).append(obj.name)
    return found


def public_name(dotted: str, names: dict) -> str:
    """Return the name users import an object by: the shortest of its own (where public) and
    the public names a package re-exports it by (fewest dots, then fewest characters, its own
    first), but never a rename (Aliases.renamed) where another is public: "requests.get" for
    "requests.api.get", "scipy.ndimage.median_filter" for "scipy.ndimage._filters.median_filter",
    "sympy.MutableDenseMatrix" (not "sympy.Matrix", `Matrix = MutableDenseMatrix`)."""
    head, _, last = dotted.rpartition(".")
    if head and is_special(last):
        # A special member is public where its class is: `sqlalchemy.Enum.__init__`.
        return f"{public_name(head, names)}.{last}"
    renamed = names.renamed if isinstance(names, Aliases) else set()
    public = [name for name in (dotted, *names.get(dotted, ())) if not is_private(name)]
    return min(public, key=lambda name: (name in renamed, name.count("."), len(name))) \
        if public else dotted
