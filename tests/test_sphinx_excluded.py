"""The files a Sphinx project leaves out of its pages beside exclude_patterns, read from conf.py.

Sphinx finds its sources with exclude_patterns, templates_path and the HTML builder's asset
folders (html_static_path, html_extra_path) all left out: an autosummary template
`_templates/autosummary/class.rst` (seaborn 0.13.0, xarray 2023.6.0) is Jinja, not a page, and
a docs folder read from a release publishes no unit of it; a folder a conf.py computes is left
to Sphinx, the ones it writes out are read all the same (xarray's).
"""

import unittest

from retrieval.ingest.readers.sphinx_conf import read_conf
from tests.support import temporary_directory
from tests.test_sphinx_source import read, write

TIER = "unit"

CONF = '''\
extensions = ["sphinx.ext.autodoc", "sphinx.ext.autosummary"]
import sphinx_autosummary_accessors
templates_path = ["_templates", sphinx_autosummary_accessors.templates_path, "./layouts"]
html_static_path = ["_static"]
html_extra_path = ["extra"]
exclude_patterns = ["_build"]
'''

TEMPLATE = '''\
{{ fullname | escape | underline}}

.. currentmodule:: {{ module }}

.. autoclass:: {{ objname }}
'''


class ExcludedFoldersTest(unittest.TestCase):

    def test_template_and_asset_folders_are_no_pages(self):
        root = temporary_directory(self)
        write(root, {
            "docs/conf.py": CONF,
            "docs/index.rst": "Demo\n====\n\nDemo runs jobs.\n\nUsage\n-----\n\nRun it.\n",
            "docs/_templates/autosummary/class.rst": TEMPLATE,
            "docs/layouts/page.rst": "Layout\n======\n\n{{ body }}\n",
            "docs/_static/notes.rst": "Static\n======\n\nCopied as is.\n",
            "docs/extra/robots.rst": "Extra\n=====\n\nCopied as is.\n",
            "docs/_build/old.rst": "Old\n===\n\nBuilt before.\n",
            "docs/_templates_guide.rst": "Templates\n=========\n\nA page of its own.\n"})
        units = read(root, "docs")
        self.assertEqual(sorted({unit["source_id"] for unit in units.values()}),
                         ["docs/_templates_guide.rst", "docs/index.rst"])
        self.assertIn("Usage", units)

    def test_only_folders_below_the_conf_are_left_out(self):
        conf = read_conf('templates_path = ["../shared", "/abs", ".", "t"]\n')
        self.assertIsNone(conf.page_kind("t/x.rst"))
        self.assertEqual(conf.page_kind("index.rst"), "rst")
        self.assertEqual(conf.page_kind("shared/x.rst"), "rst")

    def test_what_conf_py_adds_to_a_list_it_star_imports_is_left_out_too(self):
        # astropy's conf.py: exclude_patterns and templates_path come from sphinx_astropy's
        # conf (`from sphinx_astropy.conf.v1 import *`), which a build does not read.
        conf = read_conf(
            "from sphinx_astropy.conf.v1 import *\n"
            'exclude_patterns.append("_pkgtemplate.rst")\n'
            'exclude_patterns += ["changes/*"]\n'
            'if "templates_path" not in locals():\n    templates_path = []\n'
            'templates_path.append("_templates")\n')
        self.assertIsNone(conf.page_kind("_pkgtemplate.rst"))
        self.assertIsNone(conf.page_kind("changes/1.0.rst"))
        self.assertIsNone(conf.page_kind("_templates/autosummary/class.rst"))
        self.assertEqual(conf.page_kind("index.rst"), "rst")
        self.assertEqual(conf.templates_path, ("_templates",))


if __name__ == "__main__":
    unittest.main()
