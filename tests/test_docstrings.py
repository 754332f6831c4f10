"""Unit: package sources read with ast, autodoc directives resolved, releases unpacked safely."""

import datetime
import hashlib
import inspect
import io
import os
import tarfile
import unittest
import zipfile
from collections import Counter
from unittest import mock

from retrieval.ingest.formats.package import summed
from retrieval.ingest.readers import autodoc
from retrieval.ingest.readers.docstrings import (
    ATTRIBUTE,
    CLASS,
    DATA,
    EXCEPTION,
    METHOD,
    PackageSource,
    aliases,
    compiled_rebindings,
    computed_all,
    derived_exceptions,
    exports,
    inherited_members,
    inherited_names,
    merged_constructor,
    module_name,
    parse_module,
    plain_header,
    public_name,
    public_objects,
    read_package,
)
from retrieval.ingest.readers.rendered import RenderedSite
from retrieval.ingest.readers.sphinx_conf import read_conf
from retrieval.ingest.sources import unpack
from tests.package_fixtures import BROKEN, CORE, INIT
from tests.support import temporary_directory

TIER = "unit"


def demo_package(testcase):
    """Write the demo package (and its broken module) and read it."""
    root = temporary_directory(testcase)
    os.makedirs(os.path.join(root, "demo"))
    for name, text in (("__init__", INIT), ("core", CORE), ("broken", BROKEN)):
        with open(os.path.join(root, "demo", f"{name}.py"), "w", encoding="utf-8") as out:
            out.write(text)
    files = [(f"demo/{name}.py", module_name(f"demo/{name}.py"))
             for name in ("__init__", "core", "broken")]
    return read_package(root, files)


