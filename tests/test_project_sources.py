"""`retrieval project`'s git and crawl steps: a release without a docs folder read from its
repository at its own tag, or from its own version's published site.

The releases are served from tests/test_index_fetch.py's local index; their metadata names
repositories on github.com, which git itself rewrites (`url.<base>.insteadOf`, given to the child
through GIT_CONFIG_COUNT) to repositories made here: nothing here reaches a forge, and the code
under test sees the URL a real release has. widget 1.0's sdist has no docs folder; its
repository has one at tag v1.0, and a later tag (v1.1) whose docs must never be read for 1.0.
The published sites are tests/support/sites.py's, on loopback.
"""

import email.message
import json
import os
import shutil
import ssl
import subprocess
import sys
import unittest

from retrieval.ingest.sources.packages import release_site
from retrieval.ingest.sources.repository import release_tag, repository_url
from retrieval.testing import subprocess_env
from tests.package_fixtures import API_RST, CORE, INIT, pkg_info, write_sdist
from tests.support import class_temporary_directory, temporary_directory
from tests.support.sites import Route, Site, page
from tests.test_cli import run
from tests.test_git_source import git, make_repo
from tests.test_html_ingest import write_tree
from tests.test_index_fetch import LocalIndex, _bytes, clean_env
from tests.test_package_sources import passages
from tests.test_project_command import table

TIER = "server"

GUIDE = "Guide\n=====\n\n{}: start an engine with make_engine and register jobs on it.\n"
PACKAGE = {"widget/__init__.py": INIT.replace("demo", "widget"), "widget/core.py": CORE}


def metadata(name: str, version: str, *urls: str) -> str:
    """PKG-INFO of a release whose Project-URLs are urls ("Label, URL")."""
    return pkg_info(name, version) + "".join(f"Project-URL: {url}\n" for url in urls)


class ProjectGitTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.base = base = class_temporary_directory(cls)
        cls.repo = os.path.join(base, "widget-repo")
        make_repo(cls.repo, {**PACKAGE, "docs/conf.py": "project = 'widget'\n",
                             "docs/api.rst": API_RST.replace("demo", "widget"),
                             "docs/guide.rst": GUIDE.format("Tagged")})
        git(cls.repo, "tag", "v1.0")
        write_tree(cls.repo, {"docs/guide.rst": GUIDE.format("Later")})
        git(cls.repo, "commit", "-q", "-am", "later")
        git(cls.repo, "tag", "v1.1")
        made = os.path.join(base, "made")
        os.makedirs(made)
        releases = {
            # No docs folder; its repository (Source) has one at v1.0.
            "widget": write_sdist(made, "widget", "1.0", {**PACKAGE, "PKG-INFO": metadata(
                "widget", "1.0", "Documentation, https://widget.example.org/",
                "Source, https://github.com/acme/widget/tree/main")}),
            # Its repository has no tag of 3.0 (the same repository: v1.0 and v1.1 only).
            "notag": write_sdist(made, "notag", "3.0", {**PACKAGE, "PKG-INFO": metadata(
                "notag", "3.0", "Repository, https://github.com/acme/widget")}),
            # Names no repository on a forge (a file:// URL from metadata is never cloned).
            "norepo": write_sdist(made, "norepo", "2.0", {**PACKAGE, "PKG-INFO": metadata(
                "norepo", "2.0", "Source, file://" + cls.repo)}),
        }
        cls.index = LocalIndex(cls, {name: [(os.path.basename(path), _bytes(path), {})]
                                     for name, path in releases.items()})
        cls.project = os.path.join(base, "app")
        os.makedirs(cls.project)
        with open(os.path.join(cls.project, "requirements.txt"), "w", encoding="utf-8") as out:
            out.write("widget==1.0\nnotag==3.0\nnorepo==2.0\n")

    def project_run(self, cache, *flags):
        out = os.path.join(temporary_directory(self), "snapshot")
        env = subprocess_env(**clean_env(
            PIP_INDEX_URL=self.index.url, HOME=os.path.join(self.base, "home"),
            GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_COUNT="1",
            GIT_CONFIG_KEY_0=f"url.file://{self.repo}.insteadOf",
            GIT_CONFIG_VALUE_0="https://github.com/acme/widget"))
        done = run([sys.executable, "-m", "retrieval", "project", self.project, "--out", out,
                    "--fetch-cache", cache, "--lexical", *flags], env=env)
        return done, out

    def test_a_release_without_docs_is_read_from_its_repository_at_its_own_tag(self):
        cache = os.path.join(temporary_directory(self), "cache")
        done, out = self.project_run(cache)
        self.assertEqual(done.returncode, 0, done.stderr)
        rows = table(done.stdout)
        self.assertEqual(rows["widget"][:2], ["1.0", "git"])
        self.assertIn("pypi: docstrings only (no docs folder)", rows["widget"][-1])
        units = passages(out)
        guide = [text for (collection, title), rows_ in units.items() if collection == "widget"
                 for _, _, _, _, text, _, _ in rows_ if "start an engine" in text]
        self.assertEqual(len(guide), 1, guide)
        self.assertIn("Tagged: start", guide[0])  # v1.0's page, never v1.1's
        self.assertIn(("widget", "The engine"), units)  # autodoc resolved from the tag's source
        with open(os.path.join(out, "provenance.json"), encoding="utf-8") as recorded:
            provenance = json.load(recorded)["widget/1.0"]
        self.assertEqual((provenance["kind"], provenance["url"], provenance["ref"]),
                         ("git", "https://github.com/acme/widget", "refs/tags/v1.0"))
        self.assertEqual(provenance["commit"], git(self.repo, "rev-parse", "v1.0"))
        # Passed over with why, each falling back to its release's docstrings.
        self.assertEqual(rows["notag"][:2], ["3.0", "pypi"])
        self.assertIn("git: https://github.com/acme/widget has no tag of 3.0", rows["notag"][-1])
        self.assertEqual(rows["norepo"][:2], ["2.0", "pypi"])
        self.assertIn("git: norepo-2.0.tar.gz's metadata names no repository on github.com",
                      rows["norepo"][-1])
        with open(os.path.join(out, "project.json"), encoding="utf-8") as document:
            entries = {pin["name"]: pin for pin in json.load(document)["pins"]}
        self.assertEqual(entries["widget"]["source"], "git")
        self.assertIn("pypi: docstrings only", entries["widget"]["missing"])
        self.assertGreater(entries["widget"]["guide_sections"], 0)
        corpus_id = done.stdout.splitlines()[-1]

        # Offline, the collections gone: the clone the cache holds, at the same commit.
        shutil.rmtree(os.path.join(cache, "collections"))
        asked = len(self.index.requests)
        again, _ = self.project_run(cache, "--offline")
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertEqual(table(again.stdout)["widget"][:2], ["1.0", "git"])
        self.assertEqual(again.stdout.splitlines()[-1], corpus_id)
        self.assertEqual(len(self.index.requests), asked)
        # The clones gone too: offline, its docstrings, and why.
        shutil.rmtree(os.path.join(cache, "collections"))
        for entry in os.listdir(os.path.join(cache, "git")):
            if entry != "releases":
                shutil.rmtree(os.path.join(cache, "git", entry))
        gone, _ = self.project_run(cache, "--offline")
        self.assertEqual(gone.returncode, 0, gone.stderr)
        row = table(gone.stdout)["widget"]
        self.assertEqual(row[:2], ["1.0", "pypi"])
        self.assertIn("git: offline, and the clone of https://github.com/acme/widget at v1.0 "
                      "is not cached", row[-1])

    def test_the_order_given_is_the_order_tried(self):
        cache = os.path.join(temporary_directory(self), "cache")
        done, _ = self.project_run(cache, "--order", "pypi,env")
        self.assertEqual(done.returncode, 0, done.stderr)
        row = table(done.stdout)["widget"]
        self.assertEqual(row[:2], ["1.0", "pypi"])
        self.assertNotIn("git", row[-1])
        self.assertFalse(os.path.exists(os.path.join(cache, "git")))
        done, _ = self.project_run(cache, "--order", "git,pypi")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(table(done.stdout)["widget"][:2], ["1.0", "git"])
        # Without the cache: the release fetched once, for pypi, and its metadata read from it.
        asked = len(self.index.requests)
        done, _ = self.project_run(cache, "--no-cache")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(table(done.stdout)["widget"][:2], ["1.0", "git"])
        self.assertEqual([path for path, _, _ in self.index.requests[asked:]
                          if path.endswith("widget-1.0.tar.gz")], ["/files/widget-1.0.tar.gz"])


