"""Two releases of one library in one snapshot: `retrieval diff`, POST /diff and diff_versions.

The releases are two environments of a small package (its docstrings, read with ast), built into
one snapshot by `retrieval build` with two --source values, as a user would; between them every
kind of change happens once: an object added, one removed, one renamed (the same docstring under
a new name), one whose signature changed and one newly deprecated.
"""

import asyncio
import contextlib
import hashlib
import io
import json
import os
import sys
import unittest

import requests

from retrieval import client as rc
from retrieval.cli.main import main
from retrieval.core.diff import CHANGES
from retrieval.mcp.backends import BackendError, RemoteBackend
from retrieval.testing import subprocess_env
from retrieval.wsgi import create_app
from tests.package_fixtures import write_site_packages
from tests.schema import errors as schema_errors
from tests.support import (
    ROOT,
    WAIT_S,
    call,
    class_temporary_directory,
    quiet_settings,
    require_module,
    start_server,
)
from tests.test_client import FakeServer, canned

TIER = "server"  # diff_versions is asked of a real MCP server, a child process

OLD = '''"""Demo engines."""


def make_engine(size=8):
    """Make an engine of the given size, ready to run jobs when it starts."""


def old_helper(path):
    """Read the jobs file at path and return the list of jobs it declares, in order."""


def gone():
    """Something removed in the next release."""


class Engine:
    """An engine that runs registered jobs."""
'''
NEW = '''"""Demo engines."""


def make_engine(size=8, *, name=None):
    """Make an engine of the given size, ready to run jobs when it starts."""


def read_jobs(path):
    """Read the jobs file at path and return the list of jobs it declares, in order."""


class Engine:
    """An engine that runs registered jobs.

    Deprecated
    ----------
    Since 2.0: use :class:`demo.Runner`.
    """


class Runner:
    """The new runner."""
'''
# What changes, by kind: the names listed (old names; a rename's new name beside it).
EXPECTED = {"added": ["demo.Runner"], "removed": ["demo.gone"], "renamed": ["demo.old_helper"],
            "signature_changed": ["demo.make_engine"], "deprecated": ["demo.Engine"]}
USES = "import demo as d\nfrom demo import make_engine\n\nd.old_helper('jobs.txt')\n"


def build_two_releases(root: str, old=None, new=None) -> str:
    """Build demo 1.0 and 2.0 (their files: {path: text}; demo.py of OLD and NEW unless given)
    into one snapshot; return its directory."""
    sources = []
    for version, files in (("1.0", old or {"demo.py": OLD}), ("2.0", new or {"demo.py": NEW})):
        env = os.path.join(root, version)
        write_site_packages(os.path.join(env, "lib", "python3.11", "site-packages"),
                            {"demo": (version, files)})
        sources += ["--source", f"demo=env:{env}"]
    out = os.path.join(root, "snapshot")
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["build", "--out", out, *sources]) == 0
    return out


def run_cli(*argv) -> tuple:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue()


def listed(document: dict) -> dict:
    return {kind: [entry["name"] for entry in entries]
            for kind, entries in document["changes"].items()}


class DiffTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.root = class_temporary_directory(cls)
        cls.snapshot = build_two_releases(cls.root)

    def cli(self, *argv):
        return run_cli("diff", "demo", "1.0", "2.0", "--snapshot", self.snapshot, *argv)

    def test_the_cli_lists_each_kind_of_change_with_its_passages_and_digests(self):
        status, out, _ = self.cli("--json")
        self.assertEqual(status, 0)
        document = json.loads(out)
        self.assertEqual(listed(document), EXPECTED)
        self.assertEqual(document["counts"], {kind: 1 for kind in CHANGES})
        renamed = document["changes"]["renamed"][0]
        self.assertEqual(renamed["new_name"], "demo.read_jobs")
        changed = document["changes"]["signature_changed"][0]
        self.assertEqual((changed["old_signature"], changed["new_signature"]),
                         ("(size=8)", "(size=8, *, name=None)"))
        # A deprecation its text does not quote in a form the diff reads (a numpydoc section),
        # listed from the unit's version note.
        self.assertEqual(document["changes"]["deprecated"][0]["note"],
                         "Deprecated since version 2.0: Since 2.0: use :class:`demo.Runner`.")
        # Each side cites its own version's passage, whose text the digest is of.
        self.assertEqual((renamed["old"]["version"], renamed["new"]["version"]), ("1.0", "2.0"))
        app = create_app(settings=quiet_settings(snapshot=self.snapshot))
        self.addCleanup(app.close)
        text = call(app, "GET", f"/passages/{renamed['new']['passage_id']}").json()["text"]
        self.assertEqual(hashlib.sha256(text.encode()).hexdigest(), renamed["new"]["text_sha256"])
        self.assertTrue(text.startswith("def read_jobs(path):"))

    def test_uses_keeps_the_changes_to_what_the_code_imports_and_calls(self):
        code = os.path.join(class_temporary_directory(self), "app")
        os.makedirs(code)
        with open(os.path.join(code, "main.py"), "w", encoding="utf-8") as out:
            out.write(USES)
        with open(os.path.join(code, "broken.py"), "w", encoding="utf-8") as out:
            out.write("def (:\n")
        with open(os.path.join(code, "deep.py"), "w", encoding="utf-8") as out:
            out.write("total = " + " + ".join(["1"] * 20000) + "\n")  # deeper than the parser
        status, out, err = self.cli("--json", "--uses", code)
        self.assertEqual(status, 0)
        self.assertEqual(listed(json.loads(out)), {
            "added": [], "removed": [], "renamed": ["demo.old_helper"],
            "signature_changed": ["demo.make_engine"], "deprecated": []})
        self.assertIn("broken.py", err)
        self.assertIn("deep.py", err)

    def test_the_text_report_and_the_refusals(self):
        status, out, _ = self.cli("--limit", "0")
        self.assertEqual(status, 0)
        self.assertIn("1 added, 1 removed, 1 renamed, 1 signature changed, 1 newly deprecated",
                      out)
        self.assertIn("... 1 more (--limit)", out)
        status, _, err = run_cli("diff", "demo", "1.0", "3.0", "--snapshot", self.snapshot)
        self.assertEqual(status, 2)
        self.assertIn("holds no version 3.0 (it holds 1.0, 2.0)", err)
        status, _, err = run_cli("diff", "default", "3.11", "3.12")  # the JSON fixture
        self.assertEqual(status, 2)
        self.assertIn("records no API objects", err)


RENAMES_OLD = '''"""Demo filters."""


def contextfilter(f):
    """Mark a filter as one that takes the template context as its first argument."""


def rmse(y=None, frames=None):
    """Compute the root-mean-square energy of each frame, either from the samples y or from
    frames already cut, one value per frame, in order."""


def floor_of(x):
    """Return the largest whole number not greater than x, as an integer, for any real x."""


def run(job, mode=None):
    """Run one job now, in this process, and return what it returns."""


class API:
    """The entry point of an application: a WSGI callable and its routes."""
'''
RENAMES_NEW = '''"""Demo filters."""


def pass_context(f):
    """Pass the template context as the first argument to the decorated function.

    .. versionadded:: 3.0
        Replaces ``contextfilter``.
    """


def rms(y=None, frames=None):
    """Compute the root-mean-square value of each frame, either from the samples y or from
    frames already cut, one value per frame, in order."""


def ceiling_of(x):
    """Return the smallest integer no less than x; raise TypeError for a complex number."""


def run(job, mode=None):
    """Run one job now, in this process, and return what it returns.

    Passing a mode is deprecated, use `Runner` instead.
    """


class Runner:
    """Runs jobs."""


class App:
    """The entry point of an application of any kind: a WSGI callable and its routes."""


class API(App):
    """A compatibility alias of :class:`demo.App`.

    ``API`` was renamed to :class:`demo.App` in 3.0.
    """
'''


class RenameTest(unittest.TestCase):
    """Renames the prose says, or nearly the same prose beside it, are listed as renamed."""

    @classmethod
    def setUpClass(cls):
        cls.snapshot = build_two_releases(class_temporary_directory(cls),
                                          {"demo.py": RENAMES_OLD}, {"demo.py": RENAMES_NEW})

    def test_renames_named_by_the_prose_or_of_nearly_the_same_prose(self):
        status, out, _ = run_cli("diff", "demo", "1.0", "2.0", "--snapshot", self.snapshot,
                                 "--json")
        self.assertEqual(status, 0)
        changes = json.loads(out)["changes"]
        self.assertEqual(
            sorted((entry["name"], entry["new_name"]) for entry in changes["renamed"]),
            [("demo.API", "demo.App"),  # kept as an alias its new docstring says was renamed
             ("demo.contextfilter", "demo.pass_context"),  # "Replaces ``contextfilter``"
             ("demo.rmse", "demo.rms")])  # a word apart, beside each other
        # Unrelated prose is not a rename, nor is a sentence about an argument ("use `Runner`
        # instead" of a mode) one of the object itself.
        self.assertEqual(listed({"changes": changes})["removed"], ["demo.floor_of"])
        self.assertEqual(listed({"changes": changes})["added"],
                         ["demo.Runner", "demo.ceiling_of"])