class DocstringReaderTest(unittest.TestCase):

    def setUp(self):
        self.package = demo_package(self)

    def test_each_object_quotes_its_file_lines_byte_exact_with_the_file_digest(self):
        module = self.package.modules["demo.core"]
        job = module.objects["Engine.register_job"]
        lines = CORE.split("\n")
        self.assertEqual(module.quote(job), "\n".join(lines[job.start_line - 1:job.end_line]))
        self.assertTrue(module.quote(job).startswith("    def register_job(self, job"))
        self.assertTrue(module.quote(job).endswith('        :param options: passed to the job.\n'
                                                   '        """'))
        self.assertEqual(module.sha256, hashlib.sha256(CORE.encode()).hexdigest())
        self.assertEqual(job.signature, "(self, job: t.Callable, **options: t.Any) -> None")
        self.assertEqual(job.docstring.split("\n")[0], "Register a job to run when the engine "
                                                       "starts.")
        # A class's signature is its __init__'s, as written (continuation line included).
        self.assertEqual(module.objects["Engine"].signature,
                         '(self, size: int,\n                 name: str = "engine") -> None')

    def test_headers_read_by_their_characters_or_by_tokenize_give_the_same_signature(self):
        # plain_header reads a header without comments, backslashes or triple-quoted strings
        # by its characters; any other is tokenized: the signature and last line are the same.
        headers = {  # header: (signature, lines, read by its characters)
            "def plain(a, b=(1, 2), *c: dict[str, int], d=lambda x: x) -> list[int]:":
                ("(a, b=(1, 2), *c: dict[str, int], d=lambda x: x) -> list[int]", 1, True),
            "async def fetch(\n    url: str,\n    timeout: float = 1.0,\n) -> bytes:":
                ("(\n    url: str,\n    timeout: float = 1.0,\n) -> bytes", 4, True),
            "class Meta(Base, metaclass=ABCMeta):": ("", 1, True),  # a class's: its __init__'s
            "def quoted(a=':', b='(', c=\"#'\", d='') -> 'x':":
                ("(a=':', b='(', c=\"#'\", d='') -> 'x'", 1, True),
            "def commented(a,  # the first\n             b):":
                ("(a,  \n             b)", 2, False),
            "def escaped(a='\\'(') -> str:": ("(a='\\'(') -> str", 1, False),
            'def tripled(a=\'\'\':\'\'\') -> str:': ("(a=\'\'\':\'\'\') -> str", 1, False),
            "def continued(a, b) \\\n        -> int:": ("(a, b) \\\n        -> int", 2, False),
        }
        source = "\n".join(f"{header}\n    pass\n" for header in headers)
        module = parse_module("m", "m.py", source.encode())
        first = 1
        for header, (signature, lines, plain) in headers.items():
            name = header.split("(")[0].split()[-1]
            with self.subTest(name=name):
                obj = module.objects[name]
                self.assertEqual(obj.signature, signature)
                self.assertEqual(obj.end_line - obj.start_line + 1, lines)
                self.assertEqual(obj.start_line, first)
                self.assertEqual(plain_header(header, name) is not None, plain)
            first += header.count("\n") + 3
        self.assertIsNone(plain_header("def ﬁle(a):", "file"))  # NFKC: "ﬁle" is written

    def test_modules_share_the_lines_they_repeat(self):
        # Every module's lines are kept until the build is written: a line two modules hold is
        # one object (generated packages repeat most of theirs), its text unchanged.
        source = b'class ColorValidator(Base):\n    """The color."""\n'
        first, second = (parse_module(name, f"{name}.py", source) for name in ("a", "b"))
        self.assertEqual(first.lines, source.decode().split("\n"))
        for one, other in zip(first.lines, second.lines, strict=True):
            self.assertIs(one, other)

    def test_a_static_or_class_method_bound_by_assignment_is_a_method(self):
        # autodoc documents `default = staticmethod(_default)` (and its docstring after it)
        # as a method, `static default(o)`; another assignment stays an attribute.
        module = parse_module("lib", "lib/__init__.py", (
            b'import hashlib\n\n\ndef _default(o):\n    return o\n\n\nclass Provider:\n'
            b'    default = staticmethod(_default)\n    """Serialize what json does not."""\n\n'
            b'    #: the hash function.\n    digest = staticmethod(hashlib.sha1)\n\n'
            b'    #: made once.\n    make = classmethod(_default)\n\n'
            b'    #: the size.\n    size = int(4)\n'))
        kinds = {name: module.objects[f"Provider.{name}"].kind
                 for name in ("default", "digest", "make", "size")}
        self.assertEqual(kinds, {"default": METHOD, "digest": METHOD, "make": METHOD,
                                 "size": ATTRIBUTE})

    def test_a_class_s_own_method_bound_to_another_name_is_a_method(self):
        # pandas' NDFrame: `product = prod` below `def prod`: the same function, which
        # autodoc documents as a method; a name of something else stays an attribute.
        module = parse_module("lib", "lib/__init__.py", (
            b'LIMIT = 3\n\n\nclass Frame:\n    def prod(self):\n        """Multiply."""\n\n'
            b'    product = prod\n    limit = LIMIT\n    size = 4\n'
            b'    times = prod\n    """A synonym for prod."""\n'))
        kinds = {name: module.objects[f"Frame.{name}"].kind
                 for name in ("product", "limit", "size", "times")}
        # A docstring after it (mako's `put = set`) is the method's: a method all the same.
        self.assertEqual(kinds, {"product": METHOD, "limit": ATTRIBUTE, "size": ATTRIBUTE,
                                 "times": METHOD})

    def test_a_class_of_any_python_exception_is_an_exception(self):
        module = parse_module("lib", "lib/__init__.py", (
            b'class Interrupted(KeyboardInterrupt):\n    """Interrupted."""\n\n\n'
            b'class Done(StopIteration):\n    """Done."""\n\n\n'
            b'class Failed(Exception):\n    """Failed."""\n\n\n'
            b'class Plain(dict):\n    """Plain."""\n'))
        self.assertEqual([module.objects[name].kind for name in
                          ("Interrupted", "Done", "Failed", "Plain")],
                         [EXCEPTION, EXCEPTION, EXCEPTION, CLASS])

    def test_a_function_rebound_to_a_compiled_modules_is_no_member_automodule_takes(self):
        # pymongo's bson: `def decode_all` then `if _USE_C: decode_all = _cbson.decode_all`,
        # _cbson a C extension of the package: built, the name is the extension's function,
        # which automodule's :members: skips as imported (no __all__); it is still the
        # package's API. One rebound to a Python module's function, or listed, stays.
        package = package_of({
            "lib": "try:\n    from lib import _speed\n    _USE_C = True\nexcept ImportError:\n"
                   "    _USE_C = False\nfrom lib import slow\n\n\n"
                   'def decode(data):\n    """Decode."""\n\n\n'
                   'def encode(data):\n    """Encode."""\n\n\n'
                   'def check(data):\n    """Check."""\n\n\n'
                   "if _USE_C:\n    decode = _speed.decode\n    check = slow.check\n",
            "lib.slow": 'def check(data):\n    """Check slowly."""\n'})
        compiled_rebindings(package)
        self.assertEqual(sorted(documented_by(package, ".. automodule:: lib\n   :members:\n")),
                         ["lib", "lib.check", "lib.encode"])
        self.assertEqual(sorted(documented_by(
            package, ".. automodule:: lib\n   :members: decode\n")), ["lib", "lib.decode"])
        self.assertIn("lib.decode", [obj.name for _, obj in public_objects(package)])

    def test_a_class_deriving_from_an_exception_of_the_package_is_an_exception(self):
        # ExceptionDocumenter takes any BaseException subclass: pymongo's `class
        # AutoReconnect(ConnectionFailure)`, ConnectionFailure(PyMongoError(Exception)), in
        # another module too.
        package = package_of({
            "lib": 'class Failure(Exception):\n    """Failed."""\n\n\n'
                   'class Lost(Failure):\n    """Lost."""\n',
            "lib.more": 'from lib import Lost\n\n\nclass Reconnect(Lost):\n    """Again."""\n'
                        '\n\nclass Plain:\n    """Plain."""\n'})
        derived_exceptions(package)
        self.assertEqual([package.resolve(name)[1].kind for name in
                          ("lib.Lost", "lib.more.Reconnect", "lib.more.Plain")],
                         [EXCEPTION, EXCEPTION, CLASS])

    def test_a_crlf_file_is_quoted_with_its_carriage_returns(self):
        data = CORE.replace("\n", "\r\n").encode()
        module = parse_module("demo.core", "demo/core.py", data)
        stop = module.objects["Engine.stop"]
        self.assertEqual(module.quote(stop),
                         '    def stop(self):\r\n        """Stop every job."""\r')

    def test_a_module_s_doc_assignment_is_its_docstring(self):
        # Without a docstring first, `__doc__ = """..."""` (after a licence comment) is what
        # Python binds as the module's __doc__, which autodoc shows; its lines are quoted.
        module = parse_module("lib", "lib/__init__.py", (
            b'# Licence.\n\n__doc__ = """\nThe lib.\n\nMore.\n"""\nX = 1\n'))
        found = module.objects[""]
        self.assertEqual(found.docstring, "The lib.\n\nMore.")
        self.assertEqual(module.quote(found), '__doc__ = """\nThe lib.\n\nMore.\n"""')

    def test_attributes_documented_by_comments_and_instance_attributes(self):
        module = self.package.modules["demo.core"]
        self.assertEqual(module.quote(module.objects["Engine.retries"]),
                         "    #: Jobs run at most this many times.\n    retries = 3")
        self.assertEqual(module.objects["Engine.name"].docstring, "The name the engine reports.")
        # Members in source order: the instance attribute where __init__ is.
        self.assertEqual(module.objects["Engine"].members,
                         ("retries", "__init__", "name", "register_job", "stop", "undocumented",
                          "_hidden"))

    def test_a_descriptor_made_with_a_doc_argument_is_documented_by_it(self):
        module = parse_module("m", "m.py", (
            b'"""M."""\n\n\nclass Request:\n    """A request."""\n\n'
            b'    origin = header_property[str](\n        "Origin",\n'
            b'        doc=("The host that the request"\n             " originated from."),\n'
            b'    )\n    data = property(get_data, doc=helper())\n    plain = make("x")\n'))
        origin = module.objects["Request.origin"]
        self.assertEqual((origin.kind, origin.docstring, origin.start_line, origin.end_line),
                         (ATTRIBUTE, "The host that the request originated from.", 7, 11))
        # What is not written out is no docstring, nor is a call without `doc=`.
        self.assertIsNone(module.objects["Request.data"].docstring)
        self.assertIsNone(module.objects["Request.plain"].docstring)

    def test_what_runs_of_if_type_checking_is_its_else_branch_first(self):
        # SQLAlchemy 2.0's `if TYPE_CHECKING: memoized_property = generic_fn_descriptor`
        # `else: memoized_property = _memoized_property`: autodoc imports the module, so the
        # else branch's binding is the name's. What only the block defines stands for what
        # the module makes at run time (alembic's Operations stubs), as do its imports
        # (transformers' lazy module).
        module = parse_module("m", "m.py", (
            b'"""M."""\nimport typing\nfrom typing import TYPE_CHECKING\n\n'
            b'if TYPE_CHECKING:\n    from pkg.engine import Engine\n\n    memo = Engine\n'
            b'    """For mypy."""\n\n    def stub():\n        """Made at run time."""\n\n'
            b'    def safe(a, b):\n        """Zip, checking lengths."""\n\n'
            b'    class Model:\n        fields: dict = {}\n        """The fields."""\n'
            b'else:\n    memo = make()\n    """At run time."""\n    safe = native.safe\n\n'
            b'    class Model:\n        fields = {}\n'))
        self.assertEqual(module.objects["memo"].docstring, "At run time.")
        self.assertEqual(module.objects["stub"].docstring, "Made at run time.")
        self.assertEqual(module.imports["Engine"], "pkg.engine.Engine")
        # An undocumented assignment of the else's (jax's `safe_zip = jaxlib_utils.safe_zip`,
        # pydantic's `model_fields = {}`) yields to the block's definition or doc comment,
        # which autodoc's analyzer reads wherever it is.
        self.assertEqual(module.objects["safe"].docstring, "Zip, checking lengths.")
        self.assertEqual(module.objects["Model.fields"].docstring, "The fields.")

    def test_a_class_python_gives_a_docstring_is_documented_by_it(self):
        # A dataclass's __doc__ is its signature, a typing.NamedTuple's `Name(a, b)` (pint's
        # Relation, pyparsing's DebugActions): autodoc shows them, :undoc-members: or not.
        module = parse_module("m", "m.py", (
            b'"""M."""\nfrom dataclasses import dataclass, field\nimport typing\n\n\n'
            b'@dataclass(frozen=True)\nclass Relation:\n    bases: tuple\n'
            b'    size: int = 1\n    items: list = field(default_factory=list)\n'
            b'    seen: int = field(init=False, default=0)\n    cache: typing.ClassVar[dict] = {}\n'
            b'\n\nclass Actions(typing.NamedTuple):\n    debug_try: bool\n'
            b'    debug_fail: bool\n\n\n@dataclass\nclass Written:\n    """Its own."""\n'
            b'    a: int\n\n\nclass Plain:\n    a: int\n'))
        docstrings = {name: module.objects[name].docstring
                      for name in ("Relation", "Actions", "Written", "Plain")}
        self.assertEqual(docstrings, {
            "Relation": "Relation(bases: tuple, size: int = 1, items: list = <factory>)",
            "Actions": "Actions(debug_try, debug_fail)", "Written": "Its own.", "Plain": None})

    def test_a_documented_instance_attribute_in_a_branch_of_init_is_a_member(self):
        # cssselect2 0.7's ElementWrapper.__init__: `if parent is not None:` then `#:` and
        # `self.parent = parent`; autodoc's analyzer visits __init__'s branches too.
        module = parse_module("m", "m.py", (
            b'class Wrapper:\n    """A wrapper."""\n\n    def __init__(self, parent):\n'
            b'        if parent is not None:\n            #: The parent element.\n'
            b'            self.parent = parent\n        else:\n            self.parent = None\n'
            b'        try:\n            self.index = 0\n            """Its index."""\n'
            b'        except ValueError:\n            pass\n'))
        self.assertEqual([(name, module.objects[name].docstring) for name in
                          ("Wrapper.parent", "Wrapper.index")],
                         [("Wrapper.parent", "The parent element."),
                          ("Wrapper.index", "Its index.")])

    def test_only_the_branch_python_3_runs_of_a_major_version_test_binds(self):
        # future 0.18's `if utils.PY3: __all__ = ['newtypes']` / `else: from .newbytes import
        # newbytes ...`: on the Python 3 Sphinx runs on, only the first; a minor version's
        # test (`>= (3, 8)`) still binds what either branch defines.
        module = parse_module("m", "m.py", (
            b'"""M."""\nimport sys\nfrom . import utils\n\nif utils.PY3:\n'
            b'    __all__ = ["newtypes"]\n    newtypes = {}\nelse:\n'
            b'    def newbytes():\n        """Py2 bytes."""\n    __all__ = ["newbytes"]\n\n'
            b'if sys.version_info[0] == 2:\n    def text():\n        """Py2."""\nelse:\n'
            b'    def text():\n        """Py3."""\n\n'
            b'if sys.version_info >= (3, 8):\n    def new():\n        """New."""\nelse:\n'
            b'    def old():\n        """Old."""\n'))
        self.assertEqual(module.all_names, ("newtypes",))
        self.assertNotIn("newbytes", module.objects)
        self.assertEqual(module.objects["text"].docstring, "Py3.")
        self.assertEqual((module.objects["new"].docstring, module.objects["old"].docstring),
                         ("New.", "Old."))

    def test_each_name_an_unpacking_assignment_binds_is_an_object(self):
        # GitPython's `NEW_TAG, NEW_HEAD, ERROR = [1 << x for x in range(3)]`: autodoc lists
        # each name (:undoc-members:), and its analyzer gives each the assignment's doc
        # comment or string; `self.x` and `d[k]` bind no name of the scope.
        module = parse_module("m", "m.py", (
            b'"""M."""\n\nLOW, (MID, *REST) = 1, (2, 3)\n\n\nclass FetchInfo:\n'
            b'    """Info."""\n\n    #: A flag.\n    NEW_TAG, NEW_HEAD = [1, 2]\n'
            b'    self.x, d[0] = 1, 2\n'))
        self.assertEqual([(name, obj.kind, obj.docstring) for name, obj in module.objects.items()
                          if name not in ("", "FetchInfo")], [
            ("LOW", DATA, None), ("MID", DATA, None), ("REST", DATA, None),
            ("FetchInfo.NEW_TAG", ATTRIBUTE, "A flag."),
            ("FetchInfo.NEW_HEAD", ATTRIBUTE, "A flag.")])

    def test_a_property_made_of_a_getter_has_the_getter_s_docstring(self):
        # Python's property copies fget's docstring where no doc is given, and webob's
        # `accepts_html = property(fget=accept_html, doc=accept_html.__doc__)` names it.
        module = parse_module("m", "m.py", (
            b'"""M."""\n\n\ndef outside(self):\n    """Outside."""\n\n\n'
            b'class Header:\n    """A header."""\n\n    def accept_html(self):\n'
            b'        """Tell whether HTML is accepted."""\n\n'
            b'    accepts_html = property(fget=accept_html, doc=accept_html.__doc__)\n'
            b'    html = property(accept_html)\n    told = property(accept_html, None, None, '
            b'"Told.")\n    other = property(accept_html, doc=outside.__doc__)\n'
            b'    loose = property(outside)\n    bare = property()\n'))
        docstrings = {name: module.objects[f"Header.{name}"].docstring
                      for name in ("accepts_html", "html", "told", "other", "loose", "bare")}
        self.assertEqual(docstrings, {
            "accepts_html": "Tell whether HTML is accepted.",
            "html": "Tell whether HTML is accepted.", "told": "Told.",
            # A function of another scope is not read as the class body's name.
            "other": None, "loose": None, "bare": None})

    def test_public_follows_all_where_defined_else_the_underscore(self):
        names = [obj.name for _, obj in public_objects(self.package)]
        # An undocumented member (Engine.undocumented) is left out, as autodoc leaves it.
        self.assertEqual(names, [
            "demo", "demo.DEFAULT_SIZE", "demo.core", "demo.core.Engine",
            "demo.core.Engine.retries", "demo.core.Engine.name", "demo.core.Engine.register_job",
            "demo.core.Engine.stop", "demo.core.EngineError", "demo.core.make_engine"])

    def test_a_special_method_with_its_own_docstring_is_api_under_its_class_s_name(self):
        # napoleon's napoleon_include_special_with_doc: `__eq__` says what `==` does. Without
        # a docstring of its own (`__repr__`, or one only `object` gives) it stays out, as
        # does a private member with one.
        package = package_of({
            "lib": "from .core import Thing, Other\n",
            "lib.core": ('class Thing:\n    """A thing."""\n\n'
                         '    def __init__(self, size):\n        """Make one of size."""\n\n'
                         '    def __eq__(self, other):\n        """Compare by size."""\n\n'
                         '    def __repr__(self):\n        return "Thing"\n\n'
                         '    def _helper(self):\n        """Private."""\n\n'
                         'class Other:\n    """Another."""\n\n'
                         '    def run(self):\n        """Run."""\n\n'
                         '    def __init__(self, size):\n        """Make another."""\n')})
        names = aliases(package)
        found = {obj.name: obj for _, obj in public_objects(package, names)}
        self.assertEqual(list(found), ["lib.core.Thing", "lib.core.Thing.__eq__",
                                       "lib.core.Other", "lib.core.Other.run",
                                       "lib.core.Other.__init__"])
        self.assertEqual(public_name("lib.core.Thing.__eq__", names), "lib.Thing.__eq__")
        # The constructor's docstring right below its class's is the class's unit too
        # (autoclass_content "both"): one unit, known by both names; one a documented
        # member stands between is a unit of its own.
        thing = found["lib.core.Thing"]
        self.assertEqual((thing.docstring, thing.start_line, thing.end_line),
                         ("A thing.\n\nMake one of size.", 1, 5))
        self.assertEqual(merged_constructor(package.modules["lib.core"], thing).name,
                         "lib.core.Thing.__init__")
        self.assertIsNone(merged_constructor(package.modules["lib.core"],
                                             found["lib.core.Other"]))

    def test_a_syntax_error_skips_that_module_only(self):
        self.assertEqual(self.package.skipped, [("demo/broken.py", "syntax error (line 3)")])
        self.assertNotIn("demo.broken", self.package.modules)

    def test_definitions_under_if_and_try_are_definitions_the_first_one_kept(self):
        module = parse_module("m", "m.py", (
            b'"""M."""\nimport sys\ntry:\n    from fast import speed\nexcept ImportError:\n'
            b'    def speed():\n        """Slow."""\nif sys.version_info >= (3, 8):\n'
            b'    def walk():\n        """New."""\nelse:\n    def walk():\n'
            b'        """Old."""\n'))
        self.assertEqual(module.objects[""].members, ("speed", "walk"))
        self.assertEqual((module.objects["speed"].docstring, module.objects["walk"].docstring),
                         ("Slow.", "New."))
        # But a documented definition over an undocumented assignment (numpy's ctypeslib).
        module = parse_module("m", "m.py", (
            b'if ctypes is None:\n    def _dummy():\n        """Raise."""\n'
            b'    as_array = _dummy\nelse:\n    def as_array(obj):\n        """Make one."""\n'))
        self.assertEqual((module.objects["as_array"].kind, module.objects["as_array"].docstring),
                         ("function", "Make one."))

    def test_an_import_every_sphinx_build_has_leaves_its_import_error_fallback_unbound(self):
        # celery's `try: from pygments import highlight` / `except ImportError: def
        # highlight`: Sphinx requires pygments, so the handler never runs where autodoc
        # imports the module; another module's import may fail, its fallback is defined.
        module = parse_module("m", "m.py", (
            b'"""M."""\ntry:\n    from pygments import highlight\n'
            b'    import docutils.nodes\nexcept (ImportError, ModuleNotFoundError):\n'
            b'    def highlight(text):\n        """Plain."""\n'
            b'try:\n    from fast import speed\nexcept ImportError:\n'
            b'    def speed():\n        """Slow."""\n'
            b'try:\n    from pygments import lex\nexcept Exception:\n'
            b'    def lex(text):\n        """Any failure."""\n'
            # pymongo 3.11's errors.py: the standard library is every build's too.
            b'try:\n    from ssl import SSLCertVerificationError as CertificateError\n'
            b'except ImportError:\n    class CertificateError(ValueError):\n        pass\n'))
        self.assertEqual(module.objects[""].members, ("speed", "lex"))

    def test_a_module_that_cannot_be_read_as_written_is_skipped_with_why(self):
        root = temporary_directory(self)
        files = {"latin.py": b'"""caf\xe9"""\n', "nul.py": b"x = 1\x00\n",
                 "cr.py": b'"""One."""\rx = 1\n', "fine.py": b'"""Fine."""\n'}
        for name, data in files.items():
            with open(os.path.join(root, name), "wb") as out:
                out.write(data)
        package = read_package(root, [(name, name[:-3]) for name in files])
        self.assertEqual(sorted(package.modules), ["fine"])
        skipped = dict(package.skipped)
        # Python before 3.11.4 raised ValueError for a NUL, later ones SyntaxError.
        self.assertIn("source code string cannot contain null bytes", skipped.pop("nul.py"))
        self.assertEqual(skipped, {
            "latin.py": "not UTF-8 (byte 6)",
            "cr.py": "a carriage return without a line feed (line numbers would differ)"})

    def test_names_resolve_through_imports_and_re_exports_are_aliases(self):
        found = self.package.resolve("demo.Engine.register_job")
        self.assertEqual(found[1].name, "demo.core.Engine.register_job")
        self.assertIsNone(self.package.resolve("demo.Engine.missing"))
        self.assertIsNone(self.package.resolve("nowhere.thing"))
        self.assertEqual(aliases(self.package)["demo.core.Engine.stop"], ["demo.Engine.stop"])
        # Only a package's __init__ re-exports: core's own `import typing as t` names nothing.
        self.assertEqual(sorted(aliases(self.package)), [
            "demo.core.Engine", "demo.core.Engine.__init__", "demo.core.Engine._hidden",
            "demo.core.Engine.name", "demo.core.Engine.register_job", "demo.core.Engine.retries",
            "demo.core.Engine.stop", "demo.core.Engine.undocumented", "demo.core.make_engine"])


