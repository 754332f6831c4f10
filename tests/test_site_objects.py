"""quality/site_objects.py: a rendered build's object descriptions looked up by name in another."""

import contextlib
import io
import unittest

from quality.site_objects import NO_ID, main, verdicts
from tests.support import temporary_directory
from tests.test_package_pages import FILES, NO_API, built

TIER = "inprocess"


class SiteObjectsTest(unittest.TestCase):

    def test_a_build_beside_itself_has_every_object_at_its_place(self):
        out, _ = built(temporary_directory(self), FILES)
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            self.assertEqual(main([out, out]), 0)
        self.assertIn("in the pypi build: same place 100.0 %, on the site 0.0 %, release only "
                      "0.0 %, absent 0.0 %", printed.getvalue())

    def test_an_object_no_page_describes_is_at_the_release_s_files_only(self):
        site, _ = built(temporary_directory(self), FILES)
        package, _ = built(temporary_directory(self), FILES | {"docs/api.rst": NO_API})
        found = verdicts(site, package)
        # api.rst described graze; without it, graze is a public object linked to its lines.
        self.assertIn("herd.graze", found["release only"])
        self.assertEqual(found["absent"], [])
        # The guide's `:noindex:` description has no id of its own (the rendered reader
        # places it at its section): no object of the site's, counted apart.
        self.assertEqual(found[NO_ID], ["herd.milk"])
        self.assertNotIn("herd.milk", found["same place"])


    def test_a_missing_snapshot_is_said_in_one_line(self):
        missing = temporary_directory(self)
        with self.assertRaises(SystemExit) as raised:
            main([missing, missing])
        self.assertEqual(str(raised.exception),
                         f"site_objects.py: {missing} is no built snapshot (no passages.sqlite)")


if __name__ == "__main__":
    unittest.main()
