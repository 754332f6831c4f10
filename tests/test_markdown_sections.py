"""Markdown, MkDocs sources and llms-full.txt are built into one unit per section's own text."""

import io
import os
import shutil
import subprocess
import unittest

from retrieval.ingest.builder import DEFAULT_POLICY, Progress, SourceTree, build_snapshot
from retrieval.ingest.verify import dead_urls
from retrieval.wsgi import create_app
from tests.support import class_temporary_directory, post_json, quiet_settings
from tests.test_html_ingest import built_passages, write_tree

TIER = "server"

BASE = "https://goat.example.org/1.0/"

# The case: a heading passage of its own ("## Configure the herd", 21 bytes) was read
# for "how big is the herd", and the answer under the same URL was dropped as a duplicate place.
HERD = """\
# Goatherd

> Goatherd keeps goats in order.

## Install

Install goatherd with pip.

## Configure the herd

Set `herd_size` in goatherd.toml: the herd holds at most that many goats (default 40).

```toml
herd_size = 40
```

## Feeding

Goats are fed twice a day; the herd is counted at each feeding.

## Logging

Goatherd logs to stderr; set `log_level` to change how much it says.

## Upgrading

Upgrade with pip; the configuration file format is unchanged since 1.0.
"""

MKDOCS_YML = "site_name: Goat\ndocs_dir: pages  # not docs/\n"
INDEX_MD = """\
---
title: Home
---
# Goat

Welcome to goat.

## Setup

Run `goat init`.

## Setup

Run it again to reset.

### Ünïcode -- and  spaces

Names may hold any letter.
"""
INSTALL_MD = """\
# Install

## With pip

```sh
pip install goat

# then check it
goat --version
```

## What's new in `goat` 3.12?

Installing is faster.
"""


def _build(out, *trees):
    build_snapshot(list(trees), out, DEFAULT_POLICY, Progress(io.StringIO()))
    return built_passages(out)


class LlmsFullSectionsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        base = class_temporary_directory(cls)
        write_tree(base, {"src/llms-full.txt": HERD})
        cls.out = os.path.join(base, "snapshot")
        cls.passages = _build(cls.out, SourceTree("1.0", os.path.join(base, "src", "llms-full.txt"),
                                                  BASE))

    def test_the_question_reads_the_section_that_answers(self):
        app = create_app(snapshot_path=self.out, settings=quiet_settings())
        self.addCleanup(app.close)
        reply = post_json(app, {"question": "how big is the herd", "version": "1.0"})
        self.assertEqual(reply.code, 200, reply.body)
        first = reply.json()["evidence"][0]
        self.assertEqual(first["url"], BASE + "llms-full.txt#configure-the-herd")
        self.assertIn("at most that many goats", first["text"])

    def test_no_heading_is_a_unit_alone_and_fences_stay_whole(self):
        texts = [row[4] for row in self.passages.values()]
        self.assertFalse([text for text in texts if text.startswith("#") and "\n" not in text])
        section = self.passages[BASE + "llms-full.txt#configure-the-herd"]
        self.assertEqual(section[2:4], (9, 15))
        self.assertTrue(section[4].endswith("```toml\nherd_size = 40\n```"))
        self.assertEqual(section[5], "Configure the herd")


class MkDocsSourcesTest(unittest.TestCase):
    """An MkDocs project's Markdown, published as MkDocs publishes it (directory URLs, toc ids)."""

    @classmethod
    def setUpClass(cls):
        cls.base = class_temporary_directory(cls)
        cls.project = os.path.join(cls.base, "project")
        write_tree(cls.project, {"mkdocs.yml": MKDOCS_YML, "pages/index.md": INDEX_MD,
                             "pages/guide/install.md": INSTALL_MD,
                             "pages/notes.txt": "Not a page for MkDocs.\n",
                             "README.md": "# The repository's own readme\n\nNot the docs.\n"})
        cls.passages = _build(os.path.join(cls.base, "snapshot"),
                              SourceTree("1.0", cls.project, BASE))

    def test_units_are_sections_under_mkdocs_urls_and_ids(self):
        self.assertEqual(sorted(self.passages), [
            BASE + "#goat", BASE + "#setup", BASE + "#setup_1", BASE + "#unicode-and-spaces",
            BASE + "guide/install/#whats-new-in-goat-312", BASE + "guide/install/#with-pip"])
        self.assertEqual(self.passages[BASE + "#goat"][0], "index.md")
        self.assertEqual(self.passages[BASE + "#goat"][2:5], (4, 6, "# Goat\n\nWelcome to goat."))
        self.assertEqual(self.passages[BASE + "guide/install/#with-pip"][4],
                         "## With pip\n\n```sh\npip install goat\n\n# then check it\n"
                         "goat --version\n```")

    def test_the_docs_dir_named_alone_reads_the_same(self):
        passages = _build(os.path.join(self.base, "alone"),
                          SourceTree("1.0", os.path.join(self.project, "pages"), BASE))
        self.assertEqual(passages, self.passages)

    def test_every_url_lands_on_the_site_mkdocs_renders(self):
        site = render(self, self.project)
        self.assertEqual(dead_urls(os.path.join(self.base, "snapshot"), site), [])

    def test_attr_list_ids_where_the_project_enables_them(self):
        project = os.path.join(self.base, "attr-list")
        write_tree(project, {
            "mkdocs.yml": "site_name: Goat\nmarkdown_extensions:\n  - toc:\n      permalink: true"
                          "\n  - attr_list\n",
            "docs/index.md": "# Goat {#top}\n\nWelcome.\n\n## Feed {: #feeding .big}\n\nHay.\n"})
        out = os.path.join(self.base, "attr-list-snapshot")
        passages = _build(out, SourceTree("1.0", project, BASE))
        self.assertEqual(sorted(passages), [BASE + "#feeding", BASE + "#top"])
        self.assertEqual(dead_urls(out, render(self, project)), [])


def render(test, project: str) -> str:
    """Return the site MkDocs renders from a project (the test is skipped without mkdocs)."""
    mkdocs = shutil.which("mkdocs")
    if mkdocs is None:
        if os.environ.get("CI"):
            test.fail("mkdocs is not installed and CI is set (apt-get install mkdocs)")
        test.skipTest("mkdocs is not installed (apt-get install mkdocs)")
    site = os.path.join(project, "site")
    subprocess.run([mkdocs, "build", "-q", "-f", os.path.join(project, "mkdocs.yml"), "-d", site],
                   check=True, capture_output=True, timeout=120)
    return site


if __name__ == "__main__":
    unittest.main()
