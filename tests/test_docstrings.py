"""Unit: package sources read with ast, autodoc directives resolved, releases unpacked safely."""

import hashlib
import io
import os
import tarfile
import unittest
import zipfile
from unittest import mock

from retrieval.ingest.readers import autodoc
from retrieval.ingest.readers.docstrings import (
    PackageSource,
    aliases,
    exports,
    inherited_members,
    inherited_names,
    module_name,
    parse_module,
    public_name,
    public_objects,
    read_package,
)
from retrieval.ingest.readers.rendered import RenderedSite
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

    def test_a_crlf_file_is_quoted_with_its_carriage_returns(self):
        data = CORE.replace("\n", "\r\n").encode()
        module = parse_module("demo.core", "demo/core.py", data)
        stop = module.objects["Engine.stop"]
        self.assertEqual(module.quote(stop),
                         '    def stop(self):\r\n        """Stop every job."""\r')

    def test_attributes_documented_by_comments_and_instance_attributes(self):
        module = self.package.modules["demo.core"]
        self.assertEqual(module.quote(module.objects["Engine.retries"]),
                         "    #: Jobs run at most this many times.\n    retries = 3")
        self.assertEqual(module.objects["Engine.name"].docstring, "The name the engine reports.")
        # Members in source order: the instance attribute where __init__ is.
        self.assertEqual(module.objects["Engine"].members,
                         ("retries", "__init__", "name", "register_job", "stop", "undocumented",
                          "_hidden"))

    def test_public_follows_all_where_defined_else_the_underscore(self):
        names = [obj.name for _, obj in public_objects(self.package)]
        # An undocumented member (Engine.undocumented) is left out, as autodoc leaves it.
        self.assertEqual(names, [
            "demo", "demo.DEFAULT_SIZE", "demo.core", "demo.core.Engine",
            "demo.core.Engine.retries", "demo.core.Engine.name", "demo.core.Engine.register_job",
            "demo.core.Engine.stop", "demo.core.EngineError", "demo.core.make_engine"])

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


def package_of(modules: dict) -> PackageSource:
    """Parse {dotted module name: source} (a package's __init__ where another module is below
    it) into a PackageSource."""
    package = PackageSource()
    for name, text in modules.items():
        is_face = any(other.startswith(name + ".") for other in modules)
        path = name.replace(".", "/") + ("/__init__.py" if is_face else ".py")
        package.modules[name] = parse_module(name, path, text.encode())
    return package


class NamesTheReaderFollowsTest(unittest.TestCase):
    """Objects a package's API reaches that are not defined, documented, where users reach
    them: members of a base outside the API, aliases bound by assignment, re-exported data."""

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

    def test_every_directive_kind(self):
        text = ("\n.. module:: demo\n\n.. autodata:: DEFAULT_SIZE\n\n"
                ".. autoexception:: demo.core.EngineError\n\n.. automethod:: Engine.stop\n\n"
                ".. autoattribute:: Engine.retries\n\n.. autofunction:: make_engine\n")
        self.assertEqual(self.resolved(text), [
            ["demo.DEFAULT_SIZE"], ["demo.core.EngineError"], ["demo.Engine.stop"],
            ["demo.Engine.retries"], ["demo.make_engine"]])

    def test_an_explicit_module_before_a_double_colon(self):
        # sympy 1.13's integrals.rst: `.. autofunction:: sympy.integrals.rationaltools::ratint`
        # (autodoc's `module::name`), with another module current.
        self.assertEqual(self.resolved(".. currentmodule:: demo.core\n\n"
                                       ".. autofunction:: demo.core::make_engine\n\n"
                                       ".. automethod:: demo::Engine.stop\n\n"
                                       ".. autodata:: DEFAULT_SIZE\n"),
                         [["demo.core.make_engine"], ["demo.Engine.stop"], None])

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

        def names(options):
            [directive] = autodoc.directives(".. autoclass:: lib.App\n   :members:\n" + options)
            return [(item.name, item.obj.name) for item in autodoc.resolve(directive, package)]
        self.assertEqual(names(""), [("lib.App", "lib.App"), ("lib.App.run", "lib.App.run")])
        # Under the subclass's name, from the base that defines them; App's own stop hides
        # Base's even undocumented.
        self.assertEqual(names("   :inherited-members:\n")[2:],
                         [("lib.App.route", "lib.base.Base.route")])
        self.assertEqual(names("   :inherited-members:\n   :private-members:\n"
                               "   :special-members:\n")[2:],
                         [("lib.App.route", "lib.base.Base.route"),
                          ("lib.App._hidden", "lib.base.Base._hidden"),
                          ("lib.App.__call__", "lib.base.Base.__call__")])

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
