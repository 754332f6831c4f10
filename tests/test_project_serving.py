"""A snapshot built for a project: names as people write them, the pins served by default.

One snapshot of several collections (built with build_snapshot) and a project.json beside its
manifest, as `retrieval project` writes it; the same snapshot without one is served as before.
"""

import io
import json
import os
import shutil
import unittest

from retrieval.core import digests
from retrieval.core.checks import SnapshotError
from retrieval.core.loading import load_snapshot
from retrieval.http.auth import add_key
from retrieval.ingest.builder import DEFAULT_POLICY, Progress, SourceTree, build_snapshot
from retrieval.wsgi import create_app
from tests.support import call, class_temporary_directory, quiet_settings

TIER = "inprocess"

BASE = "https://docs.example.org/"
# (collection, version): the one page of its docs.
TREES = {
    ("flask", "2.2.2"): "Flask 2.2.2\n\nThe route decorator registers a view function (2.2.2).\n",
    ("flask", "2.3.0"): "Flask 2.3.0\n\nThe route decorator registers a view function (2.3.0).\n",
    ("beautifulsoup4", "4.12.3"): "Beautiful Soup\n\nThe find_all method finds every tag.\n",
    ("pyyaml", "6.0.1"): "PyYAML\n\nThe safe_load function parses a YAML document.\n",
    ("certifi", "2024.8.30"): "certifi\n\nThe where function returns the CA bundle path.\n",
    ("scikit-learn", "1.5.0"): "scikit-learn\n\nThe fit method trains an estimator (1.5.0).\n",
    ("scikit-learn", "1.5.1"): "scikit-learn\n\nThe fit method trains an estimator (1.5.1).\n",
    ("scikit-learn", "1.6.0rc1"): "scikit-learn\n\nThe fit method trains an estimator (rc).\n",
    ("lib", "2.5.0b1"): "lib\n\nThe spin function spins a wheel (beta).\n",
    ("lib", "1.0.post1"): "lib\n\nThe spin function spins a wheel (post).\n",
}
PROJECT = {"project": "app", "lockfile": "uv.lock", "pins": [
    {"name": "flask", "version": "2.2.2", "collection": "flask", "import_names": ["flask"],
     "source": "pypi", "units": 2, "api_objects": 1, "guide_sections": 1, "missing": ""},
    {"name": "beautifulsoup4", "version": "4.12.3", "collection": "beautifulsoup4",
     "import_names": ["bs4"], "source": "pypi", "units": 2, "api_objects": 1,
     "guide_sections": 1, "missing": ""},
    {"name": "pyyaml", "version": "6.0.1", "collection": "pyyaml", "import_names": ["yaml"],
     "source": "env", "units": 2, "api_objects": 1, "guide_sections": 0,
     "missing": "no guide"},
    {"name": "scikit-learn", "version": "1.5.1", "collection": "scikit-learn",
     "import_names": ["sklearn"], "source": "pypi", "units": 2, "api_objects": 1,
     "guide_sections": 1, "missing": ""},
    {"name": "certifi", "version": "2024.8.30", "collection": "certifi",
     "import_names": ["certifi"], "source": "pypi", "units": 2, "api_objects": 1,
     "guide_sections": 0, "missing": ""},
    {"name": "left-out", "version": "0.1", "collection": None, "import_names": ["left_out"],
     "source": None, "units": 0, "api_objects": 0, "guide_sections": 0,
     "missing": "no sdist, no repository, no site"},
]}


def build_project_snapshot(root: str, project=PROJECT) -> tuple:
    """Build TREES into root/plain, copy it to root/project with project.json; return both."""
    trees = []
    for (collection, version), text in TREES.items():
        source = os.path.join(root, "src", collection, version)
        os.makedirs(source)
        with open(os.path.join(source, "page.txt"), "w", encoding="utf-8") as handle:
            handle.write(text)
        trees.append(SourceTree(version, source, f"{BASE}{collection}/{version}/", collection))
    plain = os.path.join(root, "plain")
    build_snapshot(trees, plain, DEFAULT_POLICY, Progress(io.StringIO()))
    pinned = os.path.join(root, "project")
    shutil.copytree(plain, pinned)
    with open(os.path.join(pinned, "project.json"), "w", encoding="utf-8") as handle:
        json.dump(project, handle)
    return plain, pinned


def post(app, path, **body):
    return call(app, "POST", path, json.dumps(body).encode())


class ProjectServingTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.root = class_temporary_directory(cls)
        plain, pinned = build_project_snapshot(cls.root)
        cls.plain = create_app(plain, settings=quiet_settings())
        cls.addClassCleanup(cls.plain.close)
        cls.app = create_app(pinned, settings=quiet_settings())
        cls.addClassCleanup(cls.app.close)

    def ask(self, app=None, path="/retrieve", text="route find_all safe_load bundle fit spin",
            **fields):
        field = "question" if path == "/retrieve" else "query"
        return post(app or self.app, path, **{field: text}, **fields)

    def served(self, reply) -> tuple:
        """Return (collection read, versions of the evidence or hits) of a 200 reply."""
        self.assertEqual(reply.code, 200, reply.body)
        body = reply.json()
        request = body["request"]
        items = body["evidence"] if "evidence" in body else body["hits"]
        return (request.get("served_collection", request["collection"]),
                {item["version"] for item in items})

    def test_a_distribution_in_any_spelling_or_an_import_name_reads_its_collection(self):
        for asked, collection, version in (
                ("flask", "flask", "2.2.2"), ("Flask", "flask", "2.2.2"),
                ("FLASK", "flask", "2.3.0"), ("bs4", "beautifulsoup4", "4.12.3"),
                ("BeautifulSoup4", "beautifulsoup4", "4.12.3"), ("yaml", "pyyaml", "6.0.1"),
                ("PyYAML", "pyyaml", "6.0.1"), ("sklearn", "scikit-learn", "1.5.1"),
                ("scikit_learn", "scikit-learn", "1.5.0"), ("Scikit.Learn", "scikit-learn",
                                                            "1.5.1")):
            for path in ("/retrieve", "/search"):
                with self.subTest(asked=asked, path=path):
                    reply = self.ask(path=path, collection=asked, version=version)
                    self.assertEqual(self.served(reply), (collection, {version}))
                    request = reply.json()["request"]
                    self.assertEqual(request["collection"], asked)  # echoed as sent
                    self.assertEqual("served_collection" in request, asked != collection)
        # Without the project's pins, the distribution's name still reads it; an import name
        # is known only from the pins.
        self.assertEqual(self.served(self.ask(self.plain, collection="SciKit-Learn",
                                              version="1.5.1")),
                         ("scikit-learn", {"1.5.1"}))
        reply = self.ask(self.plain, collection="bs4", version="4.12.3")
        self.assertEqual(reply.json()["error"]["code"], "collection_not_found")

    def test_pep_440_versions_are_served_exactly(self):
        for collection, asked, served in (
                ("certifi", "2024.8.30", "2024.8.30"), ("lib", "2.5.0b1", "2.5.0b1"),
                ("lib", "2.5.0-beta.1", "2.5.0b1"), ("lib", "2.5.0B1", "2.5.0b1"),
                ("lib", "1.0.post1", "1.0.post1"), ("lib", "1.0-1", "1.0.post1"),
                ("flask", "v2.2.2", "2.2.2"), ("flask", "V2.3.0", "2.3.0")):
            for path in ("/retrieve", "/search"):
                with self.subTest(asked=asked, path=path):
                    reply = self.ask(self.plain, path, collection=collection, version=asked)
                    self.assertEqual(self.served(reply), (collection, {served}))
                    request = reply.json()["request"]
                    self.assertEqual(request["version"], asked)
                    self.assertEqual(request.get("served_version", asked), served)
        result = self.ask(self.plain, collection="certifi", version="2024.8.30").json()
        self.assertEqual(result["request_id"],
                         digests.request_id(result["corpus_id"], result["request"]))

    def test_x_y_is_the_highest_release_and_never_a_pre_release(self):
        reply = self.ask(collection="sklearn", version="1.5")
        self.assertEqual(self.served(reply), ("scikit-learn", {"1.5.1"}))
        self.assertEqual(reply.json()["request"]["served_version"], "1.5.1")
        self.assertEqual(self.served(self.ask(collection="lib", version="1.0")),
                         ("lib", {"1.0.post1"}))
        for collection, version in (("scikit-learn", "1.6"), ("lib", "2.5"), ("flask", "2.2.3"),
                                    ("flask", "2.4"), ("certifi", "2024.8.31")):
            with self.subTest(version=version):
                reply = self.ask(collection=collection, version=version)
                self.assertEqual(reply.code, 404)
                self.assertEqual(reply.json()["error"]["code"], "version_not_found")
        self.assertEqual(self.ask(collection="scikit-learn", version="1.6").json()["error"][
            "versions"], ["1.5.0", "1.5.1", "1.6.0rc1"])
        self.assertEqual(self.served(self.ask(collection="scikit-learn", version="1.6.0rc1")),
                         ("scikit-learn", {"1.6.0rc1"}))

    def test_a_collection_without_a_version_is_served_at_its_pin_and_says_so(self):
        for path in ("/retrieve", "/search"):
            for asked, collection, pin in (("flask", "flask", "2.2.2"),
                                           ("sklearn", "scikit-learn", "1.5.1"),
                                           ("certifi", "certifi", "2024.8.30")):
                with self.subTest(path=path, asked=asked):
                    reply = self.ask(path=path, collection=asked)
                    self.assertEqual(self.served(reply), (collection, {pin}))
                    request = reply.json()["request"]
                    self.assertNotIn("version", request)
                    self.assertEqual((request["served_version"], request["pinned"]), (pin, True))
        # Asking the pin by name is an ordinary request: nothing about pins is echoed.
        self.assertNotIn("pinned", self.ask(collection="flask", version="2.2.2").json()["request"])
        # A collection the project does not pin needs a version, as does every collection of a
        # snapshot without project.json.
        for app, collection in ((self.app, "lib"), (self.plain, "flask")):
            reply = self.ask(app, collection=collection)
            self.assertEqual(reply.code, 422)
            self.assertEqual([(i["path"], i["type"]) for i in reply.json()["error"]["issues"]],
                             [(["body", "version"], "missing")])

    def test_no_collection_is_refused_with_the_collections_listed(self):
        for app in (self.app, self.plain):
            reply = self.ask(app, version="2.2.2")
            self.assertEqual(reply.code, 404)
            error = reply.json()["error"]
            self.assertEqual(error["code"], "collection_not_found")
            self.assertIn("names no collection", error["message"])
            self.assertIn("yours: beautifulsoup4, certifi, flask, lib, pyyaml, scikit-learn",
                          error["message"])

    def test_corpus_lists_the_pins(self):
        corpus = call(self.app, "GET", "/corpus").json()
        self.assertEqual(corpus["project"]["project"], "app")
        self.assertEqual(corpus["project"]["pins"][0]["name"], "flask")
        self.assertEqual([pin["name"] for pin in corpus["project"]["pins"]],
                         [pin["name"] for pin in PROJECT["pins"]])
        self.assertNotIn("project", call(self.plain, "GET", "/corpus").json())


