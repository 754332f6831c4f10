"""Hostile sources: a repository, a site, a package or a page that attacks the builder.

Each case makes its hostile input here (a local `file://` repository, a site served over
loopback, a Markdown page, an objects.inv) and builds it through `python -m retrieval build` in
a child process: the input is refused with one line, skipped with one line, or read within its
bound. Timing cases never assert a wall-clock threshold of their own: they compare the time of an
input with that of one four or eight times larger (a linear reader takes about that many times as
long, a quadratic one its square), and the child's timeout only turns a hang into a failure.
"""

import io
import json
import os
import random
import re
import stat
import subprocess
import sys
import tracemalloc
import unittest
import zipfile
import zlib

from retrieval.http.auth import add_key
from retrieval.ingest.readers import markdown
from retrieval.ingest.sources.crawl import crawl
from retrieval.ingest.sources.http_get import Limits
from retrieval.testing import subprocess_env
from retrieval.wsgi import create_app
from tests.package_fixtures import write_site_packages, write_wheel
from tests.support import (
    ROOT,
    call,
    class_temporary_directory,
    quiet_settings,
    temporary_directory,
)
from tests.support.sites import Route, Site, page
from tests.test_git_source import git, make_repo
from tests.test_hostile_trees import INVENTORY_HEAD
from tests.test_html_ingest import GUIDE_HTML, write_tree
from tests.test_versions import TREES
from tests.test_versions import build as build_versions

TIER = "server"

BASE = "https://docs.example.org/pkg/1.0/"
SECRET = "TOP-SECRET-OUTSIDE-THE-REPOSITORY"
CHILD_TIMEOUT_S = 120


def build(test, *sources, extra=(), env=None) -> tuple:
    """Run `python -m retrieval build` in a child; return (exit code, stderr, out directory)."""
    work = temporary_directory(test)
    out = os.path.join(work, "snapshot")
    args = [sys.executable, "-m", "retrieval", "build", "--out", out, "--fetch-cache",
            os.path.join(work, "cache")]
    for label, source in sources:
        args += ["--source", f"{label}={source}" if label else source]
        args += ["--base-url", f"{label}={BASE}"] if label else []
    done = subprocess.run([*args, *extra], capture_output=True, text=True,
                          env=subprocess_env(**(env or {})), cwd=ROOT, timeout=CHILD_TIMEOUT_S)
    return done.returncode, done.stderr, out


def snapshot_text(out: str) -> str:
    """Return every file of a built snapshot directory, as text (the passages are in SQLite)."""
    texts = []
    for directory, _, names in os.walk(out):
        for name in names:
            with open(os.path.join(directory, name), "rb") as handle:
                texts.append(handle.read().decode("utf-8", "replace"))
    return "\n".join(texts)


class GitOptionInjectionTest(unittest.TestCase):
    """A git+ URL or ref that starts with '-' is refused; git never reads one as an option."""

    def setUp(self):
        base = temporary_directory(self)
        self.repo = os.path.join(base, "repo")
        make_repo(self.repo, {"docs/guide.md": "# Guide\n\nGreeting goats.\n"})
        self.marker = os.path.join(base, "marker")
        # A command git would run as its upload-pack: it leaves the marker, then serves the
        # repository as the real one would, so that nothing shows it ran.
        self.command = f"touch {self.marker}; git-upload-pack"

    def assert_refused(self, source):
        code, err, out = build(self, ("1.0", source))
        self.assertEqual((code, len(err.splitlines())), (2, 1), err)
        self.assertIn("starts with '-'", err)
        self.assertFalse(os.path.exists(self.marker), "the URL or ref ran a command")
        self.assertFalse(os.path.exists(out))

    def test_an_upload_pack_option_as_the_url(self):
        # The ref is where git then fetches from: a local path runs the upload-pack command.
        command = f"touch {self.marker}; true ://x/y; git-upload-pack"
        self.assert_refused(f"git+--upload-pack={command}@{self.repo}")

    def test_an_upload_pack_option_as_the_ref(self):
        self.assert_refused(f"git+file://{self.repo}@--upload-pack={self.command}")


