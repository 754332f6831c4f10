"""sphinxcontrib-apidoc's pages as sphinx-apidoc writes them (readers/apidoc.py).

The expected texts are what Sphinx 5.3.0's `sphinx-apidoc` wrote for the same tree and options
(`-o api pkg pkg/tests`; `-e -M -P -E -d 2 -T -o ref pkg`), byte for byte; the same held for
rdflib 6.1.1's, nltk 3.8.1's and CherryPy 18.8.0's trees with their conf.py settings (13, 293
and 106 pages). The whole build of such a project is in test_package_pages.
"""

import unittest

from retrieval.ingest.readers import apidoc
from tests.support import temporary_directory
from tests.test_package_layouts import write_tree

TIER = "unit"

TREE = {
    "pkg/__init__.py": '"""Pkg."""\n',
    "pkg/core_tools.py": '"""Core."""\n',
    "pkg/_hidden.py": '"""Hidden."""\n',
    "pkg/sub/__init__.py": "",
    "pkg/sub/leaf.py": "",
    "pkg/data/readme.txt": "not a package\n",
    "pkg/tests/__init__.py": "",
    "pkg/tests/test_core.py": "",
}
OPTIONS = "   :members:\n   :undoc-members:\n   :show-inheritance:\n"


class ApidocPagesTest(unittest.TestCase):

    def pages(self, **conf) -> dict:
        root = temporary_directory(self)
        write_tree(root, TREE)
        known = {"extensions": ["sphinxcontrib.apidoc"], "apidoc_module_dir": "../pkg"} | conf
        found = apidoc.settings(known, tuple(known["extensions"]))
        self.assertIsNotNone(found)
        return apidoc.pages(root, "docs", found)

    def test_a_package_page_holds_its_submodules_and_its_own_module_last(self):
        written = self.pages(apidoc_excluded_paths=["tests"])
        self.assertEqual(sorted(written), ["api/modules.rst", "api/pkg.rst", "api/pkg.sub.rst"])
        self.assertEqual(written["api/pkg.rst"], (
            "pkg package\n===========\n\nSubpackages\n-----------\n\n.. toctree::\n"
            "   :maxdepth: 4\n\n   pkg.sub\n\nSubmodules\n----------\n\n"
            "pkg.core\\_tools module\n----------------------\n\n"
            ".. automodule:: pkg.core_tools\n" + OPTIONS.rstrip("\n") + "\n\n"
            "Module contents\n---------------\n\n.. automodule:: pkg\n" + OPTIONS))
        self.assertEqual(written["api/modules.rst"],
                         "pkg\n===\n\n.. toctree::\n   :maxdepth: 4\n\n   pkg\n")

    def test_the_extra_arguments_and_settings_change_the_pages(self):
        written = self.pages(apidoc_extra_args=["--private", "--no-headings", "-d", "2"],
                             apidoc_separate_modules=True, apidoc_module_first=True,
                             apidoc_toc_file=False, apidoc_output_dir="ref")
        self.assertEqual(sorted(written), [
            "ref/pkg._hidden.rst", "ref/pkg.core_tools.rst", "ref/pkg.rst",
            "ref/pkg.sub.leaf.rst", "ref/pkg.sub.rst", "ref/pkg.tests.rst",
            "ref/pkg.tests.test_core.rst"])
        self.assertTrue(written["ref/pkg.rst"].startswith(
            "pkg package\n===========\n\n.. automodule:: pkg\n"))
        self.assertIn("   :maxdepth: 2\n", written["ref/pkg.rst"])
        self.assertEqual(written["ref/pkg._hidden.rst"],
                         ".. automodule:: pkg._hidden\n" + OPTIONS + "   :private-members:\n")

    def test_no_module_dir_or_one_outside_the_tree_writes_nothing(self):
        self.assertIsNone(apidoc.settings({"extensions": ["sphinxcontrib.apidoc"]},
                                          ("sphinxcontrib.apidoc",)))
        self.assertIsNone(apidoc.settings({"apidoc_module_dir": "../pkg"}, ()))
        self.assertEqual(self.pages(apidoc_module_dir="../../.."), {})
        self.assertEqual(self.pages(apidoc_module_dir="../nowhere"), {})


    def test_a_makefile_recipe_running_sphinx_apidoc_gives_the_same_pages(self):
        # lxml 4.9's top-level Makefile: `sphinx-apidoc -e -P -T -o doc/api src/lxml
        # "*includes" ...`, run in the Makefile's folder, after a `which sphinx-apidoc` test;
        # its pages are the project's (doc/api/conf.py) as the extension's would be.
        line = ('@[ -x "`which sphinx-apidoc`" ] && (PYTHONPATH=src:$(PYTHONPATH) '
                'sphinx-apidoc -e -P -T -o docs/api pkg "*tests") || echo none')
        found = apidoc.command_settings(line, "", "docs")
        self.assertEqual((found.module_dir, found.output_dir, found.excluded, found.separate,
                          found.private, found.toc_file), ("../pkg", "api", ("*tests",), True,
                                                          True, None))
        root = temporary_directory(self)
        write_tree(root, TREE)
        self.assertEqual(sorted(apidoc.pages(root, "docs", found)), [
            "api/pkg._hidden.rst", "api/pkg.core_tools.rst", "api/pkg.rst",
            "api/pkg.sub.leaf.rst", "api/pkg.sub.rst"])
        # docs/Makefile's `python -m sphinx.ext.apidoc -o . ../pkg`: into the project's root.
        self.assertEqual(apidoc.command_settings(
            "\tpython -m sphinx.ext.apidoc -f -H Pkg -o . ../pkg", "docs", "docs").output_dir, ".")
        # What the shell expands, or writing outside the project, is not read.
        for line, cwd in (("$(APIDOC) -o api ../pkg", "docs"), ("sphinx-apidoc -o $(OUT) pkg", ""),
                          ("sphinx-apidoc -o build/api pkg", ""), ("sphinx-build -b html . _build",
                                                                   "docs")):
            self.assertIsNone(apidoc.command_settings(line, cwd, "docs"), line)

if __name__ == "__main__":
    unittest.main()
