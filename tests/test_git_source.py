"""`--source NAME/VERSION=git+URL@REF[#PATH]`: a repository made here, cloned shallow at a ref."""

import json
import os
import subprocess
import sys
import unittest

from retrieval.ingest.sources.git import remote_tags
from tests.support import class_temporary_directory, temporary_directory
from tests.test_crawl import run_build
from tests.test_html_ingest import built_passages, write_tree
from tests.test_markdown_sections import INDEX_MD, INSTALL_MD, MKDOCS_YML

TIER = "server"

BASE = "https://goat.example.org/1.0/"
GIT_IDENTITY = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
                "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}


def git(repo, *args) -> str:
    done = subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True,
                          env={**os.environ, **GIT_IDENTITY})
    return done.stdout.strip()


def make_repo(root, files) -> str:
    """Write files into a new repository, commit them and return the commit id."""
    write_tree(root, files)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "docs")
    return git(root, "rev-parse", "HEAD")


class GitSourceTest(unittest.TestCase):
    """An MkDocs project at tag v1.0, and a later commit the build must not read."""

    @classmethod
    def setUpClass(cls):
        base = class_temporary_directory(cls)
        cls.repo = os.path.join(base, "repo")
        cls.tagged = make_repo(cls.repo, {"mkdocs.yml": MKDOCS_YML, "pages/index.md": INDEX_MD,
                                          "pages/guide/install.md": INSTALL_MD,
                                          "README.md": "# Goat\n\nThe repository's readme.\n",
                                          "manual/intro.md": "# Manual\n\nA second folder.\n"})
        git(cls.repo, "tag", "v1.0")
        write_tree(cls.repo, {"pages/index.md": INDEX_MD.replace("Welcome", "Later")})
        git(cls.repo, "commit", "-q", "-am", "later")
        cls.url = "file://" + cls.repo
        cls.cache = os.path.join(base, "cache")

    def build(self, source, *extra):
        out = os.path.join(temporary_directory(self), "snapshot")
        code, err = run_build("--source", f"goat/1.0={source}", "--base-url", f"goat/1.0={BASE}",
                              "--fetch-cache", self.cache, "--out", out, *extra)
        self.assertEqual(code, 0, err)
        return out

    def test_the_tag_builds_into_mkdocs_section_units(self):
        out = self.build(f"git+{self.url}@v1.0")
        passages = built_passages(out)
        self.assertEqual(sorted(passages), [
            BASE + "#goat", BASE + "#setup", BASE + "#setup_1", BASE + "#unicode-and-spaces",
            BASE + "guide/install/#whats-new-in-goat-312", BASE + "guide/install/#with-pip"])
        self.assertEqual(passages[BASE + "#goat"][4], "# Goat\n\nWelcome to goat.")
        with open(os.path.join(out, "provenance.json"), encoding="utf-8") as f:
            provenance = json.load(f)["goat/1.0"]
        self.assertEqual(provenance, {"kind": "git", "url": self.url, "ref": "v1.0",
                                      "commit": self.tagged, "path": "pages"})

    def test_a_commit_id_and_a_path_after_the_hash(self):
        passages = built_passages(self.build(f"git+{self.url}@{self.tagged}#manual"))
        self.assertEqual(list(passages), [BASE + "intro.html#manual"])

    def test_the_branch_head_is_read_at_its_own_commit(self):
        branch = git(self.repo, "rev-parse", "--abbrev-ref", "HEAD")
        passages = built_passages(self.build(f"git+{self.url}@{branch}"))
        self.assertEqual(passages[BASE + "#goat"][4], "# Goat\n\nLater to goat.")

    def test_a_ref_that_does_not_exist(self):
        out = os.path.join(temporary_directory(self), "snapshot")
        code, err = run_build("--source", f"1.0=git+{self.url}@v9.9", "--base-url",
                              f"1.0={BASE}", "--fetch-cache", self.cache, "--out", out)
        self.assertEqual(code, 2)
        self.assertRegex(err[-1], r"^retrieval: git\+file://\S+@v9\.9: git fetch failed: .*v9\.9")
        self.assertFalse(os.path.exists(out))

    def test_tags_are_listed_before_the_fetch_cache_exists(self):
        # A project's first run lists a release's tags before anything made the fetch cache.
        where = os.path.join(temporary_directory(self), "not", "made", "yet")
        self.assertIn("v1.0", remote_tags(self.url, f"git+{self.url}", where))

    def test_a_source_without_a_ref(self):
        code, err = run_build("--source", f"1.0=git+{self.url}", "--base-url", f"1.0={BASE}",
                              "--out", os.path.join(temporary_directory(self), "snapshot"))
        self.assertEqual((code, len(err)), (2, 1))
        self.assertIn("give git+URL@REF", err[0])


class DocsFolderTest(unittest.TestCase):
    def refused(self, files, source_suffix="") -> str:
        repo = os.path.join(temporary_directory(self), "repo")
        make_repo(repo, files)
        out = os.path.join(temporary_directory(self), "snapshot")
        code, err = run_build("--source", f"1.0=git+file://{repo}@HEAD{source_suffix}",
                              "--base-url", f"1.0={BASE}", "--out", out, "--fetch-cache",
                              os.path.join(temporary_directory(self), "cache"))
        self.assertEqual(code, 2, err)
        self.assertFalse(os.path.exists(out))
        return err[-1]

    def test_docs_then_doc(self):
        repo = os.path.join(temporary_directory(self), "repo")
        make_repo(repo, {"doc/usage.md": "# Usage\n\nRun goat.\n", "notes.md": "# Not docs\n\nx\n"})
        out = os.path.join(temporary_directory(self), "snapshot")
        code, err = run_build("--source", f"1.0=git+file://{repo}@HEAD", "--base-url",
                              f"1.0={BASE}", "--out", out, "--fetch-cache",
                              os.path.join(temporary_directory(self), "cache"))
        self.assertEqual(code, 0, err)
        self.assertEqual(list(built_passages(out)), [BASE + "usage.html#usage"])

    def test_no_documentation_folder(self):
        self.assertIn("no documentation folder", self.refused({"src/a.py": "x = 1\n"}))

    def test_a_path_the_repository_lacks(self):
        self.assertIn("the repository has no site", self.refused({"docs/a.md": "# A\n\nx\n"},
                                                                 "#site"))

    def test_a_path_outside_the_repository(self):
        self.assertIn("must be a relative path inside", self.refused({"docs/a.md": "# A\n\nx\n"},
                                                                     "#../x"))


class GitMissingTest(unittest.TestCase):
    def test_one_line_says_git_is_needed(self):
        empty = temporary_directory(self)  # a PATH with no git on it
        done = subprocess.run(
            [sys.executable, "-m", "retrieval", "build", "--source", "1.0=git+file:///x@v1",
             "--base-url", f"1.0={BASE}", "--out", os.path.join(empty, "out"), "--fetch-cache",
             os.path.join(empty, "cache")], capture_output=True, text=True,
            env={**os.environ, "PATH": empty}, timeout=60)
        self.assertEqual(done.returncode, 2)
        self.assertEqual(done.stderr.splitlines(), [
            "retrieval: git+file:///x@v1: needs the git program, which is not installed "
            "(apt-get install git)"])


if __name__ == "__main__":
    unittest.main()
