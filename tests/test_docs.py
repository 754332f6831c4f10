"""README.md and docs/ say what the code does: tables and examples are compared with the real thing.

The settings table (docs/operating.md) and the error table (docs/api.md) come from the code; every
marked example (`<!-- example: NAME -->` before a code block) is compared with the real output for
the same input; README's first-screen commands (`<!-- command: NAME -->`) are run verbatim in a
fresh copy of the tree; README stays short, and every relative link in the docs lands.
"""

import glob
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import tempfile
import unittest
import urllib.request

from retrieval.client import RetrievalResult, summarize
from retrieval.http.errors import HTTP_STATUS
from retrieval.settings import settings_table
from retrieval.wsgi import create_app
from tests.support import ROOT, ask, call, quiet_settings, wait_for

TIER = "server"


def read_doc(name) -> str:
    """Return the text of a Markdown file, by its path from the root of the tree."""
    with open(os.path.join(ROOT, name), encoding="utf-8") as handle:
        return handle.read()


README = read_doc("README.md")
API = read_doc("docs/api.md")
OPERATING = read_doc("docs/operating.md")
CLIENTS = read_doc("docs/clients.md")
README_MAX_LINES = 200
# The Markdown files whose relative links are checked.
LINKED_DOCS = ("README.md", "CONTRIBUTING.md", "CHANGELOG.md", "bench/README.md",
               "quality/README.md", "quality/LOG.md") + tuple(
    sorted(os.path.relpath(path, ROOT) for path in glob.glob(os.path.join(ROOT, "docs", "*.md"))))


def section(text, heading) -> str:
    """Return a Markdown section: from its `## heading` line to the next heading of level 2."""
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    if match is None:
        raise AssertionError(f"no section headed ## {heading}")
    return match.group(1)


def without_code(text) -> str:
    """Return Markdown with fenced code blocks and code spans removed (they hold no links)."""
    return re.sub(r"`[^`\n]*`", "", re.sub(r"^```.*?^```", "", text, flags=re.M | re.S))


def heading_anchors(text) -> set:
    """Return the fragment ids GitHub gives a Markdown file's headings."""
    anchors, seen = set(), {}
    for title in re.findall(r"^#+ (.*)$", re.sub(r"^```.*?^```", "", text, flags=re.M | re.S),
                            re.M):
        slug = re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


def broken_links(name) -> tuple:
    """Return (links checked, the relative links of a Markdown file that land nowhere)."""
    text = read_doc(name)
    checked, broken = 0, []
    for target in re.findall(r"\]\(([^)\s]+)\)", without_code(text)):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto: are not ours
            continue
        checked += 1
        path, _, fragment = target.partition("#")
        resolved = os.path.normpath(os.path.join(os.path.dirname(name), path)) if path else name
        if not os.path.exists(os.path.join(ROOT, resolved)):
            broken.append(f"{name}: {target} (no file {resolved})")
        elif fragment and resolved.endswith(".md") and fragment not in heading_anchors(
                read_doc(resolved)):
            broken.append(f"{name}: {target} (no heading #{fragment} in {resolved})")
    return checked, broken


class DocsTest(unittest.TestCase):
    def test_settings_table_is_the_generated_one(self):
        block = re.search(
            r"<!-- settings-table: generated[^\n]*-->\n(.*?)\n<!-- settings-table: end -->",
            OPERATING, re.S)
        self.assertIsNotNone(block, "docs/operating.md lost its settings-table markers")
        self.assertEqual(block.group(1), settings_table(),
                         "regenerate it with `python -m retrieval settings`")

    def test_error_table_lists_every_code_with_its_status(self):
        rows = dict((code, status) for status, code in
                    re.findall(r"^\| (\d{3}) \| `([a-z_]+)` \|", section(API, "Errors"), re.M))
        self.assertEqual(rows, {code: status.split()[0] for code, status in HTTP_STATUS.items()})

    def test_readme_is_short(self):
        lines = README.count("\n")
        self.assertLessEqual(lines, README_MAX_LINES,
                             f"README.md has {lines} lines: move detail into docs/")

    def test_relative_links_land(self):
        for name in LINKED_DOCS:
            with self.subTest(doc=name):
                checked, broken = broken_links(name)
                self.assertEqual(broken, [])
                if name in ("README.md", "docs/api.md"):
                    self.assertGreater(checked, 0, "no relative link found: the scan is broken")


