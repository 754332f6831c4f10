"""Unit: quality/version_diff.py's second (b) figure pairs on the side the set puts a change."""

import unittest

from quality.version_diff import change_sides

TIER = "unit"


def row(example_id, version, name, problem="Do a thing.", library="lib"):
    return {"example_id": example_id, "library": library, "version": version,
            "name_of_class_or_func": name, "problem": problem}


class ChangeSidesTest(unittest.TestCase):
    def test_the_side_is_the_set_s_own_problems_at_older_releases_only(self):
        rows = [
            # The same API named at 1.0 and 2.0: 2.0's change lies before it.
            row("1", "1.0", "sjoin", "Join."), row("2", "2.0", "sjoin", "Join."),
            # Named at 1.0, 2.0 and 3.0: 2.0's siblings are on both sides, so its own pair.
            row("3", "1.0", "axis"), row("4", "2.0", "axis"), row("5", "3.0", "axis"),
            # No name, the same question: siblings too; a bare "-" alone is not.
            row("6", "1.0", "-", "Render a formula."), row("7", "3.0", "-", "Render a formula."),
            row("8", "1.0", "-", "One thing."), row("9", "3.0", "-", "Another."),
            # Another library's problem of the same name is not a sibling.
            row("10", "2.0", "sjoin", "Join.", library="other"),
        ]
        self.assertEqual(change_sides(rows), {"2": "older", "5": "older", "7": "older"})


if __name__ == "__main__":
    unittest.main()