def documented_by(package: PackageSource, text: str) -> dict:
    """Return {documented name: DocObject} of what a page's one autodoc directive documents."""
    [directive] = autodoc.directives(text)
    return {item.name: item.obj for item in autodoc.resolve(directive, package)}


def package_of(modules: dict) -> PackageSource:
    """Parse {dotted module name: source} (a package's __init__ where another module is below
    it) into a PackageSource."""
    package = PackageSource()
    for name, text in modules.items():
        is_face = any(other.startswith(name + ".") for other in modules)
        path = name.replace(".", "/") + ("/__init__.py" if is_face else ".py")
        package.modules[name] = parse_module(name, path, text.encode())
    return package


class CommandObjectsTest(unittest.TestCase):

    def test_automodule_members_pass_by_what_click_makes_a_command(self):
        # celery 5.2's celery.bin modules: `@click.command(...) def beat(...)` and
        # `@amqp.command(...)` bind click.Command objects, which no documenter of autodoc's
        # takes as a member (no function, no class), so `.. automodule:: celery.bin.beat`
        # with :members: does not describe them, __all__ or not; a directive naming one
        # describes it.
        package = package_of({
            "cli": 'import click\n\n\n@click.group()\ndef main():\n    """Main."""\n\n\n'
                   '@main.command(name="run")\n@click.argument("x")\ndef run(x):\n'
                   '    """Run."""\n\n\n@click.pass_context\ndef helper(ctx):\n'
                   '    """Help."""\n\n\ndef plain():\n    """Plain."""\n',
            "listed": '__all__ = ["go"]\nfrom click import command\n\n\n'
                      '@with_plugins([])\n@command()\ndef go():\n    """Go."""\n'})
        self.assertEqual(sorted(documented_by(package, ".. automodule:: cli\n   :members:\n")),
                         ["cli", "cli.helper", "cli.plain"])
        self.assertEqual(sorted(documented_by(
            package, ".. automodule:: listed\n   :members:\n")), ["listed"])
        self.assertEqual(list(documented_by(package, ".. autofunction:: cli.run\n")),
                         ["cli.run"])


class DocstringDirectivesTest(unittest.TestCase):

    def test_a_class_docstring_s_own_autodoc_directives_describe_its_members(self):
        # tinycss2 1.2's Node: `.. automethod:: serialize` in its docstring, rendered in the
        # class's content where `.. autoclass:: Node()` shows it, :members: or not; one in a
        # literal block is text, and a name the class lacks describes nothing.
        package = package_of({"m": (
            'class Node:\n    """A node.\n\n    .. automethod:: serialize\n\n'
            '    .. autoattribute:: type\n\n    .. automethod:: missing\n\n    Example::\n\n'
            '        .. automethod:: _hidden\n    """\n    type = "node"\n\n'
            '    def serialize(self):\n        """Serialize."""\n\n'
            '    def _hidden(self):\n        """Hidden."""\n')})
        documented = documented_by(package, ".. autoclass:: m.Node()\n")
        self.assertEqual(list(documented), ["m.Node", "m.Node.serialize", "m.Node.type"])
        self.assertEqual(documented["m.Node.serialize"].docstring, "Serialize.")


class DocstringEntriesTest(unittest.TestCase):

    def test_a_base_s_docstring_entry_is_no_docstring_an_override_inherits(self):
        # nose2 0.12's Plugin docstring writes `.. attribute :: configSection`; a plugin's
        # `configSection = "buffer"` has no docstring getdoc or the analyzer reaches, so
        # :members: leaves it out (urwid's BoxAdapter.keypress likewise), while the base's
        # entry is described in the base's content.
        package = package_of({"m": (
            'class Plugin:\n    """A plugin.\n\n    .. attribute :: configSection\n\n'
            '       The config section.\n    """\n    configSection = None\n\n\n'
            'class Buffer(Plugin):\n    """Buffer output."""\n    configSection = "buffer"\n')})
        documented = documented_by(package, ".. automodule:: m\n   :members:\n")
        self.assertIn("m.Plugin.configSection", documented)
        self.assertNotIn("m.Buffer.configSection", documented)


class AutointerfaceTest(unittest.TestCase):

    def test_autointerface_describes_each_method_and_attribute_of_the_interface(self):
        # repoze.sphinx.autointerface (pyramid 2.0's `.. autointerface:: IResponse`
        # `:members:`): every method and zope `Attribute` the interface defines, documented or
        # not, an Attribute's documentation its arguments; the names listed; none without
        # :members:.
        package = package_of({"m": (
            'from zope.interface import Attribute, Interface\n\n\n'
            'class IResponse(Interface):\n    """A response."""\n\n'
            '    RequestClass = Attribute("""Alias for the request class.""")\n'
            '    status = Attribute("status", "The status line.")\n'
            '    charset = Attribute("charset")\n\n'
            '    def write(text):\n        """Write text."""\n\n    def close():\n        pass\n')})
        documented = documented_by(package, ".. autointerface:: m.IResponse\n   :members:\n")
        self.assertEqual(list(documented), [
            "m.IResponse", "m.IResponse.RequestClass", "m.IResponse.status",
            "m.IResponse.charset", "m.IResponse.write", "m.IResponse.close"])
        self.assertEqual([documented[f"m.IResponse.{name}"].docstring
                          for name in ("RequestClass", "status", "charset")],
                         ["Alias for the request class.", "The status line.", None])
        self.assertEqual(list(documented_by(
            package, ".. autointerface:: m.IResponse\n   :members: write\n")),
            ["m.IResponse", "m.IResponse.write"])
        self.assertEqual(list(documented_by(package, ".. autointerface:: m.IResponse\n")),
                         ["m.IResponse"])


class DirectiveDelimiterTest(unittest.TestCase):

    def test_one_space_before_the_delimiter_is_still_a_directive(self):
        # docutils reads `.. automodule :: nose2.events` as the directive (one optional space
        # before "::", nose2 0.12's docs); two spaces make a comment.
        package = package_of({"m": '"""M."""\n\n\ndef f():\n    """F."""\n'})
        self.assertEqual(list(documented_by(package, ".. automodule :: m\n   :members:\n")),
                         ["m", "m.f"])
        self.assertEqual(autodoc.directives(".. automodule  :: m\n"), [])


class OutsideBasesTest(unittest.TestCase):

    def test_a_class_without_a_docstring_is_described_where_a_base_outside_has_one(self):
        # Sphinx 5.3's filter_members falls back on inspect.getdoc, which takes the first
        # docstring along the MRO but object's: `class FooError(ValueError): pass` and a dict
        # subclass are described (with no docstring shown), a class of object alone is not.
        package = package_of({"m": (
            '"""M."""\n\n\nclass FooError(ValueError):\n    pass\n\n\nclass Bar(dict):\n'
            '    x = 1\n\n\nclass Plain(object):\n    pass\n\n\nclass Sub(Plain):\n'
            '    pass\n\n\nclass Blank(ValueError):\n    """ """\n')})
        documented = documented_by(package, ".. automodule:: m\n   :members:\n")
        self.assertEqual(sorted(documented), ["m", "m.Bar", "m.FooError"])
        self.assertIsNone(documented["m.FooError"].docstring)
        settings = autodoc.Settings(inherit_docstrings=False)
        [directive] = autodoc.directives(".. automodule:: m\n   :members:\n")
        self.assertEqual([item.name for item in autodoc.resolve(directive, package, settings)],
                         ["m"])


class ComputedAllTest(unittest.TestCase):

    def test_an_all_kept_from_dir_by_a_test_of_the_name_is_those_names(self):
        # python-gitlab 3.12: `from .applications import *` ... then `__all__ = [name for
        # name in dir() if not name.startswith("_")]`: what the module has bound by then,
        # sorted, its submodules too; exceptions.py keeps `name.endswith("Error")`. A test
        # of more than the name leaves __all__ computed (read as the public namespace).
        package = package_of({
            "gl": '"""Gitlab."""\n',
            "gl.objects": 'import os\nfrom .users import *\nfrom .apps import *\n\n\n'
                          'def later():\n    pass\n\n\n__all__ = [name for name in dir()'
                          ' if not name.startswith("_")]\n\n\ndef after():\n    pass\n'
                          # scipy 1.10's lobpcg: what is imported after it is not listed.
                          'from json import dumps\ntest = dumps\n',
            "gl.objects.apps": '__all__ = ["App"]\n\n\nclass App:\n    """An app."""\n'
                               '\n\nclass Other:\n    pass\n',
            "gl.objects.users": 'class User:\n    """A user."""\n\n\nclass _Hidden:\n'
                                '    pass\n',
            "gl.exceptions": 'class GitlabError(Exception):\n    """Base."""\n\n\n'
                             'def on_http_error(e):\n    """Wrap."""\n\n\n'
                             '__all__ = [name for name in dir() if name.endswith("Error")'
                             ' and name not in ("OtherError",)]\n',
            "gl.other": 'def run():\n    pass\n\n\n'
                        '__all__ = [name for name in dir() if len(name) > 3]\n'})
        computed_all(package)
        self.assertEqual(package.modules["gl.objects"].all_names,
                         ("App", "User", "apps", "later", "os", "users"))
        self.assertEqual(package.modules["gl.exceptions"].all_names, ("GitlabError",))
        self.assertTrue(package.modules["gl.other"].all_computed)
        # reportlab's `__all__ = '''A B'''.split()`: a string's words.
        package = package_of({"flow": '__all__ = """Frame\n    Spacer""".split()\n'})
        computed_all(package)
        self.assertEqual(package.modules["flow"].all_names, ("Frame", "Spacer"))


class SummedReferencesTest(unittest.TestCase):
    def test_the_references_of_pages_are_summed_as_counters_add(self):
        pages = [autodoc.references(text) for text in (
            ":class:`demo.Engine` and :func:`demo.run`", ":func:`demo.run` twice: :func:`run`",
            "no reference", ".. currentmodule:: demo\n\n:class:`Engine`")]
        total = summed(pages)
        self.assertEqual(total, sum(pages, Counter()))
        self.assertEqual(list(total), list(sum(pages, Counter())))  # first seen, first
        self.assertEqual(total["demo.run"], 2)


