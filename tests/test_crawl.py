"""`--source NAME/VERSION=https://...`: a published site crawled over loopback, then built.

The sites are served by http.server on a thread: a well-behaved one, and one with every hostile
shape the crawler must survive (redirect loops, off-origin redirects, huge pages, wrong content
types, a robots.txt that forbids, 429 with Retry-After, 503, an endless link farm, a slow drip,
an error page served with 200). No outside network is used.
"""

import contextlib
import hashlib
import io
import json
import os
import socket
import unittest
import zlib

from retrieval.cli.main import main as retrieval_main
from retrieval.ingest.readers.inventory import InventoryError, read_inventory
from retrieval.ingest.sources.crawl import CrawlError, crawl
from retrieval.ingest.sources.http_get import Limits
from retrieval.wsgi import create_app
from tests.support import class_temporary_directory, post_json, quiet_settings, temporary_directory
from tests.support.sites import Drip, HeaderDrip, Route, Site, Stream, page
from tests.test_html_ingest import built_passages

TIER = "server"

GUIDE = page("Guide", '<h1 id="guide">Guide</h1>\n<p>Goats are kept in a herd.</p>\n'
                      '<h2 id="configure-the-herd">Configure the herd</h2>\n'
                      "<p>Set herd_size: the herd holds at most that many goats.</p>",
             ["index.html", "reference/"])
REFERENCE = page("Reference", '<h1 id="reference">Reference</h1>\n'
                              "<p>feed(goats) feeds every goat twice a day.</p>", ["../guide.html"])
INDEX = page("Goat", '<h1 id="goat">Goat</h1>\n<p>Goat keeps goats.</p>',
             ["guide.html", "reference/", "_static/style.css", "_modules/goat.html", "goat.pdf",
              "feeding", "https://elsewhere.example/x.html"])


def good_routes() -> dict:
    return {"/robots.txt": Route(200, b"User-agent: *\nAllow: /\n", "text/plain"),
            "/docs/": Route(200, INDEX, headers={"ETag": '"index-1"'}),
            "/docs/guide.html": Route(200, GUIDE, headers={"ETag": '"guide-1"'}),
            "/docs/reference/": Route(200, REFERENCE, headers={"ETag": '"ref-1"'}),
            "/docs/index.html": Route(200, INDEX, headers={"ETag": '"index-1"'})}


