"""quality/gitchameleon.py end to end: a tiny problems file, a release built from a local index.

The harness runs as a user runs it, in a child process, and builds its releases with `retrieval
build --source LIB/VERSION=pypi:DIST==VERSION`; pip is pointed at a find-links directory of one
release this test writes (PIP_NO_INDEX, PIP_FIND_LINKS, PIP_CONFIG_FILE: no index, no network),
and again with `--source-form project` (a requirements file per release through `retrieval
project`), which must score alike and say each release's source and coverage.
The set's own score.py is copied beside the problems file, as the harness finds it there.
"""

import json
import os
import shutil
import subprocess
import sys
import unittest

from quality import gitchameleon
from retrieval.testing import subprocess_env
from tests.package_fixtures import plain_sdist
from tests.support import ROOT, class_temporary_directory, temporary_directory

TIER = "server"

SCORE = os.path.join(ROOT, "..", "shared", "eval", "gitchameleon", "score.py")


def problem(example_id, version, text, name, api_calls, change, code="import plain\n"):
    return {"library": "plain", "version": version, "problem": text, "starting_code": code,
            "example_id": example_id, "solution": "", "type_of_change": change,
            "name_of_class_or_func": name, "api_calls": api_calls}


PROBLEMS = [
    # The plain 2.0 release documents Engine.register_job: found by name, read as evidence.
    problem("1", "2.0", "Register a job to run when the engine starts.", "register_job",
            ["plain.Engine.register_job"], "new feature"),
    # No unit of the release names or defines frobnicate: a miss everywhere.
    problem("2", "2.0", "Frobnicate the widgets of a queue.", "frobnicate", ["plain.frobnicate"],
            "name change"),
    # No such release on the index: not built, so a miss.
    problem("3", "9.9", "Make an engine of a given size.", "make_engine", ["plain.make_engine"],
            "new feature"),
]


def load_score():
    return gitchameleon.load_score(SCORE)


class HarnessEndToEndTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        if not os.path.exists(SCORE):
            raise unittest.SkipTest("shared/eval/gitchameleon is not beside this checkout")
        base = class_temporary_directory(cls)
        cls.links = os.path.join(base, "links")
        os.makedirs(cls.links)
        plain_sdist(cls.links)
        problems = os.path.join(base, "problems")
        os.makedirs(problems)
        shutil.copy(SCORE, os.path.join(problems, "score.py"))
        cls.problems = os.path.join(problems, "dev.jsonl")
        with open(cls.problems, "w", encoding="utf-8") as out:
            out.writelines(json.dumps(row) + "\n" for row in PROBLEMS)
        cls.cache = os.path.join(base, "cache")
        cls.first = cls.run_harness(os.path.join(base, "first.json"))
        cls.second = cls.run_harness(os.path.join(base, "second.json"))
        cls.project = cls.run_harness(os.path.join(base, "project.json"), "--source-form",
                                      "project")

    @classmethod
    def run_harness(cls, json_path, *flags):
        env = subprocess_env(PIP_CONFIG_FILE=os.devnull, PIP_NO_INDEX="1",
                             PIP_FIND_LINKS=cls.links)
        done = subprocess.run(
            [sys.executable, "-m", "quality.gitchameleon", "--problems", cls.problems,
             "--cache", cls.cache, "--json", json_path, "--build-timeout", "120", "--jobs", "2",
             *flags],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
        report = None
        if done.returncode == 0:
            with open(json_path, encoding="utf-8") as handle:
                report = json.load(handle)
        return done, report

    def report(self):
        done, report = self.first
        self.assertEqual(done.returncode, 0, done.stderr)
        return report

    def problems_by_id(self, report):
        return {item["id"]: item for item in report["problems"]}

    def test_a_documented_target_is_a_first_search_hit_and_read(self):
        found = self.problems_by_id(self.report())["1"]
        self.assertEqual(found["targets"], ["register_job"])
        self.assertTrue(found["built"])
        self.assertIsNotNone(found["hit_rank"])
        self.assertLessEqual(found["hit_rank"], 10)
        hit = found["top10"][found["hit_rank"] - 1]
        self.assertEqual(hit["rank"], found["hit_rank"])
        # Independently of score.py: the hit's title is the dotted name of the method.
        self.assertEqual(hit["title"].split("(")[0].rsplit(".", 1)[-1], "register_job", hit)
        self.assertEqual(found["hit_names"], ["register_job"])
        self.assertTrue(found["max_reads_8"]["evidence_hit"])
        self.assertTrue(any("register_job" in entry["names"]
                            for entry in found["max_reads_8"]["evidence"]))

    def test_a_target_is_searched_by_its_name(self):
        by_id = self.problems_by_id(self.report())
        self.assertEqual((by_id["1"]["name"], by_id["1"]["name_hit_rank"]), ("register_job", 1))
        self.assertEqual((by_id["2"]["name"], by_id["2"]["name_hit_rank"]), ("frobnicate", None))
        self.assertIsNone(by_id["3"]["name_hit_rank"])  # not built: a miss
        overall = self.report()["summary"]["overall"]
        self.assertEqual((overall["with_name"], overall["by_name"]), (3, 1))
        self.assertIn("found by name: 33.3 % of the 3 problems", self.first[0].stdout)

    def test_an_absent_target_and_an_unbuilt_release_are_misses(self):
        by_id = self.problems_by_id(self.report())
        absent, unbuilt = by_id["2"], by_id["3"]
        self.assertTrue(absent["built"])
        self.assertIsNone(absent["hit_rank"])
        self.assertTrue(absent["top10"])  # asked: it had hits, none of them a target
        self.assertFalse(absent["default"]["evidence_hit"])
        self.assertFalse(absent["max_reads_8"]["evidence_hit"])
        self.assertFalse(unbuilt["built"])
        self.assertIsNone(unbuilt["hit_rank"])
        self.assertEqual(unbuilt["default"]["outcome"], "not_built")
        self.assertFalse(unbuilt["max_reads_8"]["evidence_hit"])

    def test_figures_count_every_problem_and_the_builds_say_why(self):
        report = self.report()
        overall = report["summary"]["overall"]
        self.assertEqual((overall["problems"], overall["built"], overall["with_targets"],
                          overall["hit_at_10"], overall["evidence_max_reads_8"]), (3, 2, 3, 1, 1))
        self.assertEqual(overall["percent"]["hit_at_10"], 33.3)
        self.assertEqual(report["summary"]["by_type_of_change"]["name change"]["hit_at_10"], 0)
        self.assertEqual(report["summary"]["by_type_of_change"]["new feature"]["hit_at_10"], 1)
        builds = {record["release"]: record for record in report["builds"]}
        self.assertTrue(builds["plain==2.0"]["ok"])
        self.assertGreater(builds["plain==2.0"]["units"], 0)
        self.assertFalse(builds["plain==9.9"]["ok"])
        self.assertNotEqual(builds["plain==9.9"]["exit_status"], 0)
        self.assertIn("plain==9.9", builds["plain==9.9"]["last_line"])
        self.assertFalse(report["meta"]["partial"])
        stdout = self.first[0].stdout
        self.assertIn("| plain | 3 | 2 (66.7 %) | 3 (100.0 %) | 1 (33.3 %) |", stdout)
        self.assertIn("not built: plain==9.9", stdout)

    def test_a_rerun_builds_nothing_and_scores_the_same(self):
        first = self.report()
        done, second = self.second
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertTrue(all(record["cached"] for record in second["builds"]))
        self.assertEqual(first["problems"], second["problems"])
        self.assertEqual(first["summary"], second["summary"])

    def test_the_project_form_builds_through_retrieval_project_and_scores_alike(self):
        first = self.report()
        done, project = self.project
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(project["summary"], first["summary"])
        builds = {record["release"]: record for record in project["builds"]}
        built = builds["plain==2.0"]
        self.assertEqual(built["command"][2:4], ["project", os.path.join(
            self.cache, "project", "plain==2.0", "requirements.txt")])
        self.assertFalse(built["cached"])  # its own cache folder, beside the pypi form's
        coverage = built["coverage"]
        self.assertEqual((coverage["source"], coverage["ranking"]["semantic"]), ("pypi", None))
        self.assertEqual(coverage["units"], built["units"])
        self.assertGreater(coverage["api_objects"], 0)
        self.assertIn(f"| plain==2.0 | ok | {built['seconds']:.0f} | {built['units']} | pypi | "
                      f"{coverage['api_objects']} | {coverage['guide_sections']} |  |",
                      done.stdout)
        self.assertFalse(builds["plain==9.9"]["ok"])


def fake_response(hits, evidence):
    search = {"action": {"tool": "search"}, "result": {"results": hits}}
    return {"status": "completed", "reason": "best_matches_read", "usage": {"reads": len(evidence)},
            "trace": [search], "evidence": evidence}


class ScoringTest(unittest.TestCase):

    def setUp(self):
        if not os.path.exists(SCORE):
            self.skipTest("shared/eval/gitchameleon is not beside this checkout")
        self.score = load_score()

    def test_hit_rank_is_the_first_of_the_first_ten_hits_naming_a_target(self):
        hits = [{"title": f"lib.other{n}", "url": f"https://x/api.html#lib.other{n}"}
                for n in range(1, 12)]
        hits[4] = {"title": "Spatial joins", "url": "https://x/api.html#lib.sjoin"}
        hits[10] = {"title": "lib.sjoin", "url": "https://x/api.html#lib.sjoin"}
        response = fake_response(hits, [])
        scored = gitchameleon.score_problem(self.score, ["sjoin"],
                                            {"default": response, "max_reads_8": response})
        self.assertEqual((scored["hit_rank"], scored["hit_ranks"]), (5, [5]))
        self.assertEqual(len(scored["top10"]), 10)
        hits[4] = {"title": "lib.other5", "url": "https://x/api.html#lib.other5"}
        late = fake_response(hits, [])
        scored = gitchameleon.score_problem(self.score, ["sjoin"],
                                            {"default": late, "max_reads_8": late})
        self.assertIsNone(scored["hit_rank"])  # the 11th hit is past the top 10

    def test_evidence_names_or_defines_a_target(self):
        defined = {"title": "guide", "url": "https://x/guide.html#joins",
                   "text": "Some prose.\n\ndef sjoin(left, right):\n    ..."}
        prose = {"title": "guide", "url": "https://x/guide.html#joins", "text": "sjoin joins."}
        scored = gitchameleon.score_problem(self.score, ["sjoin"], {
            "default": fake_response([], [prose]), "max_reads_8": fake_response([], [defined])})
        self.assertFalse(scored["default"]["evidence_hit"])
        self.assertTrue(scored["max_reads_8"]["evidence_hit"])
        self.assertEqual(scored["max_reads_8"]["evidence"][0]["names"], ["sjoin"])

    def test_the_target_name_is_read_as_score_py_reads_it(self):
        for given, name in (("numpy.convolve", "numpy.convolve"), ("sjoin", "sjoin"),
                            (" falcon . Request.media (x)", "falcon.Request.media"),
                            ("torch.nn.Module.to() method", "torch.nn.Module.to"),
                            ("-", None), ("", None)):
            with self.subTest(given):
                self.assertEqual(gitchameleon.target_name({"name_of_class_or_func": given}),
                                 name)

    def test_version_labels_and_distribution_names(self):
        self.assertEqual(gitchameleon.Release("pandas", "2").label, "2.0.0")
        self.assertEqual(gitchameleon.Release("jinja2", "3.1").label, "3.1")
        self.assertEqual(gitchameleon.Release("scikit-learn", "1.2").key, "scikit-learn==1.2")
        self.assertEqual(gitchameleon.Release("pillow", "9.0.0").dist, "Pillow")


if __name__ == "__main__":
    unittest.main()


class _RefusedForm(gitchameleon.SourceForm):
    """A form whose build `retrieval` refuses at once (no --source): exit 2, nothing built."""

    name = "refused"

    def command(self, release, home, out, semantic):
        return ["build", "--out", out]


class BuildCacheTest(unittest.TestCase):

    def test_a_build_another_code_made_is_built_again_even_in_a_cache_given_by_hand(self):
        # A --cache DIR is not keyed by the builder digest as the default cache is: a record
        # of another code's build is no cached build of this code's.
        cache = temporary_directory(self)
        builder = gitchameleon.Builder(cache, _RefusedForm(), None, 120, digest="this")
        release = gitchameleon.Release("plain", "2.0")
        os.makedirs(builder.home(release))
        record_path = os.path.join(builder.home(release), "build.json")
        for digest, cached in (("this", True), ("another", False)):
            with open(record_path, "w", encoding="utf-8") as handle:
                json.dump({"release": release.key, "ok": True, "builder_digest": digest}, handle)
            with self.subTest(digest=digest):
                self.assertEqual(builder.build(release)["cached"], cached)