class NamesTheReaderFollowsTest(unittest.TestCase):
    """Objects a package's API reaches that are not defined, documented, where users reach
    them: members of a base outside the API, aliases bound by assignment, re-exported data."""

    def test_a_function_binding_a_module_s_all_in_globals_re_exports_it(self):
        # patsy's __init__: `_reexport(patsy.highlevel)` for each of its modules.
        package = package_of({
            "pat": ('import pat.high\n\n__all__ = ["PatError"]\n\n\n'
                    'class PatError(Exception):\n    """An error."""\n\n\n'
                    "def _reexport(mod):\n    __all__.extend(mod.__all__)\n"
                    "    for var in mod.__all__:\n        globals()[var] = getattr(mod, var)\n\n\n"
                    "_reexport(pat.high)\n"),
            "pat.high": ('__all__ = ["dmatrix"]\n\n\ndef dmatrix(x):\n'
                         '    """Build a design matrix."""\n\n\n'
                         'def helper():\n    """Not exported."""\n'),
        })
        self.assertEqual(package.resolve("pat.dmatrix")[1].name, "pat.high.dmatrix")
        self.assertIsNone(package.resolve("pat.helper"))
        self.assertEqual(aliases(package).get("pat.high.dmatrix"), ["pat.dmatrix"])

    def test_a_function_a_module_binds_onto_a_class_it_defines_is_its_method(self):
        # agate's table/__init__.py: `Table.aggregate = aggregate` after `class Table`, each
        # method in a module of its own.
        package = package_of({
            "tab": ('from tab.agg import aggregate\n\n\nclass Table:\n    """A table."""\n\n'
                    '    def rows(self):\n        """The rows."""\n\n\n'
                    "Table.aggregate = aggregate\nTable.rows = aggregate\n"
                    "Table.__doc__ = aggregate.__doc__\nTable._hidden = aggregate\n"),
            "tab.agg": ('def aggregate(self, how):\n    """Aggregate the table."""\n'),
        })
        found = documented_by(package, ".. autoclass:: tab.Table\n   :members:\n")
        self.assertEqual(list(found), ["tab.Table", "tab.Table.rows", "tab.Table.aggregate"])
        self.assertEqual(found["tab.Table.aggregate"].docstring, "Aggregate the table.")
        self.assertEqual(found["tab.Table.rows"].docstring, "The rows.")  # its own is kept
        self.assertEqual(package.resolve("tab.Table")[1].members, ("rows", "aggregate"))

    def test_members_inherited_from_a_base_outside_the_api_are_named_under_each_subclass(self):
        package = package_of({
            "geo": "from .series import GeoSeries\nfrom .frame import GeoFrame\n",
            "geo.base": ('class Base:\n    def area(self):\n        """The area."""\n\n'
                         '    def union(self):\n        """Union of all."""\n\n'
                         '    def helper(self):\n        pass\n\n'
                         '    def _private(self):\n        """Private."""\n'),
            "geo.series": ('from .base import Base\n\n\nclass GeoSeries(Base):\n'
                           '    """A series."""\n\n    def union(self):\n'
                           '        """Its own union."""\n'),
            "geo.frame": ('from .base import Base\n\n\nclass GeoFrame(Base):\n'
                          '    """A frame."""\n'),
        })
        names = aliases(package)
        inherited = inherited_members(package, names)
        objects = [obj.name for _, obj in public_objects(package, names, inherited)]
        # Base is undocumented and not exported, so it is no part of the API: its documented
        # public members are, once each; one a subclass defines is its own.
        self.assertEqual(objects, ["geo.base.Base.area", "geo.base.Base.union",
                                   "geo.frame.GeoFrame", "geo.series.GeoSeries",
                                   "geo.series.GeoSeries.union"])
        # Named under each public class that inherits them (exported classes' names first).
        self.assertEqual(inherited_names("geo.base.Base.area", inherited, names,
                                         exports(package)),
                         ["geo.GeoFrame.area", "geo.GeoSeries.area", "geo.frame.GeoFrame.area",
                          "geo.series.GeoSeries.area"])
        self.assertEqual(inherited_names("geo.base.Base.union", inherited, names,
                                         exports(package)),
                         ["geo.GeoFrame.union", "geo.frame.GeoFrame.union"])
        # Undocumented and private members stay out, as autodoc leaves them out.
        self.assertNotIn("geo.base.Base.helper", objects)
        self.assertNotIn("geo.base.Base._private", objects)

    def test_a_name_the_module_s_getattr_returns_is_that_object(self):
        # PEP 562: autodoc's getattr(lib, "Old") calls lib.__getattr__("Old"), which returns
        # what its branch imports (click's deprecated names); a name bound at import time, or
        # a branch returning what is not a name, binds nothing through it.
        package = package_of({
            "lib": ('from .core import make\n\n\ndef __getattr__(name):\n'
                    '    if name == "Old":\n        import warnings\n'
                    '        from .core import _Old\n\n'
                    '        warnings.warn("Old is deprecated", DeprecationWarning)\n'
                    '        return _Old\n'
                    '    elif name == "make":\n        from .core import _other\n'
                    '        return _other\n'
                    '    if name == "lazy":\n        import importlib\n'
                    '        return importlib.import_module(".lazy", __name__)\n'
                    '    raise AttributeError(name)\n'),
            "lib.core": ('class _Old:\n    """The old engine."""\n\n\n'
                         'def make():\n    """Make one."""\n\n\n'
                         'def _other():\n    """Not make."""\n')})
        self.assertEqual(package.resolve("lib.Old")[1].name, "lib.core._Old")
        self.assertEqual(list(documented_by(package, ".. autoclass:: lib.Old\n")), ["lib.Old"])
        self.assertEqual(package.resolve("lib.make")[1].name, "lib.core.make")
        self.assertIsNone(package.resolve("lib.lazy"))

    def test_an_alias_of_a_name_the_module_imports_is_that_import_not_a_submodule(self):
        # pyparsing's `from .common import pyparsing_common as common` rebinds `common` over
        # the submodule, so `pyparsing_common = common` is the class, as Python binds it.
        package = package_of({
            "lib": 'from .common import Common as common\nCommon = common\n',
            "lib.common": 'class Common:\n    """Common expressions."""\n'})
        self.assertEqual(package.resolve("lib.Common")[1].name, "lib.common.Common")
        # As an attribute, `lib.common` is what the package binds last; the module is still
        # what automodule imports by that name.
        self.assertEqual(package.resolve("lib.common")[1].name, "lib.common.Common")
        self.assertEqual(package.module("lib.common").name, "lib.common")

    def test_a_public_base_documents_its_own_members(self):
        package = package_of({
            "lib": "from .base import Base\nfrom .app import App\n",
            "lib.base": 'class Base:\n    """Base."""\n\n    def run(self):\n        """Run."""\n',
            "lib.app": ('from .base import Base\n\n\nclass App(Base):\n    """App."""\n'),
        })
        names = aliases(package)
        objects = [obj.name for _, obj in public_objects(package, names)]
        self.assertEqual(objects.count("lib.base.Base.run"), 1)
        self.assertNotIn("lib.App.run", names.get("lib.base.Base.run", []))

    def test_a_name_below_a_descriptor_that_gives_back_its_class_is_that_class_s_member(self):
        # pandas' `str = CachedAccessor("str", StringMethods)`: read on Series, the descriptor
        # gives back StringMethods, so `Series.str.contains` is StringMethods.contains.
        descriptor = ('class Cached:\n    def __init__(self, name, accessor):\n'
                      '        self._name = name\n        self._accessor = accessor\n\n'
                      '    def __get__(self, obj, cls):\n        if obj is None:\n'
                      '            return self._accessor\n        return self._accessor(obj)\n')
        package = package_of({
            "lib": "from .frame import Frame\n",
            "lib.accessor": descriptor + (
                # Gives back what the source does not say: an attribute also set elsewhere,
                # or something other than what it keeps on class access.
                '\n\nclass Reset(Cached):\n    pass\n'
                '\n\nclass Moved:\n    def __init__(self, accessor):\n'
                '        self._accessor = accessor\n\n    def swap(self, other):\n'
                '        self._accessor = other\n\n    def __get__(self, obj, cls):\n'
                '        if obj is None:\n            return self._accessor\n'
                '\n\nclass Plain:\n    def __init__(self, accessor):\n'
                '        self._accessor = accessor\n\n    def __get__(self, obj, cls):\n'
                '        return self._accessor\n'),
            "lib.strings": ('class StringMethods:\n    """String methods."""\n\n'
                            '    def contains(self, pat):\n        """Test each string."""\n'),
            "lib.frame": ('from .accessor import Cached, Moved, Plain, Reset\n'
                          'from .strings import StringMethods\n\n\nclass Frame:\n'
                          '    """A frame."""\n\n    str = Cached("str", StringMethods)\n'
                          '    text = Cached("text", accessor=StringMethods)\n'
                          '    named = Cached(StringMethods, "named")\n'
                          '    moved = Moved(StringMethods)\n    plain = Plain(StringMethods)\n'
                          '    reset = Reset("reset", StringMethods)\n'
                          '    other = dict(StringMethods)\n'),
        })
        for name in ("str", "text"):
            self.assertEqual(package.resolve(f"lib.Frame.{name}.contains")[1].name,
                             "lib.strings.StringMethods.contains")
        # The attribute itself is still the class attribute the source defines.
        self.assertEqual(package.resolve("lib.Frame.str")[1].name, "lib.frame.Frame.str")
        for name in ("named", "moved", "plain", "reset", "other"):
            self.assertIsNone(package.resolve(f"lib.Frame.{name}.contains"), name)
        self.assertIsNone(package.resolve("lib.Frame.str.missing"))

    def test_a_method_decorated_by_a_descriptor_class_of_the_package_is_an_attribute(self):
        # pandas' `@cache_readonly` (CachedProperty, bound to another name in another module),
        # whose __get__ gives itself on class access: autodoc documents such a member as an
        # attribute; SQLAlchemy's `@hybridmethod` gives a bound method there: a method.
        root = temporary_directory(self)
        get = ('    def __init__(self, fget):\n        self.fget = fget\n\n'
               '    def __get__(self, obj, typ):\n        if obj is None:\n'
               '            return %s\n        return self.fget(obj)\n')
        files = {
            "lib/__init__.py": "from .frame import Frame\n",
            "lib/props.py": ('class Cached:\n' + get % 'self' + '\n\nclass Plain:\n'
                             '    def __init__(self, fget):\n        self.fget = fget\n\n\n'
                             'class hybridmethod:\n' + get % 'self.fget.__get__(typ, typ)'
                             + '\n\ncache_readonly = Cached\n\n\nclass classproperty:\n'
                             '    def __init__(self, fget):\n        self.fget = fget\n\n'
                             '    def __get__(self, obj, typ):\n        return self.fget(typ)\n'),
            "lib/frame.py": ('from typing import final\n\nfrom .props import Plain, '
                             'cache_readonly, classproperty, hybridmethod\n\n\nclass Frame:\n'
                             '    @classproperty\n    def digits(cls):\n'
                             '        """The digits."""\n\n'
                             '    @cache_readonly\n    def size(self):\n        """The size."""\n\n'
                             '    @final\n    @cache_readonly\n    def shape(self):\n'
                             '        """The shape."""\n\n    @cache_readonly\n    @Plain\n'
                             '    def both(self):\n        """Both."""\n\n    @hybridmethod\n'
                             '    def hybrid(self):\n        """Hybrid."""\n'),
        }
        for path, text in files.items():
            os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(root, path), "w", encoding="utf-8") as stream:
                stream.write(text)
        package = read_package(root, [("lib/__init__.py", "lib"), ("lib/props.py", "lib.props"),
                                      ("lib/frame.py", "lib.frame")])
        kinds = {name: package.resolve(f"lib.Frame.{name}")[1].kind
                 for name in ("size", "shape", "both", "hybrid")}
        # Only the decorator applied last decides (typing's final returns what it is given).
        self.assertEqual(kinds, {"size": ATTRIBUTE, "shape": ATTRIBUTE, "both": ATTRIBUTE,
                                 "hybrid": METHOD})
        # pyparsing's `_lazyclassproperty` computes on class access too: what autodoc reads
        # there is a value, shown by its type's docstring: none of its own.
        digits = package.resolve("lib.Frame.digits")[1]
        self.assertEqual((digits.kind, digits.docstring), (ATTRIBUTE, None))

    def test_an_assignment_of_a_name_is_another_name_of_what_it_names(self):
        package = package_of({
            "sym": "from .matrices import Matrix, eye\nfrom .dense import DEFAULT, now\n",
            "sym.matrices": "from .dense import Dense\nMatrix = Dense\neye = Dense.eye\n",
            "sym.dense": ('import datetime\n\n\nclass Dense:\n    """A dense matrix."""\n\n'
                          '    def eye(self):\n        """Identity."""\n\n\n'
                          'SIZE = 3\nDEFAULT = SIZE\nnow = datetime.datetime.now\n'),
        })
        self.assertEqual(package.resolve("sym.Matrix")[1].name, "sym.dense.Dense")
        self.assertEqual(package.resolve("sym.Matrix.eye")[1].name, "sym.dense.Dense.eye")
        self.assertEqual(package.resolve("sym.eye")[1].name, "sym.dense.Dense.eye")
        names = aliases(package)
        self.assertIn("sym.Matrix", names["sym.dense.Dense"])
        # sym/matrices.py is no package face and has no __all__: its own name is not public.
        self.assertNotIn("sym.matrices.Matrix", names["sym.dense.Dense"])
        self.assertIn("sym.Matrix.eye", names["sym.dense.Dense.eye"])
        # Its title keeps its own name where a public name has it; the alias is one more,
        # for its members too.
        self.assertEqual(public_name("sym.dense.Dense", names), "sym.dense.Dense")
        self.assertIn("sym.Matrix.eye", names.renamed)
        self.assertNotIn("sym.eye", names.renamed)  # `eye = Dense.eye` keeps its name
        self.assertEqual(public_name("sym.dense.Dense.eye", names), "sym.eye")
        # A name for data, or for what the package does not define, is that data.
        self.assertEqual(package.resolve("sym.DEFAULT")[1].name, "sym.dense.DEFAULT")
        self.assertEqual(package.resolve("sym.now")[1].name, "sym.dense.now")

    def test_an_override_without_a_docstring_shows_its_bases_without_docs_folder(self):
        # As inspect.getdoc and autodoc's default show it (click's Group.get_command): the
        # unit quotes the override's own lines, its text the base's docstring. A value over
        # a base's routine inherits nothing; an undocumented member of no documented base
        # stays out.
        package = package_of({"cli": (
            "class Base:\n    def get(self, name):\n        \"\"\"Return the named one.\"\"\"\n"
            "    def run(self):\n        \"\"\"Run it.\"\"\"\n\n"
            "class Group(Base):\n    \"\"\"A group.\"\"\"\n    def get(self, name):\n"
            "        return name\n    run = None\n    def helper(self):\n        pass\n")})
        found = {obj.name: (obj.docstring, module.quote(obj))
                 for module, obj in public_objects(package)}
        self.assertEqual(found["cli.Group.get"],
                         ("Return the named one.", "    def get(self, name):"))
        self.assertNotIn("cli.Group.run", found)
        self.assertNotIn("cli.Group.helper", found)

    def test_a_name_a_package_binds_over_its_submodule_s_is_what_it_binds(self):
        # scipy's optimize/_lsq/__init__.py: `from .least_squares import least_squares`
        # rebinds the package's attribute, first set to the submodule, to the function;
        # `from . import trf` binds the submodule itself.
        package = package_of({
            "opt": "from ._lsq import least_squares, trf\n",
            "opt._lsq": "from .least_squares import least_squares\nfrom . import trf\n",
            "opt._lsq.least_squares": 'def least_squares(f):\n    """Fit."""\n',
            "opt._lsq.trf": '"""Trust region."""\n'})
        for name in ("opt.least_squares", "opt._lsq.least_squares"):
            self.assertEqual(package.resolve(name)[1].name,
                             "opt._lsq.least_squares.least_squares")
        self.assertEqual(package.resolve("opt.trf")[1].name, "opt._lsq.trf")

    def test_an_override_of_a_builtin_class_shows_its_docstring(self):
        # autodoc's getdoc looks along the whole MRO: pymongo's `class SON(dict)` overrides
        # `clear` without a docstring, rendered with dict's; a private name, or one the base
        # has not, inherits nothing. A standard library class's too (pymongo's `FixedOffset
        # (tzinfo)`): the class Sphinx's import finds, its C implementation's docstring.
        package = package_of({"son": (
            "from datetime import tzinfo\n\n\nclass SON(dict):\n    \"\"\"Ordered.\"\"\"\n"
            "    def clear(self):\n        pass\n    def _keys(self):\n        pass\n"
            "    def to_dict(self):\n        pass\n\n\nclass Offset(tzinfo):\n"
            "    \"\"\"Offset.\"\"\"\n    def dst(self, dt):\n        return None\n")})
        found = {obj.name: obj.docstring for _, obj in public_objects(package)}
        self.assertEqual(found["son.SON.clear"], inspect.cleandoc(dict.clear.__doc__))
        self.assertEqual(found["son.Offset.dst"], inspect.cleandoc(datetime.tzinfo.dst.__doc__))
        self.assertNotIn("son.SON.to_dict", found)
        self.assertNotIn("son.SON._keys", found)

    def test_a_docstring_s_meta_field_says_whether_a_member_is_api(self):
        # autodoc's filter_members: `:meta private:` makes a member private, `:meta public:`
        # an underscored one public, in place of the name's underscore.
        package = package_of({"tool": (
            '"""Tool."""\n\n\nclass Cell:\n    """A cell."""\n\n'
            '    def helper(self):\n        """Help.\n\n        :meta private:\n        """\n\n'
            '    def _shown(self):\n        """Shown.\n\n        :meta public:\n        """\n\n\n'
            'def internal():\n    """:meta private:"""\n')})
        objects = [obj.name for _, obj in public_objects(package)]
        self.assertEqual(objects, ["tool", "tool.Cell", "tool.Cell._shown"])

    def test_undocumented_data_is_api_where_re_exported_or_listed(self):
        package = package_of({
            "tool": ('"""Tool."""\nfrom _tool.config import hookimpl\n'
                     '__all__ = ["hookimpl"]\nlogger = make_logger()\n'),
            "_tool": "",
            "_tool.config": "hookimpl = Marker('tool')\nhookspec = Marker('spec')\n",
            "tool.listed": '__all__ = ["VALUE"]\nVALUE = compute()\nOTHER = compute()\n',
        })
        objects = [obj.name for _, obj in public_objects(package)]
        self.assertIn("_tool.config.hookimpl", objects)
        self.assertIn("tool.listed.VALUE", objects)
        # Not named as API: neither re-exported nor listed.
        for name in ("_tool.config.hookspec", "tool.listed.OTHER", "tool.logger"):
            self.assertNotIn(name, objects)
        self.assertEqual(public_name("_tool.config.hookimpl", aliases(package)), "tool.hookimpl")

    def test_a_docstring_given_at_import_time_documents_the_compiled_function(self):
        # torch's `_add_docstr(compiled, doc)`: assigned (torch.linalg), or called on a name
        # the source defines nowhere (torch/_torch_docs.py); a `.format(...)` template and
        # literals joined by `+` read as written.
        package = package_of({
            "tensors": ('"""Tensors."""\nfrom tensors._core import *\n'
                        'from tensors._tensor import Tensor as Tensor\n'),
            "tensors._core": "def empty(size):\n    \"\"\"Return an empty tensor.\"\"\"\n",
            "tensors.linalg": ('from tensors._C import _add_docstr, _linalg\n'
                               'inv = _add_docstr(_linalg.linalg_inv, r"""\n'
                               'linalg.inv(A) -> Tensor\n\nThe inverse of {A}.\n""".format(**args)'
                               ' + """\nSee also det.""")\n'
                               'LOOKUP = make_table()\n'),
            "tensors.nn": ('class Conv:\n    __doc__ = r"""Applies a convolution.\n\n'
                           '    {notes}\n    """ + """Shape: any.""".format(**notes)\n\n'
                           '    def forward(self, x):\n        return x\n'),
            "tensors._docs": ('import tensors\nfrom tensors._C import _add_docstr as add_docstr\n'
                              'add_docstr(tensors.abs, """Absolute value, elementwise.""")\n'
                              'add_docstr(tensors.empty, """Not the defined one.""")\n'
                              'add_docstr(getattr(tensors, "neg"), """No name.""")\n'),
            # torch/_tensor_docs.py's wrapper, on the compiled base of a public class.
            "tensors._tensor": ("import tensors._C\n"
                                "class Tensor(tensors._C.TensorBase):\n    pass\n"),
            "tensors.base": "import tensors._C\nclass Tensor2(tensors._C.TensorBase):\n    pass\n",
            "tensors._methods": ('import tensors._C\n'
                                 'from tensors._C import _add_docstr as add_docstr\n'
                                 'def add_docstr_all(method, docstr):\n'
                                 '    add_docstr(getattr(tensors._C.TensorBase, method), docstr)\n'
                                 'add_docstr_all("view", """view(*shape) -> Tensor""")\n'
                                 'add_docstr_all("_private", """Not API.""")\n'),
        })
        objects = {obj.name: (module.name, obj.kind, obj.docstring, module.quote(obj))
                   for module, obj in public_objects(package)}
        self.assertEqual(objects["tensors.linalg.inv"][1:3], (
            "function", "linalg.inv(A) -> Tensor\n\nThe inverse of {A}.\n\nSee also det."))
        self.assertTrue(objects["tensors.linalg.inv"][3].startswith("inv = _add_docstr("))
        self.assertNotIn("tensors.linalg.LOOKUP", objects)  # undocumented data, still not API
        self.assertEqual(objects["tensors._docs.abs"], (
            "tensors._docs", "function", "Absolute value, elementwise.",
            'add_docstr(tensors.abs, """Absolute value, elementwise.""")'))
        self.assertEqual(public_name("tensors._docs.abs", aliases(package)), "tensors.abs")
        # A name the source defines keeps its own object; a target not written as a dotted
        # name documents nothing.
        self.assertNotIn("tensors._docs.empty", objects)
        self.assertEqual(objects["tensors._core.empty"][2], "Return an empty tensor.")
        self.assertFalse(any(name.endswith("neg") for name in objects))
        # A module's wrapper of the setter documents a member of a compiled class, named
        # under each class the source derives from it (the shortest name: the public one).
        self.assertEqual(objects["tensors._methods.view"][1:3],
                         ("function", "view(*shape) -> Tensor"))
        names = aliases(package)
        self.assertEqual(sorted(names["tensors._methods.view"]), [
            "tensors.Tensor.view", "tensors._C.TensorBase.view", "tensors._tensor.Tensor.view",
            "tensors.base.Tensor2.view"])
        self.assertEqual(public_name("tensors._methods.view", names), "tensors.Tensor.view")
        self.assertNotIn("tensors._methods._private", objects)
        # numpy's add_newdoc(place, obj, doc): a function's text (`.replace(...)`'s template
        # as written), a class's members ((name, text) or a list of them), named by the names
        # the package binds `place.obj` to, and resolved by them (an autodoc directive too).
        arrays = package_of({
            "arrays": "from .core.multiarray import zeros, ndarray\n",
            "arrays.core": "",
            "arrays.core.multiarray": "from ._umath import *\n__all__ = ['zeros', 'ndarray']\n",
            "arrays.core._add_newdocs": (
                "from arrays.lib import add_newdoc\n"
                "add_newdoc('arrays.core.multiarray', 'zeros', '''zeros(shape)\n\n"
                "    A new array of zeros. ${LIKE}'''.replace('${LIKE}', like_doc))\n"
                "add_newdoc('arrays.core.multiarray', 'ndarray', ('reshape', 'Reshape it.'))\n"
                "add_newdoc('arrays.core.multiarray', 'ndarray', [('T', 'Transposed.'), "
                "('_hidden', 'Not API.')])\n"
                "add_newdoc('arrays.core.multiarray', 'ndarray', 'An array.')\n"
                "add_newdoc('arrays.core.multiarray', 'ones', make_doc())\n"),
        })
        found = {obj.name: (obj.kind, obj.docstring) for _, obj in public_objects(arrays)}
        names = aliases(arrays)
        self.assertEqual(found["arrays.core._add_newdocs.zeros"],
                         ("function", "zeros(shape)\n\nA new array of zeros. ${LIKE}"))
        self.assertEqual(found["arrays.core._add_newdocs.ndarray"], ("class", "An array."))
        self.assertEqual(found["arrays.core._add_newdocs.ndarray.reshape"],
                         ("method", "Reshape it."))
        self.assertIn("arrays.core._add_newdocs.ndarray.T", found)
        self.assertFalse(any(name.endswith(("_hidden", "ones")) for name in found))
        self.assertEqual(public_name("arrays.core._add_newdocs.zeros", names), "arrays.zeros")
        self.assertEqual(public_name("arrays.core._add_newdocs.ndarray.reshape", names),
                         "arrays.ndarray.reshape")
        self.assertEqual(arrays.resolve("arrays.ndarray.reshape")[1].docstring, "Reshape it.")
        # scipy.special's add_newdoc(obj, doc) in its _add_newdocs.py: the docstring of the
        # compiled ufunc its package star-imports, so `obj` of that package, an instance.
        special = package_of({
            "special": "from ._ufuncs import *\nfrom ._basic import comb\n",
            "special._basic": "def comb(n, k):\n    '''Combinations.'''\n",
            "special._add_newdocs": (
                "docdict = {}\n\n\ndef add_newdoc(name, doc):\n    docdict[name] = doc\n\n\n"
                "add_newdoc('gamma', '''gamma(z, out=None)\n\n    gamma function.''')\n"
                "add_newdoc('_private', 'Not API.')\nadd_newdoc('comb', 'Not comb.')\n"),
        })
        gamma = special.resolve("special.gamma")[1]
        self.assertEqual((gamma.kind, gamma.docstring),  # a ufunc: data, as autodoc has it
                         ("data", "gamma(z, out=None)\n\ngamma function."))
        self.assertEqual(public_name("special._add_newdocs.gamma", aliases(special)),
                         "special.gamma")
        self.assertIsNone(special.resolve("special._private"))
        self.assertEqual(special.resolve("special.comb")[1].docstring, "Combinations.")
        # A class body's `__doc__ = ...` is the class's docstring, its lines the unit's.
        self.assertEqual(objects["tensors.nn.Conv"][2:], (
            "Applies a convolution.\n\n{notes}\nShape: any.",
            'class Conv:\n    __doc__ = r"""Applies a convolution.\n\n    {notes}\n    """ + '
            '"""Shape: any.""".format(**notes)'))