SITE_PAGE = page("Sitelib", '<h1 id="sitelib">Sitelib</h1>\n<p>Sitelib 1.0 keeps goats.</p>\n'
                 '<h2 id="herds">Herds</h2>\n<p>A herd holds at most herd_size goats.</p>')


def tls_context(directory: str) -> tuple:
    """Return (a server context for 127.0.0.1, the file of its self-signed certificate)."""
    cert, key = os.path.join(directory, "cert.pem"), os.path.join(directory, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", key, "-out", cert], check=True, capture_output=True)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    return context, cert


@unittest.skipUnless(shutil.which("openssl"), "needs the openssl program (a test certificate)")
class ProjectCrawlTest(unittest.TestCase):
    """Each release's metadata names its docs on an https site on loopback (its certificate
    trusted by the child through SSL_CERT_FILE): sitelib 1.0's at /sitelib/1.0/, moving 1.0's
    at /moving/latest/; plainhttp 1.0's on an http:// one."""

    def test_a_release_without_docs_is_crawled_from_its_own_version_s_site(self):
        base = temporary_directory(self)
        context, cert = tls_context(base)
        routes = {"/robots.txt": Route(200, b"User-agent: *\nAllow: /\n", "text/plain"),
                  "/sitelib/1.0/": Route(200, SITE_PAGE), "/moving/latest/": Route(200, SITE_PAGE),
                  "/plainhttp/1.0/": Route(200, SITE_PAGE)}
        site, plain = Site(self.addCleanup, routes, tls=context), Site(self.addCleanup, routes)
        releases = {name: write_sdist(base, name, "1.0", {
            f"{name}/__init__.py": INIT.replace("demo", name), "PKG-INFO": metadata(
                name, "1.0", f"Documentation, {origin}/{name}/{where}/")})
            for name, where, origin in (("sitelib", "1.0", site.origin),
                                        ("moving", "latest", site.origin),
                                        ("plainhttp", "1.0", plain.origin))}
        index = LocalIndex(self, {name: [(os.path.basename(path), _bytes(path), {})]
                                  for name, path in releases.items()})
        project = os.path.join(base, "app")
        os.makedirs(project)
        with open(os.path.join(project, "requirements.txt"), "w", encoding="utf-8") as out:
            out.write("sitelib==1.0\nmoving==1.0\nplainhttp==1.0\n")
        out = os.path.join(base, "snapshot")
        done = run([sys.executable, "-m", "retrieval", "project", project, "--out", out,
                    "--fetch-cache", os.path.join(base, "cache"), "--lexical"],
                   env=subprocess_env(**clean_env(PIP_INDEX_URL=index.url, SSL_CERT_FILE=cert,
                                                  HOME=os.path.join(base, "home"))))
        self.assertEqual(done.returncode, 0, done.stderr)
        rows = table(done.stdout)
        self.assertEqual(rows["sitelib"][:2], ["1.0", "crawl"])
        self.assertIn("pypi: docstrings only (no docs folder)", rows["sitelib"][-1])
        self.assertIn("git: sitelib-1.0.tar.gz's metadata names no repository",
                      rows["sitelib"][-1])
        units = passages(out)
        self.assertEqual(units[("sitelib", "Herds")][0][0],
                         f"{site.origin}/sitelib/1.0/index.html#herds")
        # Its metadata names the latest docs, not 1.0's: never crawled as 1.0's.
        self.assertEqual(rows["moving"][:2], ["1.0", "pypi"])
        self.assertIn(f"crawl: {site.origin}/moving/latest/ is not the site of 1.0 alone",
                      rows["moving"][-1])
        # A package's metadata never has a loopback http:// service crawled.
        self.assertEqual(rows["plainhttp"][:2], ["1.0", "pypi"])
        self.assertIn(f"crawl: {plain.origin}/plainhttp/1.0/ is not https", rows["plainhttp"][-1])
        self.assertEqual(plain.paths(), [])  # not even its robots.txt
        self.assertFalse(any(collection in ("moving", "plainhttp") and "goats" in text
                             for (collection, _), found in units.items()
                             for _, _, _, _, text, _, _ in found))


class RepositoryTest(unittest.TestCase):
    """Which repository a release names, and which of its tags is the release's."""

    def test_the_repository_is_a_forge_url_cut_to_owner_and_name(self):
        def named(*urls, home=None):
            message = email.message.Message()
            for url in urls:
                message["Project-URL"] = url
            if home:
                message["Home-page"] = home
            return repository_url(message)

        self.assertEqual(named("Documentation, https://www.django-rest-framework.org/",
                               "Source, https://github.com/encode/django-rest-framework/tree/x"),
                         "https://github.com/encode/django-rest-framework")
        self.assertEqual(named("Homepage, https://github.com/a/home",
                               "Source Code, https://gitlab.com/a/b.git"),
                         "https://gitlab.com/a/b")  # a source label before the homepage
        self.assertEqual(named(home="https://github.com/a/b"), "https://github.com/a/b")
        for refused in ("Source, file:///srv/repo", "Source, https://example.org/a/b",
                        "Source, ext::sh -c touch% /tmp/x", "Source, https://github.com/-x/y",
                        "Source, https://github.com/only-owner", "Changelog, https://github.com/a/b"):
            self.assertIsNone(named(refused), refused)

    def test_a_site_of_exactly_the_version_or_none(self):
        def site(url, version="1.2.0"):
            message = email.message.Message()
            message["Project-URL"] = f"Documentation, {url}"
            return release_site(message, version)

        self.assertEqual(site("https://docs.example.org/1.2.0/api/")[0],
                         "https://docs.example.org/1.2.0/api/")
        self.assertEqual(site("https://lib.readthedocs.io/en/v1.2.0/")[0],
                         "https://lib.readthedocs.io/en/v1.2.0/")
        self.assertEqual(site("https://lib.readthedocs.io/en/latest/")[0],
                         "https://lib.readthedocs.io/en/1.2.0/")  # where the host puts it
        self.assertEqual(site("https://lib.readthedocs.io/")[0],
                         "https://lib.readthedocs.io/en/1.2.0/")  # the root: its default
        # A page's URL names its folder (statsmodels: `.../stable/index.html`), never a
        # folder `index.html/`.
        self.assertEqual(site("https://docs.example.org/1.2.0/index.html")[0],
                         "https://docs.example.org/1.2.0/")
        self.assertEqual(site("https://lib.readthedocs.io/en/latest/index.html")[0],
                         "https://lib.readthedocs.io/en/1.2.0/")
        for other in ("https://docs.example.org/1.2/", "https://docs.example.org/latest/",
                      "https://flask.palletsprojects.com/en/1.2.x/", "https://x.org/1.2.1/"):
            self.assertIsNone(site(other)[0], other)
        self.assertIn("names no Documentation URL", release_site(email.message.Message(), "1")[1])

    def test_only_the_exact_version_s_tag(self):
        tags = ["1.9", "v2.0.1", "2.0rc1", "widget-2.0", "v2.0", "other-2.0", "release-2.0"]
        self.assertEqual(release_tag(tags, "widget", "2.0"), "v2.0")
        self.assertEqual(release_tag(["widget-2.0", "release-2.0"], "widget", "2.0"),
                         "widget-2.0")
        self.assertEqual(release_tag(["Widget_2.0"], "widget", "2.0"), "Widget_2.0")
        self.assertEqual(release_tag(["release/2.0"], "widget", "2.0"), "release/2.0")
        self.assertEqual(release_tag(["V2.5.0b1"], "widget", "2.5.0b1"), "V2.5.0b1")
        for other in (["2.0.0"], ["v2.0.1"], ["other-2.0"], ["2.0rc1"], ["v2"], []):
            self.assertIsNone(release_tag(other, "widget", "2.0"), other)


if __name__ == "__main__":
    unittest.main()