def marked_block(name, kind="example", text=README) -> str:
    """Return the code block a document marks with <!-- kind: name -->."""
    match = re.search(rf"<!-- {kind}: {re.escape(name)} -->\n```[a-z]*\n(.*?)\n```", text, re.S)
    if match is None:
        raise AssertionError(f"no block marked <!-- {kind}: {name} -->")
    return match.group(1)


def first_command(block) -> str:
    """Return a block's command: its lines joined where a line ends with a backslash."""
    return block.replace("\\\n", " ")


def assert_excerpt(testcase, excerpt, real, where="body"):
    """Each value an excerpt shows is the real one; "..." strings and members stand for the rest."""
    if isinstance(excerpt, str) and excerpt.startswith("..."):
        return
    if isinstance(excerpt, dict):
        testcase.assertIsInstance(real, dict, where)
        shown = [key for key in excerpt if key != "..."]
        if "..." not in excerpt:
            testcase.assertEqual(shown, list(real), f"{where}: members or their order")
        for key in shown:
            testcase.assertIn(key, real, where)
            assert_excerpt(testcase, excerpt[key], real[key], f"{where}.{key}")
    elif isinstance(excerpt, list):
        testcase.assertIsInstance(real, list, where)
        if any(isinstance(item, str) and item.startswith("...") for item in excerpt):
            return
        testcase.assertEqual(len(excerpt), len(real), where)
        for index, (mine, theirs) in enumerate(zip(excerpt, real, strict=True)):
            assert_excerpt(testcase, mine, theirs, f"{where}[{index}]")
    else:
        testcase.assertEqual(excerpt, real, where)


def curl_body(command) -> bytes:
    """Return the body a README curl command sends (its -d argument)."""
    words = shlex.split(command)
    return words[words.index("-d") + 1].encode("utf-8")


class ExamplesTest(unittest.TestCase):
    """Each example in README and docs/ is what the service really says for the same input."""

    @classmethod
    def setUpClass(cls):
        cls.app = create_app(settings=quiet_settings())
        cls.addClassCleanup(cls.app.close)

    def retrieve(self, body: bytes):
        return call(self.app, "POST", "/retrieve", body)

    def test_first_screen_curl_and_the_excerpt(self):
        body = curl_body(first_command(marked_block("curl", "command")))
        self.assertEqual(body, curl_body(first_command(section(README, "Asking").split(
            "```sh\n", 1)[1].split("\n```", 1)[0])), "the two curl examples ask differently")
        reply = self.retrieve(body)
        self.assertEqual(reply.code, 200)
        assert_excerpt(self, json.loads(marked_block("retrieve")), reply.json())
        self.assertIn(f"`HTTP/1.1 200 OK`, {len(reply.body):,} bytes", README)

    def test_error_examples(self):
        self.assertEqual(marked_block("error", text=API).encode(),
                         self.retrieve(json.dumps(ask(max_steps=True)).encode()).body)
        sent = re.search(r"The body `(\{.*?\})` gets", API).group(1).encode()
        self.assertEqual(marked_block("invalid-json", text=API).encode(), self.retrieve(sent).body)

    def test_corpus_example(self):
        self.assertEqual(marked_block("corpus", text=API).encode(),
                         call(self.app, "GET", "/corpus").body)

    def test_ask_example(self):
        command, _, shown = marked_block("ask", text=CLIENTS).partition("\n")
        words = shlex.split(command.removeprefix("$ "))
        self.assertEqual(words[:4], ["python", "-m", "retrieval", "ask"])
        question, version = words[4], words[words.index("--version") + 1]
        # The client sends compact JSON of the fields given; the bytes differ from curl's, the
        # normalized request (and so request_id) does not.
        raw = self.retrieve(json.dumps({"question": question, "version": version},
                                       separators=(",", ":")).encode()).body
        result = RetrievalResult.from_response(json.loads(raw), raw, 200,
                                               hashlib.sha256(raw).hexdigest())
        self.assertEqual(shown, summarize(result))


