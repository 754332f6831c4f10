"""quality/summary_parity.py: a rendered build's units asked by their summaries on two builds."""

import contextlib
import io
import unittest

from quality.summary_parity import main, place, summary, why_missed
from tests.support import temporary_directory
from tests.test_package_pages import FILES, built

TIER = "inprocess"


class SummaryParityTest(unittest.TestCase):

    def test_a_summary_is_the_first_sentence_s_first_twenty_words(self):
        self.assertEqual(summary("  Mend the roof. Then rest."), "Mend the roof.")
        long = " ".join(f"w{n}" for n in range(30)) + "."
        self.assertEqual(summary(long), " ".join(f"w{n}" for n in range(20)))

    def test_a_place_is_below_the_site_s_root_and_django_s_section_ids_are_one(self):
        self.assertEqual(place("file:///usr/share/doc/x/html/faq/admin.html#s-ugly"),
                         ("faq/admin.html", "ugly"))
        self.assertEqual(place("faq/admin.html#ugly"), ("faq/admin.html", "ugly"))
        self.assertEqual(place("api.html"), ("api.html", ""))

    def test_a_miss_is_ranked_out_merged_or_absent(self):
        places = {("api.html", "herd.Flask.route")}
        names = {"herd.Blueprint.route"}
        self.assertEqual(why_missed(("api.html", "herd.Flask.route"), places, names),
                         "ranked out")
        self.assertEqual(why_missed(("api.html", "herd.Blueprint.route"), places, names),
                         "merged")
        self.assertEqual(why_missed(("api.html", "herd.gone"), places, names), "absent")

    def test_a_build_asked_beside_itself_finds_as_much_and_misses_alike(self):
        out, _ = built(temporary_directory(self), FILES)
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            self.assertEqual(main([out, out, "herd", "1.0", "--sample", "50"]), 0)
        first = printed.getvalue().splitlines()[0]
        rendered, pypi = (part.split("%")[0].split()[-1]
                          for part in first.split("rendered ", 1)[1].split(", pypi "))
        self.assertEqual(rendered, pypi)
        self.assertGreater(float(pypi), 0)
        self.assertIn("object units of the rendered build asked", first)


if __name__ == "__main__":
    unittest.main()
