"""Unit: every test module declares its tier, and the tier runner refuses one that does not."""

import os
import sys
import unittest
from unittest import mock

from tests import tiers
from tests.support import ROOT, temporary_directory

TIER = "unit"

GOOD = '"""A module."""\n\nimport unittest\n\nTIER = "unit"\n'


class DeclaredTiersTest(unittest.TestCase):
    def test_every_test_module_declares_a_known_tier(self):
        self.assertEqual(tiers.undeclared(), [])

    def test_every_test_module_is_in_exactly_one_tier(self):
        by_tier, _ = tiers.read_tiers()
        placed = [module for modules in by_tier.values() for module in modules]
        self.assertEqual(sorted(placed), tiers.module_names(tiers.TESTS_DIR))
        self.assertIn("test_tiers", by_tier["unit"])

    def test_groups_name_only_tiers(self):
        for group, members in tiers.GROUPS.items():
            self.assertLessEqual(set(members), set(tiers.TIERS), group)
        self.assertEqual(tiers.GROUPS["all"], tuple(tiers.TIERS))

    def test_docs_table_is_the_tiers(self):
        with open(os.path.join(ROOT, "docs", "testing.md"), encoding="utf-8") as doc:
            rows = [line.strip("|\n").split(" | ") for line in doc if line.startswith("| `")]
        self.assertEqual({name.strip(" `"): meaning.replace("`", "").strip()
                          for name, meaning in rows}, tiers.TIERS)


class RefusalTest(unittest.TestCase):
    """The checks above can fail: a directory of bad modules is refused, one line each."""

    BAD = {
        "test_missing.py": "import unittest\n",
        "test_unknown.py": 'TIER = "slow"\n',
        "test_not_a_string.py": "TIER = 1\n",
        "test_computed.py": 'TIER = "un" + "it"\n',
        "test_twice.py": 'TIER = "unit"\nTIER = "server"\n',
        "test_nested.py": 'if True:\n    TIER = "unit"\n',
        "test_broken.py": 'TIER = "unit"\ndef (:\n',
    }

    def write(self, directory, files):
        for name, text in files.items():
            with open(os.path.join(directory, name), "w", encoding="utf-8") as handle:
                handle.write(text)

    def test_each_bad_declaration_is_one_problem(self):
        directory = temporary_directory(self)
        self.write(directory, {"test_good.py": GOOD, "helper.py": "", **self.BAD})
        by_tier, problems = tiers.read_tiers(directory)
        self.assertEqual(by_tier["unit"], ["test_good"])
        self.assertEqual(len(problems), len(self.BAD), problems)
        for name in self.BAD:
            self.assertEqual(sum(f"tests/{name} " in problem for problem in problems), 1, name)
        self.assertIn("declares no tier", " ".join(problems))
        self.assertIn("'slow'", " ".join(problems))

    def test_reading_a_tier_imports_nothing(self):
        directory = temporary_directory(self)
        self.write(directory, {"test_loud.py": 'TIER = "server"\nraise SystemExit("ran")\n'})
        by_tier, problems = tiers.read_tiers(directory)
        self.assertEqual((by_tier["server"], problems), (["test_loud"], []))
        self.assertNotIn("test_loud", sys.modules)

    def test_runner_refuses_before_running_anything(self):
        directory = temporary_directory(self)
        self.write(directory, {"test_good.py": GOOD, "test_missing.py": "x = 1\n"})
        with mock.patch.object(tiers, "TESTS_DIR", directory), \
                mock.patch.object(tiers.unittest, "main") as run:
            with self.assertRaises(SystemExit) as refused:
                tiers.main(["fast", "-v"])
        run.assert_not_called()
        self.assertIn("tests/test_missing.py declares no tier", str(refused.exception.code))

    def test_runner_names_the_modules_of_the_chosen_tiers(self):
        directory = temporary_directory(self)
        self.write(directory, {"test_a.py": GOOD, "test_b.py": 'TIER = "server"\n',
                               "test_c.py": 'TIER = "inprocess"\n'})
        with mock.patch.object(tiers, "TESTS_DIR", directory), \
                mock.patch.object(tiers.unittest, "main") as run:
            tiers.main(["fast", "unit", "-k", "x"])
        self.assertEqual(run.call_args.kwargs["argv"],
                         ["python -m tests.tiers", "-k", "x", "tests.test_a", "tests.test_c"])

    def test_runner_refuses_no_tier_with_usage(self):
        with self.assertRaises(SystemExit) as refused:
            tiers.main(["-v"])
        self.assertIn("usage: python -m tests.tiers TIER...", str(refused.exception.code))


if __name__ == "__main__":
    unittest.main()