class AutodocTest(unittest.TestCase):

    def setUp(self):
        self.package = demo_package(self)

    def resolved(self, text):
        return [(None if found is None else [item.name for item in found])
                for found in (autodoc.resolve(d, self.package) for d in autodoc.directives(text))]

    def test_members_undoc_members_and_exclude_members(self):
        self.assertEqual(self.resolved(".. currentmodule:: demo\n\n"
                                       ".. autoclass:: Engine\n   :members:\n"), [[
            "demo.Engine", "demo.Engine.retries", "demo.Engine.name",
            "demo.Engine.register_job", "demo.Engine.stop"]])
        self.assertEqual(self.resolved(".. autoclass:: demo.Engine\n   :members:\n"
                                       "   :undoc-members:\n   :exclude-members: stop, name\n"),
                         [["demo.Engine", "demo.Engine.retries", "demo.Engine.register_job",
                           "demo.Engine.undocumented"]])
        self.assertEqual(self.resolved(".. automodule:: demo.core\n   :members: make_engine\n"
                                       "\n.. autofunction:: make_engine\n"),
                         [["demo.core", "demo.core.make_engine"], ["demo.core.make_engine"]])

    def test_an_options_value_goes_on_on_deeper_indented_lines(self):
        # Jinja's `:members: from_string, ...,` continued below the field marker.
        self.assertEqual(self.resolved(".. autoclass:: demo.Engine\n   :members: stop,\n"
                                       "             register_job\n   :noindex:\n"),
                         [["demo.Engine", "demo.Engine.stop", "demo.Engine.register_job"]])

    def test_a_module_s_listed_members_include_the_names_it_imports(self):
        # falcon 2's `.. automodule:: falcon.testing` lists what the package imports from its
        # modules; autodoc documents each at the listed name (a class with its members).
        self.assertEqual(self.resolved(".. automodule:: demo\n   :members: make_engine, Engine\n"),
                         [["demo", "demo.make_engine", "demo.Engine", "demo.Engine.retries",
                           "demo.Engine.name", "demo.Engine.register_job", "demo.Engine.stop"]])

    def test_a_module_s_all_is_its_members_imported_or_special(self):
        # pyparsing's `from .core import *` under `__all__ = [...]`: automodule's :members:
        # documents what __all__ lists, the names it imports too; a special member only if
        # listed there as well (`__version__` is not, `__diag__` is).
        package = package_of({"lib": (
            '"""Lib."""\nfrom .core import *\nfrom .core import __diag__\n'
            '__version__ = "1"\n"""The version."""\n'
            '__all__ = ["Engine", "__diag__", "helper"]\n'),
                              "lib.core": (
            'class Engine:\n    """An engine."""\n\n\nclass __diag__:\n    """Flags."""\n\n\n'
            'def helper():\n    """Help."""\n\n\ndef other():\n    """Other."""\n')})
        found = documented_by(package, ".. automodule:: lib\n   :members:\n"
                                       "   :special-members:\n")
        self.assertEqual(list(found), ["lib", "lib.Engine", "lib.__diag__", "lib.helper"])

    def test_data_a_module_imports_is_undocumented_there(self):
        # autodoc reads doc comments (attr_docs) of the module it documents only: data with
        # its docstring in the module it is imported from is left out of :members: here,
        # listed or not.
        package = package_of({"lib": (
            '"""Lib."""\nfrom .core import COMMENT\nSIZE = 3\n"""The size."""\n'),
                              "lib.core": 'COMMENT = make()\n"""A comment."""\n'})
        found = documented_by(package, ".. automodule:: lib\n   :members: COMMENT, SIZE\n")
        self.assertEqual(list(found), ["lib", "lib.SIZE"])

    def test_a_special_method_without_a_docstring_shows_object_s(self):
        # With :special-members:, autodoc's getdoc reaches `object` (and its metaclass) last:
        # `__call__` shows "Call self as a function.", `__hash__` "Return hash(self)."; an
        # `__init__` is documented by object's docstring, which MethodDocumenter never shows.
        package = package_of({"lib": (
            'class Once:\n    """Once."""\n\n    def __init__(self, f):\n        self.f = f\n\n'
            '    def __call__(self):\n        pass\n\n    def __hash__(self):\n        return 1\n'
            '\n    def __private(self):\n        pass\n')})
        found = documented_by(package, ".. autoclass:: lib.Once\n   :members:\n"
                                       "   :special-members:\n   :private-members:\n")
        self.assertEqual({name: obj.docstring for name, obj in found.items()}, {
            "lib.Once": "Once.", "lib.Once.__init__": "",
            "lib.Once.__call__": "Call self as a function.",
            "lib.Once.__hash__": "Return hash(self)."})

    def test_an_override_shows_the_standard_library_base_s_docstring(self):
        # testtools 2.5's `def startTest(self, test):` without a docstring, in a
        # unittest.TestResult subclass: autodoc shows unittest's, read from this Python's
        # source (through unittest/__init__.py's import, never importing it).
        package = package_of({"lib": (
            'import unittest\n\n\nclass Result(unittest.TestResult):\n    """A result."""\n\n'
            '    def startTest(self, test):\n        pass\n\n    def mine(self):\n        pass\n')})
        found = documented_by(package, ".. autoclass:: lib.Result\n   :members:\n")
        self.assertEqual({name: obj.docstring for name, obj in found.items()}, {
            "lib.Result": "A result.",
            "lib.Result.startTest": "Called when the given test is about to be run"})

    def test_a_partial_of_a_class_is_no_member_and_of_a_function_is_one(self):
        # fonttools 4.38's `AreaPen = partial(GreenPen, func=1)`: autodoc unwraps a partial,
        # so FunctionDocumenter takes `draw2 = partial(draw, 2)`, and no documenter the
        # class's (checked against Sphinx 5.3.0).
        package = package_of({"m": (
            '"""M."""\nfrom functools import partial\n\n\nclass Pen:\n    """A pen."""\n\n\n'
            'def draw(a, b):\n    """Draw."""\n\n\n'
            'AreaPen = partial(Pen)\ndraw2 = partial(draw, 2)\n')})
        self.assertEqual(list(documented_by(
            package, ".. automodule:: m\n   :members:\n   :undoc-members:\n")),
            ["m", "m.Pen", "m.draw", "m.draw2"])

    def test_every_directive_kind(self):
        text = ("\n.. module:: demo\n\n.. autodata:: DEFAULT_SIZE\n\n"
                ".. autoexception:: demo.core.EngineError\n\n.. automethod:: Engine.stop\n\n"
                ".. autoattribute:: Engine.retries\n\n.. autofunction:: make_engine\n")
        self.assertEqual(self.resolved(text), [
            ["demo.DEFAULT_SIZE"], ["demo.core.EngineError"], ["demo.Engine.stop"],
            ["demo.Engine.retries"], ["demo.make_engine"]])

    def test_a_directive_s_argument_may_open_its_block_on_the_next_line(self):
        # requests-toolbelt's `.. autofunction::` above `    requests_toolbelt.utils.dump.
        # dump_all`: docutils reads the arguments from the block's first lines; an option
        # line there is the block's options (no argument: nothing documented).
        self.assertEqual(self.resolved(".. autofunction::\n    demo.make_engine\n\n"
                                       ".. autoclass::\n   demo.Engine\n   :members: stop\n\n"
                                       ".. automethod::\n    demo::Engine.stop(self)\n"),
                         [["demo.make_engine"], ["demo.Engine", "demo.Engine.stop"],
                          ["demo.Engine.stop"]])
        self.assertEqual(self.resolved(".. autofunction::\n   :noindex:\n\n"
                                       ".. autofunction::\nmake_engine\n"), [None, None])

    def test_an_explicit_module_before_a_double_colon(self):
        # sympy 1.13's integrals.rst: `.. autofunction:: sympy.integrals.rationaltools::ratint`
        # (autodoc's `module::name`), with another module current.
        self.assertEqual(self.resolved(".. currentmodule:: demo.core\n\n"
                                       ".. autofunction:: demo.core::make_engine\n\n"
                                       ".. automethod:: demo::Engine.stop\n\n"
                                       ".. autodata:: DEFAULT_SIZE\n"),
                         [["demo.core.make_engine"], ["demo.Engine.stop"], None])
        # Whatever the dots of the name after it (imageio's `.. autoclass::
        # imageio.core::Format.Reader`): autodoc's resolve_name takes that module as given.
        self.assertEqual(self.resolved(".. autofunction:: demo::Engine.stop\n"),
                         [["demo.Engine.stop"]])

    def test_a_directive_in_an_autoclass_documents_that_class_s_member(self):
        self.assertEqual(self.resolved(".. currentmodule:: demo\n\n.. autoclass:: Engine\n\n"
                                       "   .. automethod:: stop\n\n"
                                       "   .. autoattribute:: retries\n\n"
                                       ".. autofunction:: make_engine\n"),
                         [["demo.Engine"], ["demo.Engine.stop"], ["demo.Engine.retries"],
                          ["demo.make_engine"]])
        # Outside the class's content, a member's bare name is no object of the module.
        self.assertEqual(self.resolved(".. currentmodule:: demo\n\n.. autoclass:: Engine\n\n"
                                       ".. automethod:: stop\n"), [["demo.Engine"], None])

    def test_cross_references_count_for_each_name_they_may_mean(self):
        counts = autodoc.references(
            ":func:`option` before any module.\n\n.. currentmodule:: click\n\n"
            "See :func:`option`, :meth:`~flask.Flask.run`, :class:`the context <Context>`,\n"
            ":meth:`.invoke` and :func:`!echo()`; :ref:`a-label` and ``:func:`` are none.\n")
        # `:func:`!echo()`` is shown unlinked (Sphinx's `!`): no reference.
        self.assertEqual(counts, {"option": 2, "click.option": 1, "flask.Flask.run": 1,
                                  "click.flask.Flask.run": 1, "Context": 1, "click.Context": 1,
                                  ".invoke": 1})

    def test_the_annotations_a_description_shows_are_those_its_target_documents(self):
        signature = '(self, item: "Item", config: Config, *, when: str) -> Report'
        docstring = ":param item: the item.\n:param when: the phase.\n:type when: str\n"
        self.assertEqual(autodoc.annotation_names(signature),
                         ["Item", "Config", "str", "Report"])
        # "documented": a parameter a `:param:` describes and no `:type:` types; the return
        # only where `:returns:` describes it.
        self.assertEqual(autodoc.annotation_names(signature, docstring), ["Item"])
        self.assertEqual(autodoc.annotation_names(signature, docstring + ":returns: it.\n"),
                         ["Item", "Report"])
        self.assertEqual(autodoc.annotation_names(
            signature, docstring + ":returns: it.\n:rtype: Report\n"), ["Item"])
        # "documented_params": the return's too, unless it is None.
        self.assertEqual(autodoc.annotation_names(signature, docstring, True), ["Item", "Report"])
        self.assertEqual(autodoc.annotation_names("(a: A) -> None", ":param a: an A.", True),
                         ["A"])

    def test_inherited_private_and_special_members(self):
        package = PackageSource()
        package.modules["lib"] = parse_module("lib", "lib/__init__.py", (
            b'from .base import Base\n\n\nclass App(Base):\n    """App."""\n\n'
            b'    def run(self):\n        """Run."""\n\n    def stop(self):\n        pass\n'))
        package.modules["lib.base"] = parse_module("lib.base", "lib/base.py", (
            b'class Base:\n    """Base."""\n\n    def route(self, rule):\n'
            b'        """Route a rule."""\n\n    def stop(self):\n        """Stop."""\n\n'
            b'    def _hidden(self):\n        """Hidden."""\n\n'
            b'    def __call__(self):\n        """Call."""\n'))

        def names(options, inherit=True):
            [directive] = autodoc.directives(".. autoclass:: lib.App\n   :members:\n" + options)
            return [(item.name, item.obj.name)
                    for item in autodoc.resolve(directive, package, autodoc.Settings(inherit))]
        # App's own stop, without a docstring, shows Base.stop's (autodoc_inherit_docstrings,
        # on by default): documented, as App's; without it, it is undocumented.
        self.assertEqual(names(""), [("lib.App", "lib.App"), ("lib.App.run", "lib.App.run"),
                                     ("lib.App.stop", "lib.App.stop")])
        self.assertEqual(names("", inherit=False),
                         [("lib.App", "lib.App"), ("lib.App.run", "lib.App.run")])
        # Under the subclass's name, from the base that defines them; App's own stop hides
        # Base's.
        self.assertEqual(names("   :inherited-members:\n")[3:],
                         [("lib.App.route", "lib.base.Base.route")])
        self.assertEqual(names("   :inherited-members:\n   :private-members:\n"
                               "   :special-members:\n")[3:],
                         [("lib.App.route", "lib.base.Base.route"),
                          ("lib.App._hidden", "lib.base.Base._hidden"),
                          ("lib.App.__call__", "lib.base.Base.__call__")])
        self.assertEqual(names("   :inherited-members:\n", inherit=False)[2:],
                         [("lib.App.route", "lib.base.Base.route")])

    def test_a_blank_docstring_is_no_docstring_to_members_listed_or_not(self):
        # autodoc's filter_members: prepare_docstring makes `""" """` nothing, so :members:
        # skips it (pint's Quantity.unitless), and it hides the base's docstring all the same.
        package = package_of({"lib": (
            'class Base:\n    """Base."""\n\n    def size(self):\n        """Size."""\n\n\n'
            'class App(Base):\n    """App."""\n\n    def run(self):\n        """ """\n\n'
            '    def size(self):\n        """ """\n\n    def stop(self):\n'
            '        """Stop."""\n')})
        for options, names in (("   :members:\n", ["lib.App", "lib.App.stop"]),
                               ("   :members:\n   :undoc-members:\n",
                                ["lib.App", "lib.App.run", "lib.App.size", "lib.App.stop"]),
                               # Listed by name, the same (xmlschema's `:members: copy,
                               # lookup_type, ...`: those without a docstring are not shown).
                               ("   :members: run, stop\n", ["lib.App", "lib.App.stop"]),
                               ("   :members: run, stop\n   :undoc-members:\n",
                                ["lib.App", "lib.App.run", "lib.App.stop"])):
            [directive] = autodoc.directives(".. autoclass:: lib.App\n" + options)
            self.assertEqual([item.name for item in autodoc.resolve(directive, package)], names)

    def test_a_class_s_doc_attribute_is_never_a_member(self):
        # filter_members keeps no `__doc__`, :special-members: or not (rdflib's
        # autodoc_default_options {"special-members": True} and `__doc__ = ...` bodies).
        package = package_of({"lib": (
            'class App:\n    __doc__ = """App."""\n\n    def __call__(self):\n'
            '        """Call."""\n')})
        [directive] = autodoc.directives(".. autoclass:: lib.App\n   :members:\n"
                                         "   :special-members:\n   :undoc-members:\n")
        self.assertEqual([item.name for item in autodoc.resolve(directive, package)],
                         ["lib.App", "lib.App.__call__"])

    def test_a_module_function_bound_in_a_class_body_is_a_method(self):
        # MethodDocumenter documents a routine found in a class's __dict__: pint's
        # `wraps = registry_helpers.wraps` in UnitRegistry is a method there.
        package = package_of({"lib": (
            'from . import helpers\n\n\nclass App:\n    """App."""\n\n'
            '    wraps = helpers.wraps\n'),
            "lib.helpers": 'def wraps(app, f):\n    """Wrap f."""\n'})
        [directive] = autodoc.directives(".. autoclass:: lib.App\n   :members:\n")
        self.assertEqual([(item.name, item.kind) for item in autodoc.resolve(directive, package)],
                         [("lib.App", "class"), ("lib.App.wraps", "method")])

    def test_inherited_members_alone_documents_every_member(self):
        # Sphinx's document_members: want_all is `all_members or inherited_members or members
        # is ALL`, so `:inherited-members:` without `:members:` documents all of them (requests'
        # `.. autoclass:: Response` with `:inherited-members:` alone).
        package = package_of({"lib": (
            'class Base:\n    """Base."""\n\n    def route(self, rule):\n'
            '        """Route a rule."""\n\n\n'
            'class App(Base):\n    """App."""\n\n    def run(self):\n        """Run."""\n\n'
            '    def stop(self):\n        pass\n')})
        [directive] = autodoc.directives(".. autoclass:: lib.App\n   :inherited-members:\n")
        self.assertEqual([item.name for item in autodoc.resolve(directive, package,
                                                                autodoc.Settings(False))],
                         ["lib.App", "lib.App.run", "lib.App.route"])

    def test_autoclass_of_what_is_no_class_of_that_name_describes_an_attribute(self):
        # Sphinx's ClassDocumenter.doc_as_attr: an instance (`codes = Lookup()`) or a class
        # under another name than its own (`Alias = Lookup`) is a py:attribute; a class
        # exported under its own name stays a class.
        package = package_of({"lib": (
            'class Lookup:\n    """A lookup."""\n\n\ncodes = Lookup()\n'
            '"""The codes."""\n\nAlias = Lookup\n')})
        kinds = {}
        for name in ("codes", "Alias", "Lookup"):
            [directive] = autodoc.directives(f".. autoclass:: lib.{name}\n")
            kinds[name] = autodoc.resolve(directive, package)[0].kind
        self.assertEqual(kinds, {"codes": "attribute", "Alias": "attribute", "Lookup": "class"})

    def test_typed_fields_link_each_name_of_their_types(self):
        # Sphinx's Python domain links a typed field's types (`:rtype:`, `:type x:`,
        # `:param T x:`, `:raises E:`), each name of a type split as PyXrefMixin splits it
        # (str twice: a parameter's type, and in `dict[str, Node]`).
        counts = autodoc.references(
            ":param str name: the name.\n:type nodes: dict[str, Node] or None\n"
            ":rtype: lib.Response\n:raises lib.Error: if not.\n:returns: a Response.\n", "lib")
        self.assertEqual([counts[name] for name in ("str", "lib.Node", "None", "lib.Response",
                                                    "lib.Error", "name", "lib.name")],
                         [2, 1, 1, 1, 1, 0, 0])

    def test_see_also_names_are_those_of_its_entries_as_numpydoc_parses_them(self):
        docstring = ("Do it.\n\nSee Also\n--------\nskew, :func:`kurtosis`\n"
                     "`describe` : Summary statistics,\n    see `moment`.\n"
                     "numpy.mean\n\nNotes\n-----\nmean, median\n")
        self.assertEqual([name for _, name in autodoc.see_also_names(docstring)],
                         ["skew", "kurtosis", "describe", "numpy.mean"])

    def test_an_override_without_a_docstring_shows_its_bases(self):
        # autodoc_inherit_docstrings (Sphinx's getdoc along the MRO; a `#:` comment of a base's
        # attribute too): each override is documented with the nearest docstring its bases
        # give its name, quoting its own lines; a class without one shows its bases'. A value
        # (`closed = False`) over a base's property is no override of a routine: getdoc gives
        # its type's docstring, which autodoc drops; it stays undocumented.
        package = package_of({"lib": (
            'class Base:\n    """Base."""\n\n    #: Whether extra arguments are taken.\n'
            '    extra = False\n\n    def get(self, name):\n'
            '        """Return the command of that name."""\n\n'
            '    @property\n    def closed(self):\n        """Whether it is closed."""\n\n\n'
            'class Middle(Base):\n    def get(self, name):\n        return None\n\n\n'
            'class Group(Middle):\n    extra = True\n    closed = False\n\n'
            '    def get(self, name):\n        return name\n\n    def own(self):\n'
            '        return 1\n')})
        found = documented_by(package, ".. autoclass:: lib.Group\n   :members:\n")
        self.assertEqual(list(found), ["lib.Group", "lib.Group.extra", "lib.Group.get"])
        self.assertEqual(found["lib.Group"].docstring, "Base.")
        self.assertEqual(found["lib.Group.extra"].docstring,
                         "Whether extra arguments are taken.")
        self.assertEqual(found["lib.Group.get"].docstring, "Return the command of that name.")
        self.assertEqual(found["lib.Group.get"].start_line, 24)  # its own lines
        [method] = autodoc.directives(".. automethod:: lib.Middle.get\n")
        self.assertEqual([item.obj.docstring for item in autodoc.resolve(method, package)],
                         ["Return the command of that name."])

    def test_a_member_bound_to_a_documented_class_is_documented_as_its_alias(self):
        # autodoc documents `session_class = Session` (a class with a docstring) as "alias of"
        # it, a link to it by its defining name, and `Session = Session` as the class itself;
        # a member bound to an undocumented class, or to what is no class, stays undocumented.
        package = package_of({"lib": 'from .model import Session, Bare\n',
                              "lib.model": (
            'class Session:\n    """A session."""\n\n\nclass Bare:\n    pass\n\n\n'
            'SIZE = 3\n\n\nclass Interface:\n    """Interface."""\n\n'
            '    session_class = Session\n    bare_class = Bare\n    size = SIZE\n'
            '    Session = Session\n\n    class Inner:\n        """Inner."""\n\n'
            '    Nested = Inner\n')})
        found = documented_by(package, ".. autoclass:: lib.model.Interface\n   :members:\n")
        self.assertEqual(list(found), ["lib.model.Interface",
                                       "lib.model.Interface.session_class",
                                       "lib.model.Interface.Session",
                                       "lib.model.Interface.Inner",
                                       "lib.model.Interface.Nested"])
        # A class body's name is its own class's first (Python's class scope).
        self.assertEqual(found["lib.model.Interface.Nested"].docstring,
                         "alias of :class:`lib.model.Interface.Inner`")
        self.assertEqual(found["lib.model.Interface.session_class"].docstring,
                         "alias of :class:`lib.model.Session`")
        # Bound under the class's own name, it is the class, documented there.
        self.assertEqual(found["lib.model.Interface.Session"].name, "lib.model.Session")

    def test_a_class_alias_a_module_imports_is_documented_as_its_alias(self):
        # pyparsing's `Optional = Opt` in pyparsing/core.py, star-imported and listed in
        # pyparsing's __all__: autodoc describes it as "alias of" Opt (an attribute), the
        # assignment's lines, not Opt's again.
        package = package_of({
            "lib": '"""Lib."""\nfrom .core import *\n__all__ = ["Opt", "Optional"]\n',
            "lib.core": 'class Opt:\n    """Optional."""\n\n\nOptional = Opt\n'})
        found = documented_by(package, ".. automodule:: lib\n   :members:\n")
        self.assertEqual(list(found), ["lib", "lib.Opt", "lib.Optional"])
        self.assertEqual((found["lib.Optional"].kind, found["lib.Optional"].docstring,
                          found["lib.Optional"].start_line),
                         (ATTRIBUTE, "alias of :class:`lib.core.Opt`", 5))

    def test_a_name_bound_to_a_standard_library_class_is_documented_as_its_alias(self):
        # kitchen's `StrictDict = defaultdict` in __all__ (checked against Sphinx 5.3.0):
        # ClassDocumenter takes it (getdoc finds the class's docstring), "alias of" the class;
        # a name bound to a module or to a number is no class; without __all__, :members:
        # checks __module__ and leaves it out, unless it is listed.
        modules = {"lib": ('"""Lib."""\nimport collections\nfrom collections import defaultdict\n'
                           '__all__ = ["StrictDict", "Plain", "Ordered", "Module", "Number"]\n'
                           'StrictDict = defaultdict\nPlain = dict\n'
                           'Ordered = collections.OrderedDict\nModule = collections\n'
                           'Number = 3\n')}
        found = documented_by(package_of(modules), ".. automodule:: lib\n   :members:\n")
        self.assertEqual(list(found), ["lib", "lib.StrictDict", "lib.Plain", "lib.Ordered"])
        self.assertEqual([(found[name].kind, found[name].docstring) for name in list(found)[1:]],
                         [(ATTRIBUTE, "alias of :class:`collections.defaultdict`"),
                          (ATTRIBUTE, "alias of :class:`dict`"),
                          (ATTRIBUTE, "alias of :class:`collections.OrderedDict`")])
        modules["lib"] = modules["lib"].replace("__all__", "_all")
        found = documented_by(package_of(modules), ".. automodule:: lib\n   :members:\n")
        self.assertEqual(list(found), ["lib"])
        found = documented_by(package_of(modules),
                              ".. automodule:: lib\n   :members: Plain, Number\n")
        self.assertEqual(list(found), ["lib", "lib.Plain"])
        # A class's attribute the same (`dict_class = dict`), though no :undoc-members: is given.
        found = documented_by(package_of({"lib": (
            'import collections\n\n\nclass Holder:\n    """Holder."""\n\n'
            '    dict_class = dict\n    factory = collections.OrderedDict\n    size = 3\n')}),
            ".. autoclass:: lib.Holder\n   :members:\n")
        self.assertEqual([(name, found[name].docstring) for name in list(found)[1:]],
                         [("lib.Holder.dict_class", "alias of :class:`dict`"),
                          ("lib.Holder.factory", "alias of :class:`collections.OrderedDict`")])

    def test_a_name_bound_to_an_instance_s_method_is_documented_as_that_method(self):
        # jsonpickle's `register = registry.register` (registry = Registry()), Logbook's
        # `debug = _default_logger.debug` (checked against Sphinx 5.3.0): a bound method,
        # FunctionDocumenter's under a module, its docstring the method's; :members: leaves
        # out one of a class another module defines (its __module__), as it does a function.
        package = package_of({
            "lib": ('"""Lib."""\nfrom lib.base import Logger\n\n\nclass Registry:\n'
                    '    """A registry."""\n\n    def register(self, name):\n'
                    '        """Register a name."""\n\n\nregistry = Registry()\n'
                    'register = registry.register\n_default = Logger()\n'
                    'debug = _default.debug\n'),
            "lib.base": ('class Logger:\n    """Logger."""\n\n    def debug(self, msg):\n'
                         '        """Log at debug."""\n')})
        found = documented_by(package, ".. automodule:: lib\n   :members:\n")
        self.assertEqual(list(found), ["lib", "lib.Registry", "lib.Registry.register",
                                       "lib.register"])
        self.assertEqual(found["lib.register"].docstring, "Register a name.")
        found = documented_by(package, ".. autofunction:: lib.debug\n")
        self.assertEqual([(name, obj.docstring) for name, obj in found.items()],
                         [("lib.debug", "Log at debug.")])

    def test_a_module_s_name_bound_to_a_class_is_documented_as_it_or_its_alias(self):
        # autodoc documents what a module member is: `Common = common` (a class of that
        # name) as the class, its members too; `Short = Common` as "alias of" it.
        package = package_of({
            "lib": ('"""Lib."""\nfrom .common import Common as common\n'
                    '__all__ = ["Common", "Short"]\nCommon = common\nShort = Common\n'),
            "lib.common": ('class Common:\n    """Common expressions."""\n\n'
                           '    def number(self):\n        """A number."""\n')})
        found = documented_by(package, ".. automodule:: lib\n   :members:\n")
        self.assertEqual(list(found), ["lib", "lib.Common", "lib.Common.number", "lib.Short"])
        self.assertEqual(found["lib.Common"].name, "lib.common.Common")
        self.assertEqual(found["lib.Short"].docstring, "alias of :class:`lib.common.Common`")

    def test_an_undocumented_class_bound_under_its_name_in_a_class_is_that_class(self):
        # celery's `RedisBackend.ResultConsumer = ResultConsumer`, a class without a docstring:
        # ClassDocumenter documents it under :undoc-members: with its members; an undocumented
        # class under another name stays an undocumented attribute.
        package = package_of({"lib": (
            'class Consumer:\n    def start(self):\n        pass\n\n\n'
            'class Backend:\n    """A backend."""\n\n    Consumer = Consumer\n'
            '    Other = Consumer\n')})
        found = documented_by(package, ".. autoclass:: lib.Backend\n   :members:\n"
                                       "   :undoc-members:\n")
        self.assertEqual(list(found), ["lib.Backend", "lib.Backend.Consumer",
                                       "lib.Backend.Consumer.start", "lib.Backend.Other"])
        self.assertEqual((found["lib.Backend.Consumer"].name, found["lib.Backend.Other"].kind),
                         ("lib.Consumer", ATTRIBUTE))
        found = documented_by(package, ".. autoclass:: lib.Backend\n   :members:\n")
        self.assertEqual(list(found), ["lib.Backend"])

    def test_pallets_themes_skip_a_member_marked_internal(self):
        # pallets_sphinx_themes' skip_internal: a member whose docstring has a line
        # `:internal:` alone is skipped by :members:; named by a directive, it is documented.
        package = package_of({"lib": (
            'class App:\n    """App."""\n\n    def run(self):\n        """Run."""\n\n'
            '    def finalize(self):\n        """Finalize.\n\n        :internal:\n        """\n')})

        def names(text, skip_internal):
            return [[item.name for item in autodoc.resolve(
                directive, package, autodoc.Settings(skip_internal=skip_internal))]
                for directive in autodoc.directives(text)]
        members = ".. autoclass:: lib.App\n   :members:\n"
        self.assertEqual(names(members, True), [["lib.App", "lib.App.run"]])
        self.assertEqual(names(members, False), [["lib.App", "lib.App.run", "lib.App.finalize"]])
        self.assertEqual(names(".. automethod:: lib.App.finalize\n", True), [["lib.App.finalize"]])

    def test_extensions_have_autodoc_document_special_members_with_a_docstring(self):
        # An autodoc-skip-member handler keeps what :members: skips: napoleon a class's own
        # special members with a docstring where napoleon_include_special_with_doc is True (its
        # default is False), __init__ with napoleon_include_init_with_doc; zzzeeksphinx a
        # constructor, comparisons and __call__, a base's too; none without a docstring.
        package = package_of({"lib": (
            'class Base:\n    """Base."""\n\n    def __call__(self):\n        """Call it."""\n\n'
            'class Thing(Base):\n    """Thing."""\n\n'
            '    def __init__(self, size):\n        """Make one."""\n\n'
            '    def __eq__(self, other):\n        """Compare."""\n\n'
            '    def __hash__(self):\n        return 1\n\n'
            '    def __len__(self):\n        """Size."""\n')})
        text = ".. autoclass:: lib.Thing\n   :members:\n   :inherited-members:\n"

        def names(conf: str):
            settings = autodoc.Settings(special_members=read_conf(conf).special_members)
            [directive] = autodoc.directives(text)
            return [item.name for item in autodoc.resolve(directive, package, settings)][1:]
        self.assertEqual(names(""), [])
        napoleon = 'extensions = ["sphinx.ext.napoleon"]\n'
        self.assertEqual(names(napoleon), [])
        special = napoleon + "napoleon_include_special_with_doc = True\n"
        self.assertEqual(names(special), ["lib.Thing.__eq__", "lib.Thing.__len__"])
        self.assertEqual(names(special + "napoleon_include_init_with_doc = True\n"),
                         ["lib.Thing.__init__", "lib.Thing.__eq__", "lib.Thing.__len__"])
        self.assertEqual(names(napoleon + "napoleon_include_init_with_doc = True\n"),
                         ["lib.Thing.__init__"])
        self.assertEqual(names('extensions = ["zzzeeksphinx"]\n'),
                         ["lib.Thing.__init__", "lib.Thing.__eq__", "lib.Thing.__call__"])

    def test_a_listed_member_a_base_defines_is_documented_under_the_class(self):
        # autodoc takes a name :members: lists by getattr: sqlalchemy's `.. autoclass:: BIT`
        # `:members: __init__` describes Boolean's constructor as BIT.__init__.
        package = package_of({"lib": (
            'class Base:\n    """Base."""\n\n    def __init__(self, size):\n'
            '        """Make one of size."""\n\n'
            'class Thing(Base):\n    """Thing."""\n')})
        found = documented_by(package, ".. autoclass:: lib.Thing\n   :members: __init__, gone\n")
        self.assertEqual(list(found), ["lib.Thing", "lib.Thing.__init__"])
        self.assertEqual(found["lib.Thing.__init__"].name, "lib.Base.__init__")

    def test_an_explicit_directive_documents_an_undocumented_assignment(self):
        # As autodoc: what a directive names is documented whatever it is (but a module).
        self.assertEqual(self.resolved(".. autodata:: demo.core.shared_engine\n\n"
                                       ".. autofunction:: demo.Engine\n"),
                         [["demo.core.shared_engine"], ["demo.Engine"]])
        self.assertNotIn("demo.core.shared_engine",
                         [obj.name for _, obj in public_objects(self.package)])

    def test_an_object_the_source_does_not_define_resolves_to_none(self):
        self.assertEqual(self.resolved(".. autoclass:: demo.Missing\n\n"
                                       ".. autoclass:: demo.core\n\n"  # a module
                                       ".. automodule:: demo.broken\n"), [None, None, None])


