"""`retrieval project PATH`, end to end: a requirements file's pins built from their best sources.

The pins are served from a PEP 503/691 index on 127.0.0.1 (tests/test_index_fetch.py's), an
installed environment (tests/package_fixtures.py's site-packages) and a rendered tree named
with --site; the command runs as a user runs it, in a child process. Every pin is in the
coverage table and in project.json, the one that gets nothing included; a re-run reads the
collection cache (the same corpus_id, nothing asked of the index), and --offline uses only it.
The ranking: minilm's re-rank where the semantic extra is installed, else lexical, said either
way; the extra is made missing for one child by a numpy on its path that cannot be imported.
"""

import json
import os
import shutil
import sys
import unittest

from retrieval.core import model
from retrieval.core.snapshot import load_snapshot
from retrieval.testing import subprocess_env
from tests.package_fixtures import INIT, demo_sdist, plain_sdist, write_site_packages
from tests.support import class_temporary_directory, temporary_directory
from tests.test_cli import run
from tests.test_index_fetch import LocalIndex, _bytes, clean_env
from tests.test_minilm import MINILM_DIGEST
from tests.test_minilm import RUN as MINILM_RUN
from tests.test_minilm import SKIP_REASON as MINILM_SKIP_REASON
from tests.test_package_sources import passages

TIER = "server"

REQUIREMENTS = """\
-r base.txt
demo-pkg==1.0 --hash=sha256:0000
envonly==3.1 ; python_version >= "3"
calver==2024.8.30
nowhere==1.0
Plain==2.0
"""


def table(stdout: str) -> dict:
    """{dependency: the rest of its row's cells} of the coverage table on stdout."""
    rows = {}
    for line in stdout.splitlines()[1:-2]:
        cells = line.split(None, 6)
        rows[cells[0]] = cells[1:]
    return rows


class ProjectCommandTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.base = base = class_temporary_directory(cls)
        made = os.path.join(base, "made")
        os.makedirs(made)
        demo, plain = demo_sdist(made), plain_sdist(made)
        cls.index = LocalIndex(cls, {
            "demo-pkg": [(os.path.basename(demo), _bytes(demo), {})],
            "plain": [(os.path.basename(plain), _bytes(plain), {})]})
        cls.project = os.path.join(base, "app")
        os.makedirs(cls.project)
        for name, text in {"requirements.txt": REQUIREMENTS, "base.txt": "base-lib==0.5\n"}.items():
            with open(os.path.join(cls.project, name), "w", encoding="utf-8") as out:
                out.write(text)
        # The environment: envonly at its pin (on no index), demo-pkg at another version.
        cls.env = write_site_packages(os.path.join(base, "site"), {
            "envonly": ("3.1", {"envonly/__init__.py": INIT.replace("demo", "envonly")}),
            "demo-pkg": ("0.9", {"demo/__init__.py": INIT})})
        cls.site = os.path.join(base, "plain-site")
        os.makedirs(cls.site)
        with open(os.path.join(cls.site, "index.md"), "w", encoding="utf-8") as out:
            out.write("# Plain\n\nThe plain library's own guide.\n")
        cls.cache = os.path.join(base, "cache")

    def project_run(self, *flags):
        out = os.path.join(temporary_directory(self), "snapshot")
        env = subprocess_env(**clean_env(PIP_INDEX_URL=self.index.url,
                                         HOME=os.path.join(self.base, "home")))
        done = run([sys.executable, "-m", "retrieval", "project", self.project, "--out", out,
                    "--env", self.env, "--fetch-cache", self.cache, *flags], env=env)
        return done, out

    def test_every_pin_is_built_from_its_best_source_or_listed_with_why_not(self):
        asked = len(self.index.requests)
        done, out = self.project_run("--site", "plain=" + self.site)
        self.assertEqual(done.returncode, 0, done.stderr)
        rows = table(done.stdout)
        self.assertEqual(set(rows), {"base-lib", "calver", "demo-pkg", "envonly", "nowhere",
                                     "plain"})
        self.assertEqual(rows["demo-pkg"][:2], ["1.0", "pypi"])  # its sdist's docs folder
        self.assertIn("drift: installed 0.9", rows["demo-pkg"][-1])
        self.assertEqual(rows["envonly"][:2], ["3.1", "env"])  # on no index: its docstrings
        self.assertIn("pypi: no project envonly", rows["envonly"][-1])
        # The index is asked once: git and crawl read the release from it too, and say so.
        self.assertIn("git: not on the index (see pypi)", rows["envonly"][-1])
        self.assertIn("crawl: not on the index (see pypi)", rows["envonly"][-1])
        self.assertEqual([path for path, _, _ in self.index.requests[asked:]
                          if path.endswith("/envonly/")], ["/simple/envonly/"])
        self.assertEqual(rows["plain"][:2], ["2.0", "site"])  # the site named comes first
        for name in ("nowhere", "base-lib"):
            self.assertEqual(rows[name][1], "none", rows[name])
        self.assertIn("env: not installed", rows["nowhere"][-1])
        self.assertTrue(rows["nowhere"][-1].startswith("drift: not installed; "), rows)
        self.assertEqual(rows["calver"][1], "none")
        if not model.VERSION_PATTERN.fullmatch("2024.8.30"):
            self.assertIn("skipped: version 2024.8.30 is not", rows["calver"][-1])
        self.assertIn("drift: demo-pkg pinned 1.0, installed 0.9", done.stderr)
        # The snapshot: one collection per dependency built, at its pinned version.
        units = passages(out)
        self.assertEqual({collection for collection, _ in units}, {"demo-pkg", "envonly",
                                                                   "plain"})
        self.assertIn(("demo-pkg", "The engine"), units)  # its docs folder, as Sphinx renders it
        corpus_id = done.stdout.splitlines()[-1]
        with open(os.path.join(out, "manifest.json"), encoding="utf-8") as manifest:
            self.assertEqual(json.load(manifest)["corpus_id"], corpus_id)
        with open(os.path.join(out, "project.json"), encoding="utf-8") as document:
            project = json.load(document)
        self.assertEqual((project["project"], project["lockfile"]),
                         (self.project, "requirements.txt"))
        entries = {pin["name"]: pin for pin in project["pins"]}
        self.assertEqual(set(entries), set(rows))
        demo = entries["demo-pkg"]
        self.assertEqual({key: demo[key] for key in ("version", "collection", "import_names",
                                                     "source", "installed")},
                         {"version": "1.0", "collection": "demo-pkg", "import_names": ["demo"],
                          "source": "pypi", "installed": "0.9"})
        self.assertEqual(demo["units"], demo["api_objects"] + demo["guide_sections"])
        self.assertGreater(demo["api_objects"], 0)
        self.assertGreater(demo["guide_sections"], 0)
        self.assertEqual((entries["nowhere"]["collection"], entries["nowhere"]["source"]),
                         (None, None))
        self.assertEqual(entries["envonly"]["import_names"], ["envonly"])
        # The service reads what the command wrote (core/project.py's schema, strictly).
        served = load_snapshot(out).project
        self.assertIsNotNone(served)
        self.assertEqual(served.pin_of("demo-pkg").version, "1.0")
        self.assertEqual(served.pin_of("demo-pkg").installed, "0.9")
        self.assertEqual({pin.name for pin in served.pins}, set(rows))
        self.assertGreater(len(self.index.requests), asked)

        # Again, offline: every collection from the cache, the same snapshot, no index asked.
        asked = len(self.index.requests)
        again, out = self.project_run("--site", "plain=" + self.site, "--offline")
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertEqual(again.stdout.splitlines()[-1], corpus_id)
        rows = table(again.stdout)
        self.assertEqual(rows["demo-pkg"][1:3], ["pypi", "(cached)"])
        self.assertEqual(len(self.index.requests), asked)

        # Without the cache, pypi first: plain from its sdist (docstrings), not the site.
        third, out = self.project_run("--order", "pypi,env", "--no-cache")
        self.assertEqual(third.returncode, 0, third.stderr)
        rows = table(third.stdout)
        self.assertEqual(rows["plain"][:2], ["2.0", "pypi"])
        self.assertNotEqual(third.stdout.splitlines()[-1], corpus_id)

    def test_also_builds_the_upgrade_version_beside_the_pin_which_stays_the_default(self):
        # The environment holds demo-pkg 0.9: the other side of the pinned 1.0, built from it.
        done, out = self.project_run("--site", "plain=" + self.site, "--also", "demo_pkg==0.9")
        self.assertEqual(done.returncode, 0, done.stderr)
        also = next(line for line in done.stdout.splitlines() if line.startswith("demo-pkg (also)"))
        self.assertEqual(also.split()[2:4], ["0.9", "env"])
        snapshot = load_snapshot(out)
        self.assertEqual(snapshot.collections["demo-pkg"].version_names(), ("0.9", "1.0"))
        self.assertEqual(snapshot.pinned_version("demo-pkg"), "1.0")
        diff = run([sys.executable, "-m", "retrieval", "diff", "demo-pkg", "0.9", "1.0",
                    "--snapshot", out, "--json"], env=subprocess_env())
        self.assertEqual(diff.returncode, 0, diff.stderr)
        self.assertEqual(json.loads(diff.stdout)["old_version"], "0.9")
        for wrong, said in (("demo-pkg==1.0", "already built"), ("jinja2==3.0", "pins no"),
                            ("demo-pkg=0.9", "NAME==VERSION")):
            refused, _ = self.project_run("--also", wrong)
            self.assertEqual(refused.returncode, 2)
            self.assertIn(said, refused.stderr)

    def test_also_lock_builds_what_a_target_lockfile_moves(self):
        # The target pins demo-pkg at 0.9 (the environment's), plain as the project does, and
        # a dependency the project does not pin: only demo-pkg's 0.9 is built, beside the pin.
        target = os.path.join(temporary_directory(self), "upgrade")
        os.makedirs(target)
        with open(os.path.join(target, "requirements.txt"), "w", encoding="utf-8") as out:
            out.write("demo-pkg==0.9\nPlain==2.0\nunpinned-here==1.0\n")
        done, out = self.project_run("--site", "plain=" + self.site, "--also-lock", target,
                                     "--also", "Demo_Pkg==0.9")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn(": 1 pin moves (demo-pkg==0.9), 1 the same; not pinned by the project, "
                      "not built: unpinned-here", done.stderr)
        also = [line for line in done.stdout.splitlines() if "(also)" in line]
        self.assertEqual([line.split()[:4] for line in also],
                         [["demo-pkg", "(also)", "0.9", "env"]])
        snapshot = load_snapshot(out)
        self.assertEqual(snapshot.collections["demo-pkg"].version_names(), ("0.9", "1.0"))
        self.assertEqual(snapshot.pinned_version("demo-pkg"), "1.0")
        refused, _ = self.project_run("--also-lock", os.path.join(target, "missing.lock"))
        self.assertEqual(refused.returncode, 2)
        self.assertIn("missing.lock", refused.stderr)

    def test_a_base_url_links_its_pins_pages_there_and_keys_its_cached_collection(self):
        # The pin's sdist docs folder names no site whose versions are known: --base-url
        # NAME/VERSION=URL (what the build's note asks for) links its pages there, and the
        # collection cached without it is another one (nor is the linked one read after).
        site = "https://docs.example/demo/1.0/"
        plain, _ = self.project_run("--order", "pypi", "--lexical")
        linked, out = self.project_run("--order", "pypi", "--lexical",
                                       "--base-url", "Demo_Pkg/1.0=" + site)
        self.assertEqual(linked.returncode, 0, linked.stderr)
        urls = [row[0] for (collection, _), rows in passages(out).items()
                if collection == "demo-pkg" for row in rows]
        # Its pages' units (an object no page documents links to its file in the release).
        self.assertIn(site + "api.html#demo.Engine", urls)
        self.assertNotEqual(linked.stdout.splitlines()[-1], plain.stdout.splitlines()[-1])
        again, out = self.project_run("--order", "pypi", "--lexical")
        self.assertEqual(again.stdout.splitlines()[-1], plain.stdout.splitlines()[-1])
        # An environment's files link under it too (a source browser), as for build's env:.
        browsed, out = self.project_run("--order", "env", "--lexical",
                                        "--base-url", "envonly/3.1=https://src.example/e/")
        self.assertEqual(browsed.returncode, 0, browsed.stderr)
        self.assertTrue(all(row[0].startswith("https://src.example/e/envonly/")
                            for (collection, _), rows in passages(out).items()
                            if collection == "envonly" for row in rows))
        for wrong, said in (("demo-pkg/0.9=" + site, "pins no demo-pkg 0.9"),
                            ("demo-pkg/1.0=https://docs.example/demo", "must end with '/'")):
            refused, _ = self.project_run("--base-url", wrong)
            self.assertEqual(refused.returncode, 2)
            self.assertIn(said, refused.stderr)

    def test_a_project_whose_pins_get_nothing_is_refused_with_the_table(self):
        done, out = self.project_run("--offline", "--order", "pypi", "--no-cache")
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertIn("got any documentation", done.stderr.splitlines()[-1])
        rows = table(done.stdout + "\n")
        self.assertIn("pypi: offline, not in the cache", rows["demo-pkg"][-1])
        self.assertFalse(os.path.exists(out))

    def test_a_group_the_pins_cannot_have_is_refused_before_anything_is_fetched(self):
        asked = len(self.index.requests)
        done, _ = self.project_run("--group", "dev")
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertIn("--group dev: a requirements file has no dependency groups",
                      done.stderr)
        self.assertEqual(len(self.index.requests), asked)

    def test_a_site_for_no_pin_is_refused_before_anything_is_fetched(self):
        asked = len(self.index.requests)
        done, _ = self.project_run("--site", "jinja2=" + self.site)
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertIn("--site jinja2: requirements.txt pins no jinja2", done.stderr)
        self.assertEqual(len(self.index.requests), asked)