# Set in the nested run below, so the copy's own suite does not start a copy of itself.
# Not RETRIEVAL_*: the service refuses unknown variables of its own prefix at start-up.
NESTED = "README_COMMANDS_NESTED"
README_PORT = 8765


def port_is_free(port) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


@unittest.skipIf(os.environ.get(NESTED), "inside the README-commands test's own run of the suite")
class FirstScreenCommandsTest(unittest.TestCase):
    """README's first screen, verbatim, on a copy of the tree with fresh virtual environments.

    Slow (two pip installs and a second run of the whole suite); the copy runs with NESTED set so
    this test skips itself there instead of recursing.
    """

    def setUp(self):
        tmp = tempfile.TemporaryDirectory(prefix="retrieval-readme-")
        self.addCleanup(tmp.cleanup)
        self.tree = os.path.join(tmp.name, "retrieval")
        shutil.copytree(ROOT, self.tree, ignore=self.not_source)
        # As on a user's machine: no CI variable either, which makes tests of what README's test
        # command does not install (the semantic extra) fail instead of skipping.
        self.env = {key: value for key, value in os.environ.items()
                    if key not in ("PYTHONPATH", "VIRTUAL_ENV", "CI")}
        self.env[NESTED] = "1"

    @staticmethod
    def not_source(directory, names):
        """Leave out what a checkout does not hold: git data, environments, build outputs."""
        ignored = {name for name in names if name in (".git", "__pycache__", "result.json")
                   or name.startswith(".venv") or name.endswith(".egg-info")}
        if os.path.samefile(directory, ROOT):  # setuptools writes build/ and dist/ at the root
            ignored |= {"build", "dist"} & set(names)
        return ignored

    def shell(self, command, **options):
        # As typed in a terminal: its own process group, and SIGINT at its default action (a
        # test runner started in the background may have inherited it ignored, and a child
        # keeps an ignored signal ignored).
        return subprocess.Popen(["bash", "-c", command], cwd=self.tree, env=self.env,
                                start_new_session=True, **options,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))

    def test_serve_answers_the_curl_and_ctrl_c_stops_it(self):
        if not port_is_free(README_PORT):
            self.skipTest(f"port {README_PORT}, which README's command uses, is taken")
        log = tempfile.TemporaryFile()
        self.addCleanup(log.close)
        server = self.shell(first_command(marked_block("serve", "command")), stdout=log,
                            stderr=subprocess.STDOUT)

        def stop():
            if server.poll() is None:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait()
        self.addCleanup(stop)

        def answers():
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{README_PORT}/health", timeout=1):
                    return True
            except OSError:
                self.assertIsNone(server.poll(), "the command ended before serving")
                return False
        wait_for(answers, "the README server", deadline=300)  # pip installs first
        curl = subprocess.run(["bash", "-c", first_command(marked_block("curl", "command"))],
                              capture_output=True, timeout=60)
        self.assertEqual(curl.returncode, 0)
        reply = json.loads(curl.stdout)
        self.assertEqual((reply["status"], len(reply["evidence"])), ("completed", 2))
        # "Ctrl-C stops it": the terminal sends SIGINT to the foreground process group.
        os.killpg(server.pid, signal.SIGINT)
        server.wait(timeout=30)
        log.seek(0)
        self.assertNotIn(b"Traceback", log.read())

    def test_test_command_passes(self):
        done = self.shell(first_command(marked_block("test", "command")),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        output, _ = done.communicate(timeout=1200)
        self.assertEqual(done.returncode, 0, output[-3000:].decode("utf-8", "replace"))
        self.assertRegex(output, rb"\nOK")


if __name__ == "__main__":
    unittest.main()