def run_build(*args) -> tuple:
    """Return (exit code, stderr lines) of `retrieval build ARGS` run in this process."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = retrieval_main(["build", *args])
    return code, err.getvalue().splitlines()


class RecordedSleep:
    """A sleep that only records how long it was asked to wait."""

    def __init__(self):
        self.waits = []

    def __call__(self, seconds):
        self.waits.append(seconds)


class GoodSiteTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.base = class_temporary_directory(cls)

    def setUp(self):
        self.site = Site(self.addCleanup, good_routes())
        self.prefix = self.site.origin + "/docs/"
        self.cache = os.path.join(temporary_directory(self), "cache")

    def build(self, name, *extra):
        out = os.path.join(temporary_directory(self), name)
        code, err = run_build("--source", "goat/1.0=" + self.prefix, "--fetch-cache", self.cache,
                              "--out", out, *extra)
        self.assertEqual(code, 0, err)
        return out, err

    def test_the_site_is_built_under_its_own_urls(self):
        out, err = self.build("snapshot")
        passages = built_passages(out)
        self.assertEqual(passages[self.prefix + "guide.html#configure-the-herd"][4],
                         "Configure the herd\n\nSet herd_size: the herd holds at most that many "
                         "goats.")
        self.assertIn(self.prefix + "reference/index.html#reference", passages)
        self.assertFalse([path for path in self.site.paths()
                          if "style.css" in path or "_modules" in path or "pdf" in path])
        summary = [line for line in err if line.startswith("fetch: goat/1.0: done:")]
        self.assertEqual(len(summary), 1, err)
        self.assertIn("skipped: asset or download 1, generator's own files 2, no page suffix 1, "
                      "off the prefix 1", summary[0])
        app = create_app(snapshot_path=out, settings=quiet_settings())
        self.addCleanup(app.close)
        reply = post_json(app, {"question": "how big is the herd", "version": "1.0",
                                "collection": "goat"})
        self.assertEqual(reply.json()["evidence"][0]["url"],
                         self.prefix + "guide.html#configure-the-herd")

    def test_every_file_keeps_its_provenance_in_the_snapshot(self):
        out, _ = self.build("snapshot")
        with open(os.path.join(out, "provenance.json"), encoding="utf-8") as f:
            provenance = json.load(f)["goat/1.0"]
        self.assertEqual((provenance["kind"], provenance["prefix"]), ("crawl", self.prefix))
        files = {entry["path"]: entry for entry in provenance["files"]}
        self.assertEqual(sorted(files), ["guide.html", "index.html", "reference/index.html"])
        self.assertEqual(files["guide.html"]["sha256"], hashlib.sha256(GUIDE).hexdigest())
        self.assertEqual(files["reference/index.html"]["url"], self.prefix + "reference/")
        self.assertRegex(files["guide.html"]["fetched_at"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
        with contextlib.redirect_stdout(io.StringIO()) as printed:
            self.assertEqual(retrieval_main(["verify", out]), 0)
        self.assertIn(f"provenance: goat/1.0: 3 files crawled from {self.prefix}",
                      printed.getvalue())

    def test_a_second_build_asks_only_for_what_changed(self):
        first, _ = self.build("first")
        self.site.requests.clear()
        self.site.routes["/docs/guide.html"] = Route(200, GUIDE.replace(b"twice", b"twice"),
                                                     headers={"ETag": '"guide-1"'})
        second, err = self.build("second")
        conditional = [path for path, headers in self.site.requests
                       if headers.get("If-None-Match")]
        self.assertEqual(sorted(conditional), ["/docs/", "/docs/guide.html", "/docs/reference/"])
        self.assertIn("(3 pages, 3 unchanged)", [line for line in err if "done:" in line][0])
        with open(os.path.join(first, "manifest.json"), "rb") as a, \
                open(os.path.join(second, "manifest.json"), "rb") as b:
            self.assertEqual(a.read(), b.read())

    def test_verify_names_a_passage_whose_source_is_not_what_was_fetched(self):
        out, _ = self.build("snapshot")
        path = os.path.join(out, "provenance.json")
        with open(path, encoding="utf-8") as f:
            document = json.load(f)
        document["goat/1.0"]["files"][0]["sha256"] = "0" * 64
        with open(path, "w", encoding="utf-8") as f:
            json.dump(document, f)
        with contextlib.redirect_stdout(io.StringIO()) as printed:
            self.assertEqual(retrieval_main(["verify", out]), 1)
        self.assertIn("goat/1.0: guide.html: not the file fetched", printed.getvalue())


class HostileSiteTest(unittest.TestCase):
    """Every hostile page is skipped and counted by reason; the crawl still builds the rest."""

    @classmethod
    def setUpClass(cls):
        cls.site = Site(cls.addClassCleanup, {
            "/robots.txt": Route(200, b"User-agent: *\nDisallow: /docs/private/\n", "text/plain"),
            "/docs/": Route(200, page("Docs", "<h1 id='docs'>Docs</h1><p>Start here.</p>", [
                "guide.html", "loop-a.html", "away.html", "huge.html", "streams.html",
                "endless.html", "picture.html", "private/secret.html", "busy.html", "flaky.html",
                "farm/0.html", "missing.html", "search.html?q=goat", "../outside.html"])),
            "/docs/guide.html": Route(200, GUIDE),
            "/docs/loop-a.html": Route(302, headers={"Location": "loop-b.html"}),
            "/docs/loop-b.html": Route(302, headers={"Location": "/docs/loop-a.html"}),
            "/docs/away.html": Route(302, headers={"Location": "http://localhost:9/x.html"}),
            "/docs/huge.html": Route(200, b"<p>" + b"x" * 70000 + b"</p>"),
            "/docs/streams.html": Stream(b"<p>" + b"x" * 70000 + b"</p>"),
            "/docs/picture.html": Route(200, b"\x89PNG\r\n", "image/png"),
            "/docs/private/secret.html": Route(200, page("Secret", "<p>secret</p>")),
            "/docs/busy.html": Route(429, b"slow down", "text/plain", {"Retry-After": "1"},
                                     then=Route(200, page("Busy", "<p>busy page</p>"))),
            "/docs/flaky.html": Route(503, b"oops", "text/plain",
                                      then=Route(200, page("Flaky", "<p>flaky page</p>"))),
        }, fallback=Route(200, page("Page not found", "<p>Sorry.</p>")))
        cls.site.routes.update({f"/docs/farm/{n}.html": Route(200, page(
            f"Farm {n}", f"<p>field {n}</p>", [f"{n + 1}.html", f"{n + 2}.html"]))
            for n in range(200)})  # an endless link farm, as far as the page cap lets anyone see
        cls.sleep = RecordedSleep()
        cls.log = io.StringIO()
        cls.result = crawl(cls.site.origin + "/docs/", class_temporary_directory(cls),
                           Limits(max_pages=30, max_page_bytes=65536, retries=2, timeout_s=10),
                           "hostile", cls.log, cls.sleep)

    def test_each_hostile_page_is_skipped_for_its_reason(self):
        skipped = self.result.skipped
        self.assertEqual(skipped["redirect loop"], 1)
        self.assertEqual(skipped["redirect off the prefix"], 1)
        self.assertEqual(skipped["over the size cap"], 2)  # huge.html, and one that streams
        self.assertEqual(skipped["wrong content type"], 1)
        self.assertEqual(skipped["robots.txt"], 1)
        # missing.html and endless.html, and the guide's index.html and reference/, which this
        # site does not have either: each served as the site's "Page not found" with 200.
        self.assertEqual(skipped["error page served with 200"], 4)
        self.assertEqual(skipped["query string"], 1)
        self.assertEqual(skipped["off the prefix"], 1)
        self.assertIn("skipped: error page served with 200 4", self.log.getvalue())

    def test_what_was_kept_is_documentation(self):
        paths = [f.path for f in self.result.files]
        for path in ("index.html", "guide.html", "busy.html", "flaky.html", "farm/0.html"):
            self.assertIn(path, paths)
        for path in ("huge.html", "streams.html", "picture.html", "missing.html", "loop-a.html",
                     "loop-b.html", "llms.txt", "objects.inv", "sitemap.xml", "searchindex.js"):
            self.assertNotIn(path, paths)

    def test_robots_txt_is_honoured_and_the_tool_names_itself(self):
        self.assertFalse([path for path in self.site.paths() if "private" in path])
        agents = {headers.get("User-Agent", "") for _, headers in self.site.requests}
        self.assertEqual(len(agents), 1)
        self.assertRegex(agents.pop(), r"^retrieval/\S+ \(")

    def test_429_waits_as_long_as_retry_after_says_and_5xx_backs_off(self):
        self.assertIn(1.0, self.sleep.waits)  # busy.html's Retry-After: 1
        self.assertIn(0.5, self.sleep.waits)  # flaky.html's 503: the first backoff
        self.assertEqual(self.site.routes["/docs/busy.html"].calls, 2)

    def test_the_page_cap_bounds_the_requests(self):
        asked = {path for path in self.site.paths() if path.startswith("/docs/")
                 and "retrieval-probe" not in path}
        self.assertGreater(self.result.skipped["over the page cap"], 0)
        self.assertLessEqual(len(asked), 30 + 1)  # loop-b.html is reached only by redirect


class SlowDripTest(unittest.TestCase):
    """A page sent a byte at a time is given up when the request's timeout runs out."""

    def crawl_dripping(self, drip_class):
        site = Site(self.addCleanup,
                    {"/docs/": Route(200, page("Docs", "<p>x</p>", ["drip.html"]))})
        site.routes["/docs/drip.html"] = drip_class(site.stopped)
        result = crawl(site.origin + "/docs/", temporary_directory(self),
                       Limits(timeout_s=0.5, retries=0), "drip", io.StringIO(), RecordedSleep())
        self.assertEqual(result.skipped["timed out"], 1)
        self.assertEqual([f.path for f in result.files], ["index.html"])

    def test_a_body_that_drips(self):
        self.crawl_dripping(Drip)

    def test_headers_that_drip(self):
        self.crawl_dripping(HeaderDrip)


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class BadInputTest(unittest.TestCase):
    """Each bad source is one line on stderr, exit 2, and no snapshot directory at all."""

    def refused(self, source, *extra) -> str:
        out = os.path.join(temporary_directory(self), "snapshot")
        code, err = run_build("--source", "1.0=" + source, "--fetch-cache",
                              os.path.join(temporary_directory(self), "cache"), "--out", out,
                              "--crawl-retries", "0", *extra)
        self.assertEqual(code, 2, err)
        self.assertTrue(err and err[-1].startswith("retrieval: "), err)
        self.assertFalse(os.path.exists(out))
        return err[-1]

    def test_an_unreachable_host(self):
        self.assertIn("unreachable", self.refused(f"http://127.0.0.1:{closed_port()}/docs/"))

    def test_a_tls_error(self):
        site = Site(self.addCleanup, good_routes())
        https = site.origin.replace("http://", "https://") + "/docs/"
        self.assertIn("TLS error", self.refused(https))

    def test_robots_txt_that_forbids(self):
        forbidding = Route(200, b"User-agent: *\nDisallow: /\n", "text/plain")
        site = Site(self.addCleanup, {**good_routes(), "/robots.txt": forbidding})
        self.assertIn("robots.txt forbids", self.refused(site.origin + "/docs/"))
        self.assertEqual(site.paths(), ["/robots.txt"])

    def test_a_prefix_that_holds_no_documentation(self):
        site = Site(self.addCleanup,
                    {"/docs/": Route(200, b"\x00\x01", "application/octet-stream")})
        self.assertIn("no documentation pages under", self.refused(site.origin + "/docs/"))

    def test_a_site_that_serves_its_error_page_with_200_everywhere(self):
        site = Site(self.addCleanup, {},
                    fallback=Route(200, page("Oops", "<p>No such page.</p>")))
        line = self.refused(site.origin + "/docs/")
        self.assertIn("no documentation pages under", line)
        self.assertIn("error page served with 200 1", line)

    def test_a_prefix_that_redirects_off_the_origin(self):
        site = Site(self.addCleanup,
                    {"/docs/": Route(301, headers={"Location": "http://localhost:9/docs/"})})
        self.assertIn("redirect off the prefix", self.refused(site.origin + "/docs/"))

    def test_a_fetch_cache_that_cannot_be_written(self):
        site = Site(self.addCleanup, good_routes())
        blocked = os.path.join(temporary_directory(self), "a-file")
        with open(blocked, "w", encoding="utf-8"):
            pass
        out = os.path.join(temporary_directory(self), "snapshot")
        code, err = run_build("--source", f"1.0={site.origin}/docs/", "--fetch-cache",
                              os.path.join(blocked, "cache"), "--out", out)
        self.assertEqual(code, 2, err)
        self.assertRegex(err[-1], r"^retrieval: http://\S+: Not a directory")
        self.assertFalse(os.path.exists(out))

    def test_plain_http_to_a_host_that_is_not_loopback(self):
        self.assertIn("use https://", self.refused("http://docs.example.org/"))

    def test_a_bad_crawl_limit(self):
        self.assertIn("--crawl-in-flight must be at least 1",
                      self.refused("https://docs.example.org/", "--crawl-in-flight", "0"))

    def test_a_git_source_needs_a_base_url(self):
        self.assertIn("needs --base-url 1.0=URL", self.refused("git+file:///nowhere@v1"))


