"""`pypi:` fetches a release's archive from the index pip is configured for, running none of it.

A PEP 503/691 index is served on 127.0.0.1 by a thread (http.server) from releases this test
writes (tests/package_fixtures.py), beside a find-links directory. Fetches run in this process
(retrieval.ingest.sources.index_fetch, under an environment of the test's own: PIP_CONFIG_FILE is
os.devnull, so no configuration of this machine adds an index, and no proxy is set) and, for the
release whose build backend and setup.py would leave a marker, through `python -m retrieval
build` as a user runs it. Only loopback is touched.
"""

import base64
import hashlib
import http.server
import json
import os
import sys
import threading
import unittest
import urllib.parse
from pathlib import Path
from unittest import mock

from retrieval.ingest.sources import index_fetch
from retrieval.ingest.sources.index_fetch import ReleaseNotFetched, fetch_release
from retrieval.testing import subprocess_env
from tests.package_fixtures import INIT, write_sdist, write_wheel
from tests.support import class_temporary_directory, temporary_directory
from tests.test_cli import run
from tests.test_package_sources import passages

TIER = "server"

JSON_TYPE = "application/vnd.pypi.simple.v1+json"


class LocalIndex:
    """A package index on a loopback port: /simple/<project>/ (JSON or HTML) and /files/<file>.

    files: {project: [(filename, bytes, options)]}, options' keys: "digest" (the sha256 the index
    gives, None for none, default the right one), "yanked" (False, True or a reason).
    """

    def __init__(self, testcase, files: dict, mode: str = "json", credentials=None):
        self.files = files
        self.mode = mode  # "json": PEP 691 when asked for; "html": PEP 503 pages only
        self.credentials = credentials
        self.requests: list = []  # (path, Accept, Authorization)
        index = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                index.requests.append((self.path, self.headers.get("Accept"),
                                       self.headers.get("Authorization")))
                if index.credentials is not None:
                    token = base64.b64encode(":".join(index.credentials).encode()).decode()
                    if self.headers.get("Authorization") != f"Basic {token}":
                        return self.reply(401, "text/plain", b"credentials, please")
                path = urllib.parse.unquote(self.path)
                if path.startswith("/simple/") and path.endswith("/"):
                    return self.page(path[len("/simple/"):-1])
                for entries in index.files.values():
                    for filename, data, _ in entries:
                        if path == f"/files/{filename}":
                            return self.reply(200, "application/octet-stream", data)
                self.reply(404, "text/plain", b"not here")

            def page(self, project):
                if project not in index.files:
                    return self.reply(404, "text/plain", b"no such project")
                rows = []
                for filename, data, options in index.files[project]:
                    digest = options.get("digest", hashlib.sha256(data).hexdigest())
                    rows.append((filename, digest, options.get("yanked", False), len(data)))
                if index.mode == "json" and JSON_TYPE in (self.headers.get("Accept") or ""):
                    body = json.dumps({"meta": {"api-version": "1.1"}, "name": project, "files": [
                        {"filename": name, "url": f"../../files/{name}",
                         "hashes": {"sha256": digest} if digest else {}, "yanked": yanked,
                         "size": size}
                        for name, digest, yanked, size in rows]}).encode()
                    return self.reply(200, JSON_TYPE, body)
                anchors = []
                for name, digest, yanked, _ in rows:
                    fragment = f"#sha256={digest}" if digest else ""
                    mark = "" if yanked is False else (
                        " data-yanked" if yanked is True else f' data-yanked="{yanked}"')
                    anchors.append(f'<a href="/files/{name}{fragment}"{mark}>{name}</a><br>')
                body = ("<!DOCTYPE html><html><body>" + "\n".join(anchors)
                        + "</body></html>").encode()
                self.reply(200, "text/html; charset=utf-8", body)

            def reply(self, status, content_type, body):
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        # Listening once constructed: a request made before serve_forever runs waits in the
        # backlog, so there is nothing to wait for.
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        testcase.addClassCleanup(self.server.server_close)
        testcase.addClassCleanup(self.server.shutdown)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/simple/"