CODE_OLD = '''"""Demo spatial index."""
import warnings


def query_bulk(geometry, predicate=None):
    """Query the index with each geometry of an array, for every match of the predicate."""
    return []


def nearest(geometry, k=1):
    """Return the k nearest geometries."""
    return []


class Tree:
    """A tree of geometries."""

    def __init__(self, items):
        self.items = items


def to_file(df, path):
    """Write a frame to a file."""


def fetch(url, timeout=None, mode='r'):
    """Fetch a url."""


def plot(x):
    """Plot x."""


def resize(image, size):
    """Resize an image."""


def render(template, strict=False):
    """Render a template."""


def scale(x, factor=2):
    """Scale x."""


def legacy(x):
    """Do it the old way."""
    warnings.warn(DeprecationWarning("legacy() is deprecated"))
'''
CODE_NEW = '''"""Demo spatial index."""
import warnings

from ._api import deprecated


def query_bulk(geometry, predicate=None):
    """Query the index with each geometry of an array, for every match of the predicate."""
    warnings.warn(
        "The `query_bulk()` method is deprecated. You can use `query()` instead.",
        FutureWarning, stacklevel=2)
    return []


def nearest(geometry, k=1):
    """Return the k nearest geometries."""
    if k > 10:
        warnings.warn("a k over 10 is deprecated", DeprecationWarning)
    return []


class Tree:
    """A tree of geometries."""

    def __init__(self, items):
        warnings.warn(f"Tree is deprecated since 2.0, use {items!r}", category=DeprecationWarning)
        self.items = items


@deprecated("2.0", alternative="write_file")
def to_file(df, path):
    """Write a frame to a file."""


def fetch(url, timeout=None,  # seconds
          mode="r",
          ):
    """Fetch a url."""


def plot(x):
    """Plot x."""
    _api.warn_deprecated("2.0", name="plot", alternative="draw")


def resize(image, size):
    """Resize an image."""
    warn_deprecated_kwarg("size", "2.0")


def render(template, *, strict: bool = False, **options):
    """Render a template."""


def scale(x: float, factor: float = 2) -> float:
    """Scale x."""


def legacy(x):
    """Do it the old way."""
    LegacyDeprecationWarning(feature="legacy()", deprecated_since_version="1.0").warn()
'''