class ReleaseCacheTest(unittest.TestCase):
    """A fetched release is kept: a build whose collections are gone reads it, offline too."""

    def test_offline_rebuilds_a_collection_from_its_kept_release(self):
        base = temporary_directory(self)
        demo = demo_sdist(base)
        index = LocalIndex(self, {"demo-pkg": [(os.path.basename(demo), _bytes(demo), {})]})
        project = os.path.join(base, "app")
        os.makedirs(project)
        with open(os.path.join(project, "requirements.txt"), "w", encoding="utf-8") as out:
            out.write("demo-pkg==1.0\n")
        cache = os.path.join(base, "cache")

        def project_run(*flags):
            out = os.path.join(temporary_directory(self), "snapshot")
            env = subprocess_env(**clean_env(PIP_INDEX_URL=index.url,
                                             HOME=os.path.join(base, "home")))
            return run([sys.executable, "-m", "retrieval", "project", project, "--out", out,
                        "--fetch-cache", cache, "--lexical", *flags], env=env)

        first = project_run()
        self.assertEqual(first.returncode, 0, first.stderr)
        asked = len(index.requests)
        self.assertGreater(asked, 0)
        kept = os.path.join(cache, "releases", "demo-pkg", "1.0", os.path.basename(demo))
        with open(kept, "rb") as archive:
            self.assertEqual(archive.read(), _bytes(demo))
        # The collections gone (a new builder's digest), the release is read from the cache.
        shutil.rmtree(os.path.join(cache, "collections"))
        again = project_run("--offline")
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertEqual(table(again.stdout)["demo-pkg"][:2], ["1.0", "pypi"])
        self.assertEqual(again.stdout.splitlines()[-1], first.stdout.splitlines()[-1])
        self.assertEqual(len(index.requests), asked)
        # Neither kept: offline gets nothing, and says so.
        shutil.rmtree(os.path.join(cache, "collections"))
        os.remove(kept)
        gone = project_run("--offline")
        self.assertEqual(gone.returncode, 2, gone.stderr)
        self.assertIn("pypi: offline, and no archive of it is kept in",
                      table(gone.stdout + "\n")["demo-pkg"][-1])
        self.assertEqual(len(index.requests), asked)

    def test_a_release_that_cannot_be_fetched_leaves_nothing_in_the_cache(self):
        # Wheels for Python 2 only. The pin fails with its one line, and the fetch cache keeps
        # no folder of it (nor a partial download).
        base = temporary_directory(self)
        index = LocalIndex(self, {"native": [
            ("native-1.0-cp27-cp27mu-manylinux1_x86_64.whl", b"not read", {})]})
        project = os.path.join(base, "app")
        os.makedirs(project)
        with open(os.path.join(project, "requirements.txt"), "w", encoding="utf-8") as out:
            out.write("native==1.0\n")
        cache = os.path.join(base, "cache")
        env = subprocess_env(**clean_env(PIP_INDEX_URL=index.url,
                                         HOME=os.path.join(base, "home")))
        done = run([sys.executable, "-m", "retrieval", "project", project, "--out",
                    os.path.join(base, "snapshot"), "--fetch-cache", cache, "--lexical",
                    "--order", "pypi"], env=env)
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertNotIn("Traceback", done.stderr)
        self.assertIn("pypi: no sdist and no wheel for Python 3 of it",
                      table(done.stdout + "\n")["native"][-1])
        self.assertEqual([os.path.relpath(os.path.join(where, name), cache)
                          for where, folders, files in os.walk(cache)
                          for name in folders + files], ["releases"])


