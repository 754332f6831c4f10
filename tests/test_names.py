"""Names and versions as people write them (core/names.py): which collection, which version."""

import unittest
from types import SimpleNamespace

from retrieval.core import names
from retrieval.core.model import Collection

TIER = "unit"


def pin(name, collection, *import_names):
    return SimpleNamespace(name=name, collection=collection, import_names=import_names)


class VersionsTest(unittest.TestCase):
    def test_request_spellings_match_the_pattern_and_stored_forms_are_normal(self):
        for spelling in ("2.2.2", "v2.2.2", "V2.2.2", "2024.8.30", "2.5.0b1", "2.5.0B1",
                         "2.5.0-beta.1", "1.0.post1", "1.0-1", "1.0.dev0", "1.0-dev",
                         "1!2.0", "2.1.0+cpu", "3.11", "7"):
            with self.subTest(spelling):
                self.assertTrue(names.REQUEST_VERSION_PATTERN.fullmatch(spelling))
                normal = names.normal_version(spelling)
                self.assertTrue(names.VERSION_PATTERN.fullmatch(normal), normal)
        for refused in ("", "latest", "2.x", "2.2.2 ", "v", "1..2", "1.0+", "x" * 10):
            with self.subTest(refused=refused):
                self.assertIsNone(names.REQUEST_VERSION_PATTERN.fullmatch(refused))
        for spelling in ("v2.2.2", "2.5.0B1", "1.0-1", "2.5.0-beta.1"):
            with self.subTest(stored=spelling):
                self.assertIsNone(names.VERSION_PATTERN.fullmatch(spelling))

    def test_a_version_is_served_as_held_exactly_or_not_at_all(self):
        held = ("2.2.2", "2024.8.30", "2.5.0b1", "1.0.post1", "3.0.dev1")
        for asked, served in (("2.2.2", "2.2.2"), ("v2.2.2", "2.2.2"), ("2024.8.30", "2024.8.30"),
                              ("2.5.0B1", "2.5.0b1"), ("2.5.0-beta.1", "2.5.0b1"),
                              ("1.0-1", "1.0.post1"), ("3.0-dev1", "3.0.dev1"),
                              ("2.2.3", None), ("2.2.2.0", None), ("2.5.0", None),
                              ("2.5.0b2", None), ("3.0", None)):
            with self.subTest(asked):
                self.assertEqual(names.serve_version(asked, held), served)

    def test_x_y_is_the_highest_final_or_post_release_of_x_y_star(self):
        held = ("2.28.1", "2.28.2", "2.28.3rc1", "2.28.4.dev0", "2.29.0", "2.2.9", "2024.8.30",
                "1.0.post1")
        for asked, served in (("2.28", "2.28.2"), ("v2.28", "2.28.2"), ("2.29", "2.29.0"),
                              ("2.2", "2.2.9"), ("2024.8", "2024.8.30"), ("1.0", "1.0.post1"),
                              ("2", None), ("2.3", None), ("2.28.3", None)):
            with self.subTest(asked):
                self.assertEqual(names.serve_version(asked, held), served)
        # An X.Y held as such is served as asked; pre-releases alone never answer an X.Y.
        self.assertEqual(names.serve_version("3.11", ("3.11", "3.11.4")), "3.11")
        self.assertIsNone(names.serve_version("2.5", ("2.5.0b1", "2.5.0rc1")))
        # The highest numerically: 2.28.10 is above 2.28.9.
        self.assertEqual(names.serve_version("2.28", ("2.28.9", "2.28.10")), "2.28.10")

    def test_serving_pads_no_zeros_where_fetching_does(self):
        # Two contracts: a fetch matches a pin as pip's == does (1.0 is 1.0.0's file); a
        # served version is the one held of the same normal form, 2.2.2.0 not being 2.2.2.
        from retrieval.ingest.sources import index_fetch

        self.assertEqual(index_fetch._same_version("1.0"), index_fetch._same_version("1.0.0"))
        self.assertIsNone(names.serve_version("2.2.2.0", ["2.2.2"]))
        self.assertIsNone(names.serve_version("1.0.0", ["1.0"]))

    def test_collections_list_versions_in_pep_440_order(self):
        collection = Collection("x", "0" * 64, tuple({"version": v} for v in (
            "2.5.0", "3.9", "3.9.0", "3.10", "2.5.0b1", "2.5.0.dev1", "2.5.0.post1")),
            declares_versions=True)
        ordered = sorted(collection.version_names(), key=names.version_order)
        self.assertEqual(ordered, ["2.5.0.dev1", "2.5.0b1", "2.5.0", "2.5.0.post1", "3.9",
                                   "3.9.0", "3.10"])
        self.assertEqual(collection.serve_version("v3.10"), "3.10")
        self.assertIsNone(collection.serve_version("3.11"))


class CollectionNamesTest(unittest.TestCase):
    COLLECTIONS = {"flask": None, "sqlalchemy": None, "beautifulsoup4": None, "pyyaml": None,
                   "scikit-learn": None, "zope-interface": None, "my_docs": None}
    PINS = (pin("flask", "flask", "flask"), pin("beautifulsoup4", "beautifulsoup4", "bs4"),
            pin("pyyaml", "pyyaml", "yaml"), pin("scikit-learn", "scikit-learn", "sklearn"),
            pin("nothing-built", None, "nothing"))

    def test_each_spelling_names_its_collection(self):
        for asked, found in (("flask", "flask"), ("Flask", "flask"), ("FLASK", "flask"),
                             ("SQLAlchemy", "sqlalchemy"), ("PyYAML", "pyyaml"),
                             ("scikit_learn", "scikit-learn"), ("Scikit.Learn", "scikit-learn"),
                             ("zope.interface", "zope-interface"), ("my_docs", "my_docs"),
                             ("my-docs", "my_docs"), ("bs4", "beautifulsoup4"),
                             ("yaml", "pyyaml"), ("sklearn", "scikit-learn"),
                             ("nothing", None), ("django", None)):
            with self.subTest(asked):
                self.assertEqual(names.resolve_collection(asked, self.COLLECTIONS, self.PINS),
                                 found)

    def test_import_names_need_the_pins(self):
        self.assertIsNone(names.resolve_collection("bs4", self.COLLECTIONS))
        self.assertEqual(names.resolve_collection("Flask", self.COLLECTIONS), "flask")

    def test_a_name_is_an_alias_only_when_it_names_no_collection_and_one_pin(self):
        collections = {"yaml": None, "pyyaml": None, "pyjwt": None, "python-jwt": None}
        pins = (pin("pyyaml", "pyyaml", "yaml"), pin("pyjwt", "pyjwt", "jwt"),
                pin("python-jwt", "python-jwt", "jwt"))
        self.assertEqual(names.resolve_collection("yaml", collections, pins), "yaml")
        self.assertIsNone(names.resolve_collection("jwt", collections, pins))  # two: neither
        self.assertIsNone(names.resolve_collection("A-B", {"a-b": None, "a_b": None}))


if __name__ == "__main__":
    unittest.main()