class CodeTest(unittest.TestCase):
    """Deprecations the code states and signatures read as Python reads them."""

    @classmethod
    def setUpClass(cls):
        cls.snapshot = build_two_releases(class_temporary_directory(cls),
                                          {"demo.py": CODE_OLD}, {"demo.py": CODE_NEW})

    def diff(self) -> dict:
        status, out, _ = run_cli("diff", "demo", "1.0", "2.0", "--snapshot", self.snapshot,
                                 "--json")
        self.assertEqual(status, 0)
        return json.loads(out)

    def test_a_deprecation_the_code_states_is_listed_with_its_message_and_version(self):
        deprecated = {entry["name"]: entry["note"]
                      for entry in self.diff()["changes"]["deprecated"]}
        # A warning its body gives first thing (a class: its __init__'s) and a `deprecated`
        # decorator; not a warning under an `if` (an argument's deprecation: nearest) nor a
        # helper named for an argument (resize), nor one the old release gave already in
        # another form (legacy: a warning made and given).
        self.assertEqual(deprecated, {
            "demo.Tree": "Deprecated: Tree is deprecated since 2.0, use {items}",
            "demo.plot": "Deprecated since version 2.0",  # the package's own helper
            "demo.query_bulk": "Deprecated: The `query_bulk()` method is deprecated. You can "
                               "use `query()` instead.",
            "demo.to_file": "Deprecated since version 2.0"})
        # The note is the unit's as any docstring's: a search finds it by its rendered label.
        app = create_app(settings=quiet_settings(snapshot=self.snapshot))
        self.addCleanup(app.close)
        reply = call(app, "POST", "/search", json.dumps(
            {"query": "query_bulk deprecated", "collection": "demo", "version": "2.0"}).encode())
        hit = next(hit for hit in reply.json()["hits"] if hit["title"] == "demo.query_bulk")
        self.assertEqual(hit["deprecated"][0]["version"], "")
        # The warning made and given (`Category(...).warn()`), its version a keyword's.
        reply = call(app, "POST", "/search", json.dumps(
            {"query": "legacy", "collection": "demo", "version": "2.0"}).encode())
        hit = next(hit for hit in reply.json()["hits"] if hit["title"] == "demo.legacy")
        self.assertEqual(hit["deprecated"], [{"version": "1.0", "text": "legacy()"}])

    def test_signatures_are_compared_as_python_reads_them_with_what_changed(self):
        changed = {entry["name"]: entry for entry in self.diff()["changes"]["signature_changed"]}
        # A comment, a trailing comma and quotes are no change (fetch); a keyword-only argument, an
        # annotation and a new **options are, each said by name.
        self.assertEqual(sorted(changed), ["demo.render", "demo.scale"])
        self.assertEqual(changed["demo.render"]["parameters"], {
            "added": ["options"], "removed": [], "changed": ["strict"],
            "annotation_changed": ["strict"], "returns_changed": False})
        self.assertEqual(changed["demo.scale"]["parameters"], {
            "added": [], "removed": [], "changed": [], "annotation_changed": ["x", "factor"],
            "returns_changed": True})
        # The text report says which changes are of annotations only.
        status, out, _ = run_cli("diff", "demo", "1.0", "2.0", "--snapshot", self.snapshot)
        self.assertEqual(status, 0)
        marked = [line for line in out.splitlines() if line.endswith("(annotations only)")]
        self.assertEqual(len(marked), 1)
        self.assertTrue(marked[0].startswith("  demo.scale (function): (x, factor=2) -> "))


class DiffRouteTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.snapshot = build_two_releases(class_temporary_directory(cls))

    def setUp(self):
        self.app = create_app(settings=quiet_settings(snapshot=self.snapshot))
        self.addCleanup(self.app.close)

    def post(self, body):
        return call(self.app, "POST", "/diff", json.dumps(body).encode())

    def test_the_route_answers_what_the_cli_does_and_filters_by_names(self):
        reply = self.post({"collection": "demo", "version": "1.0", "to_version": "2.0"})
        self.assertEqual(reply.code, 200)
        document = reply.json()
        self.assertEqual(listed(document), EXPECTED)
        # An unflagged passage's hit carries no flags field, as on every hit.
        self.assertNotIn("flags", document["changes"]["added"][0]["new"])
        status, out, _ = run_cli("diff", "demo", "1.0", "2.0", "--snapshot", self.snapshot,
                                 "--json")
        self.assertEqual(json.loads(out)["changes"], document["changes"])
        self.assertEqual(document["request"], {"version": "1.0", "collection": "demo",
                                               "to_version": "2.0", "limit": 100})
        only = self.post({"collection": "demo", "version": "1.0", "to_version": "2.0",
                          "names": ["demo.Engine"], "limit": 0}).json()
        openapi = call(self.app, "GET", "/openapi.json").json()
        for body in (document, only):
            self.assertEqual(schema_errors({"$ref": "#/components/schemas/DiffResponse"}, body,
                                           openapi), [])
        self.assertEqual(only["counts"], {**{kind: 0 for kind in CHANGES}, "deprecated": 1})
        self.assertEqual(only["changes"]["deprecated"], [])

    def test_mistakes_are_refused_with_their_codes(self):
        cases = [({"collection": "demo", "version": "1.0"}, 422, "invalid_request"),
                 ({"collection": "demo", "version": "1.0", "to_version": "2.0",
                   "names": ["not a name"]}, 422, "invalid_request"),
                 ({"collection": "demo", "version": "1.0", "to_version": "2.0",
                   "limit": 1001}, 422, "invalid_request"),
                 ({"collection": "demo", "version": "1.0", "to_version": "2.0", "x": 1}, 422,
                  "invalid_request"),
                 ({"collection": "demo", "version": "1.0", "to_version": "9.9"}, 404,
                  "version_not_found"),
                 ({"collection": "nope", "version": "1.0", "to_version": "2.0"}, 404,
                  "collection_not_found")]
        for body, status, code in cases:
            with self.subTest(body=body):
                reply = self.post(body)
                self.assertEqual((reply.code, reply.json()["error"]["code"]), (status, code))

    def test_a_json_snapshot_cannot_be_diffed(self):
        app = create_app(settings=quiet_settings())
        self.addCleanup(app.close)
        reply = call(app, "POST", "/diff",
                     json.dumps({"version": "3.11", "to_version": "3.12"}).encode())
        self.assertEqual((reply.code, reply.json()["error"]["code"]), (409, "diff_unavailable"))


