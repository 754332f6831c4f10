"""`retrieval build --source pypi:...` and `env:...` as a user runs them, with no package index.

The builder reads pip's configuration as pip does and is pointed at a find-links directory of
releases this test writes (PIP_NO_INDEX, PIP_FIND_LINKS, and PIP_CONFIG_FILE so that no
configuration of this machine adds an index); tests/test_index_fetch.py serves an index.
"""

import hashlib
import json
import os
import sqlite3
import sys
import unittest
from pathlib import Path

from retrieval.core.snapshot import load_snapshot
from retrieval.ingest.sources.unpack import unpack
from retrieval.testing import subprocess_env
from retrieval.wsgi import create_app
from tests.package_fixtures import (
    API_RST,
    CORE,
    INIT,
    PYPROJECT,
    demo_sdist,
    plain_sdist,
    write_sdist,
    write_site_packages,
    write_wheel,
)
from tests.support import (
    ROOT,
    call,
    class_temporary_directory,
    post_json,
    quiet_settings,
    temporary_directory,
)
from tests.support.sites import Route, Site
from tests.test_cli import one_line_refusal, run
from tests.test_site_inventory import inventory

TIER = "server"

DOCS = "https://demo.example/docs/"
MKDOCS_VIEWS = """# Views

Views take a request.

## Returning JSON

Return a Response with a dict:

    return Response({"ok": True})

## Errors

Raise an exception.
"""
READABLE_GUIDE = """# Readable

Read it all.

## Usage

Call `readable.go()` to go.
"""
PARTIAL_INIT = '''"""Partial: a package whose docs describe some of it."""
from .core import any_true, some_true

__all__ = ["any_true", "some_true"]
'''
PARTIAL_CORE = '''"""Truth tests."""


def any_true(values):
    """Tell whether any value is true."""


def some_true(values):
    """Tell whether some value is true.

    .. deprecated:: 1.0
       Use any_true.
    """


def _helper():
    """Not public."""
'''


BASEKIT_WRAPPERS = '''"""Wrappers."""


class Request:
    """A base request."""

    #: The charset of VERSION.
    charset = "utf-8"

    origin = header_property("Origin", doc="""The host that the request
    originated from.""")

    def get_data(self):
        """Read the body of VERSION."""
'''
WEBAPP_INIT = '''"""Webapp."""

from basekit.wrappers import Request as RequestBase
from solo import Thing


class Request(RequestBase):
    """The request of webapp."""

    def own(self):
        """Do what only webapp's request does."""


class Other(Thing):
    """Derives from a class of a release that no version is required of."""
'''
WEBAPP_API = """API
===

.. autoclass:: webapp.Request
   :members:
   :inherited-members:

.. autoclass:: webapp.Other
   :members:
   :inherited-members:
"""


def passages(out: str) -> dict:
    """Return {(collection, title): [(url, source_id, start, end, text, sha256, names)]}."""
    conn = sqlite3.connect(os.path.join(out, "passages.sqlite"))
    try:
        found = {}
        for row in conn.execute(
                "SELECT p.collection, p.title, p.url, p.source_id, p.start_line, p.end_line, "
                "p.text, p.source_sha256, x.names FROM passages p "
                "JOIN passage_fields x ON x.id = p.id ORDER BY p.id"):
            found.setdefault(row[:2], []).append(row[2:])
        return found
    finally:
        conn.close()


def facts(out: str, fact: str) -> dict:
    """Return {title: a ranking fact} of a built snapshot's passages (the last of a title)."""
    conn = sqlite3.connect(os.path.join(out, "passages.sqlite"))
    try:
        return dict(conn.execute(f"SELECT p.title, i.{fact} FROM passages p "
                                 "JOIN passage_facts i ON i.id = p.id"))
    finally:
        conn.close()


def _herd_paragraph(number: int) -> str:
    return (f"    Paragraph {number}: the herd grazes each pasture in turn, and a goat that "
            "strays is counted again at dusk.\n") * 4


# One function whose docstring (about 3 KiB) the builder cuts in pieces, every one of which
# holds the words "herd" and "pasture"; and a short one beside it.
LONGDOC = ('"""Goats."""\n\n\ndef graze(herd):\n    """Graze a herd.\n\n'
           + "\n".join(_herd_paragraph(number) for number in range(8))
           + '    """\n\n\ndef milk(herd):\n    """Milk a herd that came back from pasture."""\n')


class PackageSourcesTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        base = class_temporary_directory(cls)
        cls.links = os.path.join(base, "links")
        os.makedirs(cls.links)
        cls.demo = demo_sdist(cls.links, DOCS.rstrip("/"))
        cls.plain = plain_sdist(cls.links)
        write_wheel(cls.links, "wheelonly", "3.0", {
            "wheelonly/__init__.py": '"""Only a wheel."""\n\n\ndef spin(times):\n'
                                     '    """Spin that many times."""\n'})
        write_sdist(cls.links, "partial", "1.0", {
            "docs/conf.py": "project = 'partial'\n",
            "docs/index.rst": "Partial\n=======\n\n.. autofunction:: partial.any_true\n\n"
                              "See :func:`partial.some_true`.\n",
            "partial/__init__.py": PARTIAL_INIT, "partial/core.py": PARTIAL_CORE,
            "README.md": "# Partial\n\nSaid again by the docs folder's pages.\n"})
        # Without a docs folder, the release's description (its README, the index's page of
        # it) is its guide: the readme pyproject.toml names, in the markup it declares; a
        # C extension's README alone (ujson); a wheel's METADATA body.
        write_sdist(cls.links, "readable", "1.0", {
            "pyproject.toml": PYPROJECT + '\n[project]\nname = "readable"\nreadme = '
                              '{file = "GUIDE.txt", content-type = "text/markdown"}\n',
            "GUIDE.txt": READABLE_GUIDE,
            "README.rst": "Not this\n========\n\nThe configuration names another.\n",
            "readable/__init__.py": '"""Readable."""\n\n\ndef go():\n    """Go."""\n'})
        write_sdist(cls.links, "cext", "1.0", {
            "cext.c": "int main;\n",
            "README.rst": "Cext\n====\n\nFast JSON.\n\nInstall\n-------\n\nFrom pip\n~~~~~~~~\n\n"
                          "Run pip.\n\nUsage\n-----\n\nCall dumps::\n\n    cext.dumps(data)\n"})
        write_sdist(cls.links, "badged", "1.0", {
            "badged.py": '"""Badged."""\n',
            "README.md": "[![PyPI](https://img.example/b.svg)](https://pypi.example/b)\n\n"
                         "Badged does things.\n\n## Compatibility\n\nWorks everywhere.\n"})
        write_wheel(cls.links, "described", "1.0", {"described/__init__.py": '"""Described."""\n'},
                    description="# Described\n\nIntro.\n\n## Options\n\nSet `indent`.\n")
        # No README in the sdist: PKG-INFO's body is the index's page.
        write_sdist(cls.links, "blurb", "1.0", {"blurb.py": '"""Blurb."""\n'},
                    description="# Blurb\n\nShort.\n\n## Use\n\nUse it.\n")
        # nltk's case: the docs are web/ (a Sphinx project), beside a tools folder with a
        # conf.py of its own and a package with a conf module.
        write_sdist(cls.links, "webdocs", "1.0", {
            "web/conf.py": "project = 'webdocs'\n",
            "web/index.rst": "Webdocs\n=======\n\n.. autofunction:: webdocs.spin\n",
            "web/guide.rst": "Guide\n=====\n\nSpin the wheel gently.\n",
            "tools/conf.py": "project = 'tools'\n", "tools/index.rst": "Tools\n=====\n",
            "scratch/conf.py": "project = 'scratch'\n",
            "webdocs/__init__.py": '"""Webdocs."""\n\n\ndef spin(times):\n'
                                   '    """Spin that many times."""\n',
            "webdocs/conf.py": '"""Settings."""\n'})
        # A conf.py over --max-file-bytes, naming its published site.
        write_sdist(cls.links, "bigconf", "1.0", {
            "docs/conf.py": "html_baseurl = 'https://bigconf.example/en/1.0/'\n"
                            + "# padding\n" * 200,
            "docs/index.rst": "Bigconf\n=======\n\nSpin the wheel.\n",
            "bigconf/__init__.py": '"""Bigconf."""\n'})
        write_sdist(cls.links, "nomodule", "1.0", {
            "docs/conf.py": "", "docs/api.rst": "API\n===\n\n.. autofunction:: nomodule.f\n"})
        write_sdist(cls.links, "mkdoc", "1.0", {
            "mkdocs.yml": "site_name: Mkdoc\n", "mkdoc/__init__.py": '"""Mkdoc."""\n',
            "docs/index.md": "# Mkdoc\n\nWelcome.\n", "docs/api-guide/views.md": MKDOCS_VIEWS})
        # FastAPI's case: one MkDocs site per language, each LANG/mkdocs.yml extending en's.
        write_sdist(cls.links, "polyglot", "1.0", {
            "polyglot/__init__.py": '"""Polyglot."""\n',
            "docs/en/mkdocs.yml": "INHERIT: ../en/mkdocs.base.yml\nsite_name: Polyglot\n",
            "docs/en/mkdocs.base.yml": "theme:\n  language: en\n",
            "docs/en/docs/index.md": "# Polyglot\n\nWelcome.\n",
            "docs/en/docs/tutorial.md": "# Tutorial\n\nFirst steps.\n",
            "docs/de/mkdocs.yml": "INHERIT: ../en/mkdocs.yml\n",
            "docs/de/docs/index.md": "# Polyglott\n\nWillkommen.\n",
            "docs/es/mkdocs.yml": "INHERIT: ../en/mkdocs.yml\n",
            "docs/es/docs/tutorial.md": "# Tutorial\n\nPrimeros pasos.\n"})
        # astroquery 0.4.6's case: the sdist bundles a build helper's sdist, egg-info and all.
        write_sdist(cls.links, "bundler", "1.0", {
            "helpers/helpers.egg-info/top_level.txt": "helpers\n",
            "helpers/helpers/__init__.py": '"""Build helpers."""\n',
            "bundler/__init__.py": '"""Bundler."""\n\n\ndef run(times):\n'
                                   '    """Run that many times."""\n'})
        write_wheel(cls.links, "longdoc", "1.0", {"longdoc/__init__.py": LONGDOC})
        # torch's case: no sdist, no pure wheel; a compiled library beside the Python files.
        write_wheel(cls.links, "native", "1.0", {
            "native/__init__.py": '"""Native."""\n\nfrom ._core import fast\n\n\n'
                                  'def slow(times):\n    """Go slowly that many times."""\n',
            "native/_core.cpython-311-x86_64-linux-gnu.so": b"\x7fELF never loaded"},
            tag="cp311-cp311-manylinux_2_17_x86_64")
        # Flask's case: a class of the release documents the members of its base, which a
        # release it requires defines (two versions on the index: the lowest required is read).
        for version in ("2.0", "3.0"):
            write_sdist(cls.links, "basekit", version, {
                "basekit/__init__.py": '"""Basekit."""\n',
                "basekit/wrappers.py": BASEKIT_WRAPPERS.replace("VERSION", version)})
        write_sdist(cls.links, "webapp", "1.0", {
            "webapp.egg-info/requires.txt": "basekit >= 2.0\nsolo\n\n[extra]\nother>=1\n",
            "webapp/__init__.py": WEBAPP_INIT,
            "docs/conf.py": "project = 'webapp'\n", "docs/api.rst": WEBAPP_API})
        with open(os.path.join(cls.links, "damaged-4.0.tar.gz"), "wb") as out:
            out.write(b"\x1f\x8b this is no gzip stream")

    def build(self, *sources, links=True, extra=()):
        out = os.path.join(temporary_directory(self), "snapshot")
        env = subprocess_env(PIP_CONFIG_FILE=os.devnull, PIP_NO_INDEX="1",
                             PIP_FIND_LINKS=self.links if links else "")
        command = [sys.executable, "-m", "retrieval", "build", "--out", out, *extra]
        for source in sources:
            command += ["--source", source]
        return run(command, env=env, cwd=ROOT), out

    def built(self, *sources, **options):
        done, out = self.build(*sources, **options)
        self.assertEqual(done.returncode, 0, done.stderr)
        verified = run([sys.executable, "-m", "retrieval", "verify", out])
        self.assertEqual(verified.stdout.splitlines()[-1], "verified", verified.stdout)
        return done, out

    # -- pypi: with a docs folder -----------------------------------------------------------

    def test_a_docs_folder_gets_its_autodoc_directives_from_the_package_source(self):
        done, out = self.built("pypi:demo-pkg==1.0", extra=["--base-url", f"demo-pkg/1.0={DOCS}"])
        units = passages(out)
        [(url, source_id, start, end, text, sha256, names)] = units[
            "demo-pkg", "demo.Engine.register_job"]
        # The page and the id Sphinx gives the object, on the release's Documentation URL.
        self.assertEqual(url, DOCS + "api.html#demo.Engine.register_job")
        self.assertEqual(source_id, "src/demo/core.py")
        self.assertEqual(text, "\n".join(CORE.split("\n")[start - 1:end]))
        self.assertIn("Register a job to run when the engine starts.", text)
        self.assertEqual(sha256, hashlib.sha256(CORE.encode()).hexdigest())
        self.assertEqual(names.split(), ["demo.Engine.register_job",
                                         "demo.core.Engine.register_job"])
        titles = [title for collection, title in units if collection == "demo-pkg"]
        self.assertEqual([t for t in titles if t.startswith("demo")], [
            "demo.Engine", "demo.Engine.retries", "demo.Engine.name", "demo.Engine.register_job",
            "demo.make_engine", "demo.DEFAULT_SIZE", "demo.core.EngineError", "demo.Engine.stop",
            "demo.core", "demo"])
        # Documented twice (autofunction, then automodule :members:): one passage, both names.
        self.assertEqual(units["demo-pkg", "demo.make_engine"][0][-1].split(),
                         ["demo.make_engine", "demo.core.make_engine"])
        # The directives themselves are no passage; the page's prose and the Markdown are.
        texts = [row[4] for rows in units.values() for row in rows]
        self.assertFalse(any(".. auto" in text for text in texts))
        # conf.py names no Markdown parser: Sphinx publishes no page of guide.md.
        self.assertFalse(any(row[1] == "docs/guide.md" for rows in units.values() for row in rows))
        # Each section is one unit at its id: its title and its own text; but on a page
        # autodoc fills, one rendering its title alone ("API", then a `currentmodule`) is
        # none: its objects and subsections, indexed in its context, say it all.
        self.assertNotIn(("demo-pkg", "API"), units)
        [(url, source_id, start, end, text, _, _)] = units["demo-pkg", "The engine"]
        self.assertEqual((url, source_id, start, text), (
            DOCS + "api.html#the-engine", "docs/api.rst", 6, "\n".join(API_RST.split("\n")[5:7])))
        # Served, a question about it reads it first.
        app = create_app(snapshot_path=out, settings=quiet_settings())
        self.addCleanup(app.close)
        reply = post_json(app, {"question": "register a job to run when the engine starts",
                                "version": "1.0", "collection": "demo-pkg"})
        self.assertEqual(reply.code, 200, reply.body)
        self.assertEqual(reply.json()["evidence"][0]["url"],
                         DOCS + "api.html#demo.Engine.register_job")
        # The docs' own cross-references are the in-link prior's links.
        in_links = facts(out, "in_links")
        self.assertEqual((in_links["demo.Engine.register_job"], in_links["demo.make_engine"],
                          in_links["demo.Engine.stop"]), (1, 1, 0))
        # The missing object and the module that does not parse: skipped, counted, not fatal.
        self.assertIn("build: skipped demo-pkg/1.0/docs/api.rst:21: autoclass Missing: the "
                      "package source defines no such object", done.stderr)
        self.assertIn("build: skipped demo-pkg/1.0/src/demo/broken.py: syntax error (line 3)",
                      done.stderr)
        self.assertIn("(2 skipped)", done.stderr)

    def test_the_egg_info_of_a_distribution_an_sdist_bundles_names_none_of_its_code(self):
        _, out = self.built("pypi:bundler==1.0")
        titles = {title for _, title in passages(out)}
        self.assertIn("bundler.run", titles)
        self.assertFalse([title for title in titles if title.startswith("helpers")], titles)

    def test_a_markdown_docs_folder_gives_its_sections_not_paragraphs(self):
        # An MkDocs docs folder: each section one unit, its heading and prose together, at the
        # page MkDocs publishes (`page/`) and its heading's id where the site is given...
        _, out = self.built("pypi:mkdoc==1.0", extra=["--base-url", f"mkdoc/1.0={DOCS}"])
        units = passages(out)
        [(url, source_id, start, end, text, _, _)] = units["mkdoc", "Returning JSON"]
        self.assertEqual((url, source_id, start, end), (
            DOCS + "api-guide/views/#returning-json", "docs/api-guide/views.md", 5, 9))
        self.assertEqual(text, "\n".join(MKDOCS_VIEWS.split("\n")[4:9]))
        # ... else at its file's lines.
        _, out = self.built("pypi:mkdoc==1.0")
        [(url, *_)] = passages(out)["mkdoc", "Returning JSON"]
        self.assertEqual(url, "pypi:mkdoc==1.0/docs/api-guide/views.md#L5-L9")

    def test_of_one_mkdocs_site_per_language_the_base_one_is_read(self):
        # Each translation is a site of its own, extending the base config (MkDocs' INHERIT):
        # the base project's pages are the docs, as published at the site's root.
        done, out = self.built("pypi:polyglot==1.0",
                               extra=["--base-url", f"polyglot/1.0={DOCS}"])
        self.assertIn("docs/en/docs/ with autodoc", done.stderr)
        self.assertIn("build: polyglot/1.0: docs/ holds an MkDocs site per language: "
                      "docs/en/docs/ read, its translations not (de, es)", done.stderr)
        units = passages(out)
        titles = sorted(title for collection, title in units if collection == "polyglot")
        self.assertEqual(titles, ["Polyglot", "Tutorial", "polyglot"])  # and its module
        [(url, source_id, *_)] = units["polyglot", "Tutorial"]
        self.assertEqual((url, source_id),
                         (DOCS + "tutorial/#tutorial", "docs/en/docs/tutorial.md"))

    def test_the_public_objects_no_page_documents_follow_the_pages_at_their_lines(self):
        done, out = self.built("pypi:partial==1.0",
                               extra=["--base-url", f"partial/1.0={DOCS}"])
        units = passages(out)
        # Documented by a page: there, once.
        self.assertEqual([row[0] for row in units["partial", "partial.any_true"]],
                         [DOCS + "index.html#partial.any_true"])
        # Public, described by its docstring alone (numpy's deprecated `sometrue`): a unit of
        # its lines, at the file (no page of the site has it), under every name it has.
        [(url, source_id, start, end, text, _, names)] = units["partial", "partial.some_true"]
        self.assertEqual((url, source_id), (f"pypi:partial==1.0/partial/core.py#L{start}-L{end}",
                                            "partial/core.py"))
        self.assertEqual(text, "\n".join(PARTIAL_CORE.split("\n")[start - 1:end]))
        self.assertEqual(names.split(), ["partial.some_true", "partial.core.some_true"])
        self.assertIn(("partial", "partial.core"), units)  # a public module's docstring
        self.assertNotIn(("partial", "partial.core._helper"), units)  # private: never
        self.assertIn("build: partial/1.0: 3 public objects the docs do not describe added "
                      "from docstrings", done.stderr)
        self.assertRegex(done.stderr.splitlines()[-1], "; 1 of 1 autodoc directives resolved in ")
        noindex = facts(out, "noindex")
        # Out of the index of objects, as internals are: the pages' descriptions rank first.
        self.assertEqual((noindex["partial.any_true"], noindex["partial.some_true"]), (0, 1))
        # Nor do their words decide which of the docs' words are common (more than 15 % of
        # the units: "truth", in one unit of five, would be; of the two indexed, none holds it).
        common = load_snapshot(out).collections["partial"].common_terms["1.0"]
        self.assertIn("partial", common)
        self.assertFalse({"truth", "tests"} & common, common)
        app = create_app(snapshot_path=out, settings=quiet_settings())
        self.addCleanup(app.close)
        for question, first in (("is some_true deprecated", url),
                                ("tell whether some value is true",
                                 DOCS + "index.html#partial.any_true")):
            reply = post_json(app, {"question": question, "version": "1.0",
                                    "collection": "partial"})
            self.assertEqual(reply.code, 200, reply.body)
            self.assertEqual(reply.json()["evidence"][0]["url"], first, question)

    def test_a_sphinx_project_under_another_name_is_the_docs_folder(self):
        # nltk's web/: not docs/, doc/ or Doc/, yet the top-level folder holding a Sphinx
        # project (conf.py beside its root document); not a package's folder, not tooling
        # (tools/), not a conf.py without pages (scratch/).
        done, out = self.built("pypi:webdocs==1.0")
        self.assertIn("build: webdocs/1.0: webdocs-1.0.tar.gz: web/ with autodoc\n", done.stderr)
        units = passages(out)
        [(url, source_id, *_)] = units["webdocs", "webdocs.spin"]
        self.assertEqual(source_id, "webdocs/__init__.py")
        self.assertIn(("webdocs", "Guide"), units)
        self.assertNotIn(("webdocs", "Tools"), units)

    def test_a_conf_py_over_the_cap_is_read_as_absent_for_its_site_too(self):
        # The pages are read without it (Sphinx's defaults); the site it names is not taken
        # from it either: one reading of conf.py for the whole build.
        done, out = self.built("pypi:bigconf==1.0", extra=["--max-file-bytes", "1000"])
        [(url, *_)] = passages(out)["bigconf", "Bigconf"]
        self.assertEqual(url, "pypi:bigconf==1.0/docs/index.rst#L1-L4")
        done, out = self.built("pypi:bigconf==1.0")
        [(url, *_)] = passages(out)["bigconf", "Bigconf"]
        self.assertEqual(url, "https://bigconf.example/en/1.0/index.html#bigconf")

    def test_docs_with_autodoc_directives_and_no_api_object_at_all_are_refused(self):
        done, out = self.build("pypi:nomodule==1.0")
        # After its progress lines, one line says why; exit status 2, nothing built.
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertEqual(done.stderr.splitlines()[-1], (
            "retrieval: nomodule/1.0: cannot be read: its docs have 1 autodoc directive, yet "
            "neither they nor its docstrings give an API object (no public module of the "
            "package was read)"))
        self.assertNotIn("Traceback", done.stderr)
        self.assertFalse(os.path.exists(os.path.join(out, "passages.sqlite")))

    # -- pypi: docstrings alone -------------------------------------------------------------

    def test_without_docs_the_api_reference_links_to_file_lines_that_verify_checks(self):
        # A site with no objects.inv (sources/site_inventory.py): no place of it is known.
        site = Path(temporary_directory(self)).as_uri() + "/"
        done, out = self.built("pypi:plain==2.0", "pypi:wheelonly==3.0",
                               extra=["--base-url", f"wheelonly/3.0={site}"])
        units = passages(out)
        # Under the name users import it by, with the name where it is defined.
        [(url, source_id, start, end, text, _, names)] = units["plain", "plain.Engine.stop"]
        self.assertEqual((url, source_id), (f"pypi:plain==2.0/plain/core.py#L{start}-L{end}",
                                            "plain/core.py"))
        self.assertEqual(text, '    def stop(self):\n        """Stop every job."""')
        self.assertEqual(names.split(), ["plain.Engine.stop", "plain.core.Engine.stop"])
        self.assertNotIn(("plain", "plain.core._private_helper"), units)
        self.assertIn(("plain", "plain"), units)  # the package's docstring
        # A wheel-only release: its wheel's modules. The --base-url given for it is where its
        # docs are published, and no page of them is known: a unit links to its file and lines
        # in the release, never to a page invented under the site, and the build says so.
        [(url, *_)] = units["wheelonly", "wheelonly.spin"]
        self.assertEqual(url, "pypi:wheelonly==3.0/wheelonly/__init__.py#L4-L5")
        self.assertIn("build: wheelonly/3.0: wheelonly-3.0-py3-none-any.whl has no docs folder, "
                      f"and {site}objects.inv gave no places (No such file or directory): its "
                      "objects link to their files and lines in the release\n", done.stderr)
        tree = temporary_directory(self)
        # The builder's own unpack, not extractall(filter="data"): that keyword came in 3.11.4,
        # and Python >= 3.11 is the floor (Debian 12 has 3.11.2).
        unpack(self.plain, tree)
        verified = run([sys.executable, "-m", "retrieval", "verify", out, "--rendered",
                        f"plain/2.0={os.path.join(tree, 'plain-2.0')}"])
        # Where each release came from: its file and digest, and when the snapshot was built.
        digests = {name: hashlib.sha256(Path(self.links, name).read_bytes()).hexdigest()[:12]
                   for name in ("plain-2.0.tar.gz", "wheelonly-3.0-py3-none-any.whl")}
        self.assertRegex(verified.stdout, "^" + "\n".join((
            r"provenance: built \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ",
            "provenance: plain/2.0: pypi plain==2.0 plain-2.0.tar.gz sha256 "
            + digests["plain-2.0.tar.gz"],
            "provenance: wheelonly/3.0: pypi wheelonly==3.0 wheelonly-3.0-py3-none-any.whl "
            "sha256 " + digests["wheelonly-3.0-py3-none-any.whl"],
            "verified")) + "\n$")

    def test_without_docs_an_object_the_site_s_inventory_names_links_to_its_place_there(self):
        # The site --base-url names publishes objects.inv (intersphinx's index): an object it
        # names is at its page and id there, as the site has them; another at its lines.
        written = inventory("plain.Engine py:class 1 api.html#$ -\n"
                            "plain.Engine.stop py:method 1 api.html#plain.Engine.stop -\n"
                            "plain.make_engine std:label -1 api.html#making -\n")
        site = Site(self.addCleanup, {"/docs/objects.inv": Route(200, written,
                                                                 "application/octet-stream")})
        base = site.origin + "/docs/"
        done, out = self.built("pypi:plain==2.0", "pypi:wheelonly==3.0",
                               extra=["--base-url", f"plain/2.0={base}", "--base-url",
                                      f"wheelonly/3.0={site.origin}/gone/"])
        units = passages(out)
        self.assertEqual(units["plain", "plain.Engine.stop"][0][0],
                         base + "api.html#plain.Engine.stop")
        [(url, *_)] = units["plain", "plain.Engine"]  # one unit, as a page's description is
        self.assertEqual(url, base + "api.html#plain.Engine")
        # Another domain's name is no Python object's place.
        [(url, *_)] = units["plain", "plain.make_engine"]
        self.assertRegex(url, r"^pypi:plain==2\.0/plain/core\.py#L\d+-L\d+$")
        self.assertIn(f"build: plain/2.0: plain-2.0.tar.gz has no docs folder: an object "
                      f"{base}objects.inv names (2 Python names) links to its place there, any "
                      "other to its file and lines in the release\n", done.stderr)
        # A site with none: said, and its objects at their lines.
        self.assertIn(f"build: wheelonly/3.0: wheelonly-3.0-py3-none-any.whl has no docs folder, "
                      f"and {site.origin}/gone/objects.inv gave no places (HTTP 404): its "
                      "objects link to their files and lines in the release\n", done.stderr)
        [(url, *_)] = units["wheelonly", "wheelonly.spin"]
        self.assertEqual(url, "pypi:wheelonly==3.0/wheelonly/__init__.py#L4-L5")
        # The places are the site's own: verify finds them on it (a URL of the release's
        # lines is on no page of it), and the provenance names the inventory they came from.
        tree = temporary_directory(self)
        os.makedirs(os.path.join(tree, "docs"))
        with open(os.path.join(tree, "docs", "api.html"), "w", encoding="utf-8") as f:
            f.write('<html><body><dl><dt id="plain.Engine">Engine</dt>'
                    '<dt id="plain.Engine.stop">stop</dt></dl></body></html>')
        verified = run([sys.executable, "-m", "retrieval", "verify", out, "--rendered",
                        f"plain/2.0={os.path.join(tree, 'docs')}"])
        digest = hashlib.sha256(written).hexdigest()[:12]
        self.assertIn(f"; places from {base}objects.inv sha256 {digest}\n", verified.stdout)
        dead = [line for line in verified.stdout.splitlines() if "dead URL" in line]
        self.assertTrue(dead)
        self.assertEqual([line for line in dead if "dead URL pypi:plain==2.0/" not in line], [])

    def test_without_docs_the_release_s_description_is_its_guide_at_its_file_s_lines(self):
        done, out = self.built("pypi:readable==1.0", "pypi:cext==1.0", "pypi:described==1.0",
                               "pypi:partial==1.0", "pypi:badged==1.0", "pypi:blurb==1.0")
        units = passages(out)
        # Each section at its heading, quoting the lines of the file pyproject.toml names.
        [(url, source_id, start, end, text, *_)] = units["readable", "Usage"]
        self.assertEqual((url, source_id, start, end, text),
                         ("pypi:readable==1.0/GUIDE.txt#L5-L7", "GUIDE.txt", 5, 7,
                          "## Usage\n\nCall `readable.go()` to go."))
        self.assertIn(("readable", "Readable"), units)
        self.assertIn(("readable", "readable.go"), units)
        self.assertNotIn(("readable", "Not this"), units)
        self.assertIn("build: readable/1.0: readable-1.0.tar.gz: docstrings of 1 modules and "
                      "the description in GUIDE.txt\n", done.stderr)
        # Nothing of Python, and a README: a collection of its sections (it was refused); a
        # title alone over its subsections is no unit.
        self.assertEqual(sorted(title for collection, title in units if collection == "cext"),
                         ["Cext", "From pip", "Usage"])
        # A README's first heading, a level-2 one, titles its own section, not the text above
        # it: that is the release's (GitHub shows no page title).
        self.assertEqual([row[0] for row in units["badged", "badged"] if row[1] == "README.md"],
                         ["pypi:badged==1.0/README.md#L1-L3"])
        self.assertIn(("badged", "Compatibility"), units)
        # A wheel's METADATA: its body's lines, its headers not quoted.
        [(url, source_id, start, end, text, *_)] = units["described", "Options"]
        self.assertEqual((url, start, end, text),
                         ("pypi:described==1.0/described-1.0.dist-info/METADATA#L10-L12", 10, 12,
                          "## Options\n\nSet `indent`."))
        [(url, *_)] = units["blurb", "Use"]
        self.assertEqual(url, "pypi:blurb==1.0/PKG-INFO#L10-L12")
        # Beside a docs folder its pages are the guide: the README is not read.
        self.assertFalse([key for key in units if key[0] == "partial"
                          and any(row[1] == "README.md" for row in units[key])])

    def test_a_release_of_platform_wheels_only_is_read_from_its_python_files(self):
        done, out = self.built("pypi:native==1.0")
        units = passages(out)
        [(url, *_)] = units["native", "native.slow"]
        self.assertEqual(url, "pypi:native==1.0/native/__init__.py#L6-L7")
        self.assertEqual(sorted(title for _, title in units), ["native", "native.slow"])
        self.assertIn("build: pypi:native==1.0: no sdist and no pure-Python wheel; its Python "
                      "files are read from native-1.0-cp311-cp311-manylinux_2_17_x86_64.whl, "
                      "the smallest", done.stderr)

    def test_members_a_class_inherits_from_a_required_release_are_read_from_that_release(self):
        done, out = self.built("pypi:webapp==1.0", extra=["--base-url", f"webapp/1.0={DOCS}"])
        units = passages(out)
        rows = {title: row for (collection, title), [row] in units.items()
                if title.startswith("webapp.Request")}
        self.assertEqual(list(rows), ["webapp.Request", "webapp.Request.own",
                                      "webapp.Request.charset", "webapp.Request.origin",
                                      "webapp.Request.get_data"])
        # Documented on the release's page at their ids, quoting the required release's
        # lowest version (basekit>=2.0 gives 2.0, not 3.0), named by where it came from.
        url, source_id, _, _, text, sha256, _ = rows["webapp.Request.get_data"]
        self.assertEqual(url, DOCS + "api.html#webapp.Request.get_data")
        self.assertEqual(source_id, "pypi:basekit==2.0/basekit/wrappers.py")
        self.assertIn("Read the body of 2.0.", text)
        wrappers = BASEKIT_WRAPPERS.replace("VERSION", "2.0")
        self.assertEqual(sha256, hashlib.sha256(wrappers.encode()).hexdigest())
        # A descriptor's `doc=` is its docstring, as a property's is.
        self.assertIn("originated from", rows["webapp.Request.origin"][4])
        self.assertIn("build: webapp/1.0: basekit-2.0.tar.gz: read for the members and "
                      "docstrings its classes give (:inherited-members:, an undocumented "
                      "member's docstring)", done.stderr)
        # A base from a release required without a lowest version: said, not guessed.
        self.assertIn("build: webapp/1.0: members inherited from solo.Thing left out: the "
                      "release requires solo without a lowest version", done.stderr)
        with open(os.path.join(out, "provenance.json"), encoding="utf-8") as recorded:
            entry = json.load(recorded)["webapp/1.0"]
        basekit = (Path(self.links) / "basekit-2.0.tar.gz").read_bytes()
        digest = hashlib.sha256(basekit).hexdigest()
        self.assertEqual(entry["inherited_from"], [
            {"dist": "basekit", "version": "2.0", "file": "basekit-2.0.tar.gz",
             "sha256": digest}])
        verified = run([sys.executable, "-m", "retrieval", "verify", out])
        self.assertIn(f"; members inherited from basekit==2.0 basekit-2.0.tar.gz sha256 "
                      f"{digest[:12]}\n", verified.stdout)

    def test_a_cut_docstring_s_pieces_link_its_object_and_are_one_hit_read_whole(self):
        _, out = self.built("pypi:longdoc==1.0")
        pieces = passages(out)["longdoc", "longdoc.graze"]
        self.assertGreater(len(pieces), 1)
        # Every piece links the object's lines, first to last: one unit, by url and title.
        first, last = pieces[0][2], pieces[-1][3]
        self.assertEqual({url for url, *_ in pieces},
                         {f"pypi:longdoc==1.0/longdoc/__init__.py#L{first}-L{last}"})
        app = create_app(snapshot_path=out, settings=quiet_settings())
        self.addCleanup(app.close)
        # A search gives the unit one place, at its best piece, whatever its pieces match.
        reply = call(app, "POST", "/search", json.dumps(
            {"query": "herd pasture", "version": "1.0", "collection": "longdoc"}).encode())
        self.assertEqual(reply.code, 200, reply.body)
        titles = [hit["title"] for hit in reply.json()["hits"]]
        self.assertEqual(sorted(titles), ["longdoc.graze", "longdoc.milk"])
        # And a run reads it whole, its pieces in line order.
        reply = post_json(app, {"question": "how does a herd graze each pasture",
                                "version": "1.0", "collection": "longdoc", "max_reads": 1})
        self.assertEqual(reply.code, 200, reply.body)
        evidence = reply.json()["evidence"]
        self.assertEqual([(item["start_line"], item["end_line"]) for item in evidence],
                         [(start, end) for _, _, start, end, *_ in pieces])

    # -- env: -------------------------------------------------------------------------------

    def test_an_environment_gives_one_collection_per_distribution_at_its_version(self):
        venv = temporary_directory(self)
        site = write_site_packages(os.path.join(venv, "lib", "python3.11", "site-packages"), {
            "Demo_Pkg": ("1.0", {"demo/__init__.py": INIT, "demo/core.py": CORE}),
            "other.lib": ("0.3.1", {"other.py": '"""Other things."""\n'}),
            "calver": ("2024.10.1", {"calver.py": '"""Dated."""\n'}),
            "nightly": ("latest", {"nightly.py": '"""Undated."""\n'}),
            "zonedata": ("2.0", {"zonedata/__init__.py": "_VERSION = '2.0'\n"})})
        done, out = self.built(f"env:{venv}")
        # A distribution with nothing documented (tzdata's data) gets no collection, said.
        self.assertIn("build: zonedata/2.0: no units: nothing of it is documentation",
                      done.stderr)
        units = passages(out)
        # A calendar version is a PEP 440 version like any other (issue 45).
        self.assertEqual(sorted({collection for collection, _ in units}),
                         ["calver", "demo-pkg", "other-lib"])
        self.assertIn("build: skipped nightly latest: its version is not", done.stderr)
        [(url, source_id, start, end, *_)] = units["demo-pkg", "demo.make_engine"]
        self.assertEqual(url, f"file://{os.path.realpath(site)}/demo/core.py#L{start}-L{end}")
        with open(os.path.join(out, "manifest.json"), encoding="utf-8") as manifest:
            self.assertIn('"version": "0.3.1"', manifest.read())
        with open(os.path.join(out, "provenance.json"), encoding="utf-8") as recorded:
            self.assertEqual(json.load(recorded)["demo-pkg/1.0"], {
                "kind": "env", "dist": "demo-pkg", "version": "1.0",
                "path": os.path.realpath(site)})
        _, out = self.built(f"other.lib=env:{site}")
        self.assertEqual(sorted({collection for collection, _ in passages(out)}), ["other-lib"])

    def test_an_installed_distribution_s_description_is_its_metadata_s_body(self):
        venv = temporary_directory(self)
        site = write_site_packages(os.path.join(venv, "lib", "python3.11", "site-packages"), {
            # No Description-Content-Type: reStructuredText, as the index renders it.
            "fastjson": ("2.0", {"fastjson.cpython-311-x86_64-linux-gnu.so": "ELF"},
                         "Fastjson\n========\n\nUsage\n-----\n\nCall dumps.\n"),
            "olddesc": ("1.0", {"olddesc.py": '"""Old."""\n'})})
        # Metadata 1.x kept it in a header, its lines indented: no quote of the file, not read.
        Path(site, "olddesc-1.0.dist-info", "METADATA").write_text(
            "Metadata-Version: 1.1\nName: olddesc\nVersion: 1.0\nDescription: Olddesc\n"
            "        =======\n        \n        Old words.\n", encoding="utf-8")
        _, out = self.built(f"env:{venv}")
        units = passages(out)
        [(url, source_id, start, end, text, *_)] = units["fastjson", "Usage"]
        self.assertEqual((url, start, end, text), (
            f"file://{os.path.realpath(site)}/fastjson-2.0.dist-info/METADATA#L8-L11", 8, 11,
            "Usage\n-----\n\nCall dumps."))
        self.assertEqual(sorted(title for collection, title in units if collection == "olddesc"),
                         ["olddesc"])

    def test_an_installed_compiled_module_s_stub_is_its_source_as_in_its_release(self):
        # pydantic-core's _pydantic_core.pyi beside its .so: what its pypi: build reads.
        venv = temporary_directory(self)
        write_site_packages(os.path.join(venv, "lib", "python3.11", "site-packages"), {
            "fastcore": ("1.0", {
                "fastcore/__init__.py": '"""Fastcore."""\nfrom ._core import fast\n'
                                        '__all__ = ["fast"]\n',
                "fastcore/_core.cpython-311-x86_64-linux-gnu.so": "ELF",
                "fastcore/_core.pyi": 'def fast(x: int) -> int:\n    """Compute it fast."""\n',
                # Beside its .py a stub is not the source: the .py is read.
                "fastcore/slow.py": 'def slow(x):\n    """Compute it slowly."""\n',
                "fastcore/slow.pyi": 'def slow(x: int) -> int:\n    """The stub\'s words."""\n',
                "toplevel.cpython-311-x86_64-linux-gnu.so": "ELF",
                "toplevel.pyi": 'def top() -> None:\n    """At the top."""\n',
                # Stubs outside a package are data (mypy's typeshed/ of the stdlib's).
                "fastcore/typeshed/stdlib/os/__init__.pyi":
                    'def getcwd() -> str:\n    """The stub\'s words."""\n'})})
        _, out = self.built(f"env:{venv}")
        units = passages(out)
        [(_, source_id, *_, names)] = units["fastcore", "fastcore.fast"]
        self.assertEqual((source_id, names.split()), ("fastcore/_core.pyi",
                                                      ["fastcore.fast", "fastcore._core.fast"]))
        [(_, source_id, *_)] = units["fastcore", "fastcore.slow.slow"]
        self.assertEqual(source_id, "fastcore/slow.py")
        [(_, source_id, *_)] = units["fastcore", "toplevel.top"]
        self.assertEqual(source_id, "toplevel.pyi")
        self.assertFalse([title for _, title in units if "typeshed" in title])

    def test_an_environment_s_class_has_the_members_its_installed_requirement_s_base_gives(self):
        venv = temporary_directory(self)
        site = write_site_packages(os.path.join(venv, "lib", "python3.11", "site-packages"), {
            "basekit": ("2.0", {"basekit/__init__.py": '"""Basekit."""\n',
                                "basekit/wrappers.py": BASEKIT_WRAPPERS}),
            "webapp": ("1.0", {"webapp/__init__.py": WEBAPP_INIT})})
        with open(os.path.join(site, "webapp-1.0.dist-info", "METADATA"), "a",
                  encoding="utf-8") as metadata:
            metadata.write("Requires-Dist: basekit>=2.0\nRequires-Dist: solo\n")
        done, out = self.built(f"webapp=env:{venv}")
        units = passages(out)
        # Only webapp's collection, yet its Request has basekit's members (as `inspect` shows
        # them), each quoting basekit's installed file at its lines.
        self.assertEqual(sorted(title for _, title in units), [
            "webapp", "webapp.Other", "webapp.Request", "webapp.Request.charset",
            "webapp.Request.get_data", "webapp.Request.origin", "webapp.Request.own"])
        [(url, source_id, start, end, text, *_)] = units["webapp", "webapp.Request.get_data"]
        self.assertEqual((source_id, url), ("basekit/wrappers.py",
                         f"file://{os.path.realpath(site)}/basekit/wrappers.py#L{start}-L{end}"))
        self.assertIn("Read the body of VERSION.", text)

    # -- bad input --------------------------------------------------------------------------

    def test_bad_input_is_one_line_and_exit_2(self):
        cases = [
            ("pypi:demo-pkg==9.9", True, "pypi:demo-pkg==9.9: demo-pkg has no release 9.9; "
                                         "releases near it: 1.0 (of 1 release) in "),
            ("pypi:demo-pkg==1.0", False, "pypi:demo-pkg==1.0: nowhere to look for it: pip's "
                                          "no-index is set and find-links is empty"),
            ("pypi:damaged==4.0", True, "damaged-4.0.tar.gz: will not unpack: file could not "
                                        "be opened successfully: - method gz:"),
            ("pypi:demo-pkg", True, "give pypi:DIST==VERSION"),
            (f"env:{temporary_directory(self)}", True,
             "not a virtual environment or site-packages directory"),
        ]
        for source, links, message in cases:
            with self.subTest(source=source, links=links):
                done, _ = self.build(source, links=links)
                self.assertIn(message, one_line_refusal(self, done))


if __name__ == "__main__":
    unittest.main()