class RankingTest(unittest.TestCase):
    """Which ranking a project build uses, said on stderr and in project.json."""

    @classmethod
    def setUpClass(cls):
        cls.base = base = class_temporary_directory(cls)
        demo = demo_sdist(base)
        cls.index = LocalIndex(cls, {"demo-pkg": [(os.path.basename(demo), _bytes(demo), {})]})
        cls.project = os.path.join(base, "app")
        os.makedirs(cls.project)
        with open(os.path.join(cls.project, "requirements.txt"), "w", encoding="utf-8") as out:
            out.write("demo-pkg==1.0\n")
        # A numpy that cannot be imported, first on a child's path: the extra, as if missing.
        cls.hidden = os.path.join(base, "hidden")
        os.makedirs(os.path.join(cls.hidden, "numpy"))
        with open(os.path.join(cls.hidden, "numpy", "__init__.py"), "w", encoding="utf-8") as out:
            out.write("raise ImportError(\"No module named 'numpy'\")\n")

    def project_run(self, *flags, without_extra=False, cache="cache"):
        """Run the command; return (it, project.json's ranking, the manifest's policy)."""
        out = os.path.join(temporary_directory(self), "snapshot")
        env = subprocess_env(**clean_env(PIP_INDEX_URL=self.index.url,
                                         HOME=os.path.join(self.base, "home")))
        if without_extra:
            env["PYTHONPATH"] += os.pathsep + self.hidden
        done = run([sys.executable, "-m", "retrieval", "project", self.project, "--out", out,
                    "--fetch-cache", os.path.join(self.base, cache), *flags], env=env)
        if done.returncode != 0:
            return done, None, None
        with open(os.path.join(out, "project.json"), encoding="utf-8") as document:
            ranking = json.load(document)["ranking"]
        with open(os.path.join(out, "manifest.json"), encoding="utf-8") as manifest:
            policy = json.load(manifest)["policy"]
        self.assertIsNotNone(load_snapshot(out).project)  # the service reads what was written
        return done, ranking, policy

    def said(self, done) -> str:
        """The one line of stderr that names the ranking."""
        lines = [line for line in done.stderr.splitlines() if line.startswith("project: ranking")]
        self.assertEqual(len(lines), 1, done.stderr)
        return lines[0]

    @unittest.skipUnless(MINILM_RUN, MINILM_SKIP_REASON)
    def test_with_the_extra_installed_minilm_by_default_and_lexical_when_told(self):
        done, ranking, policy = self.project_run()
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(self.said(done), "project: ranking: fitted re-ranked by minilm (the "
                         "default where the semantic extra is installed; --lexical for none)")
        self.assertEqual((ranking["lexical"], ranking["semantic"]), ("fitted", "minilm"))
        self.assertIn("all-MiniLM-L6-v2", policy["semantic"]["recipe"])

        done, ranking, policy = self.project_run("--lexical")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(self.said(done), "project: ranking: fitted, lexical (--lexical)")
        self.assertEqual(ranking, {"lexical": "fitted", "semantic": None, "why": "--lexical"})
        self.assertNotIn("semantic", policy)

        done, ranking, policy = self.project_run("--semantic", "wordllama", "--ranking", "fielded")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual((ranking["lexical"], ranking["semantic"]), ("fielded", "wordllama"))
        self.assertNotIn("MiniLM", policy["semantic"]["recipe"])

    @unittest.skipUnless(MINILM_RUN, MINILM_SKIP_REASON)
    def test_a_rebuild_reads_the_vectors_it_embedded_and_is_the_same_snapshot(self):
        def embedded(done) -> list:
            return [line for line in done.stderr.splitlines() if "build: embedding" in line]

        first, _, _ = self.project_run(cache="vectors-cache")
        self.assertEqual(first.returncode, 0, first.stderr)
        units = int(embedded(first)[0].split()[2])
        self.assertEqual(embedded(first), [
            f"build: embedding {units} of {units} units' {units} distinct texts, 0 from the "
            f"vector cache (model sha256 {MINILM_DIGEST[:12]})"])
        again, _, _ = self.project_run(cache="vectors-cache")
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertEqual(embedded(again), [])  # every vector from the cache
        self.assertEqual(again.stdout.splitlines()[-1], first.stdout.splitlines()[-1])
        # Without the cache, every unit embedded afresh: the same bytes, the same corpus_id.
        fresh, _, _ = self.project_run("--no-cache", cache="vectors-cache")
        self.assertEqual(fresh.returncode, 0, fresh.stderr)
        self.assertEqual(embedded(fresh), [
            f"build: embedding {units} units (model sha256 {MINILM_DIGEST[:12]})"])
        self.assertEqual(fresh.stdout.splitlines()[-1], first.stdout.splitlines()[-1])

    def test_without_the_extra_a_lexical_build_that_says_why(self):
        done, ranking, policy = self.project_run(without_extra=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("project: ranking: fitted, lexical (--semantic minilm, the default, needs "
                      "the semantic extra, which is not installed (No module named 'numpy'): "
                      "pip install", self.said(done))
        self.assertEqual((ranking["lexical"], ranking["semantic"]), ("fitted", None))
        self.assertIn("semantic extra", ranking["why"])
        self.assertNotIn("semantic", policy)
        # Asked for by name, the re-rank must load: the build fails, with the fix.
        done, _, _ = self.project_run("--semantic", "minilm", without_extra=True)
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertIn("--semantic needs the semantic extra", done.stderr.splitlines()[-1])

    def test_lexical_and_semantic_together_are_refused(self):
        done, _, _ = self.project_run("--lexical", "--semantic")
        self.assertEqual(done.returncode, 2)
        self.assertIn("not allowed with argument", done.stderr)


if __name__ == "__main__":
    unittest.main()