# Two releases where one object is documented only out of the index in the old one (a public
# module's helper the package does not export: its internals, `noindex`) and exported by the new
# one, and a module (with its internal tool) only the new one has.
TOOLS = '''"""Tools."""


def helper(path):
    """Read a jobs file at path and return the jobs it lists, in order."""
'''
FACE = '''"""Demo."""
{imports}

def run(jobs):
    """Run the jobs given, in order, and return their results as a list."""
'''
EXTRA = '''"""Extra tools, new in 2.0."""


def tool():
    """A tool of the extra module."""
'''


class DocumentedObjectsTest(unittest.TestCase):
    """The diff and the lookup read one definition of what a release documents."""

    @classmethod
    def setUpClass(cls):
        cls.snapshot = build_two_releases(
            class_temporary_directory(cls),
            {"demo/__init__.py": FACE.format(imports=""), "demo/tools.py": TOOLS},
            {"demo/__init__.py": FACE.format(imports="from .tools import helper\n"),
             "demo/tools.py": TOOLS, "demo/extra.py": EXTRA})

    def setUp(self):
        self.app = create_app(settings=quiet_settings(snapshot=self.snapshot))
        self.addCleanup(self.app.close)

    def lookup(self, name, version):
        reply = call(self.app, "POST", "/lookup", json.dumps(
            {"collection": "demo", "name": name, "version": version}).encode())
        self.assertEqual(reply.code, 200, reply.body)
        return reply.json()

    def test_an_object_out_of_the_index_is_documented_for_both(self):
        # 1.0 documents demo.tools.helper out of the index; 2.0 exports it as demo.helper too.
        self.assertEqual(self.lookup("demo.tools.helper", "1.0")["status"], "found")
        self.assertEqual(self.lookup("demo.tools.helper", "2.0")["status"], "found")
        document = call(self.app, "POST", "/diff", json.dumps(
            {"collection": "demo", "version": "1.0", "to_version": "2.0"}).encode()).json()
        self.assertEqual(listed(document), {**{kind: [] for kind in CHANGES},
                                            "added": ["demo.extra", "demo.extra.tool"]})
        self.assertEqual([entry["kind"] for entry in document["changes"]["added"]],
                         ["module", "function"])

    def test_what_the_diff_adds_or_removes_a_lookup_finds_only_on_that_side(self):
        for old, new in (("1.0", "2.0"), ("2.0", "1.0")):
            document = call(self.app, "POST", "/diff", json.dumps(
                {"collection": "demo", "version": old, "to_version": new}).encode()).json()
            changed = {kind: [entry["name"] for entry in document["changes"][kind]]
                       for kind in ("added", "removed")}
            self.assertTrue(changed["added"] or changed["removed"])
            for kind, absent, present in (("added", old, new), ("removed", new, old)):
                for name in changed[kind]:
                    with self.subTest(old=old, kind=kind, name=name):
                        answer = self.lookup(name, absent)
                        self.assertEqual((answer["status"], answer["not_in_version"]["versions"]),
                                         ("not_in_version", [present]))


