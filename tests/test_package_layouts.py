"""Unit: where a release keeps its code and what of it is API, read from small hand-made trees.

The import package from the archive's own metadata (setup.cfg, pyproject.toml, top_level.txt,
the tree), tests not read as API, names re-exported from private modules documented under their
public name, Attributes sections and chained assignments, templated docstrings, and a
docstring-only collection's exported names above its undocumented helpers.
"""

import email
import io
import os
import sys
import unittest
from pathlib import Path

from retrieval.ingest.builder import DEFAULT_POLICY, Progress, SourceTree, build_snapshot
from retrieval.ingest.formats.package import PACKAGE_FORMAT, read_package_contents
from retrieval.ingest.readers import cython
from retrieval.ingest.readers.docstrings import aliases, parse_module, read_package
from retrieval.ingest.readers.templates import delegated_members, resolve_templates
from retrieval.ingest.sources.dependencies import (
    inherited_releases,
    release_requirements,
    requirement_names,
)
from retrieval.ingest.sources.layout import sdist_modules, wheel_modules
from retrieval.ingest.tree import PackageLayout
from tests.support import temporary_directory

TIER = "unit"


def write_tree(root: str, files: dict) -> Path:
    for name, text in files.items():
        path = os.path.join(root, *name.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as out:
            out.write(text)
    return Path(root)


def kinds_and_docstrings(objects: dict, names: tuple) -> dict:
    """Return {name: (kind, docstring)} of the named objects of a module (Module.objects)."""
    return {name: (objects[name].kind, objects[name].docstring) for name in names}


def units_of(testcase, files: dict, modules=None) -> dict:
    """Read a package tree's docstrings as a docstring-only collection: {title: content}."""
    root = write_tree(temporary_directory(testcase), files)
    layout = PackageLayout(modules or wheel_modules(root), None, None, "pypi:x==1.0/")
    tree = SourceTree("1.0", str(root), layout.source_url, "x", PACKAGE_FORMAT, package=layout)
    drafts = read_package_contents(tree, Progress(io.StringIO()))
    return {draft.content["title"]: draft.content for draft in drafts}


class LayoutTest(unittest.TestCase):

    def modules(self, files: dict, distribution: str | None = None) -> list:
        return [name for _, name in sdist_modules(write_tree(temporary_directory(self), files),
                                                  distribution)]

    def test_a_lib_layout_from_setup_cfg_package_dir(self):
        # sqlalchemy 1.4.46: `package_dir = =lib`; no src/, nothing at the top.
        self.assertEqual(self.modules({
            "setup.cfg": "[metadata]\nname = sa\n\n[options]\npackages = find:\n"
                         "package_dir =\n    =lib\n\n[options.packages.find]\nwhere = lib\n",
            "setup.py": "raise SystemExit\n",
            "lib/sa/__init__.py": "", "lib/sa/engine/__init__.py": "",
            "lib/sa/engine/create.py": "", "lib/sa/testing/__init__.py": "",
            "test/test_engine.py": "", "doc/build/conf.py": ""}),
            ["sa", "sa.engine", "sa.engine.create", "sa.testing"])

    def test_a_package_directory_from_setup_py_s_literal_package_dir(self):
        # psycopg2 2.9.5: `setup(..., package_dir={'psycopg2': 'lib'}, packages=['psycopg2'])`
        # in setup.py alone (parsed, never run); lib/__init__.py is psycopg2 itself.
        self.assertEqual(self.modules({
            "setup.py": "import sys\nfrom setuptools import setup\nsys.exit(1)\n"
                        "setup(name='pg', package_dir={'pg': 'lib'}, packages=['pg'])\n",
            "lib/__init__.py": "", "lib/extras.py": "", "lib/_range.py": "",
            "pgsrc/module.c": "", "tests/test_pg.py": ""}),
            ["pg", "pg._range", "pg.extras"])

    def test_a_declared_root_holding_an_init_module_is_where_packages_are(self):
        # future 0.18: `package_dir={'': 'src'}` beside a src/__init__.py that only setup.py
        # imports; the declaration says where the packages are.
        self.assertEqual(self.modules({
            "setup.py": "from setuptools import setup\nsetup(name='future', "
                        "package_dir={'': 'src'}, packages=['future', 'past'])\n",
            "src/__init__.py": "", "src/future/__init__.py": "", "src/future/utils.py": "",
            "src/past/__init__.py": "", "docs/conf.py": ""}),
            ["future", "future.utils", "past"])

    def test_setup_py_s_package_dir_through_names_and_os_path_join(self):
        # pycurl 7.45: `package_dir={PY_PACKAGE: os.path.join('python', 'curl')}`.
        self.assertEqual(self.modules({
            "setup.py": "import os\nfrom setuptools import setup\nPY_PACKAGE = 'curl'\n"
                        "setup(name='pycurl', packages=[PY_PACKAGE],\n"
                        "      package_dir={PY_PACKAGE: os.path.join('python', 'curl')})\n",
            "python/curl/__init__.py": "", "python/curl/easy.py": "", "src/module.c": ""}),
            ["curl", "curl.easy"])

    def test_setup_py_s_names_count_only_where_all_are_written_out(self):
        # sympy 1.9: `py_modules=['isympy'], packages=['sympy'] + modules + tests`.
        tree = {"isympy.py": "", "sympy/__init__.py": "", "sympy/core/__init__.py": "",
                "doc/conf.py": ""}
        for call in ("setup(py_modules=['tool'], packages=['sympy'] + modules)",
                     "setup(py_modules=['tool'], **options)"):
            with self.subTest(call=call):
                self.assertEqual(self.modules({"setup.py": call + "\n", **tree}),
                                 ["isympy", "sympy", "sympy.core"])

    def test_top_level_txt_names_the_packages_where_the_tree_is_ambiguous(self):
        self.assertEqual(self.modules({
            "lib/Two.egg-info/top_level.txt": "_two\ntwo\n",
            "lib/two/__init__.py": "", "lib/_two/core.py": "", "lib/other/__init__.py": ""}),
            ["_two.core", "two"])

    def test_the_egg_info_of_a_distribution_it_bundles_names_none_of_its_packages(self):
        # astroquery 0.4.6 bundles astropy_helpers' sdist, egg-info and all.
        self.assertEqual(self.modules({
            "PKG-INFO": "Metadata-Version: 2.1\nName: Two\nVersion: 1.0\n",
            "helpers/helpers.egg-info/top_level.txt": "helpers\n",
            "helpers/helpers/__init__.py": "", "two/__init__.py": "", "two/core.py": ""},
            "Two"), ["two", "two.core"])
        # Its own egg-info is read, however it spells the name.
        self.assertEqual(self.modules({
            "PKG-INFO": "Metadata-Version: 2.1\nName: Two-Pkg\nVersion: 1.0\n",
            "lib/two_pkg.egg-info/top_level.txt": "_two\ntwo\n",
            "lib/two/__init__.py": "", "lib/_two/core.py": "", "lib/other/__init__.py": ""},
            "Two-Pkg"), ["_two.core", "two"])

    def test_a_src_directory_that_is_not_python_is_passed_over(self):
        # lightgbm 4.3.0: src/ is the C++ library, the package is lightgbm/ at the top.
        files = {"src/boosting/gbdt.cpp": "int x;\n", "src/io/config.h": "",
                 "lightgbm/__init__.py": "", "lightgbm/sklearn.py": "",
                 "CMakeLists.txt": "", "tests/test_x.py": ""}
        self.assertEqual(self.modules(files), ["lightgbm", "lightgbm.sklearn"])
        files["pyproject.toml"] = ('[build-system]\nbuild-backend = "scikit_build_core.build"\n'
                                   '[tool.scikit-build]\nwheel.py-api = "py3"\n')
        # Its setup.cfg is a leftover scikit-build-core does not read: not followed.
        files["setup.cfg"] = "[options.packages.find]\nwhere = lightgbm\n"
        self.assertEqual(self.modules(files), ["lightgbm", "lightgbm.sklearn"])

    def test_pyproject_package_dir_several_packages_and_a_namespace_package(self):
        self.assertEqual(self.modules({
            "pyproject.toml": '[tool.setuptools]\npackage-dir = {"" = "code"}\n',
            "code/alpha/__init__.py": "", "code/beta/__init__.py": "", "code/solo.py": "",
            "code/ns/plugin/__init__.py": "", "src/decoy/__init__.py": ""}),
            ["alpha", "beta", "solo"])
        # A namespace package is read where it is all there is.
        self.assertEqual(self.modules({
            "src/ns/plugin/__init__.py": "", "src/ns/plugin/core.py": ""}),
            ["ns.plugin", "ns.plugin.core"])

    def test_flit_builds_the_module_named_after_the_project(self):
        # pyparsing 3.0.9: flit_core builds `pyparsing/`; pyparsing_archive.py and the
        # tooling beside it at the top are not in the wheel.
        files = {"pyproject.toml": '[build-system]\nbuild-backend = "flit_core.buildapi"\n'
                                   '[project]\nname = "Py-Parse"\n',
                 "py_parse/__init__.py": "", "py_parse/core.py": "", "archive.py": "",
                 "update_stamp.py": ""}
        self.assertEqual(self.modules(files), ["py_parse", "py_parse.core"])
        files["pyproject.toml"] += '[tool.flit.module]\nname = "archive"\n'
        self.assertEqual(self.modules(files), ["archive"])

    def test_a_cython_module_is_a_module_unless_a_python_module_has_its_name(self):
        # pandas 1.5.3: pandas/_libs/tslibs/offsets.pyx is pandas._libs.tslibs.offsets.
        self.assertEqual(self.modules({
            "setup.py": "raise SystemExit\n", "pkg/__init__.py": "",
            "pkg/fast.pyx": "def f():\n    pass\n", "pkg/fast.pyi": "def f() -> None: ...\n",
            "pkg/both.py": "", "pkg/both.pyx": "", "pkg/decl.pxd": "cdef int g()\n"}),
            ["pkg", "pkg.both", "pkg.fast"])

    def test_maturin_s_python_source_holds_a_rust_extension_s_package(self):
        # pydantic-core: `[tool.maturin] python-source = "python"`, module-name
        # pydantic_core._pydantic_core (a stub package beside it); src/ is Rust and a script.
        files = {"pyproject.toml": '[build-system]\nbuild-backend = "maturin"\n\n'
                                   '[tool.maturin]\npython-source = "python"\n'
                                   'module-name = "fast_core._fast_core"\n',
                 "src/lib.rs": "", "src/self_schema.py": "",
                 "python/fast_core/__init__.py": "",
                 "python/fast_core/_fast_core/__init__.pyi": "def f() -> None: ...\n"}
        self.assertEqual(self.modules(files), ["fast_core", "fast_core._fast_core"])
        files["pyproject.toml"] = files["pyproject.toml"].replace('"maturin"', '"other"')
        self.assertEqual(self.modules(files), ["self_schema"])

    def test_a_name_its_package_rebinds_is_the_object_below_it_as_getattr_finds(self):
        # pyqtgraph: `from .Point import Point` and `from .Flowchart import *` make the
        # package's attribute the class, whose members autodoc reaches by getattr along the
        # path (`automethod:: pyqtgraph.Point.length`); automodule's members of the module
        # are still the module's (`pkg.Point.Point`).
        root = write_tree(temporary_directory(self), {
            "pkg/__init__.py": "from .Point import Point\n",
            "pkg/Point.py": 'class Point:\n    """A point."""\n\n    def length(self):\n'
                            '        """Its length."""\n',
            "pkg/flow/__init__.py": "from .Flowchart import *\n",
            "pkg/flow/Flowchart.py": '__all__ = ["Flowchart"]\n\n\nclass Flowchart:\n'
                                     '    """A chart."""\n\n    def run(self):\n'
                                     '        """Run it."""\n'})
        package = read_package(str(root), wheel_modules(root))
        self.assertEqual(package.resolve("pkg.Point.length")[1].name, "pkg.Point.Point.length")
        self.assertEqual(package.resolve("pkg.Point.Point")[1].name, "pkg.Point.Point")
        self.assertEqual(package.resolve("pkg.flow.Flowchart")[1].name,
                         "pkg.flow.Flowchart.Flowchart")
        self.assertEqual(package.resolve("pkg.flow.Flowchart.run")[1].name,
                         "pkg.flow.Flowchart.Flowchart.run")
        self.assertIsNotNone(package.module("pkg.flow.Flowchart"))

    def test_a_stub_is_a_module_where_no_python_or_cython_module_has_its_name(self):
        # pydantic-core's _pydantic_core.pyi, a Rust extension's: the stub is all the sdist
        # says of the compiled module; beside a .py (bcrypt's __init__.pyi) the .py is read.
        self.assertEqual(self.modules({
            "setup.py": "raise SystemExit\n", "pkg/__init__.py": "", "pkg/__init__.pyi": "",
            "pkg/_core.pyi": "def f() -> None: ...\n", "pkg/fast.pyx": "", "pkg/fast.pyi": "",
            # Outside a package, stubs are data: mypy's typeshed/ of the stdlib's.
            "pkg/typeshed/stdlib/os/__init__.pyi": "", "pkg/typeshed/stdlib/sys.pyi": "",
            "pkg/stubbed/__init__.pyi": "", "pkg/stubbed/deep.pyi": ""}),
            ["pkg", "pkg._core", "pkg.fast", "pkg.stubbed", "pkg.stubbed.deep"])
        units = units_of(self, {
            "pkg/__init__.py": '"""Pkg."""\nfrom ._core import fast\n__all__ = ["fast"]\n',
            "pkg/_core.pyi": 'def fast(x: int) -> int:\n    """Compute it fast."""\n'})
        self.assertIn("pkg.fast", units)
        # numpy's char.pyi types `numpy.char`, which numpy binds to core.defchararray (core's
        # __all__, numpy's star import): the stub is no module of its own there.
        root = write_tree(temporary_directory(self), {
            "pkg/__init__.py": '"""Pkg."""\nfrom .core import *\n',
            "pkg/core/__init__.py": 'from . import strings as char\n__all__ = ["char"]\n',
            "pkg/core/strings.py": 'def add(a, b):\n    """Add them."""\n',
            "pkg/char.pyi": 'def add(a: str, b: str) -> str: ...\n'})
        package = read_package(str(root), wheel_modules(root))
        self.assertNotIn("pkg.char", package.modules)
        self.assertEqual(package.resolve("pkg.char.add")[1].name, "pkg.core.strings.add")

    def test_tests_benchmarks_and_examples_are_not_api_but_a_testing_package_is(self):
        self.assertEqual(self.modules({
            "pkg/__init__.py": "", "pkg/tests/__init__.py": "", "pkg/tests/test_a.py": "",
            "pkg/sub/test_b.py": "", "pkg/sub/conftest.py": "", "pkg/sub/__init__.py": "",
            "pkg/benchmarks/bench.py": "", "pkg/examples/demo.py": "",
            "pkg/testing/__init__.py": "", "pkg/testing/asserts.py": "",
            "testing/test_c.py": "", "conftest.py": ""}),
            ["pkg", "pkg.sub", "pkg.testing", "pkg.testing.asserts"])

    def test_pytest_named_modules_and_a_test_directory_of_them_are_not_api(self):
        # tornado 6.3.3: tornado/test/web_test.py and its helpers tornado/test/util.py; a
        # `test` package of helpers alone is API (django.test.TestCase).
        self.assertEqual(self.modules({
            "web/__init__.py": "", "web/test/__init__.py": "", "web/test/util.py": "",
            "web/test/web_test.py": "", "web/test/data/__init__.py": "",
            "web/testing.py": "", "web/sub/__init__.py": "", "web/sub/ws_test.py": "",
            "dj/__init__.py": "", "dj/test/__init__.py": "", "dj/test/client.py": ""}),
            ["dj", "dj.test", "dj.test.client", "web", "web.sub", "web.testing"])


    def test_a_pytest_named_module_its_package_imports_is_api(self):
        # falcon 3.1.1: falcon/testing/__init__.py's `from falcon.testing.test_case import
        # TestCase`, which its docs' `.. autoclass:: TestCase` documents; a sibling's relative
        # import counts too; a test module nothing of the package imports is none.
        self.assertEqual(self.modules({
            "web/__init__.py": "", "web/testing/__init__.py":
                "from web.testing.test_case import TestCase\nfrom .case_test import run\n",
            "web/testing/test_case.py": "class TestCase:\n    pass\n",
            "web/testing/case_test.py": "def run():\n    pass\n",
            "web/testing/test_other.py": "", "web/testing/conftest.py": ""}),
            ["web", "web.testing", "web.testing.case_test", "web.testing.test_case"])

    def test_a_module_too_deep_to_parse_beside_a_test_module_is_passed_over(self):
        # Which of a directory's test-named modules its package imports is read from each
        # module's imports; one nested deeper than the parser goes is passed over there, as
        # read_package skips it.
        self.assertEqual(self.modules({
            "web/__init__.py": "", "web/test_views.py": "def test_a():\n    pass\n",
            "web/deep.py": "y = " + " + ".join(["1"] * 20000) + "\n"}),
            ["web", "web.deep"])
        # So is a setup.py too deep to parse for its package_dir and packages.
        self.assertEqual(self.modules({
            "setup.py": "x = " + " + ".join(["1"] * 20000) + "\nsetup(packages=['web'])\n",
            "web/__init__.py": ""}), ["web"])


FILTERS = '''\
"""Filters."""

__all__ = ["median_filter"]


def median_filter(input, size=None):
    """Calculate a multidimensional median filter."""


def _helper(x):
    """Internal."""
'''


class PublicApiTest(unittest.TestCase):

    def assembled(self, files: dict, module: str, counts: tuple) -> dict:
        """Return a module's objects (Module.objects) of a package tree once its assembled
        docstrings are resolved, asserting how many resolve_templates resolved, of them in
        part, and left."""
        root = write_tree(temporary_directory(self), files)
        package = read_package(str(root), wheel_modules(root))
        self.assertEqual(resolve_templates(package), counts)
        return package.modules[module].objects

    def test_a_name_re_exported_from_a_private_module_is_documented_by_its_public_name(self):
        units = units_of(self, {
            "sci/__init__.py": '"""Sci."""\n',
            "sci/ndimage/__init__.py": '"""Images."""\nfrom ._filters import *\n',
            "sci/ndimage/_filters.py": FILTERS,
            "sci/linalg/__init__.py": '"""Linear algebra."""\nfrom ._basic import solve\n',
            "sci/linalg/_basic.py": 'def solve(a, b):\n    """Solve a x = b."""\n\n\n'
                                    'def _lapack():\n    """Internal."""\n',
            "_pt/fixtures.py": 'def fixture(f):\n    """Mark a fixture."""\n',
            "pt/__init__.py": '"""Testing."""\nfrom _pt.fixtures import fixture\n'})
        unit = units["sci.ndimage.median_filter"]
        self.assertEqual(unit["source_id"], "sci/ndimage/_filters.py")
        self.assertIn("def median_filter(input, size=None):", unit["text"])
        self.assertEqual(unit["fields"]["names"].split(),
                         ["sci.ndimage.median_filter", "sci.ndimage._filters.median_filter"])
        self.assertIn("sci.linalg.solve", units)
        self.assertIn("pt.fixture", units)
        self.assertFalse([title for title in units if "_helper" in title or "_lapack" in title])

    def test_a_public_instance_of_a_private_class_names_its_members_as_users_call_them(self):
        # loguru 0.7.0: `logger = _Logger(...)` in loguru/__init__.py, of `Logger` in the
        # private loguru/_logger.py, is the whole API: `logger.add` and kin; so are instances
        # a private module makes and a public one re-exports (each names the class), not one
        # nothing names as API. A class with a public name keeps it (`grid = Grid()` names
        # no member `lg.grid.shape`).
        units = units_of(self, {
            "lg/__init__.py": '"""Logging."""\nfrom ._logger import Logger as _Logger\n'
                              'from .grids import grid\nfrom ._sinks import null, stderr\n'
                              '__all__ = ["logger", "grid", "stderr", "null"]\n'
                              'logger = _Logger(core=None)\n',
            "lg/_sinks.py": 'class _Sink:\n    """A sink."""\n\n'
                            '    def write(self, message):\n        """Write one."""\n\n\n'
                            'stderr = _Sink()\nstdout = _Sink()\nnull = _Sink()\n',
            "lg/_logger.py": 'class Logger:\n    """An object to dispatch messages."""\n\n'
                             '    def __init__(self, core):\n        self._core = core\n\n'
                             '    def add(self, sink):\n        """Add a handler."""\n\n'
                             '    def _helper(self):\n        """Internal."""\n',
            "lg/grids.py": 'class Grid:\n    """A grid."""\n\n'
                           '    def shape(self):\n        """Its shape."""\n\n\n'
                           'grid = Grid()\n'})
        self.assertEqual(units["lg.logger.add"]["fields"]["names"].split(),
                         ["lg.logger.add", "lg._logger.Logger.add"])
        self.assertIn("def add(self, sink):", units["lg.logger.add"]["text"])
        self.assertEqual(units["lg.logger"]["fields"]["names"].split(),
                         ["lg.logger", "lg._logger.Logger"])
        self.assertFalse([title for title in units if "_helper" in title])
        self.assertEqual(units["lg.null.write"]["fields"]["names"].split(),
                         ["lg.null.write", "lg._sinks._Sink.write", "lg.stderr.write"])
        self.assertFalse([title for title in units if title.startswith("lg._sinks.stdout")])
        self.assertIn("lg.grids.Grid.shape", units)
        self.assertFalse([title for title in units if title.startswith("lg.grid.")])

    def test_overload_stubs_give_way_to_the_documented_definition(self):
        # `@typing.overload` stubs, and a package's own `@_overload` (torch 2.1's
        # torch/nn/functional.py, `from .._jit_internal import _overload`), come before the
        # definition Python binds last: `interpolate` is that one, with its docstring.
        units = units_of(self, {
            "nn/__init__.py": '"""Nets."""\n',
            "nn/functional.py": (
                'from typing import overload\nfrom ._jit import _overload\n\n\n'
                '@_overload\ndef interpolate(input, size: int = None):\n    pass\n\n\n'
                '@_overload\ndef interpolate(input, size: list = None):\n    pass\n\n\n'
                'def interpolate(input, size=None):\n    """Down/up samples the input."""\n\n\n'
                '@overload\ndef pad(input: int):\n    ...\n\n\n'
                'def pad(input):\n    """Pads a tensor."""\n'),
            "nn/_jit.py": 'def _overload(func):\n    """Record an overload."""\n    return func\n'})
        self.assertIn("Down/up samples the input.", units["nn.functional.interpolate"]["text"])
        self.assertIn("Pads a tensor.", units["nn.functional.pad"]["text"])

    def test_at_most_64_instances_name_one_class(self):
        # Thousands of instances of a class of hundreds of members gave each member thousands
        # of names (5,000 x 200: 83 s to list them); a unit is indexed under its first 64.
        instances = [f"x{i}" for i in range(200)]
        root = write_tree(temporary_directory(self), {
            "hq/__init__.py": f'__all__ = {instances!r}\n'
                              'class _Sink:\n    def write(self):\n        """Write."""\n'
                              + "".join(f"{name} = _Sink()\n" for name in instances)})
        names = aliases(read_package(str(root), wheel_modules(root)))
        self.assertEqual(names["hq._Sink.write"][:2], ["hq.x0.write", "hq.x1.write"])
        self.assertEqual(len(names["hq._Sink.write"]), 64)

    def test_a_class_s_unit_quotes_its_constructor_s_docstring_and_is_known_by_its_name(self):
        # gradio's `Image.__init__` says what each argument does: the class's unit shows it
        # (autoclass_content "both"), one unit known by the class's names and the constructor's.
        units = units_of(self, {
            "gr/__init__.py": '"""Gradio."""\nfrom .components import Image\n',
            "gr/components.py": 'class Image:\n    """An image."""\n\n'
                                '    def __init__(self, shape=None):\n'
                                '        """Make one.\n\n        Parameters:\n'
                                '            shape: the size to crop to.\n        """\n'})
        image = units["gr.Image"]
        self.assertIn("shape: the size to crop to.", image["text"])
        self.assertEqual(image["fields"]["names"].split(), [
            "gr.Image", "gr.Image.__init__", "gr.components.Image.__init__",
            "gr.components.Image"])
        self.assertNotIn("gr.Image.__init__", units)

    def test_a_name_re_exported_or_documented_in_a_module_whose_all_omits_it_is_api(self):
        # sqlalchemy 1.4.46: postgresql/__init__.py imports DATERANGE from ranges.py, whose
        # __all__ lists only the numeric ranges.
        units = units_of(self, {
            "pg/__init__.py": '"""Postgres."""\nfrom .ranges import DATERANGE\n',
            "pg/ranges.py": '__all__ = ("NUMRANGE",)\n\n\nclass NUMRANGE:\n    """Numbers."""'
                            '\n\n\nclass DATERANGE:\n    """Dates."""\n\n\n'
                            'class HIDDEN:\n    """Neither listed nor re-exported."""\n\n\n'
                            'class BARE:\n    pass\n\n\ndef _helper():\n    """Private."""\n'})
        self.assertEqual(units["pg.DATERANGE"]["fields"]["names"].split(),
                         ["pg.DATERANGE", "pg.ranges.DATERANGE"])
        self.assertIn("pg.ranges.NUMRANGE", units)
        # A documented class its __all__ leaves out is still API, as its name says (sqlalchemy's
        # `orderinglist.OrderingList`): importable and documented, below what the package
        # exports; neither an undocumented one nor a private name is.
        self.assertIn("pg.ranges.HIDDEN", units)
        self.assertLess(units["pg.ranges.HIDDEN"]["in_links"],
                        units["pg.ranges.NUMRANGE"]["in_links"])
        self.assertFalse([title for title in units if "BARE" in title or "_helper" in title])

    def test_a_star_import_binds_what_the_module_imports_too_and_only_what_all_lists(self):
        # networkx 3.1: networkx/__init__.py `from networkx.algorithms import *`, whose
        # __init__ `from .link_analysis import *`, whose __init__ `from .pagerank_alg import *`:
        # Python binds `networkx.pagerank`. A module with __all__ gives `*` only what it lists:
        # percolation.py's `_single_source_shortest_path_basic as shortest_path` is not
        # `networkx.shortest_path`.
        units = units_of(self, {
            "nx/__init__.py": '"""Graphs."""\nfrom nx.algorithms import *\n',
            "nx/algorithms/__init__.py": "from nx.algorithms.centrality import *\n"
                                         "from nx.algorithms.link import *\n"
                                         "from nx.algorithms.paths import *\n",
            "nx/algorithms/link/__init__.py": "from nx.algorithms.link.rank import *\n",
            "nx/algorithms/link/rank.py": '__all__ = ["pagerank"]\n\n\n'
                                          'def pagerank(G):\n    """Rank the nodes."""\n',
            "nx/algorithms/paths/__init__.py": "from .generic import *\n",
            "nx/algorithms/paths/generic.py": '__all__ = ["shortest_path"]\n\n\n'
                                              'def shortest_path(G):\n    """A path."""\n\n\n'
                                              'def _basic(G):\n    """Internal."""\n',
            "nx/algorithms/centrality/__init__.py": "from .percolation import *\n",
            "nx/algorithms/centrality/percolation.py":
                '"""Percolation."""\nfrom nx.algorithms.paths.generic import _basic as '
                'shortest_path\n\n__all__ = ["percolation_centrality"]\n\n\n'
                'def percolation_centrality(G):\n    """Percolate."""\n',
        })
        self.assertEqual(units["nx.pagerank"]["fields"]["names"].split(), [
            "nx.pagerank", "nx.algorithms.link.rank.pagerank", "nx.algorithms.pagerank",
            "nx.algorithms.link.pagerank"])
        self.assertEqual(units["nx.shortest_path"]["fields"]["names"].split(), [
            "nx.shortest_path", "nx.algorithms.paths.generic.shortest_path",
            "nx.algorithms.shortest_path", "nx.algorithms.paths.shortest_path"])
        self.assertFalse([title for title in units if "_basic" in title])
        self.assertIn("nx.percolation_centrality", units)

    def test_a_cython_descriptor_s_class_access_is_read(self):
        # pandas/_libs/properties.pyx: CachedProperty.__get__ gives itself on class access,
        # then runs C code; `@cache_readonly` members are attributes to autodoc.
        pyx = ("cdef class CachedProperty:\n    def __init__(self, fget):\n"
               "        self.fget = fget\n\n    def __get__(self, obj, typ):\n"
               '        """Read it."""\n        if obj is None:\n'
               "            # on the class\n            return self\n"
               "        val = <object>PyDict_GetItem(obj._cache, self.name)\n"
               "        return val\n\n\ncdef class Later:\n    def __get__(self, obj, typ):\n"
               "        cdef object cache = obj\n        if obj is None:\n"
               "            return self\n\n\ncache_readonly = CachedProperty\n")
        face = cython.skeleton(pyx)
        self.assertEqual(face.split("\n")[4:9], [
            "    def __get__(self, obj, typ):", '        """Read it."""',
            "        if obj is None:", "", "            return self"])
        module = parse_module("lib.props", "lib/props.pyx", face.encode())
        self.assertTrue(module.objects["CachedProperty"].gives_itself)
        # Only what it begins with: a statement before the `if` is C or Python unknown.
        self.assertFalse(module.objects["Later"].gives_itself)

    def test_a_cython_module_s_python_definitions_are_read_with_their_docstrings(self):
        # What autodoc finds importing a compiled Cython module (pandas' offsets.pyx): def,
        # cpdef, class and cdef class with their def methods; no cdef function, no C code.
        pyx = (
            "cimport numpy as cnp\n"
            "from libc.math cimport (\n    sqrt,\n)\n"
            "import numpy as np\n"
            "\n"
            "cdef int _helper(int x) nogil:\n"
            '    """C only."""\n'
            "    return <int>x\n"
            "\n"
            "@cython.boundscheck(False)\n"
            "cdef inline double _fast(double[:] values):\n"
            "    return values[0]\n"
            "\n"
            "cpdef int64_t shift(ndarray[int64_t] values, int n=1,\n"
            "                   object how=None) except? -1:  # typed\n"
            '    """Shift the values."""\n'
            "    cdef Py_ssize_t i\n"
            "    return 0\n"
            "\n"
            "cdef class Base:\n"
            '    """The base."""\n'
            "    cdef readonly:\n"
            "        int64_t n\n"
            "    _prefix = 'B'\n"
            "\n"
            "    def __init__(self, int n=1, bint normalize=False):\n"
            "        Base.setup(self)\n"
            "        self.n = n\n"
            "        if n:\n"
            "            self.m = n\n"
            '            """Not documented: not at the top of __init__."""\n'
            "        self.size = 1\n"
            '        """The size."""\n'
            "        self.kept = 0\n"
            "\n"
            "    @property\n"
            "    def rule_code(self) -> str:  # the code\n"
            '        """The rule code."""\n'
            "        return self._prefix\n"
            "\n"
            "    cdef _private(self):\n"
            "        pass\n"
            "\n"
            "    def rollback(self, dt):\n"
            "        if dt:\n"
            '            """Not a docstring."""\n'
            "        return dt\n"
            "\n"
            "class Child(Base):\n"
            "    pass\n")
        package = read_package(str(write_tree(temporary_directory(self), {"pkg/fast.pyx": pyx})),
                               [("pkg/fast.pyx", "pkg.fast")])
        self.assertEqual(package.skipped, [])
        module = package.modules["pkg.fast"]
        self.assertEqual(
            sorted(name for name in module.objects if name), [
                "Base", "Base.__init__", "Base._prefix", "Base.n", "Base.rollback",
                "Base.rule_code", "Base.size", "Child", "shift"])
        shift = module.objects["shift"]
        self.assertEqual((shift.kind, shift.docstring, shift.start_line, shift.end_line),
                         ("function", "Shift the values.", 15, 17))
        self.assertTrue(module.quote(shift).startswith("cpdef int64_t shift(ndarray[int64_t]"))
        self.assertEqual(module.objects["Base"].docstring, "The base.")
        self.assertEqual(module.objects["Base.rule_code"].docstring, "The rule code.")
        self.assertIsNone(module.objects["Base.rollback"].docstring)
        self.assertEqual(module.objects["Child"].bases, ("Base",))
        self.assertEqual(module.objects["Base.size"].docstring, "The size.")
        self.assertEqual(module.objects["Base.n"].kind, "attribute")
        self.assertEqual(package.resolve("pkg.fast.Child.rule_code")[1].name,
                         "pkg.fast.Base.rule_code")

    def test_a_star_import_of_a_module_whose_all_is_computed_binds_its_public_names(self):
        # numpy 1.21: numpy/core/__init__.py `__all__ = ['char']`, then `__all__ +=
        # numeric.__all__`: `from .core import *` binds numpy.convolve all the same, and
        # numpy.core, whose __all__ is read as its public namespace, re-exports it.
        units = units_of(self, {
            "np/__init__.py": '"""Arrays."""\nfrom .core import *\n',
            "np/core/__init__.py": "from . import numeric\nfrom .numeric import *\n"
                                   "__all__ = ['char']\n__all__ += numeric.__all__\n"
                                   "__all__.extend(['rec'])\n",
            "np/core/numeric.py": '__all__ = ["convolve"]\n\n\n'
                                  'def convolve(a, v):\n    """Convolve."""\n'})
        self.assertEqual(units["np.convolve"]["fields"]["names"].split(),
                         ["np.convolve", "np.core.numeric.convolve", "np.core.convolve"])

    def test_an_all_computed_from_other_modules_all_is_read_where_the_source_gives_it(self):
        # Django 4.2: `from .aggregates import __all__ as aggregates_all`, `__all__ =
        # aggregates_all + [...]`: what it re-exports is that, not every name it imports; an
        # __all__ a function grows (numpy's `extend_all`) or a branch changes (gevent's
        # `except ImportError: __all__.remove(...)`) stays its public namespace.
        units = units_of(self, {
            "dj/__init__.py": '"""Django."""\n',
            "dj/models/__init__.py": (
                'from .aggregates import *\nfrom .aggregates import __all__ as aggregates_all\n'
                'from .query import Q, helper\n'
                '__all__ = aggregates_all + ["Q"]\n__all__.remove("Avg")\n'),
            "dj/db/__init__.py": 'from . import grown\nfrom .grown import *\n'
                                 '__all__ = []\n__all__ += grown.__all__\n',
            "dj/io/__init__.py": '__all__ = ["Posix"]\ntry:\n    from fcntl import fcntl\n'
                                 'except ImportError:\n    __all__.remove("Posix")\n'
                                 'else:\n    from ._posix import Posix\n',
            "dj/io/_posix.py": 'class Posix:\n    """A POSIX file."""\n',
            "dj/models/aggregates.py": '__all__ = ["Count", "Avg"]\n\n\n'
                                       'class Count:\n    """Count rows."""\n\n\n'
                                       'class Avg:\n    """Average."""\n',
            "dj/models/query.py": 'class Q:\n    """A filter."""\n\n\n'
                                  'def helper():\n    """Help."""\n',
            "dj/db/grown.py": '__all__ = []\n\n\ndef extend_all(name):\n'
                              '    __all__.append(name)\n\n\n'
                              'def window():\n    """A window."""\n\n\n'
                              'extend_all("window")\n'})
        self.assertEqual(units["dj.models.Count"]["fields"]["names"].split(),
                         ["dj.models.Count", "dj.models.aggregates.Count"])
        self.assertIn("dj.models.Q", units)
        self.assertIn("dj.models.query.helper", units)
        self.assertIn("dj.models.aggregates.Avg", units)
        self.assertEqual(units["dj.db.window"]["fields"]["names"].split(),
                         ["dj.db.window", "dj.db.grown.window"])
        self.assertIn("dj.io.Posix", units)  # removed in a branch: which one runs, unknown

    def test_an_all_too_deep_to_evaluate_is_read_as_the_public_namespace(self):
        # `["a"] + ["a"] + ...` 1,500 deep parses, but is deeper than Python's recursion.
        root = write_tree(temporary_directory(self), {
            "hp/__init__.py": 'from . import other\n__all__ = '
                              + " + ".join(['["a"]'] * 1500) + "\n__all__.extend(other.__all__)\n",
            "hp/other.py": '__all__ = ["b"]\n'})
        package = read_package(str(root), wheel_modules(root))
        self.assertEqual(package.skipped, [])
        self.assertTrue(package.modules["hp"].all_computed)
        self.assertTrue(package.modules["hp"].is_public("other"))

    def test_numpydoc_and_google_attributes_are_units_of_their_own(self):
        units = units_of(self, {"geo/__init__.py": (
            '"""Geometry."""\n\n\nclass Frame:\n    """A frame.\n\n    Attributes\n'
            '    ----------\n    shape : tuple\n        Its rows and columns.\n    empty\n'
            '        Whether it holds nothing.\n\n    Methods\n    -------\n    merge\n    """\n'
            '\n\nclass Point:\n    """A point.\n\n    Attributes:\n        x (float): Where it'
            ' is\n            across.\n    """\n')})
        shape = units["geo.Frame.shape"]
        self.assertEqual((shape["kind"], shape["text"], shape["fields"]["signature"]),
                         ("attribute", "    shape : tuple\n        Its rows and columns.",
                          "tuple"))
        self.assertIn("geo.Frame.empty", units)
        self.assertNotIn("geo.Frame.merge", units)
        self.assertEqual(units["geo.Point.x"]["text"],
                         "        x (float): Where it is\n            across.")
        self.assertEqual(units["geo.Point.x"]["fields"]["body"], "Where it is\nacross.")

    def test_a_docstrings_literal_blocks_are_code_as_its_doctests_are(self):
        # The rendered page shows a `::` block and a code-block's body in a `pre`, as a
        # doctest: code, not prose.
        units = units_of(self, {"geo/__init__.py": (
            '"""Geometry."""\n\n\ndef move(point):\n    """Move a point.\n\n    Use it so::\n\n'
            '        move(origin)\n\n    .. code-block:: python\n\n        move(edge)\n\n'
            '    >>> move(home)\n    home\n\n    Then draw.\n    """\n')})
        fields = units["geo.move"]["fields"]
        self.assertEqual((fields["body"].split(), fields["code"].split()),
                         (["Move", "a", "point.", "Use", "it", "so::", "Then", "draw."],
                          ["move(origin)", "move(edge)", ">>>", "move(home)", "home"]))

    def test_each_google_attributes_section_gives_its_entries(self):
        # Napoleon parses every section (mutagen's MPEGInfo: a second `Attributes:` after
        # "Useless attributes:").
        units = units_of(self, {"geo/__init__.py": (
            '"""Geometry."""\n\n\nclass Point:\n    """A point.\n\n    Attributes:\n'
            '        x (float): Where it is.\n\n    Others:\n\n'
            '    Attributes:\n        y (float): How high.\n    """\n')})
        self.assertIn("geo.Point.x", units)
        self.assertEqual(units["geo.Point.y"]["text"], "        y (float): How high.")

    def test_a_google_attribute_entry_needs_no_colon(self):
        # Napoleon's _consume_field reads `name (type)` from the start of what precedes a colon,
        # if any (mutagen's AAC: `info (`AACInfo`)`; MusepackInfo: `version (`int`) Musepack
        # stream version`).
        units = units_of(self, {"geo/__init__.py": (
            '"""Geometry."""\n\n\nclass Point:\n    """A point.\n\n    Attributes:\n'
            '        x (float): Where it is.\n        info (`Info`)\n'
            '        version (`int`) Its version\n    """\n')})
        self.assertIn("geo.Point.x", units)
        self.assertEqual(units["geo.Point.info"]["fields"]["signature"], "`Info`")
        self.assertEqual(units["geo.Point.version"]["fields"]["signature"], "`int`")

    def test_a_class_without_init_has_its_nearest_bases_signature_never_its_bases(self):
        # Autodoc shows the __init__ a class inherits; `(Block)` after its name lists bases.
        units = units_of(self, {
            "ui/__init__.py": '"""UI."""\nfrom .blocks import Block, Row, Tabs, Plain\n',
            "ui/base.py": ('"""Bases."""\n\n\nclass Block:\n    """A block."""\n\n'
                           '    def __init__(self, *, visible: bool = True):\n'
                           '        """Make it."""\n'),
            "ui/blocks.py": ('"""Blocks."""\nfrom .base import Block\n\n\n'
                             'class Row(Block):\n    """A row."""\n\n\n'
                             'class Tabs(Row):\n    """Tabs."""\n\n\n'
                             'class Plain(Exception):\n    """Raised."""\n')})
        self.assertEqual(units["ui.Block"]["fields"]["signature"],
                         "(self, *, visible: bool = True)")
        self.assertEqual(units["ui.Row"]["fields"]["signature"],
                         "(self, *, visible: bool = True)")
        self.assertEqual(units["ui.Tabs"]["fields"]["signature"],
                         "(self, *, visible: bool = True)")
        # A base the package does not define: its __init__ is unknown, and no signature is
        # better than the bases read as parameters.
        self.assertEqual(units["ui.Plain"]["fields"]["signature"], "")

    def test_an_undocumented_member_whose_code_deprecates_it_is_a_unit_with_its_note(self):
        units = units_of(self, {"models/__init__.py": (
            '"""Models."""\nimport warnings\n\n\nclass Model:\n    """A model."""\n\n'
            '    @deprecated("The `dict` method is deprecated; use `model_dump` instead.")\n'
            '    def dict(self, *, include=None):\n        return self.model_dump()\n\n'
            '    def model_dump(self):\n        return {}\n\n'
            '    def copy(self):\n        warnings.warn("copy is deprecated", '
            'DeprecationWarning)\n        return self\n')})
        self.assertEqual(units["models.Model.dict"]["text"],
                         '    @deprecated("The `dict` method is deprecated; use `model_dump` '
                         'instead.")\n    def dict(self, *, include=None):')
        self.assertEqual([note["kind"] for note in units["models.Model.dict"]["notes"]],
                         ["deprecated"])
        self.assertIn("models.Model.copy", units)
        # An undocumented member its code does not deprecate is still no unit of its own.
        self.assertNotIn("models.Model.model_dump", units)

    def test_a_documented_chained_assignment_is_one_passage_with_every_name(self):
        units = units_of(self, {"orm/__init__.py": (
            '"""ORM."""\n\n\nclass State:\n    """A state."""\n\n'
            '    isdelete = isinsert = isupdate = False\n    """Whether it is one."""\n')})
        [state] = [unit for title, unit in units.items() if title.startswith("orm.State.")]
        self.assertEqual(state["fields"]["names"].split(),
                         ["orm.State.isdelete", "orm.State.isinsert", "orm.State.isupdate"])
        self.assertEqual(state["fields"]["name"], "isdelete isinsert isupdate")

    def test_an_inherited_member_is_named_under_each_public_class_that_inherits_it(self):
        # flask 2.2.2: `flask.Flask.route` is defined on `flask.scaffold.Scaffold`; sqlalchemy
        # 1.4.46: `Result.keys` on the private `_WithKeys`, `Select.with_hint` on the
        # undocumented `HasHints`.
        units = units_of(self, {
            "fl/__init__.py": '"""Fl."""\nfrom .app import Flask as Flask\n',
            "fl/scaffold.py": 'class Scaffold:\n    """Common."""\n\n'
                              '    def route(self, rule):\n        """Register a rule."""\n\n'
                              '    def get(self, rule):\n        """A GET rule."""\n',
            "fl/app.py": 'from .scaffold import Scaffold\n\n\nclass Flask(Scaffold):\n'
                         '    """The app."""\n\n    def get(self, rule):\n'
                         '        """Its own GET."""\n',
            "fl/result.py": '__all__ = ["Result"]\n\n\nclass _WithKeys:\n'
                            '    def keys(self):\n        """The keys."""\n\n'
                            '    def _hidden(self):\n        """Private."""\n\n\n'
                            'class HasHints:\n    def with_hint(self):\n'
                            '        """Add a hint."""\n\n\n'
                            'class Result(_WithKeys, HasHints):\n    """A result."""\n'})
        route = units["fl.scaffold.Scaffold.route"]
        self.assertEqual(route["fields"]["names"].split(),
                         ["fl.scaffold.Scaffold.route", "fl.Flask.route", "fl.app.Flask.route"])
        self.assertEqual(route["source_id"], "fl/scaffold.py")
        self.assertIn("def route(self, rule):", route["text"])
        # A member of the exported Flask, so in the index though Scaffold is not exported.
        self.assertFalse(route["noindex"])
        # Flask defines its own get: the base's is not Flask's.
        self.assertEqual(units["fl.scaffold.Scaffold.get"]["fields"]["names"].split(),
                         ["fl.scaffold.Scaffold.get"])
        # A private base's member, titled by the public class's name; none of its privates.
        self.assertEqual(units["fl.result.Result.keys"]["fields"]["names"].split(),
                         ["fl.result.Result.keys", "fl.result._WithKeys.keys"])
        self.assertFalse([title for title in units if "_hidden" in title])
        # An undocumented (so unlisted) base's documented member: titled as its public
        # subclass's, as users reach it, known by its defining name too.
        self.assertIn("fl.result.HasHints.with_hint",
                      units["fl.result.Result.with_hint"]["fields"]["names"].split())
        self.assertNotIn("fl.result.HasHints", units)

    def test_a_module_that_only_imports_re_exports_its_public_imports(self):
        # sqlalchemy 1.4.46's schema.py, "Compatibility namespace for sqlalchemy.sql.schema":
        # the docs document `sqlalchemy.schema.Column`.
        units = units_of(self, {
            "sa/__init__.py": '"""SA."""\n',
            "sa/schema.py": '"""Compatibility namespace."""\n'
                            'from .sql.schema import Column  # noqa\n'
                            'from .sql.schema import _table_key  # noqa\n',
            "sa/events.py": '"""Events."""\nfrom .sql.schema import Column\n\n\n'
                            'def listen(target):\n    """Listen."""\n',
            "sa/sql/__init__.py": "",
            "sa/sql/schema.py": 'class Column:\n    """A column."""\n\n\n'
                                'def _table_key():\n    """Key."""\n'})
        self.assertEqual(units["sa.schema.Column"]["fields"]["names"].split(),
                         ["sa.schema.Column", "sa.sql.schema.Column"])
        # A module that defines names of its own re-exports only what an __all__ lists.
        self.assertNotIn("sa.events.Column",
                         " ".join(unit["fields"]["names"] for unit in units.values()))

    def test_an_undocumented_assignment_shows_the_documented_function_it_is_bound_to(self):
        # sqlalchemy 1.4.46: `select = public_factory(Select._create, ...)` copies the
        # docstring at import time; `notin_ = not_in` in a class body is the same function.
        units = units_of(self, {
            "sa/__init__.py": '"""SA."""\nfrom .sql import select, Select, Ops, pass_select\n',
            "sa/sql.py": 'def public_factory(target, location):\n    return target\n\n\n'
                         'class Select:\n    """A SELECT."""\n\n    @classmethod\n'
                         '    def _create(cls, *columns):\n        """Construct a SELECT."""\n'
                         '\n\nclass Ops:\n    """Operators."""\n\n'
                         '    def not_in(self, other):\n        """NOT IN."""\n\n'
                         '    notin_ = not_in\n    count = 0\n\n\n'
                         'select = public_factory(Select._create, ".sql.select")\n'
                         'pass_select = make_pass_decorator(Select)\nlimit = 10\n'})
        select = units["sa.select"]
        self.assertEqual((select["kind"], select["source_id"]), ("function", "sa/sql.py"))
        self.assertIn("def _create(cls, *columns):", select["text"])
        self.assertIn("Construct a SELECT.", select["fields"]["body"])
        # The same lines as the method they are bound to: one passage with both names, titled
        # by the definition.
        self.assertEqual(units["sa.Ops.not_in"]["fields"]["names"].split(),
                         ["sa.Ops.not_in", "sa.sql.Ops.not_in", "sa.Ops.notin_",
                          "sa.sql.Ops.notin_"])
        text = " ".join(unit["fields"]["names"] for unit in units.values())
        self.assertNotIn("count", text)  # bound to nothing documented: no unit
        self.assertNotIn("limit", text)
        # Given a class, it is no such class: re-exported, it is data of its own line (a name
        # the package exports is API), never the class's text.
        pass_select = units["sa.pass_select"]
        self.assertEqual((pass_select["kind"], pass_select["text"].strip()),
                         ("data", "pass_select = make_pass_decorator(Select)"))

    def test_an_undocumented_helper_is_no_unit_but_an_undocumented_export_is(self):
        units = units_of(self, {
            "val/__init__.py": '"""Validation."""\nfrom .checks import validator\n'
                               '__all__ = ["validator", "Model"]\n\n\nclass Model:\n    pass\n',
            "val/checks.py": 'def validator(*fields):\n    pass\n\n\n'
                             'def constant_validator(v):\n    pass\n\n\n'
                             'def int_validator(v):\n    """Check an int."""\n'})
        self.assertIn("val.validator", units)
        self.assertIn("val.Model", units)
        self.assertNotIn("val.checks.constant_validator", units)
        self.assertIn("val.checks.int_validator", units)

    def test_an_undocumented_class_showing_its_base_s_docstring_is_a_unit_with_members(self):
        # ezdxf's `class ColorDependentPlotStyles(PlotStyleTable)` in a module nothing
        # re-exports: inspect.getdoc (autodoc's) gives it its base's docstring, so it is
        # documented API, its documented `new_style` too; one whose bases have none is not.
        units = units_of(self, {
            "plot/__init__.py": '"""Plotting."""\n',
            "plot/tables.py": 'class Table:\n    """A table of styles."""\n\n\n'
                              'class ColorStyles(Table):\n    def new_style(self, aci):\n'
                              '        """Set aci to a new style."""\n\n\n'
                              'class Loose:\n    def run(self):\n        """Run."""\n'})
        self.assertIn("plot.tables.ColorStyles", units)
        self.assertIn("plot.tables.ColorStyles.new_style", units)
        self.assertNotIn("plot.tables.Loose", units)
        self.assertNotIn("plot.tables.Loose.run", units)

    def test_docstrings_assembled_from_templates_are_resolved_and_the_rest_counted(self):
        objects = self.assembled({
            "pd/shared.py": '_shared_docs = {}\n_shared_docs["merge"] = """\n'
                            '    Merge %(klass)s objects by key.\n"""\n',
            "pd/frame.py": 'from pd.shared import _shared_docs\n_kw = dict(klass="DataFrame")\n'
                           '\n\nclass DataFrame:\n    @Appender(_shared_docs["merge"] % _kw)\n'
                           '    def merge(self, right):\n        pass\n\n'
                           '    @doc(klass="DataFrame")\n    def fill(self):\n'
                           '        """Fill the {klass}."""\n\n'
                           '    @Appender(make_docs())\n    def other(self):\n        pass\n'},
                                 "pd.frame", (2, 0, 1))
        self.assertEqual(objects["DataFrame.merge"].docstring,
                         "Merge DataFrame objects by key.")
        self.assertEqual(objects["DataFrame.fill"].docstring, "Fill the DataFrame.")
        self.assertIsNone(objects["DataFrame.other"].docstring)

    def test_a_function_made_by_a_helper_that_sets_its_doc_has_the_argument_s_docstring(self):
        # pandas' `isalnum = _map_and_wrap("isalnum", docstring=_shared_docs["is"] % ...)`:
        # _map_and_wrap returns its inner function with `wrapper.__doc__ = docstring`.
        objects = self.assembled({
            "pd/strings.py": (
                '_docs = {"is": "Check %(kind)s."}\n\n\n'
                'def _map_and_wrap(name, docstring):\n    def wrapper(self):\n'
                '        return name\n\n    wrapper.__doc__ = docstring\n    return wrapper\n\n\n'
                'def _other(name, docstring):\n    def wrapper(self):\n        return name\n\n'
                '    return wrapper\n\n\nshout = _map_and_wrap("shout", "Shout it.")\n\n\n'
                'class StringMethods:\n    _args = {"alpha": {"kind": "letters"}}\n\n'
                '    isalpha = _map_and_wrap(\n        "isalpha", docstring=_docs["is"] % '
                '_args["alpha"]\n    )\n    isdigit = _other("isdigit", "Digits.")\n')},
                                 "pd.strings", (2, 0, 0))
        self.assertEqual(kinds_and_docstrings(objects, (
                          "shout", "StringMethods.isalpha", "StringMethods.isdigit")),
                         {"shout": ("function", "Shout it."),
                          "StringMethods.isalpha": ("method", "Check letters."),
                          "StringMethods.isdigit": ("attribute", None)})

    def test_a_field_made_by_a_helper_that_sets_its_getter_s_doc_has_the_argument(self):
        # pandas' DatetimeArray fields: `f.__doc__ = docstring` then `return property(f)`;
        # TimedeltaArray's set `f.__doc__ = f"\n{docstring}\n"`.
        objects = self.assembled({
            "pd/arrays.py": (
                'def _field_accessor(name, docstring=None):\n    def f(self):\n'
                '        return name\n\n    f.__name__ = name\n    f.__doc__ = docstring\n'
                '    return property(f)\n\n\n'
                'def _td_field(name, docstring):\n    def f(self):\n        return name\n\n'
                '    f.__doc__ = f"\\n{docstring}\\n"\n    return property(f)\n\n\n'
                'def _no_doc(name, docstring):\n    def f(self):\n        return name\n\n'
                '    return property(f)\n\n\n'
                'class DatetimeArray:\n    year = _field_accessor("year", "The year.")\n'
                '    days = _td_field("days", "Number of days.")\n'
                '    hour = _no_doc("hour", "Not its doc.")\n')},
                                 "pd.arrays", (2, 0, 0))
        self.assertEqual(kinds_and_docstrings(objects, (
                          "DatetimeArray.year", "DatetimeArray.days", "DatetimeArray.hour")),
                         {"DatetimeArray.year": ("attribute", "The year."),
                          "DatetimeArray.days": ("attribute", "Number of days."),
                          "DatetimeArray.hour": ("attribute", None)})

    def test_an_instance_whose_class_makes_its_doc_from_an_argument_has_that_docstring(self):
        # pandas' `set_option = CallableDynamicDoc(_set_option, _set_option_tmpl)`: the class's
        # `__doc__` property formats `self.__doc_tmpl__`, set from __init__'s parameter; the
        # template is the docstring as written (what format fills in at run time is not).
        objects = self.assembled({
            "pd/config.py": (
                'class CallableDynamicDoc:\n    def __init__(self, func, doc_tmpl):\n'
                '        self.__doc_tmpl__ = doc_tmpl\n        self.__func__ = func\n\n'
                '    @property\n    def __doc__(self):\n'
                '        return self.__doc_tmpl__.format(opts_list=_options())\n\n\n'
                'class Plain:\n    def __init__(self, doc):\n        self.doc = doc\n\n\n'
                '_set_tmpl = """set_option(pat, value)\n\nSets the value. {opts_list}"""\n\n\n'
                'def _set_option(pat, value):\n    pass\n\n\n'
                'set_option = CallableDynamicDoc(_set_option, _set_tmpl)\n'
                'plain = Plain("Not its docstring.")\n')},
                                 "pd.config", (1, 0, 0))
        self.assertEqual(objects["set_option"].docstring,
                         "set_option(pat, value)\n\nSets the value. {opts_list}")
        self.assertIsNone(objects["plain"].docstring)

    def test_members_a_class_decorator_takes_from_another_class_resolve_to_its(self):
        # pandas' `@delegate_names(delegate=DatetimeArray, accessors=DatetimeArray.
        # _datetimelike_ops, typ="property")` on the `.dt` accessor's class, and
        # `@inherit_names([...], DatetimeArray)` on DatetimeIndex: each listed name is the
        # other class's member (a name the class defines itself stays its own; one the
        # decorator's comprehension leaves out is not set), over an Attributes entry too.
        root = write_tree(temporary_directory(self), {
            "pd/__init__.py": "from pd.series import Series\nfrom pd.index import DatetimeIndex\n",
            "pd/accessor.py": (
                "def delegate_names(delegate, accessors, typ, overwrite=False):\n"
                "    return lambda cls: cls\n\n\nclass CachedAccessor:\n"
                "    def __init__(self, name, accessor):\n        self._accessor = accessor\n\n"
                "    def __get__(self, obj, cls):\n        if obj is None:\n"
                "            return self._accessor\n        return self._accessor(obj)\n"),
            "pd/arrays.py": (
                'class DatetimeArray:\n    _field_ops = ["year", "month"]\n'
                '    _datetimelike_ops = _field_ops + ["is_leap_year"]\n'
                '    _methods = ["day_name", "strftime"]\n\n    @property\n'
                '    def year(self):\n        """The year of the datetime."""\n\n'
                '    def day_name(self):\n        """Return the day names."""\n\n'
                '    def strftime(self, fmt):\n        """Format them."""\n'),
            "pd/accessors.py": (
                "from pd.accessor import delegate_names\nfrom pd.arrays import DatetimeArray\n\n\n"
                '@delegate_names(delegate=DatetimeArray, accessors=DatetimeArray._datetimelike_ops,'
                ' typ="property")\n@delegate_names(\n    DatetimeArray,\n'
                '    [m for m in DatetimeArray._methods if m not in ("strftime",)],\n'
                '    "method",\n)\nclass DatetimeProperties:\n    """Accessor."""\n\n'
                '    def day_name(self):\n        """Its own."""\n'),
            "pd/series.py": (
                "from pd.accessor import CachedAccessor\nfrom pd.accessors import "
                'DatetimeProperties\n\n\nclass Series:\n    """A series."""\n\n'
                '    dt = CachedAccessor("dt", DatetimeProperties)\n'),
            "pd/index.py": (
                "from pd.arrays import DatetimeArray\nfrom pd.extension import inherit_names\n\n\n"
                '@inherit_names(["year", "month"], DatetimeArray)\nclass DatetimeIndex:\n'
                '    """An index.\n\n    Attributes\n    ----------\n    year\n    freq\n'
                '    """\n'),
        })
        package = read_package(str(root), wheel_modules(root))
        self.assertEqual(delegated_members(package), (6, 0))
        resolved = {name: found[1].name if found else None for name, found in (
            (name, package.resolve(name)) for name in (
                "pd.Series.dt.year", "pd.Series.dt.is_leap_year", "pd.Series.dt.day_name",
                "pd.Series.dt.strftime", "pd.DatetimeIndex.year", "pd.DatetimeIndex.freq"))}
        self.assertEqual(resolved, {
            "pd.Series.dt.year": "pd.arrays.DatetimeArray.year",
            "pd.Series.dt.is_leap_year": None,  # listed, but DatetimeArray has no such member
            "pd.Series.dt.day_name": "pd.accessors.DatetimeProperties.day_name",
            "pd.Series.dt.strftime": None,
            "pd.DatetimeIndex.year": "pd.arrays.DatetimeArray.year",
            "pd.DatetimeIndex.freq": "pd.index.DatetimeIndex.freq"})

    def test_a_dict_a_module_copies_or_adds_to_is_the_dict_it_imports_with_its_entries(self):
        # pandas 1.5.3: frame.py's class body adds `_shared_docs["items"]` to the dict it
        # imports (DataFrame.groupby reads the imported "groupby"); generic.py copies it
        # (`_shared_docs = {**_shared_docs}`: the name in its own value is the import);
        # `@Appender(_merge_doc, indents=2)`; read_csv's docstring sums text and
        # `fill(sorted(STR_NA_VALUES))` of a compiled module: the rest is its docstring.
        objects = self.assembled({
            "pd/shared.py": '_shared_docs = {}\n_shared_docs["groupby"] = "Group %(klass)s."\n',
            "pd/generic.py": 'from pd.shared import _shared_docs\n'
                             '_shared_docs = {**_shared_docs}\n'
                             '_shared_docs["copy"] = "Copy %(klass)s."\n\n\nclass NDFrame:\n'
                             '    @Appender(_shared_docs["groupby"] % {"klass": "it"})\n'
                             '    def groupby(self):\n        pass\n\n'
                             '    @Appender(_shared_docs["copy"] % {"klass": "it"})\n'
                             '    def copy(self):\n        pass\n',
            "pd/frame.py": 'from pd.shared import _shared_docs\n'
                           '_merge_doc = """\nMerge frames%s.\n\nParameters\n----------\n'
                           'right : DataFrame\n"""\n'
                           '_csv_doc = "Read a csv file.\\n\\nNA values: " + fill(sorted('
                           'STR_NA_VALUES), 70) + "\\n\\nReturns a frame."\n\n\n'
                           'class DataFrame:\n'
                           '    _shared_docs["items"] = "Iterate over %(klass)s."\n\n'
                           '    @Appender(_shared_docs["groupby"] % {"klass": "a frame"})\n'
                           '    def groupby(self):\n        pass\n\n'
                           '    @Appender(_shared_docs["items"] % {"klass": "columns"})\n'
                           '    def items(self):\n        pass\n\n'
                           '    @Substitution("")\n    @Appender(_merge_doc, indents=2)\n'
                           '    def merge(self, right):\n        pass\n\n\n'
                           '@Appender(_csv_doc)\ndef read_csv(path):\n    pass\n\n\n'
                           '@Appender(STR_NA_VALUES + NA_DOC)\ndef read_na():\n    pass\n'},
                                 "pd.frame", (6, 1, 1))
        self.assertEqual(objects["DataFrame.groupby"].docstring, "Group a frame.")
        self.assertEqual(objects["DataFrame.items"].docstring, "Iterate over columns.")
        self.assertEqual(objects["DataFrame.merge"].docstring,
                         "Merge frames.\n\nParameters\n----------\nright : DataFrame")
        self.assertEqual(objects["read_csv"].docstring,
                         "Read a csv file.\n\nNA values: \n\nReturns a frame.")
        self.assertIsNone(objects["read_na"].docstring)  # no text known around it

    def test_an_assembled_docstring_indexes_the_first_piece_of_a_long_object(self):
        # pandas 1.5.3's DataFrame.groupby: `@Appender(examples)` above
        # `@Appender(_shared_docs["groupby"] % kwargs)` and a long body, cut in pieces: the
        # text users read is in none of its lines.
        root = write_tree(temporary_directory(self), {
            "pd/__init__.py": '"""Frames."""\nfrom .frame import DataFrame\n',
            "pd/frame.py": '_doc = "Group the %(klass)s by a key."\n\n\nclass DataFrame:\n'
                           '    """A frame."""\n\n    @Appender(\n        """\n'
                           '        Examples\n        --------\n'
                           + "".join(f"        >>> frame.groupby('column_{n}').sum()\n"
                                     for n in range(80))
                           + '        """\n    )\n'
                           '    @Appender(_doc % {"klass": "frame rows"})\n'
                           '    def groupby(self, by):\n        return by\n'})
        layout = PackageLayout(wheel_modules(root), None, None, "pypi:x==1.0/")
        tree = SourceTree("1.0", str(root), layout.source_url, "x", PACKAGE_FORMAT,
                          package=layout)
        pieces = [draft.content for draft in read_package_contents(tree, Progress(io.StringIO()))
                  if draft.content["title"] == "pd.DataFrame.groupby"]
        self.assertGreater(len(pieces), 1)
        self.assertTrue(pieces[0]["fields"]["body"].startswith("Group the frame rows by a key."))
        self.assertNotIn("Group the", pieces[1]["fields"]["body"])

    def test_a_module_s_assignment_of_a_class_s_doc_after_it_is_its_docstring(self):
        # torch 2.1's optimizers: `Adam.__doc__ = r"""...""" + fr"""...{_maximize_doc}..."""`
        # after the class, its names read in the module (the class's own `_maximize_doc` is
        # not what the module statement reads).
        objects = self.assembled({
            "opt/optimizer.py": '_maximize_doc = r"""maximize (bool): maximize the objective."""\n',
            "opt/adam.py": 'from .optimizer import _maximize_doc\n\n\nclass Adam:\n'
                           '    _maximize_doc = "the class\'s"\n\n'
                           '    def __init__(self, params):\n        pass\n\n\n'
                           'Adam.__doc__ = r"""Implements Adam algorithm.""" + fr"""\n\n'
                           '    Args:\n        {_maximize_doc}\n    """\n\n\n'
                           'def adam(params):\n    pass\n\n\nadam.__doc__ = "Functional Adam."\n'
                           'Unknown.__doc__ = "Not defined here."\n'},
                                 "opt.adam", (1, 0, 0))
        self.assertEqual(objects["Adam"].docstring, "Implements Adam algorithm.\n\nArgs:\n"
                                                    "    maximize (bool): maximize the objective.")
        self.assertEqual(objects["adam"].docstring, "Functional Adam.")
        self.assertNotIn("Unknown", objects)

    def test_a_dedented_doc_formatted_from_a_dict_another_updates_is_its_docstring(self):
        # seaborn 0.12.2: `boxplot.__doc__ = dedent("""...""").format(**_categorical_docs)`,
        # that dict updated with axisgrid's `_facet_docs`; `.update()` entries join in the
        # order written, the later winning (an entry set before an update and again after it
        # is the later one).
        objects = self.assembled({
            "sb/axisgrid.py": 'from textwrap import dedent\n'
                              '_facet_docs = dict(height="height : scalar", aspect=dedent("""\\\n'
                              '    aspect : scalar\n        Aspect ratio of a facet.\n    """))\n',
            "sb/categorical.py": 'from textwrap import dedent\n'
                                 'from .axisgrid import _facet_docs\n'
                                 '_docs = dict(color="color : the color", height="replaced")\n'
                                 '_docs["height"] = "replaced"\n'
                                 '_docs.update(_facet_docs)\n_docs.update(ax="ax : Axes")\n'
                                 '_docs["color"] = "color : set"\n'
                                 '_docs["height"] = "height : set"\n\n\n'
                                 'def boxplot(color=None):\n    pass\n\n\n'
                                 'boxplot.__doc__ = dedent("""\\\n    Draw a box plot.\n\n'
                                 '    {color}\n    {height}\n    {aspect}\n    {ax}\n'
                                 '    """).format(**_docs)\n'},
                                 "sb.categorical", (1, 0, 0))
        self.assertEqual(objects["boxplot"].docstring,
                         "Draw a box plot.\n\ncolor : set\nheight : set\naspect : scalar\n"
                         "    Aspect ratio of a facet.\n\nax : Axes")

    def test_a_function_a_classmethod_binds_onto_its_class_gives_the_member_its_doc(self):
        # pandas 1.x-2.0's NDFrame._add_numeric_operations: `@doc(_num_doc, desc=...,
        # name1=name1)` on a nested `mean`, then `setattr(cls, "mean", mean)`; name1 is
        # computed by a call: left out, the rest is DataFrame.mean's docstring.
        objects = self.assembled({
            "pd/generic.py": '_num_doc = "{desc}\\n\\nReturns\\n-------\\n{name1}"\n\n\n'
                             'class NDFrame:\n    def mean(self, axis=0):\n'
                             '        return self\n\n    def total(self):\n'
                             '        return self\n\n    @classmethod\n'
                             '    def _add_numeric_operations(cls):\n'
                             '        name1 = _doc_params(cls)\n\n'
                             '        @doc(_num_doc, desc="Return the mean.", name1=name1)\n'
                             '        def mean(self, axis=0):\n'
                             '            return NDFrame.mean(self, axis)\n\n'
                             '        setattr(cls, "mean", mean)\n\n'
                             '        @doc(_num_doc, desc="Return the total.", name1="frame")\n'
                             '        def total(self):\n            return self\n\n'
                             '        cls.total = total\n'},
                                 "pd.generic", (2, 1, 0))
        self.assertEqual(objects["NDFrame.mean"].docstring, "Return the mean.\n\nReturns\n-------")
        self.assertEqual(objects["NDFrame.total"].docstring,
                         "Return the total.\n\nReturns\n-------\nframe")

    def test_a_function_that_computes_a_docstring_piece_is_evaluated_over_its_arguments(self):
        # pandas 1.5.3's window methods: `@doc(template_header, create_section_header(
        # "Returns"), window_agg_numba_parameters(), template_see_also[:-1], ...)`; pandas
        # 2.1's reductions, `@doc(make_doc("sum", ndim=2))`, and flex methods,
        # `@Appender(ops.make_flex_doc("sub", "dataframe"))`: functions that bind, branch and
        # return text. One that loops or raises is left; a piece reading an entry the source
        # lacks (what a loop adds), summed with text, is left out.
        objects = self.assembled({
            "pd/doc.py": (
                'from textwrap import dedent\n\n\n'
                'def create_section_header(header: str) -> str:\n'
                '    """Create a numpydoc section header."""\n'
                '    return "\\n".join((header, "-" * len(header))) + "\\n"\n\n\n'
                'def numba_parameters(version: str = "1.3") -> str:\n'
                '    return dedent("""\n    engine : str\n        Since {version}.\n    """)'
                '.replace("\\n", "", 1).replace("{version}", version)\n\n\n'
                'template_header = "Calculate the {window_method} {aggregation}.\\n\\n"\n'
                'template_see_also = "Series.rolling : Rolling.\\n\\n"\n'),
            "pd/generic.py": (
                '_num_doc = "{desc}\\n\\nAxis {axis_descr}.{min_count}"\n\n\n'
                'def make_doc(name: str, ndim: int) -> str:\n'
                '    if ndim == 1:\n        axis_descr = "{index (0)}"\n'
                '    else:\n        axis_descr = "{index (0), columns (1)}"\n'
                '    if name == "sum":\n        base_doc = _num_doc\n'
                '        desc = "Return the sum."\n        kwargs = {"min_count": " Counted."}\n'
                '    elif name == "min":\n        base_doc = _num_doc\n'
                '        desc = "Return the minimum."\n        kwargs = {"min_count": ""}\n'
                '    else:\n        raise NotImplementedError\n'
                '    return base_doc.format(desc=desc, axis_descr=axis_descr, **kwargs)\n\n\n'
                'def looped(names):\n    text = ""\n    for name in names:\n'
                '        text += name\n    return text\n'),
            "pd/ops/__init__.py": 'from pd.ops.docstrings import make_flex_doc\n',
            "pd/ops/docstrings.py": (
                '_descriptions: dict = {"sub": {"op": "-", "desc": "Subtraction", '
                '"reverse": "rsub"}}\n'
                '_flex_doc = "Get {desc} of {typ} and other (`{op_name}`).\\n\\n'
                'Equivalent to ``{equiv}``.{extra}"\n'
                '_see_also = " See {see_also_desc}."\n\n\n'
                'def make_flex_doc(op_name, typ):\n    op_name = op_name.replace("__", "")\n'
                '    op_desc = _descriptions[op_name]\n    assert op_desc["op"] is not None\n'
                '    if op_name.startswith("r"):\n'
                '        equiv = f"other {op_desc[\'op\']} {typ}"\n'
                '    else:\n        equiv = f"{typ} {op_desc[\'op\']} other"\n'
                '    extra = ""\n    if typ == "series" and op_name not in ["eq", "ne"]:\n'
                '        extra += _see_also.format(see_also_desc=op_desc["see_also_desc"])\n'
                '    return _flex_doc.format(desc=op_desc["desc"], typ=typ, op_name=op_name,\n'
                '                            equiv=equiv, extra=extra)\n'),
            "pd/frame.py": (
                'from pd import ops\nfrom pd.doc import (\n    create_section_header,\n'
                '    numba_parameters,\n    template_header,\n    template_see_also,\n)\n'
                'from pd.generic import looped, make_doc\n\n\n'
                'class DataFrame:\n    @doc(make_doc("sum", ndim=2))\n'
                '    def sum(self):\n        pass\n\n'
                '    @doc(make_doc("min", 1))\n    def min(self):\n        pass\n\n'
                '    @doc(make_doc("mean", 2))\n    def mean(self):\n        pass\n\n'
                '    @Appender(ops.make_flex_doc("__sub__", "dataframe"))\n'
                '    def sub(self, other):\n        pass\n\n'
                '    @Appender(ops.make_flex_doc("sub", "series"))\n'
                '    def ssub(self, other):\n        pass\n\n'
                '    @Appender(looped(("a", "b")))\n    def joined(self):\n        pass\n\n\n'
                'class Rolling:\n    @doc(\n        template_header,\n'
                '        create_section_header("Parameters"),\n        numba_parameters(),\n'
                '        create_section_header("See Also"),\n        template_see_also[:-1],\n'
                '        window_method="rolling",\n        aggregation="minimum",\n    )\n'
                '    def min(self):\n        pass\n')},
                                 "pd.frame", (5, 1, 2))
        self.assertEqual(objects["DataFrame.sum"].docstring,
                         "Return the sum.\n\nAxis {index (0), columns (1)}. Counted.")
        self.assertEqual(objects["DataFrame.min"].docstring,
                         "Return the minimum.\n\nAxis {index (0)}.")
        self.assertIsNone(objects["DataFrame.mean"].docstring)  # make_doc raises
        self.assertEqual(objects["DataFrame.sub"].docstring,
                         "Get Subtraction of dataframe and other (`sub`).\n\n"
                         "Equivalent to ``dataframe - other``.")
        self.assertEqual(objects["DataFrame.ssub"].docstring,
                         "Get Subtraction of series and other (`sub`).\n\n"
                         "Equivalent to ``series - other``.")
        self.assertIsNone(objects["DataFrame.joined"].docstring)  # a loop is not followed
        self.assertEqual(objects["Rolling.min"].docstring,
                         "Calculate the rolling minimum.\n\nParameters\n----------\n"
                         "engine : str\n    Since 1.3.\nSee Also\n--------\n"
                         "Series.rolling : Rolling.")

    def test_a_computing_function_makes_no_text_longer_than_its_bound(self):
        # `text += text` in a row, a large replacement, a join or an f-string width: each would
        # make more than a MiB of text; the docstring is left as written, the build goes on.
        objects = self.assembled({
            "pd/doc.py": (
                'def doubled(text):\n' + '    text += text\n' * 24 + '    return text\n\n\n'
                'def replaced(text):\n    wide = "xx"\n'
                '    return (text * 1000).replace("a", wide)\n\n\n'
                'def joined(text):\n    return "a".join([text, text])\n\n\n'
                'def wide(text):\n    return f"{text:>99999999}"\n\n\n'
                'def fine(text):\n    return text.replace("a", "b")\n'),
            "pd/frame.py": (
                'from pd.doc import doubled, fine, joined, replaced, wide\n\n\n'
                'class Frame:\n    @Appender(doubled("a"))\n    def one(self):\n        pass\n\n'
                '    @Appender(replaced("a" * 1000))\n    def two(self):\n        pass\n\n'
                '    @Appender(joined("b" * 600000))\n    def three(self):\n        pass\n\n'
                '    @Appender(wide("a"))\n    def four(self):\n        pass\n\n'
                '    @Appender(fine("a"))\n    def five(self):\n        """Own."""\n')},
                                 "pd.frame", (1, 0, 4))
        self.assertEqual([objects[f"Frame.{name}"].docstring
                          for name in ("one", "two", "three", "four", "five")],
                         [None, None, None, None, "Own.\nb"])

    def test_a_template_s_width_pads_no_field_past_the_bound(self):
        # `%` and `.format` pad a field to its width as an f-string does: a width of a
        # thousand million (or one an argument gives) is never padded to; the docstring is
        # left as written, the build goes on.
        objects = self.assembled({
            "pd/frame.py": (
                'class Frame:\n    @Appender("%(name)-12s|%99999999999s" % {"name": "a"})\n'
                '    def one(self):\n        pass\n\n'
                '    @Appender("{0:>99999999999}".format("a"))\n    def two(self):\n'
                '        pass\n\n'
                '    @Appender("%*d" % (99999999999, 1))\n    def three(self):\n'
                '        pass\n\n'
                '    @Appender("%(name)-4s|{0:>3}".format("b") % {"name": "a"})\n'
                '    def four(self):\n        pass\n')},
                                 "pd.frame", (1, 0, 3))
        self.assertEqual([objects[f"Frame.{name}"].docstring
                          for name in ("one", "two", "three", "four")],
                         [None, None, None, "a   |  b"])

    def test_a_method_its_class_body_defines_above_is_what_a_decorator_names(self):
        # pandas' IndexOpsMixin: `@doc(argmax, op="min", value="smallest")` over argmin.
        # A method defined below the decorator is not yet bound: the module's name is read.
        objects = self.assembled({
            "pd/base.py": (
                'def where(self):\n    """Replace the values."""\n\n\n'
                'class Ops:\n    @doc(op="max", value="largest")\n    def argmax(self):\n'
                '        """Return the {op} position, the {value} value."""\n\n'
                '    @doc(argmax, op="min", value="smallest")\n    def argmin(self):\n'
                '        pass\n\n    @doc(where)\n    def mask(self):\n'
                '        pass\n\n    def where(self):\n        """Replace its values."""\n')},
                                 "pd.base", (3, 0, 0))
        self.assertEqual(objects["Ops.argmin"].docstring,
                         "Return the min position, the smallest value.")
        self.assertEqual(objects["Ops.mask"].docstring, "Replace the values.")

    def test_doc_above_an_appender_formats_the_docstring_the_appender_leaves(self):
        # pandas 1.5.3's read_excel: `@doc(storage_options=...)` above
        # `@Appender(_read_excel_doc)`: doc's own component is the __doc__ Appender left.
        objects = self.assembled({
            "pd/excel.py": '_shared = {"so": "Storage options."}\n'
                           '_read_excel_doc = "Read an Excel file.\\n\\n{storage_options}\\n"\n'
                           '\n\n@doc(storage_options=_shared["so"])\n'
                           '@Appender(_read_excel_doc)\ndef read_excel(io):\n    pass\n'},
                                 "pd.excel", (1, 0, 0))
        self.assertEqual(objects["read_excel"].docstring,
                         "Read an Excel file.\n\nStorage options.")
        # A docstring @doc reads after its own decorators were applied is not applied twice
        # (DatetimeIndex.strftime's `@doc(DatetimeArray.strftime)`, `%%B` substituted once).
        objects = self.assembled({
            "pd/arrays.py": 'class DatetimeArray:\n    @Substitution(URL="u")\n'
                            '    def strftime(self, fmt):\n'
                            '        """Format as `%%B` (see %(URL)s)."""\n\n\n'
                            'class DatetimeIndex:\n    @doc(DatetimeArray.strftime)\n'
                            '    def strftime(self, fmt):\n        pass\n'},
                                 "pd.arrays", (2, 0, 0))
        self.assertEqual(objects["DatetimeIndex.strftime"].docstring, "Format as `%B` (see u).")

    def test_an_appender_of_another_objects_doc_appends_its_docstring_as_assembled(self):
        # statsmodels' `@Appender(base.LikelihoodModel.fit.__doc__)` on DiscreteModel.fit, and
        # `@Appender(DiscreteModel.fit.__doc__)` on a subclass's fit: each __doc__ is that
        # docstring as its own decorators leave it (appended once, though DM.fit's is replaced
        # first), the addendum dedented as Python dedents the two joined.
        objects = self.assembled({
            "pkg/__init__.py": "",
            "pkg/base.py": 'class LM:\n    def fit(self):\n        """Fit it.\n\n'
                           '        Parameters\n        ----------\n        x : int\n'
                           '        """\n',
            "pkg/disc.py": (
                'from pandas.util._decorators import Appender\nimport pkg.base as base\n\n\n'
                'class DM(base.LM):\n    @Appender(base.LM.fit.__doc__)\n    def fit(self):\n'
                '        """\n        Fit the model.\n\n        The rest is LM.fit\'s.\n'
                '        """\n\n\n'
                'class GP(DM):\n    @Appender("""\n        extra : bool\n'
                '            More.\n        """)\n    @Appender(DM.fit.__doc__)\n'
                '    def fit(self):\n        pass\n')},
                                 "pkg.disc", (2, 0, 0))
        appended = "Fit the model.\n\nThe rest is LM.fit's.\nFit it.\n\nParameters\n" \
                   "----------\nx : int"
        self.assertEqual(objects["DM.fit"].docstring, appended)
        self.assertEqual(objects["GP.fit"].docstring, appended + "\nextra : bool\n    More.")

    def test_a_class_bodys_doc_bound_to_a_formatted_template_is_its_docstring(self):
        # statsmodels' Model: `__doc__ = """...%(params_doc)s...""" % {"params_doc": ...}`,
        # the module's strings: Python binds the formatted text as the class's __doc__. One
        # the source cannot fill keeps its template, fields as written.
        objects = self.assembled({
            "model.py": (
                '_params_doc = """Parameters\n    ----------\n    endog : array"""\n\n\n'
                'class Model:\n    __doc__ = """\n    A model.\n\n    %(params_doc)s\n'
                '    """ % {"params_doc": _params_doc}\n\n\n'
                'class Other:\n    __doc__ = """Other %(x)s.""" % {"x": compute()}\n')},
                                 "model", (1, 0, 1))
        self.assertEqual(objects["Model"].docstring,
                         "A model.\n\nParameters\n----------\nendog : array")
        self.assertEqual(objects["Other"].docstring, "Other %(x)s.")

    def test_a_property_made_by_a_helper_given_its_doc_has_the_argument_s_docstring(self):
        # pymongo's `chunk_size = _grid_in_property("chunkSize", "Chunk size.")`, which ends
        # `return property(getter, doc=docstring)`: an attribute whose __doc__ is the argument.
        objects = self.assembled({
            "grid.py": (
                'def _field(name, docstring, read_only=False):\n    def getter(self):\n'
                '        return self._file[name]\n\n    if read_only:\n'
                '        docstring += " Read-only."\n    return property(getter, doc=docstring)'
                '\n\n\nclass GridIn:\n    """A file."""\n\n'
                '    chunk_size = _field("chunkSize", "Chunk size.", read_only=True)\n'
                '    length = _field(docstring="Its length.", name="length")\n')},
                                 "grid", (2, 0, 0))
        self.assertEqual(kinds_and_docstrings(objects, ("GridIn.chunk_size", "GridIn.length")),
                         {"GridIn.chunk_size": ("attribute", "Chunk size."),
                          "GridIn.length": ("attribute", "Its length.")})

    def test_a_property_whose_positional_doc_is_an_f_string_of_parameters_has_it_filled(self):
        # werkzeug's `max_stale = cache_control_property("max-stale", "*", int)` returns
        # `property(get, set, delete, f"accessor for {key!r}")`: its __doc__, as autodoc shows.
        # A parameter the call leaves to its default is not read (`width`).
        objects = self.assembled({
            "cache.py": (
                'def control(key, empty, type, width=""):\n'
                '    return property(\n        lambda x: x.get(key), None, None,\n'
                '        f"accessor for {key!r} or {empty:>3}",\n    )\n\n\n'
                'def sized(key, width=""):\n'
                '    return property(None, None, None, f"{key} {width}")\n\n\n'
                'class Control:\n    """A control."""\n\n'
                '    max_stale = control("max-stale", "*", int)\n'
                '    no_cache = control(empty="", key="no-cache", type=bool)\n'
                '    shared = control("shared", EMPTY, bool)\n'
                '    size = sized("size")\n')},
                                 "cache", (2, 0, 1))
        self.assertEqual(kinds_and_docstrings(objects, (
                          "Control.max_stale", "Control.no_cache", "Control.shared",
                          "Control.size")),
                         {"Control.max_stale": ("attribute", "accessor for 'max-stale' or   *"),
                          "Control.no_cache": ("attribute", "accessor for 'no-cache' or    "),
                          "Control.shared": ("attribute", None),
                          "Control.size": ("attribute", None)})

    def test_a_class_body_s_entry_of_a_module_dict_is_the_module_s_entry(self):
        # pandas' strings/accessor.py fills `_shared_docs["str_pad"]` inside StringMethods
        # for the @Appender below it; a dict the class binds itself (`_doc_args`) is the
        # class's own, which its methods' decorators read first, as Python's class scope.
        root = write_tree(temporary_directory(self), {
            "pd/strings.py": (
                '_shared_docs = {}\n_kind = "module"\n'
                '_shared_docs["tail"] = "Kind " + _kind + "."\n\n\nclass StringMethods:\n'
                '    _shared_docs["pad"] = """\n    Pad %(side)s side.\n"""\n\n'
                '    @Appender(_shared_docs["pad"] % {"side": "left"})\n'
                '    def ljust(self):\n        pass\n\n    _kind = "class"\n'
                '    _shared_docs["kind"] = _kind\n\n    _args = {}\n'
                '    _args["up"] = {"side": "upper"}\n\n'
                '    @Appender(_shared_docs["pad"] % _args["up"])\n'
                '    def upper(self):\n        pass\n\n'
                '    @Appender(_shared_docs["tail"])\n    def tail(self):\n        pass\n')})
        package = read_package(str(root), wheel_modules(root))
        module = package.modules["pd.strings"]
        self.assertEqual(set(module.items), {"_shared_docs"})
        # `_kind` there is the class's: not the module's "module".
        self.assertEqual(set(module.items["_shared_docs"]), {"tail", "pad"})
        self.assertEqual(resolve_templates(package), (3, 0, 0))
        docstrings = {name: module.objects[f"StringMethods.{name}"].docstring
                      for name in ("ljust", "upper", "tail")}
        # The module's `_kind` in the module's entry, whoever reads it.
        self.assertEqual(docstrings, {"ljust": "Pad left side.", "upper": "Pad upper side.",
                                      "tail": "Kind module."})

    def test_exported_names_have_in_links_and_rank_above_helpers(self):
        files = {
            "req/__init__.py": '"""Requests."""\nfrom .api import fetch\n',
            "req/api.py": 'def fetch(url, timeout=None):\n    """Send a request with a'
                          ' timeout.\n\n    See :class:`Session`.\n    """\n',
            "req/sessions.py": 'def dispatch(url, timeout=None):\n'
                               '    """Send a request with a timeout.\n\n    See it.\n    """'
                               '\n\n\n'
                               'class Session:\n    """A session."""\n'}
        units = units_of(self, files)
        self.assertEqual(units["req.fetch"]["in_links"], 1)
        self.assertEqual(units["req.sessions.dispatch"]["in_links"], 0)
        # Documented but not exported: the package's internals, in no index of its objects.
        self.assertEqual((units["req.fetch"]["noindex"], units["req.sessions.dispatch"]["noindex"]),
                         (False, True))
        self.assertEqual(units["req.sessions.Session"]["in_links"], 1)  # :class:`Session`
        root = write_tree(temporary_directory(self), files)
        layout = PackageLayout(wheel_modules(root), None, None, "pypi:req==1.0/")
        out = os.path.join(temporary_directory(self), "snapshot")
        build_snapshot([SourceTree("1.0", str(root), layout.source_url, "req", PACKAGE_FORMAT,
                                   package=layout)], out, DEFAULT_POLICY, Progress(io.StringIO()))
        from retrieval.core.service import RetrievalService
        service = RetrievalService.from_path(out)
        self.addCleanup(service.close)
        ranked = service.collection("req").rank(
            service.question_search("send a request with a timeout", "req", "1.0", 5))
        # The same words: the name the package exports first, the internal helper below it.
        titles = [passage.title for passage, _ in ranked]
        self.assertEqual(titles[0], "req.fetch")
        self.assertIn("req.sessions.dispatch", titles)


class ParseTest(unittest.TestCase):

    def test_a_package_read_again_is_a_fresh_copy_of_the_same_modules(self):
        # A build reads a release's package twice (which other releases its docs need, then
        # the release): the second read is the same modules, untouched by what was done to
        # the first's, and a file changed since is parsed again.
        files = {"pk/__init__.py": '"""Pk."""\nfrom .core import *\n__all__ = ["Run"]\n'
                                   '__all__ += core.__all__\nfrom . import core\n',
                 "pk/core.py": '__all__ = ["go"]\n\n\nclass Run:\n    """Run."""\n\n\n'
                               'def go():\n    """Go."""\n'}
        root = write_tree(temporary_directory(self), files)
        first = read_package(str(root), wheel_modules(root))
        first.modules["pk.core"].objects.pop("go")
        first.modules["pk.core"].lines.append("changed")
        again = read_package(str(root), wheel_modules(root))
        self.assertIn("go", again.modules["pk.core"].objects)
        self.assertEqual(again.modules["pk"].all_names, ("Run", "go"))
        self.assertEqual(again.modules["pk.core"].lines[-2:], ['    """Go."""', ""])
        line = again.modules["pk.core"].lines[0]
        self.assertIs(line, sys.intern("".join(line)))  # lines shared, as when parsed
        write_tree(str(root), {"pk/core.py": '__all__ = ["stop"]\n\n\ndef stop():\n'
                                             '    """Stop."""\n'})
        changed = read_package(str(root), wheel_modules(root))
        self.assertEqual(changed.modules["pk"].all_names, ("Run", "stop"))

    def test_star_imports_from_a_module_the_package_lacks_are_not_followed(self):
        # scipy.linalg: many modules `from ._cythonized_array_utils import *`, an extension
        # module: each name was looked up again under every star import, without end.
        files = {"lin/__init__.py": "".join(f"from ._m{i} import *\n" for i in range(8))}
        files |= {f"lin/_m{i}.py": "from ._ext import *\nfrom . import _ext\n"
                  for i in range(8)}
        root = write_tree(temporary_directory(self), files)
        package = read_package(str(root), wheel_modules(root))
        self.assertIsNone(package.resolve("lin._ext.LinAlgError"))
        self.assertLess(len(package._resolved), 100)

    def test_an_inherited_member_is_a_unit_titled_and_indexed_as_its_subclass(self):
        # geopandas: GeoSeries users reach `area` of the undocumented geopandas.base.GeoPandasBase.
        units = units_of(self, {
            "geo/__init__.py": '"""Geo."""\nfrom .series import GeoSeries\n',
            "geo/base.py": 'class Base:\n    def area(self):\n        """The area."""\n',
            "geo/series.py": 'from .base import Base\n\n\nclass GeoSeries(Base):\n'
                             '    """A series."""\n',
            "geo/other.py": 'from .base import Base\n\n\nclass Internal(Base):\n'
                            '    """Not exported."""\n'})
        area = units["geo.GeoSeries.area"]
        self.assertEqual(area["url"], "pypi:x==1.0/geo/base.py#L2-L3")
        self.assertIn("geo.other.Internal.area", area["fields"]["names"].split())
        # Indexed as its exported subclass's members are, not as the package's internals.
        self.assertFalse(area["noindex"])
        self.assertTrue(units["geo.other.Internal"]["noindex"])

    def test_an_attributes_section_documents_an_attribute_the_class_leaves_undocumented(self):
        source = (b'class C:\n    """C.\n\n    Attributes\n    ----------\n    size : int\n'
                  b'        From the section.\n    """\n\n    #: From the comment.\n'
                  b'    size = 1\n')
        self.assertEqual(parse_module("m", "m.py", source).objects["C.size"].docstring,
                         "From the comment.")
        module = parse_module("m", "m.py", source.replace(b"    #: From the comment.\n", b""))
        size = module.objects["C.size"]
        self.assertEqual((size.docstring, size.start_line, size.end_line),
                         ("From the section.", 6, 7))



class ReleaseRequirementsTest(unittest.TestCase):
    """What a release requires, read from its archive: whose classes its docs may inherit."""

    def test_metadata_else_egg_info_before_its_extras_else_pyproject(self):
        top = Path(temporary_directory(self))
        (top / "pyproject.toml").write_text('[project]\ndependencies = ["c>=3"]\n')
        self.assertEqual(release_requirements(top, None), ["c>=3"])
        (top / "x.egg-info").mkdir()
        (top / "x.egg-info" / "requires.txt").write_text("[async]\nasgiref\n")
        self.assertEqual(release_requirements(top, None), [])
        (top / "x.egg-info" / "requires.txt").write_text(
            'Werkzeug>=2.2.2\nclick>=8.0\n\n[:python_version < "3.10"]\nimportlib-metadata\n')
        self.assertEqual(release_requirements(top, None), ["Werkzeug>=2.2.2", "click>=8.0"])
        metadata = email.message_from_string("Name: x\nRequires-Dist: b>=2\n")
        self.assertEqual(release_requirements(top, metadata), ["b>=2"])
        self.assertEqual(requirement_names(
            ["Werkzeug (>=2.2.2)", "Jinja2>=3.0; python_version >= '3'",
             "asgiref>=3.2; extra == 'async'", "jinja2"]), ["werkzeug", "jinja2"])

    def test_else_what_setup_cfg_or_setup_py_writes_out(self):
        # python-ldap 3.4.3 says `install_requires=['pyasn1 >= 0.3.7', ...]` in setup.py
        # alone; setup.cfg's [options] comes first; what is not written out is nothing.
        top = Path(temporary_directory(self))
        (top / "setup.py").write_text(
            "from setuptools import setup\nREQUIRES = ['pyasn1 >= 0.3.7', 'six>=1,<2']\n"
            "setup(name='x', install_requires=REQUIRES)\n")
        self.assertEqual(release_requirements(top, None), ["pyasn1 >= 0.3.7", "six>=1,<2"])
        (top / "setup.cfg").write_text("[options]\ninstall_requires =\n    b>=2\n"
                                       "    # a comment\n    c\n")
        self.assertEqual(release_requirements(top, None), ["b>=2", "c"])
        (top / "setup.cfg").unlink()
        (top / "setup.py").write_text("from setuptools import setup\n"
                                      "setup(install_requires=read('requirements.txt'))\n")
        self.assertEqual(release_requirements(top, None), [])

    def test_a_release_is_fetched_for_docstrings_its_classes_give_undocumented_members(self):
        # Flask's `.. autoclass:: FlaskGroup` with `:members:`: its `get_command` has no
        # docstring, and autodoc shows click's (autodoc_inherit_docstrings), so click is read;
        # a documented class fetches nothing, nor does one derived from Python's own (said
        # where :inherited-members: asks for its members, not for docstrings alone).
        top = write_tree(temporary_directory(self), {
            "app/__init__.py": ("import collections.abc\nimport click\n\n\n"
                                "class Group(click.Group):\n    \"\"\"A group.\"\"\"\n\n"
                                "    def get_command(self, ctx, name):\n        return None\n\n\n"
                                "class Told(click.Command):\n    \"\"\"Told.\"\"\"\n\n"
                                "    def invoke(self, ctx):\n        \"\"\"Invoke it.\"\"\"\n\n\n"
                                "class Session(collections.abc.MutableMapping):\n"
                                "    \"\"\"A session.\"\"\"\n\n    def clear(self):\n"
                                "        pass\n"),
            "docs/api.rst": "API\n===\n\n.. autoclass:: app.Told\n   :members:\n\n"
                            ".. autoclass:: app.Session\n   :members:\n"})
        notes: list = []
        modules = wheel_modules(top)
        self.assertEqual(inherited_releases(top, "docs", modules, ["click>=8.0"], notes.append),
                         [])
        self.assertEqual(notes, [])
        (top / "docs" / "api.rst").write_text(
            "API\n===\n\n.. autoclass:: app.Group\n   :members:\n\n"
            ".. autoclass:: app.Session\n   :inherited-members:\n")
        self.assertEqual(inherited_releases(top, "docs", modules, ["click>=8.0"], notes.append),
                         [("click", "8.0")])
        self.assertEqual(notes, ["members inherited from collections.abc.MutableMapping left "
                                 "out: it is Python's own, which no release gives"])


if __name__ == "__main__":
    unittest.main()