DEBIAN_JINJA = "/usr/share/doc/python-jinja2-doc/html"


def serve_tree(testcase, root: str, mount: str) -> Site:
    """Serve a directory tree at mount ("/x/") over loopback."""
    routes = {}
    for directory, _, names in os.walk(root):
        for name in names:
            path = os.path.join(directory, name)
            relative = os.path.relpath(path, root).replace(os.sep, "/")
            with open(path, "rb") as f:
                body = f.read()
            kind = ("text/html" if name.endswith(".html") else
                    "text/plain" if name.endswith(".txt") else "application/octet-stream")
            routes[mount + relative] = Route(200, body, kind)
            if name == "index.html":
                routes[mount + relative[:-len("index.html")]] = Route(200, body, kind)
    return Site(testcase.addCleanup, routes)


class SameAsLocalTest(unittest.TestCase):
    """A crawl of a served tree builds the units, anchors and answers of the local build."""

    def assert_same_as_local(self, root, version, questions, *local_args):
        site = serve_tree(self, root, "/docs/")
        prefix = site.origin + "/docs/"
        local, crawled = (os.path.join(temporary_directory(self), name)
                          for name in ("local", "crawled"))
        self.assertEqual(run_build("--source", f"{version}={root}", "--base-url",
                                   f"{version}={prefix}", "--out", local, *local_args)[0], 0)
        code, err = run_build("--source", f"{version}={prefix}", "--out", crawled,
                              "--fetch-cache", os.path.join(temporary_directory(self), "cache"))
        self.assertEqual(code, 0, err)
        self.assertEqual(built_passages(crawled), built_passages(local))
        with open(os.path.join(local, "manifest.json"), "rb") as a, \
                open(os.path.join(crawled, "manifest.json"), "rb") as b:
            self.assertEqual(a.read(), b.read())
        for question in questions:
            answers = []
            for out in (local, crawled):
                app = create_app(snapshot_path=out, settings=quiet_settings())
                self.addCleanup(app.close)
                answers.append(post_json(app, {"question": question, "version": version}).body)
            self.assertEqual(answers[0], answers[1], question)

    def test_debian_jinja2_docs(self):
        if not os.path.isdir(DEBIAN_JINJA):
            self.skipTest(f"{DEBIAN_JINJA} is not installed (apt-get install python-jinja2-doc)")
        self.assert_same_as_local(DEBIAN_JINJA, "3.1", [
            "How do I load templates from a package?", "autoescape html", "custom filter"])

    def test_a_site_mkdocs_renders(self):
        from tests.test_html_ingest import write_tree
        from tests.test_markdown_sections import INDEX_MD, INSTALL_MD, MKDOCS_YML, render

        project = os.path.join(temporary_directory(self), "project")
        write_tree(project, {"mkdocs.yml": MKDOCS_YML, "pages/index.md": INDEX_MD,
                             "pages/guide/install.md": INSTALL_MD})
        site = render(self, project)
        # MkDocs' own theme writes no generator tag: the local tree needs --format html; the
        # crawl reads pages without a Sphinx _sources copy as HTML of itself.
        self.assert_same_as_local(site, "1.0", ["how do I install goat with pip"],
                                  "--format", "html")