class RemoteDiffTest(unittest.TestCase):
    """The client's diff and MCP's RemoteBackend.diff, against a real `retrieval serve`."""

    @classmethod
    def setUpClass(cls):
        cls.snapshot = build_two_releases(class_temporary_directory(cls))

    def setUp(self):
        self.server = start_server(self, "--snapshot", self.snapshot)

    def served(self, body):
        reply = requests.post(self.server.base_url + "/diff", json=body, timeout=WAIT_S)
        self.assertEqual(reply.status_code, 200, reply.text)
        return reply.json()

    def test_the_client_diff_is_the_route_document_verified(self):
        with rc.RetrievalClient(self.server.base_url) as client:
            document = client.diff("2.0", "1.0", collection="demo")
            self.assertEqual(listed(document), EXPECTED)
            self.assertEqual(document, self.served(
                {"collection": "demo", "version": "1.0", "to_version": "2.0"}))
            only = client.diff("2.0", "1.0", collection="demo", names=["demo.Engine"], limit=1)
            self.assertEqual(only["counts"], {**{kind: 0 for kind in CHANGES}, "deprecated": 1})
            self.assertEqual(only["request"]["names"], ["demo.Engine"])
            with self.assertRaises(rc.VersionNotFound) as refused:
                client.diff("9.9", "1.0", collection="demo")
            self.assertEqual(refused.exception.body["error"]["versions"], ["1.0", "2.0"])
            with self.assertRaises(rc.InvalidRequest):
                client.diff("2.0", "1.0", collection="demo", names=["not a name"])

    def test_remote_backend_diff_answers_and_refuses_as_the_service(self):
        backend = RemoteBackend(self.server.base_url)
        self.addCleanup(backend.close)
        arguments = {"collection": "demo", "version": "1.0", "to_version": "2.0",
                     "names": ["demo.make_engine"]}
        self.assertEqual(backend.diff(arguments), self.served(arguments))
        with self.assertRaises(BackendError) as refused:
            backend.diff({"collection": "demo", "version": "1.0", "to_version": "7.0"})
        self.assertEqual(refused.exception.code, "version_not_found")
        with self.assertRaises(BackendError) as refused:
            backend.diff({"collection": "nope", "version": "1.0", "to_version": "2.0"})
        self.assertEqual(refused.exception.code, "collection_not_found")


class DiffEchoTest(unittest.TestCase):
    """A diff document whose echo is not what was sent is refused, never returned."""

    def test_an_altered_echo_raises(self):
        body = {"corpus_id": "0" * 64, "request": {"version": "1.0", "collection": "demo",
                                                   "to_version": "3.0", "limit": 100},
                "old_version": "1.0", "new_version": "3.0",
                "counts": {kind: 0 for kind in CHANGES},
                "changes": {kind: [] for kind in CHANGES}}
        fake = FakeServer(self, canned(200, body))
        with self.assertRaises(rc.IntegrityError):
            rc.RetrievalClient(fake.base_url).diff("2.0", "1.0", collection="demo")
        fake = FakeServer(self, canned(200, dict(body, request=dict(body["request"],
                                                                     to_version="2.0"))))
        self.assertEqual(rc.RetrievalClient(fake.base_url).diff("2.0", "1.0",
                                                                collection="demo")["new_version"],
                         "3.0")  # what the echo does not cover is the server's word


class DiffToolTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.snapshot = build_two_releases(class_temporary_directory(cls))

    def setUp(self):
        require_module(self, "mcp", "mcp")

    def test_diff_versions_over_stdio(self):
        from mcp import Client
        from mcp.client.stdio import StdioServerParameters

        parameters = StdioServerParameters(
            command=sys.executable, cwd=ROOT, env=subprocess_env(RETRIEVAL_ACCESS_LOG="false"),
            args=["-m", "retrieval", "mcp", "--snapshot", self.snapshot])

        async def scenario():
            async with Client(parameters) as client:
                found = await client.call_tool("diff_versions", {
                    "collection": "demo", "version": "1.0", "to_version": "2.0",
                    "names": ["demo.make_engine"]})
                refused = await client.call_tool("diff_versions", {
                    "collection": "demo", "version": "1.0", "to_version": "7.0"})
                return found, refused

        found, refused = asyncio.run(asyncio.wait_for(scenario(), WAIT_S * 3))
        self.assertFalse(found.is_error)
        self.assertEqual(found.structured_content["counts"]["signature_changed"], 1)
        self.assertEqual(sum(found.structured_content["counts"].values()), 1)
        # Each version's provenance line: which release, where it came from, when built.
        self.assertEqual([line.split(" · ")[0] for line in
                          found.structured_content["provenance"]], ["demo@1.0", "demo@2.0"])
        self.assertIn("built ", found.structured_content["provenance"][1])
        self.assertTrue(refused.is_error)
        self.assertEqual(json.loads(refused.content[0].text)["error"]["code"],
                         "version_not_found")


if __name__ == "__main__":
    unittest.main()
