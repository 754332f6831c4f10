"""README.md says what the code does: its settings table and error table come from the code."""

import os
import re
import unittest

from retrieval.errors import HTTP_STATUS
from retrieval.settings import settings_table
from tests.support import ROOT

with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as _handle:
    README = _handle.read()


class ReadmeTest(unittest.TestCase):
    def test_settings_table_is_the_generated_one(self):
        block = re.search(
            r"<!-- settings-table: generated[^\n]*-->\n(.*?)\n<!-- settings-table: end -->",
            README, re.S)
        self.assertIsNotNone(block, "README lost its settings-table markers")
        self.assertEqual(block.group(1), settings_table(),
                         "regenerate it with `python -m retrieval settings`")

    def test_error_table_lists_every_code_with_its_status(self):
        errors = README[README.index("### Errors"):README.index("### Other routes")]
        rows = dict((code, status) for status, code in
                    re.findall(r"^\| (\d{3}) \| `([a-z_]+)` \|", errors, re.M))
        self.assertEqual(rows, {code: status.split()[0] for code, status in HTTP_STATUS.items()})


if __name__ == "__main__":
    unittest.main()