def _bytes(path: str) -> bytes:
    with open(path, "rb") as archive:
        return archive.read()


def clean_env(**extra) -> dict:
    """This process's environment without pip settings or proxies, plus extra."""
    env = {name: value for name, value in os.environ.items()
           if not name.upper().startswith("PIP_") and not name.lower().endswith("_proxy")}
    return env | {"PIP_CONFIG_FILE": os.devnull} | extra


class IndexFetchTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        base = class_temporary_directory(cls)
        made = os.path.join(base, "made")
        os.makedirs(made)
        plain = {"plain/__init__.py": INIT.replace("demo", "plain")}

        def sdist(dist, version, **options):
            return (os.path.basename(path := write_sdist(made, dist, version, plain)),
                    _bytes(path), options)

        def wheel(dist, version, name=None, padding=0, **options):
            path = write_wheel(made, dist, version, plain)
            return (name or os.path.basename(path), _bytes(path) + b"\0" * padding, options)

        cls.files = {
            # Several versions, and one spelled unnormalized.
            "multi": [sdist("multi", v) for v in ("1.0", "1.1", "1.10", "2.0.RC1")],
            # An sdist and a wheel of one version: the wheel listed first.
            "both": [wheel("both", "1.0"), sdist("both", "1.0")],
            # No sdist: a native wheel, then a pure one.
            "wheelonly": [wheel("wheelonly", "3.0",
                                "wheelonly-3.0-cp311-cp311-manylinux_2_17_x86_64.whl"),
                          wheel("wheelonly", "3.0")],
            "native": [wheel("native", "1.0", "native-1.0-cp311-cp311-manylinux_2_17_x86_64.whl"),
                       wheel("native", "1.0", "native-1.0-py2-none-any.whl")],
            # Platform wheels only (torch): the smallest for Python 3 is read; one for Python 2
            # alone is not (its sources do not parse as Python 3).
            "platformonly": [
                wheel("platformonly", "1.0", "platformonly-1.0-cp311-cp311-win_amd64.whl",
                      padding=4096),
                wheel("platformonly", "1.0", "platformonly-1.0-cp27-cp27mu-linux_x86_64.whl"),
                wheel("platformonly", "1.0",
                      "platformonly-1.0-cp311-none-macosx_11_0_arm64.whl")],
            "python2": [wheel("python2", "1.0", "python2-1.0-cp27-cp27mu-linux_x86_64.whl"),
                        wheel("python2", "1.0", "python2-1.0-py2-none-any.whl")],
            "tampered": [sdist("tampered", "1.0", digest="0" * 64)],
            "nodigest": [sdist("nodigest", "1.0", digest=None)],
            # 1.0's sdist is yanked and its wheel is not; 2.0 is only yanked.
            "yanky": [sdist("yanky", "1.0", yanked="broken"), wheel("yanky", "1.0"),
                      sdist("yanky", "2.0", yanked=True)],
        }
        cls.index = LocalIndex(cls, cls.files)
        cls.html_index = LocalIndex(cls, cls.files, mode="html")
        cls.private = LocalIndex(cls, {"multi": cls.files["multi"]},
                                 credentials=("reader", "s3cr:t@"))
        cls.links = os.path.join(base, "links")
        os.makedirs(cls.links)
        write_sdist(cls.links, "linked", "0.5", plain)

    def fetch(self, dist, version, **env):
        """Fetch under an environment of env alone; return (the file's name, notes)."""
        dest = Path(temporary_directory(self))
        notes: list = []
        with mock.patch.dict(os.environ, clean_env(**env), clear=True):
            path = fetch_release(dist, version, dest, note=notes.append)
        self.assertEqual(path.parent, dest)
        self.assertEqual(os.listdir(dest), [path.name])  # no .part left beside it
        return path.name, notes

    def refused(self, dist, version, **env) -> str:
        dest = temporary_directory(self)
        with mock.patch.dict(os.environ, clean_env(**env), clear=True), \
                self.assertRaises(ReleaseNotFetched) as caught:
            fetch_release(dist, version, Path(dest))
        self.assertEqual(os.listdir(dest), [])
        message = str(caught.exception)
        self.assertNotIn("\n", message)
        self.assertTrue(message.startswith(f"pypi:{dist}=={version}: "), message)
        return message

    # -- choosing the file ------------------------------------------------------------------

    def test_the_exact_version_is_chosen_among_several(self):
        for version, expected in [("1.1", "multi-1.1.tar.gz"), ("1.10", "multi-1.10.tar.gz"),
                                  ("2.0rc1", "multi-2.0.RC1.tar.gz"),
                                  ("2.0-rc.1", "multi-2.0.RC1.tar.gz")]:
            with self.subTest(version=version):
                self.assertEqual(self.fetch("multi", version, PIP_INDEX_URL=self.index.url),
                                 (expected, []))
        # The project's name as the user spells it; 1.0.0 is 1.0 (PEP 440 pads with zeros, as
        # pip's ==), and 1.2 is no release of it.
        for version in ("1.0", "1.0.0"):
            self.assertEqual(self.fetch("Multi", version, PIP_INDEX_URL=self.index.url)[0],
                             "multi-1.0.tar.gz")
        message = self.refused("multi", "1.2", PIP_INDEX_URL=self.index.url)
        self.assertIn("multi has no release 1.2; releases near it: 1.0, 1.1, 1.10, 2.0.RC1 "
                      "(of 4 releases) in " + self.index.url, message)
        # PEP 691 was asked for and answered.
        self.assertTrue(any(path == "/simple/multi/" and JSON_TYPE in accept
                            for path, accept, _ in self.index.requests))

    def test_the_sdist_is_preferred_and_a_pure_wheel_is_the_fallback(self):
        for index in (self.index, self.html_index):  # PEP 691 JSON, and PEP 503 HTML
            with self.subTest(index=index.mode):
                self.assertEqual(self.fetch("both", "1.0", PIP_INDEX_URL=index.url)[0],
                                 "both-1.0.tar.gz")
                self.assertEqual(self.fetch("wheelonly", "3.0", PIP_INDEX_URL=index.url)[0],
                                 "wheelonly-3.0-py3-none-any.whl")

    def test_another_builds_download_in_progress_is_left_alone(self):
        # Two builds sharing one fetch cache may fetch the same release at once: each writes
        # its own partial file, so neither truncates nor renames the other's.
        dest = Path(temporary_directory(self))
        theirs = dest / "multi-1.0.tar.gz.part"
        theirs.write_bytes(b"another build's first bytes")
        with mock.patch.dict(os.environ, clean_env(PIP_INDEX_URL=self.index.url), clear=True):
            path = fetch_release("multi", "1.0", dest)
        self.assertEqual(sorted(os.listdir(dest)), sorted([path.name, theirs.name]))
        self.assertEqual(theirs.read_bytes(), b"another build's first bytes")

    def test_a_release_of_platform_wheels_only_is_read_from_the_smallest(self):
        # The JSON page gives sizes (PEP 700): the smallest wheel for Python 3, said on stderr.
        name, notes = self.fetch("platformonly", "1.0", PIP_INDEX_URL=self.index.url)
        self.assertEqual(name, "platformonly-1.0-cp311-none-macosx_11_0_arm64.whl")
        size = len(self.files["platformonly"][2][1])
        self.assertEqual(notes, [
            "pypi:platformonly==1.0: no sdist and no pure-Python wheel; its Python files are "
            "read from platformonly-1.0-cp311-none-macosx_11_0_arm64.whl, the smallest "
            f"({size / 1e6:.1f} MB) of its 2 wheels for Python 3; nothing of it is loaded or "
            "run"])
        # A PEP 503 page gives none: the first by name, and said so.
        name, notes = self.fetch("platformonly", "1.0", PIP_INDEX_URL=self.html_index.url)
        self.assertEqual(name, "platformonly-1.0-cp311-cp311-win_amd64.whl")
        self.assertIn("the first by name (the index gives no sizes) of its 2 wheels", notes[0])
        # A wheel for Python 2 alone is never taken, `py2-none-any` included.
        self.assertEqual(self.fetch("native", "1.0", PIP_INDEX_URL=self.index.url)[0],
                         "native-1.0-cp311-cp311-manylinux_2_17_x86_64.whl")

    def test_a_release_with_no_sdist_and_no_wheel_for_python_3_is_refused(self):
        message = self.refused("python2", "1.0", PIP_INDEX_URL=self.index.url)
        self.assertEqual(message, "pypi:python2==1.0: no sdist and no wheel for Python 3 of it, "
                                  "only python2-1.0-cp27-cp27mu-linux_x86_64.whl, "
                                  "python2-1.0-py2-none-any.whl")

    def test_a_yanked_file_is_taken_only_when_its_version_has_nothing_else(self):
        for index in (self.index, self.html_index):
            with self.subTest(index=index.mode):
                self.assertEqual(self.fetch("yanky", "1.0", PIP_INDEX_URL=index.url),
                                 ("yanky-1.0-py3-none-any.whl", []))
                name, notes = self.fetch("yanky", "2.0", PIP_INDEX_URL=index.url)
                self.assertEqual(name, "yanky-2.0.tar.gz")
                self.assertEqual(len(notes), 1)
                self.assertIn("yanky-2.0.tar.gz is yanked", notes[0])

    # -- checking it ------------------------------------------------------------------------

    def test_a_file_that_does_not_match_the_index_digest_is_refused(self):
        for index in (self.index, self.html_index):
            with self.subTest(index=index.mode):
                message = self.refused("tampered", "1.0", PIP_INDEX_URL=index.url)
                self.assertIn("tampered-1.0.tar.gz from http://127.0.0.1:", message)
                self.assertIn("does not match the sha256 the index gives (index "
                              "0000000000000000..., file ", message)
        # A file the index gives no digest for is taken, and said so with its sha256.
        name, notes = self.fetch("nodigest", "1.0", PIP_INDEX_URL=self.index.url)
        digest = hashlib.sha256(self.files["nodigest"][0][1]).hexdigest()
        self.assertEqual((name, notes), ("nodigest-1.0.tar.gz", [
            f"pypi:nodigest==1.0: {self.index.url[:-len('simple/')]}files/nodigest-1.0.tar.gz "
            f"comes with no digest: not checked (its sha256 is {digest})"]))

    # -- where to look ----------------------------------------------------------------------

    def test_no_such_project_names_every_place_searched(self):
        message = self.refused("nosuch", "1.0", PIP_INDEX_URL=self.index.url,
                               PIP_EXTRA_INDEX_URL=self.html_index.url,
                               PIP_FIND_LINKS=self.links)
        self.assertEqual(message, f"pypi:nosuch==1.0: no project nosuch in {self.links}, "
                                  f"{self.index.url}, {self.html_index.url}")
        # An index that cannot be reached is said so.
        gone = LocalIndex(self, {})
        gone.server.shutdown()
        gone.server.server_close()
        with mock.patch.object(index_fetch, "RETRIES", 0):
            message = self.refused("multi", "1.1", PIP_INDEX_URL=gone.url)
        self.assertIn(f"no project multi in {gone.url}; {gone.url}multi/ failed: unreachable: ",
                      message)

    def test_extra_indexes_find_links_and_pips_config_files_are_read(self):
        self.assertEqual(self.fetch("linked", "0.5", PIP_INDEX_URL=self.index.url,
                                    PIP_FIND_LINKS=self.links)[0], "linked-0.5.tar.gz")
        self.assertEqual(self.fetch("linked", "0.5", PIP_NO_INDEX="1",
                                    PIP_FIND_LINKS=Path(self.links).as_uri())[0],
                         "linked-0.5.tar.gz")
        config = os.path.join(temporary_directory(self), "pip.conf")
        with open(config, "w", encoding="utf-8") as out:
            out.write(f"[global]\nindex-url = {self.html_index.url}\n"
                      f"[download]\nextra-index-url =\n    {self.index.url}\n")
        before = len(self.html_index.requests)
        self.assertEqual(self.fetch("both", "1.0", PIP_CONFIG_FILE=config)[0],
                         "both-1.0.tar.gz")
        self.assertEqual(self.html_index.requests[before][0], "/simple/both/")
        self.assertEqual(index_fetch.pip_settings(clean_env(PIP_CONFIG_FILE=config)).index_urls,
                         (self.html_index.url, self.index.url))
        # The environment overrides the files, as in pip.
        self.assertEqual(index_fetch.pip_settings(clean_env(
            PIP_CONFIG_FILE=config, PIP_INDEX_URL="https://other.example/simple",
            PIP_EXTRA_INDEX_URL="")).index_urls, ("https://other.example/simple",))

    def test_credentials_go_to_their_index_and_are_never_shown(self):
        user, password = self.private.credentials
        quoted = f"{user}:{urllib.parse.quote(password, safe='')}"
        with_credentials = self.private.url.replace("http://", f"http://{quoted}@")
        self.assertEqual(self.fetch("multi", "1.1", PIP_INDEX_URL=with_credentials)[0],
                         "multi-1.1.tar.gz")
        token = base64.b64encode(f"{user}:{password}".encode()).decode()
        self.assertEqual({(path, auth) for path, _, auth in self.private.requests[-2:]},
                         {("/simple/multi/", f"Basic {token}"),
                          ("/files/multi-1.1.tar.gz", f"Basic {token}")})
        # From a netrc file (NETRC, else ~/.netrc), as pip reads it.
        netrc = os.path.join(temporary_directory(self), "netrc")
        with open(netrc, "w", encoding="utf-8") as out:
            out.write(f"machine 127.0.0.1 login {user} password {password}\n")
        os.chmod(netrc, 0o600)
        self.assertEqual(self.fetch("multi", "1.0", PIP_INDEX_URL=self.private.url,
                                    NETRC=netrc)[0], "multi-1.0.tar.gz")
        # Without them: refused, said so; with wrong ones: the password is never shown.
        message = self.refused("multi", "1.1", PIP_INDEX_URL=self.private.url,
                               NETRC=os.devnull)
        self.assertIn("failed: HTTP 401 (credentials missing or refused)", message)
        wrong = self.private.url.replace("http://", "http://reader:wrong-one@")
        message = self.refused("multi", "1.1", PIP_INDEX_URL=wrong, NETRC=os.devnull)
        self.assertNotIn("wrong-one", message)
        self.assertIn("HTTP 401", message)

    def test_an_insecure_index_is_skipped_as_pip_skips_it(self):
        message = self.refused("multi", "1.1", PIP_INDEX_URL="http://index.invalid/simple/")
        self.assertEqual(message, "pypi:multi==1.1: no project multi in "
                                  "http://index.invalid/simple/; http://index.invalid/simple/ "
                                  "failed: not https, loopback or a trusted-host (pip skips it "
                                  "too)")

    def test_versions_are_normalized_and_ordered_as_packaging_does_it(self):
        # ingest/ is the standard library alone; packaging is what it is held to, where installed.
        try:
            from packaging.version import InvalidVersion, Version
        except ImportError:
            self.skipTest("packaging is not installed: nothing to compare with")
        versions = ["1.0", "1.0.0", "01.02", "v1.0", "1!2.0", "0!1.0", "1.0a1", "1.0-alpha.1",
                    "1.0beta2", "1.0c1", "1.0pre3", "1.0preview", "1.0RC", "1.0.post1",
                    "1.0-1", "1.0r", "1.0rev2", "1.0.dev0", "1.0-dev", "1.0a1.post2.dev3",
                    "1.0+Ubuntu-1", "1.0+abc.007", " 2.0 ", "2.0.RC1", "1.0-", "1..0", "abc",
                    "1.0+", "2004d", "1.0_post_3", "1.0.DEV_4"]
        for version in versions:
            with self.subTest(version=version):
                try:
                    expected = str(Version(version))
                except InvalidVersion:
                    expected = None
                self.assertEqual(index_fetch.normal_version(version), expected)
        valid = [v for v in versions if index_fetch.normal_version(v) is not None] + [
            "1.0.dev1", "1.0a1.dev1", "1.0rc1", "1.0.post1.dev1", "1.0+5", "1.0+a", "0", "0.0.1",
            "1.1", "1.10", "1.9", "2!0.1", "1.0.0.0.1"]
        self.assertEqual(sorted(valid, key=lambda v: (index_fetch.version_key(v), v)),
                         sorted(valid, key=lambda v: (Version(v), v)))