LLMS_INDEX = b"""\
# Goatherd

> Goatherd keeps goats in order.

## Docs

- [Herd](herd.md): configuring the herd
- [Elsewhere](https://elsewhere.example/page.md)
"""
HERD_MD = (b"# Herd\n\n## Configure the herd\n\n"
           b"Set herd_size: the herd holds at most that many goats.\n")


class MarkdownSiteTest(unittest.TestCase):
    """A site of Markdown only: an llms.txt and the pages it names, or one llms-full.txt."""

    def test_an_llms_txt_site_builds_its_pages_by_section(self):
        site = Site(self.addCleanup, {"/docs/llms.txt": Route(200, LLMS_INDEX, "text/plain"),
                                      "/docs/herd.md": Route(200, HERD_MD, "text/markdown")})
        prefix = site.origin + "/docs/"
        out = os.path.join(temporary_directory(self), "snapshot")
        code, err = run_build("--source", "1.0=" + prefix, "--out", out, "--fetch-cache",
                              os.path.join(temporary_directory(self), "cache"))
        self.assertEqual(code, 0, err)
        passages = built_passages(out)
        self.assertEqual(passages[prefix + "herd.md#configure-the-herd"][4],
                         "## Configure the herd\n\nSet herd_size: the herd holds at most that "
                         "many goats.")
        self.assertIn(prefix + "llms.txt#goatherd", passages)

    def test_an_llms_full_txt_named_by_its_url(self):
        site = Site(self.addCleanup, {"/docs/llms-full.txt": Route(200, HERD_MD, "text/plain")})
        out = os.path.join(temporary_directory(self), "snapshot")
        code, err = run_build("--source", f"1.0={site.origin}/docs/llms-full.txt", "--out", out,
                              "--fetch-cache", os.path.join(temporary_directory(self), "cache"))
        self.assertEqual(code, 0, err)
        self.assertEqual(list(built_passages(out)),
                         [site.origin + "/docs/llms-full.txt#configure-the-herd"])