class GitDocsFolderOutsideTest(unittest.TestCase):
    """However a git source names its documentation folder, it must resolve inside the checkout."""

    def setUp(self):
        base = temporary_directory(self)
        self.outside = os.path.join(base, "outside")
        write_tree(self.outside, {"secret.md": f"# Secret\n\n{SECRET}\n"})
        self.repo = os.path.join(base, "repo")

    def assert_refused(self, files, links=(), suffix=""):
        write_tree(self.repo, files)
        for name, target in links:
            os.symlink(target, os.path.join(self.repo, name))
        git(self.repo, "init", "-q")
        git(self.repo, "add", "-A")
        git(self.repo, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q",
            "-m", "docs")
        code, err, out = build(self, ("1.0", f"git+file://{self.repo}@HEAD{suffix}"))
        self.assertEqual((code, len(err.splitlines()) > 0), (2, True), err)
        self.assertIn("leads out of the repository", err.splitlines()[-1])
        self.assertFalse(os.path.exists(out))
        self.assertNotIn(SECRET, err)

    def test_an_absolute_docs_dir(self):
        self.assert_refused({"mkdocs.yml": f"site_name: x\ndocs_dir: {self.outside}\n"})

    def test_a_docs_dir_that_climbs_out(self):
        self.assert_refused({"mkdocs.yml": "site_name: x\ndocs_dir: ../..\n"})

    def test_a_docs_folder_committed_as_a_link(self):
        self.assert_refused({"README.md": "# x\n"}, links=[("docs", self.outside)])

    def test_a_path_after_the_hash_committed_as_a_link(self):
        self.assert_refused({"README.md": "# x\n"}, links=[("manual", self.outside)],
                            suffix="#manual")

    def test_a_link_inside_the_repository_is_still_read(self):
        write_tree(self.repo, {"pages/guide.md": "# Guide\n\nGreeting goats.\n"})
        os.symlink("pages", os.path.join(self.repo, "docs"))
        make_repo(self.repo, {})
        code, err, out = build(self, ("1.0", f"git+file://{self.repo}@HEAD"))
        self.assertEqual(code, 0, err)
        self.assertIn("Greeting goats.", snapshot_text(out))


def build_seconds(err: str) -> float:
    """Return the seconds a build's last line says it took (the reading, not Python's start)."""
    return float(re.search(r"build: done: .* in ([0-9.]+)s;", err).group(1))


def crawl_seconds(err: str) -> float:
    """Return the seconds a crawl's last line says it took (fetching and scanning)."""
    return float(re.search(r"fetch: .*: done: .* fetched in ([0-9.]+)s;", err).group(1))


def assert_linear(test, make_tree, size, seconds_of=build_seconds, factor=4):
    """Build the source make_tree(folder, n) makes at n = size and at factor * size; the larger
    may take about factor times as long (a quadratic reader: its square), here up to twice that,
    with half a second of slack for a shared machine's noise and the timer's tenths."""
    seconds = []
    for n in (size, factor * size):
        folder = os.path.join(temporary_directory(test), "tree")
        source = make_tree(folder, n)
        code, err, _ = build(test, ("1.0", source))
        test.assertEqual(code, 0, err)
        seconds.append(seconds_of(err))
    test.assertLess(seconds[1], 2 * factor * seconds[0] + 0.5, seconds)