class NothingOfTheReleaseRunsTest(unittest.TestCase):
    """`retrieval build --source pypi:` of releases that run code if anything prepares them."""

    def test_a_release_whose_build_would_write_a_marker_is_built_and_nothing_runs(self):
        base = temporary_directory(self)
        made, home, tmp, cwd, markers = (os.path.join(base, name) for name in
                                         ("made", "home", "tmp", "cwd", "markers"))
        for folder in (made, home, tmp, cwd, markers):
            os.makedirs(folder)
        marker = os.path.join(markers, "ran")
        write = f"open({marker!r}, 'a').write(__name__ + '\\n')\n"
        # An in-tree build backend that writes the marker on import and in every hook, and a
        # setup.py that writes it: `pip download` of this sdist imports the backend.
        backend = write + "\n".join(
            f"def {hook}(*args, **kwargs):\n    {write}    return []\n"
            for hook in ("get_requires_for_build_wheel", "prepare_metadata_for_build_wheel",
                         "build_wheel", "build_sdist", "get_requires_for_build_sdist"))
        hostile = write_sdist(made, "demo-pkg", "1.0", {
            "pyproject.toml": '[build-system]\nrequires = []\nbuild-backend = "hostile"\n'
                              'backend-path = ["_backend"]\n',
            "_backend/hostile.py": backend, "setup.py": write,
            "src/demo/__init__.py": INIT, "src/demo/core.py": '"""The engine."""\n',
            "docs/guide.rst": "Guide\n=====\n\nStart an engine with make_engine.\n",
            "docs/conf.py": "project = 'demo'\n"})
        # A build backend that does not exist, and a build requirement no index has: what
        # stopped pandas 1.5.3 from being fetched at all.
        unbuildable = write_sdist(made, "unbuildable", "2.0", {
            "pyproject.toml": '[build-system]\nrequires = ["no-such-build-tool==0"]\n'
                              'build-backend = "no_such_backend.api"\n',
            "setup.py": write, "unbuildable/__init__.py": '"""Unbuildable."""\n\n\n'
                                                           'def spin():\n    """Spin."""\n'})
        index = LocalIndex(self, {
            "demo-pkg": [(os.path.basename(hostile), _bytes(hostile), {})],
            "unbuildable": [(os.path.basename(unbuildable), _bytes(unbuildable), {})]})
        out = os.path.join(base, "snapshot")
        env = clean_env(PIP_INDEX_URL=index.url, HOME=home, TMPDIR=tmp, XDG_CACHE_HOME="",
                        PYTHONDONTWRITEBYTECODE="1")
        env = subprocess_env(**env)
        done = run([sys.executable, "-m", "retrieval", "build", "--out", out,
                    "--source", "pypi:demo-pkg==1.0", "--source", "pypi:unbuildable==2.0"],
                   env=env, cwd=cwd)
        self.assertFalse(os.path.exists(marker), "the release's code ran")
        self.assertEqual(done.returncode, 0, done.stderr)
        units = passages(out)
        self.assertIn(("demo-pkg", "Guide"), units)
        self.assertIn(("unbuildable", "unbuildable.spin"), units)
        # Nothing was written outside the build's own folders: the snapshot, and the temporary
        # folder it removed.
        self.assertEqual([os.listdir(folder) for folder in (home, tmp, cwd, markers)],
                         [[], [], [], []])
        self.assertEqual({path for path, _, _ in index.requests},
                         {"/simple/demo-pkg/", "/files/demo-pkg-1.0.tar.gz",
                          "/simple/unbuildable/", "/files/unbuildable-2.0.tar.gz"})


if __name__ == "__main__":
    unittest.main()