class Interrupt(Exception):
    """Stands for the Ctrl-C that stops a crawl half-way."""


class ResumeTest(unittest.TestCase):
    def test_an_interrupted_crawl_resumes_from_what_it_kept(self):
        routes = good_routes()
        routes["/docs/reference/"] = Route(503, b"later", "text/plain", then=routes[
            "/docs/reference/"])
        site = Site(self.addCleanup, routes)
        cache = temporary_directory(self)

        def interrupted(seconds):  # the 503's backoff: the moment the crawl is stopped
            raise Interrupt

        with self.assertRaises(Interrupt):
            crawl(site.origin + "/docs/", cache, Limits(in_flight=1), "goat", io.StringIO(),
                  interrupted)
        kept_before = {path for path, _ in site.requests if path != "/docs/reference/"}
        site.requests.clear()
        result = crawl(site.origin + "/docs/", cache, Limits(in_flight=1), "goat", io.StringIO(),
                       RecordedSleep())
        conditional = {path for path, headers in site.requests if headers.get("If-None-Match")}
        self.assertTrue(conditional)
        self.assertLessEqual(conditional, kept_before)
        self.assertEqual(sorted(f.path for f in result.files),
                         ["guide.html", "index.html", "reference/index.html"])


class SphinxSourcesTest(unittest.TestCase):
    def test_sources_are_found_from_either_searchindex_format(self):
        for index in (b'Search.setIndex({"docnames": ["guide"], "filenames": ["guide.rst"]})',
                      b'Search.setIndex({docnames:["guide"],filenames:["guide.rst"]})'):
            with self.subTest(index=index):
                site = Site(self.addCleanup, {
                    "/docs/": Route(200, INDEX),
                    "/docs/searchindex.js": Route(200, index, "application/javascript"),
                    "/docs/_sources/guide.rst.txt": Route(200, b"Guide\n=====\n", "text/plain")})
                result = crawl(site.origin + "/docs/", temporary_directory(self),
                               stream=io.StringIO())
                self.assertIn("_sources/guide.rst.txt", [f.path for f in result.files])