def tar_with(member: tarfile.TarInfo, data: bytes = b"") -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        tar.addfile(member, io.BytesIO(data) if member.isfile() else None)
    return buffer.getvalue()


class UnpackTest(unittest.TestCase):

    def archive(self, name: str, data: bytes) -> str:
        path = os.path.join(temporary_directory(self), name)
        with open(path, "wb") as out:
            out.write(data)
        return path

    def unpack(self, path):
        return unpack.unpack(path, os.path.join(temporary_directory(self), "tree"))

    def test_path_traversal_is_refused(self):
        info = tarfile.TarInfo("pkg-1.0/../../evil.py")
        info.size = 1
        with self.assertRaisesRegex(unpack.UnpackError, "outside the unpacked tree"):
            self.unpack(self.archive("pkg-1.0.tar.gz", tar_with(info, b"x")))
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as package:
            package.writestr("/etc/evil.py", "x")
        with self.assertRaisesRegex(unpack.UnpackError, "outside the unpacked tree"):
            self.unpack(self.archive("pkg-1.0-py3-none-any.whl", buffer.getvalue()))

    def test_links_are_left_out(self):
        info = tarfile.TarInfo("pkg-1.0/link.py")
        info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
        root = os.path.join(temporary_directory(self), "tree")
        self.assertEqual(unpack.unpack(self.archive("pkg-1.0.tar.gz", tar_with(info)), root),
                         ["pkg-1.0/link.py"])
        self.assertFalse(os.path.lexists(os.path.join(root, "pkg-1.0", "link.py")))

    def test_a_link_is_a_copy_of_the_member_it_names(self):
        # webassets 2.0's sdist stores its package's files as hard links to examples' files:
        # pip writes them, and so does this, from the archive (no link on disk); one naming
        # no earlier member, or a /etc file, is left out.
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
            data = b'"""Shared."""\n'
            original = tarfile.TarInfo("pkg-1.0/examples/shared.py")
            original.size = len(data)
            tar.addfile(original, io.BytesIO(data))
            for name, target, kind in (
                    ("pkg-1.0/pkg/shared.py", "pkg-1.0/examples/shared.py", tarfile.LNKTYPE),
                    ("pkg-1.0/pkg/passwd.py", "/etc/passwd", tarfile.LNKTYPE),
                    ("pkg-1.0/docs/shared.txt", "../examples/shared.py", tarfile.SYMTYPE),
                    ("pkg-1.0/docs/loop.txt", "loop.txt", tarfile.SYMTYPE)):
                link = tarfile.TarInfo(name)
                link.type, link.linkname = kind, target
                tar.addfile(link)
        root = os.path.join(temporary_directory(self), "tree")
        self.assertEqual(unpack.unpack(self.archive("pkg-1.0.tar.gz", buffer.getvalue()), root),
                         ["pkg-1.0/pkg/passwd.py", "pkg-1.0/docs/loop.txt"])
        copy = os.path.join(root, "pkg-1.0", "pkg", "shared.py")
        self.assertFalse(os.path.islink(copy))
        with open(copy, "rb") as written:
            self.assertEqual(written.read(), data)
        self.assertFalse(os.path.lexists(os.path.join(root, "pkg-1.0", "pkg", "passwd.py")))
        # A symbolic link to a member (nibabel's changelog.rst -> ../../Changelog) likewise.
        linked = os.path.join(root, "pkg-1.0", "docs", "shared.txt")
        self.assertFalse(os.path.islink(linked))
        with open(linked, "rb") as written:
            self.assertEqual(written.read(), data)

    def test_a_size_bomb_is_refused_as_it_is_written(self):
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as package:
            package.writestr("pkg/big.py", b"#" * 5000)
        path = self.archive("pkg-1.0.zip", buffer.getvalue())
        with mock.patch.object(unpack, "MAX_UNPACKED_BYTES", 4096), \
                self.assertRaisesRegex(unpack.UnpackError, "unpacks to more than"):
            self.unpack(path)

    def test_a_damaged_archive_will_not_unpack(self):
        with self.assertRaisesRegex(unpack.UnpackError, "pkg-1.0.tar.gz: will not unpack"):
            self.unpack(self.archive("pkg-1.0.tar.gz", b"\x1f\x8b not really gzip"))