class MarkdownInLinearTimeTest(unittest.TestCase):
    """Markdown pages that made the readers' patterns backtrack: each costs what its size does."""

    @staticmethod
    def hostile_pages(n: int) -> dict:
        return {
            "heading-spaces.md": "# a" + " " * n + "b\n\ntext\n",
            "text-spaces.md": "# T\n\nword" + " " * n + "word\n",
            "brackets.md": "# T\n\n" + "[" * n + "\n",
            "link-targets.md": "# T\n\n" + "[](" * n + "\n",
            "same-headings.md": "## Same\n\nx\n" * (n // 8),
            "attr-braces.md": "# a " + "{" * n + "}\n\nx\n",
            "numbered-headings.md": "".join(f"## Same_{i}\n\nx\n## Same\n\ny\n"
                                            for i in range(n // 40)),
        }

    def test_an_mkdocs_project_with_attr_list(self):
        def make_tree(folder, n):
            write_tree(folder, {"mkdocs.yml": "site_name: x\ndocs_dir: docs\n"
                                              "use_directory_urls: a" + " " * n + "b\n"
                                              "markdown_extensions:\n  - attr_list\n",
                                **{f"docs/{name}": text
                                   for name, text in self.hostile_pages(n).items()}})
            return os.path.join(folder, "docs")
        assert_linear(self, make_tree, 4000)

    def test_a_plain_markdown_tree_and_an_llms_txt(self):
        def make_tree(folder, n):
            pages = self.hostile_pages(n)
            index = "# pkg\n\n## Docs" + " " * n + "x\n\n" + "".join(
                f"- [{name}]({name})\n" for name in pages)
            write_tree(folder, {"llms.txt": index, **pages})
            return folder
        assert_linear(self, make_tree, 4000)


# The patterns the linear Markdown scans replaced: the reference they must agree with.
OLD_MARKS = re.compile(r"^ {0,3}#{1,6}[ \t]*|[ \t]+#+[ \t]*$", re.M)
OLD_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
OLD_CLOSING = re.compile(r"(?:^|[ \t]+)#+$")
OLD_ATTR_LIST_ID = re.compile(r"(.*?)[ \t]*\{:?[ \t]*(?:[^}#]*[ \t])?#([\w-]+)[^}]*\}")
OLD_TOP_LEVEL = re.compile(
    r"^(docs_dir|use_directory_urls)[ \t]*:[ \t]*(['\"]?)(.*?)\2[ \t]*(?:#.*)?$", re.M)
OLD_TOC_COUNT = re.compile(r"(.*)_([0-9]+)")


def old_unique(slug, seen):
    """markdown.extensions.toc.unique, as the slugger ran it."""
    while slug in seen or not slug:
        counted = OLD_TOC_COUNT.fullmatch(slug)
        slug = f"{counted.group(1)}_{int(counted.group(2)) + 1}" if counted else f"{slug}_1"
    seen.add(slug)
    return slug


class MarkdownSameAsBeforeTest(unittest.TestCase):
    """The linear scans read what the patterns they replaced read, on random text."""

    PIECES = ["#", "##", " ", "\t", "a", "[", "]", "(", ")", "!", "{", "}", ":", "\n", "-", "_",
              "1", "9", "0", "'", '"', "docs_dir", "use_directory_urls", "\r", "é", "{#", "#id"]

    def test_random_text(self):
        rng = random.Random(46)
        for _ in range(20000):
            text = "".join(rng.choice(self.PIECES) for _ in range(rng.randrange(25)))
            self.assertEqual(markdown.link_texts(text), OLD_LINK.sub(r"\1", text), text)
            self.assertEqual(markdown._plain(text), OLD_LINK.sub(r"\1", OLD_MARKS.sub("", text)))
            line = text.replace("\n", "")
            heading = markdown._ATX_HEADING.fullmatch(("# " + line).rstrip())
            self.assertEqual(markdown._heading_text("# " + line), OLD_CLOSING.sub(
                "", (heading.group(1) or "").strip()).strip(), line)
            given = OLD_ATTR_LIST_ID.fullmatch(line.strip())
            self.assertEqual(markdown.attr_list_id(line.strip()), given and given.groups())
            keys = {}
            for each in text.split("\n"):
                key = markdown._TOP_LEVEL.match(each)
                if key:
                    keys[key.group(1)] = markdown._config_value(each[key.end():])
            self.assertEqual(keys, {match.group(1): match.group(3)
                                    for match in OLD_TOP_LEVEL.finditer(text)}, text)

    def test_repeated_headings_get_the_ids_toc_gives(self):
        rng = random.Random(46)
        for _ in range(2000):
            seen, slugger = set(), markdown.SLUGGERS["mkdocs"]()
            for _ in range(rng.randrange(40)):
                heading = rng.choice(["a", "a_1", "a_9", "a_10", "b", "", "a_1_1", "a_009"])
                self.assertEqual(slugger.heading(heading)[1], old_unique(heading, seen))


class InventoryInLinearTimeTest(unittest.TestCase):
    """An objects.inv line crafted to make Sphinx's pattern backtrack (a 167-byte file took 12 s)
    is read in time linear in its size."""

    def test_a_type_of_colons(self):
        def make_tree(folder, n):
            lines = b"a " + b":" * n + b" 1 x\n" + b"b " + b"a:" * (n // 2) + b" 1 x\n"
            write_tree(folder, {"index.html": GUIDE_HTML})
            with open(os.path.join(folder, "objects.inv"), "wb") as handle:
                handle.write(INVENTORY_HEAD + zlib.compress(lines, 9))
            return folder
        assert_linear(self, make_tree, 5000)


class CrawledFilesInLinearTimeTest(unittest.TestCase):
    """A crawled page or searchindex.js that made the crawler's patterns backtrack (links,
    <title>, the filenames list and its strings) is scanned in time linear in its size."""

    def test_a_hostile_page_and_search_index(self):
        def make_site(folder, n):
            hostile = (b"<html><head>" + b"<title>" * (n // 2) + b"</head><body><main><p>Goats."
                       b'</p><area href="' * n + b"<a " * n + b"</main></body></html>")
            index = b'Search.setIndex({' + b'"filenames":[' * n + b"})"
            site = Site(self.addCleanup, {
                "/robots.txt": Route(200, b"User-agent: *\nAllow: /\n", "text/plain"),
                "/docs/": Route(200, page("Goat", "<p>Goat keeps goats.</p>", ["hostile.html"])),
                "/docs/hostile.html": Route(200, hostile),
                "/docs/searchindex.js": Route(200, index, "application/javascript")},
                # A site whose missing pages are a page served with 200: every page's <title>
                # is then read, to tell them apart.
                fallback=Route(200, page("Not found", "<p>No such page.</p>")))
            return site.origin + "/docs/"
        assert_linear(self, make_site, 500, crawl_seconds, factor=8)


ROBOTS_ALL = Route(200, b"User-agent: *\nAllow: /\n", "text/plain")


class CrawlBoundsTest(unittest.TestCase):
    """A crawled site cannot stop the crawl with paths the disk cannot hold, cannot get past
    robots.txt through redirects, and cannot make the crawl remember links without bound."""

    def serve(self, routes, fallback=None) -> Site:
        return Site(self.addCleanup, routes, fallback)

    def test_a_page_and_a_folder_of_one_name_and_a_name_too_long(self):
        long_name = "x" * 300 + ".html"
        site = self.serve({
            "/robots.txt": ROBOTS_ALL,
            "/docs/": Route(200, page("Goat", "<p>Goat keeps goats.</p>",
                                      ["a.html", "a.html/", long_name])),
            "/docs/a.html": Route(200, page("A", "<p>The page a.</p>")),
            "/docs/a.html/": Route(200, page("A folder", "<p>The folder a.</p>")),
            f"/docs/{long_name}": Route(200, page("Long", "<p>A long name.</p>"))})
        code, err, out = build(self, ("1.0", site.origin + "/docs/"))
        self.assertEqual(code, 0, err)
        self.assertIn("a path the disk cannot hold beside the others 2", err)
        self.assertIn("Goat keeps goats.", snapshot_text(out))

    def test_robots_txt_served_through_a_redirect_is_honoured(self):
        site = self.serve({
            "/robots.txt": Route(301, headers={"Location": "/robots/current.txt"}),
            "/robots/current.txt": Route(200, b"User-agent: *\nDisallow: /docs/private/\n",
                                         "text/plain"),
            "/docs/": Route(200, page("Goat", "<p>Goat keeps goats.</p>",
                                      ["private/secret.html", "moved.html"])),
            "/docs/moved.html": Route(302, headers={"Location": "/docs/private/other.html"}),
            "/docs/private/secret.html": Route(200, page("Secret", f"<p>{SECRET}</p>")),
            "/docs/private/other.html": Route(200, page("Other", f"<p>{SECRET}</p>"))})
        code, err, out = build(self, ("1.0", site.origin + "/docs/"))
        self.assertEqual(code, 0, err)
        self.assertFalse(SECRET in snapshot_text(out), "a disallowed page was kept")
        asked = [path for path, _ in site.requests]
        self.assertNotIn("/docs/private/secret.html", asked)
        self.assertNotIn("/docs/private/other.html", asked)  # reached through moved.html

    def test_robots_txt_that_forbids_everything_through_a_redirect(self):
        site = self.serve({
            "/robots.txt": Route(302, headers={"Location": "/robots/current.txt"}),
            "/robots/current.txt": Route(200, b"User-agent: *\nDisallow: /\n", "text/plain"),
            "/docs/": Route(200, page("Goat", "<p>Goat keeps goats.</p>"))})
        code, err, _ = build(self, ("1.0", site.origin + "/docs/"))
        self.assertEqual(code, 2, err)
        self.assertIn("forbids", err.splitlines()[-1])
        self.assertNotIn("/docs/", [path for path, _ in site.requests])

    def test_robots_txt_redirected_to_another_host_is_not_asked_and_disallows_all(self):
        # RFC 9309 would follow it; a crawl asks no other host, so the robots.txt cannot be
        # read, which the RFC reads as disallowing everything (2.3.1.4, "unreachable").
        other = self.serve({"/robots.txt": ROBOTS_ALL})
        elsewhere = other.origin.replace("127.0.0.1", "localhost") + "/robots.txt"
        site = self.serve({"/robots.txt": Route(301, headers={"Location": elsewhere}),
                           "/docs/": Route(200, page("Goat", "<p>Goat keeps goats.</p>"))})
        code, err, _ = build(self, ("1.0", site.origin + "/docs/"))
        self.assertEqual(code, 2, err)
        self.assertIn(f"redirects to another host ({elsewhere})", err.splitlines()[-1])
        self.assertIn("disallows the whole site (RFC 9309)", err.splitlines()[-1])
        self.assertEqual(other.paths(), [])
        self.assertEqual(site.paths(), ["/robots.txt"])

    def test_five_robots_txt_redirects_are_followed_a_sixth_is_not(self):
        def chain(hops):
            routes = {f"/r{i}": Route(302, headers={"Location": f"/r{i + 1}"})
                      for i in range(hops)}
            return {**routes, "/robots.txt": Route(302, headers={"Location": "/r1"}),
                    f"/r{hops}": Route(200, b"User-agent: *\nDisallow: /docs/private/\n",
                                       "text/plain"),
                    "/docs/": Route(200, page("Goat", "<p>Goat keeps goats.</p>",
                                              ["private/secret.html"])),
                    "/docs/private/secret.html": Route(200, page("Secret", f"<p>{SECRET}</p>"))}
        site = self.serve(chain(5))  # robots.txt, then r1 .. r4: five redirects to r5
        code, err, out = build(self, ("1.0", site.origin + "/docs/"))
        self.assertEqual(code, 0, err)
        self.assertIn("Goat keeps goats.", snapshot_text(out))
        self.assertNotIn("/docs/private/secret.html", site.paths())
        site = self.serve(chain(6))
        code, err, _ = build(self, ("1.0", site.origin + "/docs/"))
        self.assertEqual(code, 2, err)
        self.assertIn("more than 5 redirects; a robots.txt that cannot be read disallows",
                      err.splitlines()[-1])
        self.assertNotIn("/docs/", site.paths())

    def test_robots_txt_unavailable_allows_all_unreachable_disallows_all(self):
        for status, allowed in ((404, True), (410, True), (401, False), (403, False),
                                (500, False), (503, False)):
            with self.subTest(status=status):
                site = self.serve({
                    "/robots.txt": Route(status, b"no", "text/plain"),
                    "/docs/": Route(200, page("Goat", "<p>Goat keeps goats.</p>"))})
                code, err, _ = build(self, ("1.0", site.origin + "/docs/"),
                                     extra=["--crawl-retries", "0"])
                self.assertEqual(code, 0 if allowed else 2, err)
                self.assertEqual("/docs/" in site.paths(), allowed)

    def test_links_not_followed_are_remembered_within_a_bound(self):
        # Each page links 3,000 assets of its own by short relative names: a crawl that kept
        # every link it saw held about ten times the bytes it fetched.
        pages = 20
        routes = {"/robots.txt": ROBOTS_ALL}
        for i in range(pages):
            links = "".join(f"<a href=i{i}-{j}.png>x</a>" for j in range(3000))
            routes[f"/docs/long/path/to/the/documentation/p{i}.html"] = Route(200, page(
                f"Page {i}", f"<p>Page {i}.</p>{links}",
                [f"p{i + 1}.html"] if i + 1 < pages else []))
        site = self.serve(routes)
        start = site.origin + "/docs/long/path/to/the/documentation/p0.html"
        tracemalloc.start()
        try:
            result = crawl(start, temporary_directory(self), Limits(max_pages=30),
                           stream=io.StringIO())
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        self.assertEqual(result.pages, pages)
        self.assertEqual(result.skipped["asset or download"], pages * 3000)
        self.assertLess(peak, 3 * 1024 * 1024)  # before: 9.6 MB; now under 1 MB


class TerminalEscapesTest(unittest.TestCase):
    """What a package says of itself is printed with its control characters escaped."""

    ESCAPE = "\x1b]0;owned\x07\x1b[2J"

    def assert_escaped(self, err):
        self.assertNotIn("\x1b", err)
        self.assertNotIn("\x07", err)
        self.assertIn("\\x1b]0;owned\\x07\\x1b[2J", err)

    def test_an_installed_version_holding_escape_sequences(self):
        venv = temporary_directory(self)
        write_site_packages(os.path.join(venv, "lib", "python3.11", "site-packages"), {
            "good": ("1.0", {"good.py": '"""Good things."""\n'}),
            "evil": (f"1.0{self.ESCAPE}", {"evil.py": '"""Evil things."""\n'})})
        code, err, _ = build(self, ("", f"env:{venv}"))
        self.assertEqual(code, 0, err)
        self.assertIn("skipped evil 1.0", err)
        self.assert_escaped(err)

    def test_an_archive_member_named_with_escape_sequences(self):
        links = temporary_directory(self)
        path = write_wheel(links, "evil", "1.0", {"evil/__init__.py": '"""Evil things."""\n'})
        with zipfile.ZipFile(path, "a") as wheel:  # a link member: left out, and named
            member = zipfile.ZipInfo(f"evil/link{self.ESCAPE}.py")
            member.external_attr = (stat.S_IFLNK | 0o777) << 16
            wheel.writestr(member, "/etc/passwd")
        code, err, _ = build(self, ("", "pypi:evil==1.0"), env={
            "PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": links})
        self.assertEqual(code, 0, err)
        self.assertIn("left out evil/link", err)
        self.assert_escaped(err)

    def test_a_refusal_s_last_line(self):
        code, err, _ = build(self, ("1.0", f"git+file:///nowhere{self.ESCAPE}/x@v1"))
        self.assertEqual(code, 2, err)
        self.assert_escaped(err)


class ScopedKeyTest(unittest.TestCase):
    """A key sees a snapshot as if it held only the collections the key may read: /corpus and the
    answers to a request naming no collection are those of that smaller snapshot, unkeyed."""

    @classmethod
    def setUpClass(cls):
        root = class_temporary_directory(cls)
        write_tree(os.path.join(root, "src", "hidden-1.0"),
                   {"page.txt": "Hidden\n\nA collection only staff may read.\n"})
        every = [*TREES, "hidden/1.0"]
        keys_file = os.path.join(root, "keys.json")
        cls.one = add_key(keys_file, "one", ["requests"])
        cls.two = add_key(keys_file, "two", ["python", "requests"])
        keyed = quiet_settings(keys_file=keys_file)
        cls.apps = {}
        for name, labels, extra, settings in (
                ("all", every, (), keyed),
                ("defaulted", every, ("--default-collection", "hidden"), keyed),
                ("requests", ["requests/2.28.1", "requests/2.28.2"], (), quiet_settings()),
                ("two", list(TREES), (), quiet_settings())):
            out = build_versions(root, name, labels, *extra)
            cls.apps[name] = create_app(out, settings=settings)
            cls.addClassCleanup(cls.apps[name].close)

    def ask(self, app, secret, method, path, **body):
        headers = {"HTTP_AUTHORIZATION": f"Bearer {secret}"} if secret else {}
        reply = call(self.apps[app], method, path, json.dumps(body).encode() if body else b"",
                     environ=headers)
        return reply.code, reply.json()

    def test_corpus_is_that_of_the_key_s_collections_alone(self):
        for app in ("all", "defaulted"):
            with self.subTest(app=app):
                self.assertEqual(self.ask(app, self.one, "GET", "/corpus"),
                                 self.ask("requests", None, "GET", "/corpus"))
                self.assertEqual(self.ask(app, self.two, "GET", "/corpus"),
                                 self.ask("two", None, "GET", "/corpus"))

    def test_a_request_naming_no_collection_reads_or_refuses_as_the_smaller_snapshot(self):
        for app in ("all", "defaulted"):
            with self.subTest(app=app):
                code, found = self.ask(app, self.one, "POST", "/search", query="request",
                                       version="2.28")
                self.assertEqual(code, 200, found)
                self.assertEqual(found["request"]["collection"], "requests")
                refused = self.ask(app, self.two, "POST", "/search", query="request",
                                   version="2.28")
                self.assertEqual(refused, self.ask("two", None, "POST", "/search",
                                                   query="request", version="2.28"))
                self.assertEqual(refused[0], 404)
                self.assertNotIn("hidden", json.dumps(refused))
                self.assertNotIn("snapshot", refused[1]["error"]["message"])


if __name__ == "__main__":
    unittest.main()