class InventoryBoundTest(unittest.TestCase):
    """A fetched objects.inv is read within a bound: a zip bomb is refused, not expanded."""

    BODY = zlib.compress(b"pkg.greet py:function 1 api.html#$ -\n" * 1000)
    HEADER = b"# Sphinx inventory version 2\n# Project: pkg\n# Version: 1\n# zlib\n"

    def test_an_inventory_over_the_bound_is_refused(self):
        self.assertEqual(len(read_inventory(self.HEADER + self.BODY, 10 ** 6)), 1000)
        with self.assertRaisesRegex(InventoryError, "inflates past the 1000-byte cap"):
            read_inventory(self.HEADER + self.BODY, 1000)

    def test_a_truncated_inventory_is_still_refused(self):
        with self.assertRaisesRegex(InventoryError, "truncated"):
            read_inventory(self.HEADER + self.BODY[:-8])


class CrawlApiTest(unittest.TestCase):
    def test_a_url_with_a_query_is_refused(self):
        with self.assertRaises(CrawlError):
            crawl("https://docs.example.org/?page=1", temporary_directory(self))

    def test_a_directory_named_without_its_slash(self):
        from retrieval.ingest.sources.crawl import split_prefix

        self.assertEqual(split_prefix("https://docs.example.org/en/2.2.x"),
                         ("https://docs.example.org/en/2.2.x/", "https://docs.example.org/en/2.2.x/"))
        self.assertEqual(split_prefix("https://docs.example.org/en/llms-full.txt"),
                         ("https://docs.example.org/en/", "https://docs.example.org/en/llms-full.txt"))


if __name__ == "__main__":
    unittest.main()
