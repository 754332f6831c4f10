"""The published site's objects.inv for a release with no docs folder (sources/site_inventory.py).

The whole build through `pypi:` (a loopback site, a 404) is in test_package_sources; here the
file:// reading and what is refused there.
"""

import os
import unittest
import zlib
from pathlib import Path

from retrieval.ingest.sources.http_get import Limits
from retrieval.ingest.sources.site_inventory import SiteInventory, site_inventory
from tests.support import temporary_directory

TIER = "unit"



def inventory(lines: str) -> bytes:
    """Return a Sphinx version 2 objects.inv of lines (`name domain:role priority uri dispname`)."""
    return (b"# Sphinx inventory version 2\n# Project: pkg\n# Version: 1.0\n"
            b"# The remainder of this file is compressed using zlib.\n"
            + zlib.compress(lines.encode()))


INVENTORY = inventory("pkg.run py:function 1 api.html#$ -\n"
                      "pkg py:module 0 index.html#module-$ -\n"
                      "pkg.Page std:doc -1 guide.html Guide\n")


class SiteInventoryTest(unittest.TestCase):

    def read(self, write=None, max_bytes: int = 1 << 20):
        root = temporary_directory(self)
        if write is not None:
            write(os.path.join(root, "objects.inv"))
        return site_inventory(Path(root).as_uri() + "/", max_bytes, Limits(), offline=True)

    def test_a_file_root_s_inventory_places_its_python_names(self):
        def write(path):
            with open(path, "wb") as f:
                f.write(INVENTORY)

        found = self.read(write)
        self.assertIsInstance(found, SiteInventory)
        base = found.url.removesuffix("objects.inv")
        # The Python domain only; a std:doc is no object's place.
        self.assertEqual(dict(found.places), {"pkg.run": base + "api.html#pkg.run",
                                              "pkg": base + "index.html#module-pkg"})

    def test_what_is_no_inventory_is_said(self):
        self.assertEqual(self.read(), "No such file or directory")
        self.assertEqual(self.read(os.mkfifo), "not a regular file")  # it would block
        self.assertEqual(self.read(os.mkdir), "Is a directory")
        outside = os.path.join(temporary_directory(self), "objects.inv")
        with open(outside, "wb") as f:
            f.write(INVENTORY)
        self.assertEqual(self.read(lambda path: os.symlink(outside, path)),
                         "a link out of the tree (not followed)")

        def write(path):
            with open(path, "wb") as f:
                f.write(INVENTORY)

        self.assertEqual(self.read(write, max_bytes=10),
                         "larger than the 10-byte cap (--max-file-bytes)")
        self.assertEqual(site_inventory("https://docs.example/pkg/", 1000, Limits(), True),
                         "not read offline")


if __name__ == "__main__":
    unittest.main()