class LineFragmentTest(unittest.TestCase):

    def test_a_file_link_lands_where_the_file_has_those_lines(self):
        root = temporary_directory(self)
        os.makedirs(os.path.join(root, "demo"))
        with open(os.path.join(root, "demo", "core.py"), "w", encoding="utf-8") as out:
            out.write(CORE)
        site = RenderedSite(root, "pypi:demo==1.0/")
        last = CORE.count("\n") + 1
        self.assertTrue(site.lands(f"pypi:demo==1.0/demo/core.py#L1-L{last}"))
        self.assertFalse(site.lands(f"pypi:demo==1.0/demo/core.py#L1-L{last + 1}"))
        self.assertFalse(site.lands("pypi:demo==1.0/demo/missing.py#L1-L1"))
        self.assertFalse(site.lands("pypi:other==1.0/demo/core.py#L1-L1"))

    def test_a_file_link_never_reaches_outside_the_site(self):
        top = temporary_directory(self)
        root = os.path.join(top, "site")
        os.makedirs(root)
        with open(os.path.join(top, "outside.py"), "w", encoding="utf-8") as out:
            out.write(CORE)
        os.symlink(os.path.join(top, "outside.py"), os.path.join(root, "linked.py"))
        site = RenderedSite(root, "pypi:demo==1.0/")
        self.assertFalse(site.lands("pypi:demo==1.0/../outside.py#L1-L1"))
        self.assertFalse(site.lands("pypi:demo==1.0/linked.py#L1-L1"))


if __name__ == "__main__":
    unittest.main()