class HiddenLibrariesTest(unittest.TestCase):
    """With keys, a library is resolved among the caller's collections and pins only."""

    def test_a_hidden_librarys_names_answer_like_missing_ones(self):
        root = class_temporary_directory(self)
        _, pinned = build_project_snapshot(root)
        keys_file = os.path.join(root, "keys.json")
        key = add_key(keys_file, "web", ["flask"])
        app = create_app(pinned, settings=quiet_settings(keys_file=keys_file))
        self.addCleanup(app.close)

        def ask(collection):
            return call(app, "POST", "/retrieve", json.dumps(
                {"question": "route find_all", "collection": collection}).encode(),
                environ={"HTTP_AUTHORIZATION": f"Bearer {key}"})

        self.assertEqual(ask("Flask").json()["request"]["served_version"], "2.2.2")
        missing = ask("nope")
        self.assertEqual(missing.json()["error"]["code"], "collection_not_found")
        for hidden in ("bs4", "BeautifulSoup4", "beautifulsoup4"):
            with self.subTest(hidden):
                self.assertEqual(ask(hidden).body, missing.body)
        pins = call(app, "GET", "/corpus", environ={"HTTP_AUTHORIZATION": f"Bearer {key}"}
                    ).json()["project"]["pins"]
        self.assertEqual([pin["name"] for pin in pins], ["flask", "left-out"])


class ProjectFileTest(unittest.TestCase):
    """project.json is checked at load as strictly as the manifest."""

    @classmethod
    def setUpClass(cls):
        cls.root = class_temporary_directory(cls)
        cls.plain, _ = build_project_snapshot(cls.root)

    def refused(self, project) -> str:
        directory = os.path.join(self.root, f"case{len(os.listdir(self.root))}")
        shutil.copytree(self.plain, directory)
        with open(os.path.join(directory, "project.json"), "w", encoding="utf-8") as handle:
            handle.write(project if isinstance(project, str) else json.dumps(project))
        with self.assertRaises(SnapshotError) as caught:
            load_snapshot(directory)
        return str(caught.exception)

    def test_what_the_snapshot_does_not_hold_is_refused(self):
        pin = PROJECT["pins"][0]
        for change, said in (
                ({"extra": 1}, "unknown field 'extra'"),
                ({"version": "2.2.9"}, "collection flask holds no 2.2.9"),
                ({"version": "v2.2.2"}, "must be a PEP 440 version in its normal form"),
                ({"collection": "django"}, "'django' is not one of the snapshot's collections"),
                ({"name": "Flask"}, "must be PEP 503's normal form (flask)"),
                ({"import_names": ["not a name"]}, "must be a list of dotted Python names"),
                ({"units": -1}, "must be an integer >= 0")):
            with self.subTest(change=change):
                message = self.refused(dict(PROJECT, pins=[dict(pin, **change)]))
                self.assertIn("project.json", message)
                self.assertIn(said, message)
        self.assertIn("unknown field 'owner'", self.refused(dict(PROJECT, owner="me")))
        self.assertIn("'flask' is pinned twice", self.refused(dict(PROJECT, pins=[pin, pin])))
        self.assertIn("not strict JSON", self.refused('{"project": "app", "project": "b"}'))


if __name__ == "__main__":
    unittest.main()
