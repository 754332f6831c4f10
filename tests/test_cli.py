"""The command line a new user meets first: help, version, and one-line start-up refusals."""

import argparse
import os
import re
import socket
import subprocess
import sys
import unittest

from retrieval import __version__
from retrieval.cli.main import build_parser
from retrieval.testing import subprocess_env
from tests.support import ROOT, temporary_directory

TIER = "server"

# Run a Python snippet as if `requests` were not installed (import of it fails).
WITHOUT_REQUESTS = "import sys; sys.modules['requests'] = None; "
WITHOUT_WAITRESS = "import sys; sys.modules['waitress'] = None; "


def run(command, env=None, cwd=ROOT):
    """Run a command to completion and return it (text output)."""
    return subprocess.run(command, capture_output=True, text=True, env=env or subprocess_env(),
                          cwd=cwd, timeout=60)


def one_line_refusal(testcase, done):
    """Assert a start-up refusal: exit 2, nothing on stdout, one line on stderr; return it."""
    testcase.assertEqual(done.returncode, 2, done.stderr)
    testcase.assertEqual(done.stdout, "")
    lines = done.stderr.splitlines()
    testcase.assertEqual(len(lines), 1, done.stderr)
    return lines[0]


class HelpTest(unittest.TestCase):
    def test_version_and_help(self):
        done = run([sys.executable, "-m", "retrieval", "--version"])
        self.assertEqual((done.returncode, done.stdout), (0, f"retrieval {__version__}\n"))
        done = run([sys.executable, "-m", "retrieval", "--help"])
        self.assertEqual(done.returncode, 0)
        self.assertIn("No model is", done.stdout)
        self.assertIn("examples:", done.stdout)
        self.assertIn("retrieval ask ", done.stdout)

    def test_help_examples_are_the_readmes(self):
        def commands(text, prefix):
            # Each example command with its continuation lines joined, from its program on.
            joined = re.sub(r"\\\n\s*", "", text)
            return {" ".join(line.split()[len(prefix.split()):])
                    for line in joined.splitlines()
                    if line.strip().startswith(prefix)}

        # An example's words for people stand two spaces after its command.
        help_text = re.sub(r"(\S)  +\w.*$", r"\1",
                           run([sys.executable, "-m", "retrieval", "--help"]).stdout, flags=re.M)
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as handle:
            readme = handle.read()
        for command in ("build", "serve --snapshot"):
            with self.subTest(command=command):
                ours = commands(help_text, "retrieval " + command)
                theirs = commands(readme, "python -m retrieval " + command)
                self.assertTrue(ours, help_text)
                self.assertEqual(ours, theirs)

    def test_every_flag_has_help_and_valued_flags_say_their_default(self):
        def commands(parser, prefix):
            for action in parser._actions:
                if isinstance(action, argparse._SubParsersAction):
                    for name, sub in action.choices.items():
                        yield f"{prefix} {name}", sub
                        yield from commands(sub, f"{prefix} {name}")

        for name, parser in commands(build_parser(), "retrieval"):
            for action in parser._actions:
                if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
                    continue
                with self.subTest(command=name, flag=action.dest):
                    self.assertTrue(action.help, "no help")
                    takes_value = action.option_strings and action.nargs != 0
                    if takes_value and not action.required:
                        self.assertIn("default", action.help.lower())

    def test_snapshot_flag_says_file_or_directory(self):
        serve = run([sys.executable, "-m", "retrieval", "serve", "--help"]).stdout
        self.assertIn("JSON file or built directory", serve)


class StartupRefusalTest(unittest.TestCase):
    def test_bad_snapshot_path_is_one_line_with_the_build_hint(self):
        docs = temporary_directory(self)  # a raw docs tree: a directory without manifest.json
        with open(os.path.join(docs, "index.rst"), "w", encoding="utf-8") as handle:
            handle.write("Title\n=====\n")
        for snapshot in (os.path.join(docs, "nope"), docs):
            with self.subTest(snapshot=snapshot):
                line = one_line_refusal(self, run(
                    [sys.executable, "-m", "retrieval", "serve", "--snapshot", snapshot,
                     "--port", "0"]))
                self.assertTrue(line.startswith("retrieval: "), line)
                self.assertIn("retrieval build", line)

    def test_waitress_serve_prints_our_line_and_no_help_dump(self):
        waitress_serve = os.path.join(os.path.dirname(sys.executable), "waitress-serve")
        if not os.path.exists(waitress_serve):
            self.skipTest("waitress-serve is not installed beside this Python")
        for variable, value in (("RETRIEVAL_SNAPSHOT", "./nope"), ("RETRIEVAL_NO_SUCH", "1")):
            with self.subTest(variable=variable):
                line = one_line_refusal(self, run(
                    [waitress_serve, "--listen=127.0.0.1:0", "retrieval.wsgi:app"],
                    env=subprocess_env(**{variable: value}), cwd=temporary_directory(self)))
                self.assertTrue(line.startswith("retrieval: "), line)
                self.assertIn("retrieval build" if variable == "RETRIEVAL_SNAPSHOT"
                              else "RETRIEVAL_NO_SUCH", line)

    def test_ask_without_the_client_extra_says_how_to_install_it(self):
        line = one_line_refusal(self, run([sys.executable, "-c", WITHOUT_REQUESTS + (
            "from retrieval.cli.main import main; sys.exit(main(['ask', 'q', '--version', "
            "'3.12']))")]))
        self.assertIn("pip install '.[client]'", line)

    def test_driver_without_requests_is_one_line(self):
        line = one_line_refusal(self, run([sys.executable, "-c", WITHOUT_REQUESTS + (
            "import runpy; sys.argv = ['run_scenarios.py']; "
            "runpy.run_path('run_scenarios.py', run_name='__main__')")]))
        self.assertIn("pip install '.[test]'", line)

    def test_driver_without_waitress_is_one_line_before_any_server_starts(self):
        line = one_line_refusal(self, run([sys.executable, "-c", WITHOUT_WAITRESS + (
            "import runpy; sys.argv = ['run_scenarios.py']; "
            "runpy.run_path('run_scenarios.py', run_name='__main__')")]))
        self.assertEqual(line, "run_scenarios.py needs waitress: run pip install '.[test]' from "
                               "the checkout")

    def test_test_suite_without_its_dependencies_is_one_line(self):
        for blocked in (WITHOUT_REQUESTS, WITHOUT_WAITRESS):
            with self.subTest(blocked=blocked):
                line = one_line_refusal(self, run([sys.executable, "-c", blocked + (
                    "import unittest; unittest.main(module=None, "
                    "argv=['python -m unittest', 'discover'])")]))
                self.assertIn("pip install '.[test]'", line)
                self.assertIn("requests" if "requests" in blocked else "waitress", line)


class BuildAndVerifyRefusalTest(unittest.TestCase):
    """A mistake knowable from the command line is one line, exit 2, before the build runs."""

    def setUp(self):
        self.root = temporary_directory(self)
        self.docs = os.path.join(self.root, "docs")
        os.makedirs(self.docs)
        with open(os.path.join(self.docs, "page.txt"), "w", encoding="utf-8") as handle:
            handle.write("A paragraph of documentation.\n")
        self.file = os.path.join(self.root, "a-file")
        with open(self.file, "w", encoding="utf-8") as handle:
            handle.write("not a directory\n")

    def build(self, *argv, source=None, out=None):
        return one_line_refusal(self, run([
            sys.executable, "-m", "retrieval", "build", "--source", f"3.11={source or self.docs}",
            "--base-url", "3.11=https://docs.example.org/",
            "--out", out or os.path.join(self.root, "out"), *argv]))

    def test_each_mistake_is_one_line_before_any_work(self):
        cases = (
            ({"out": self.file}, f"--out {self.file}: exists and is not a directory"),
            ({"out": os.path.join(self.file, "snapshot")}, f"{self.file} is not a directory"),
            ({"source": os.path.join(self.root, "nope")}, "no such directory"),
            ({"source": self.file}, "not a directory (give the documentation tree's root)"),
        )
        for where, expected in cases:
            with self.subTest(**where):
                self.assertIn(expected, self.build(**where))
        missing = os.path.join(self.root, "policy.json")
        self.assertEqual(self.build("--policy", missing),
                         f"retrieval: --policy {missing}: cannot read it: No such file or "
                         "directory")
        self.assertFalse(os.path.exists(os.path.join(self.root, "out")))

    def test_one_rendered_tree_for_several_collections_is_refused(self):
        out = os.path.join(self.root, "two")
        done = run([sys.executable, "-m", "retrieval", "build",
                    "--source", f"a/3.11={self.docs}", "--base-url", "a/3.11=https://a.example/",
                    "--source", f"b/3.11={self.docs}", "--base-url", "b/3.11=https://b.example/",
                    "--out", out])
        self.assertEqual(done.returncode, 0, done.stderr)
        line = one_line_refusal(self, run([sys.executable, "-m", "retrieval", "verify", out,
                                           "--rendered", self.docs]))
        self.assertIn("has 2 (a, b): give --rendered COLLECTION/VERSION=HTML_ROOT", line)


class UserErrorTest(unittest.TestCase):
    """A user's mistake is one line and exit 2; a bug keeps its traceback, whatever its type."""

    def build_raising(self, error: str):
        # The build's planning step replaced by one that raises `error`, as a bug would.
        script = ("import sys\nfrom unittest import mock\nimport retrieval.ingest.sources as s\n"
                  "from retrieval.ingest.sources.form import SourceError\n"
                  f"mock.patch.object(s, 'plan', side_effect={error}).start()\n"
                  "from retrieval.cli.main import main\n"
                  "sys.exit(main(['build', '--source', '1.0=docs', '--out', 'out']))\n")
        return run([sys.executable, "-c", script])

    def test_a_user_error_is_one_line_and_exit_2(self):
        line = one_line_refusal(self, self.build_raising("SourceError('--source 1.0: no')"))
        self.assertEqual(line, "retrieval: --source 1.0: no")

    def test_a_bug_raising_value_error_shows_its_traceback(self):
        done = self.build_raising("ValueError('a bug')")
        self.assertEqual(done.returncode, 1, done.stderr)
        self.assertIn("Traceback (most recent call last)", done.stderr)
        self.assertIn("ValueError: a bug", done.stderr)


class BusyPortTest(unittest.TestCase):
    def test_waitress_serve_on_a_busy_port_is_one_line(self):
        waitress_serve = os.path.join(os.path.dirname(sys.executable), "waitress-serve")
        if not os.path.exists(waitress_serve):
            self.skipTest("waitress-serve is not installed beside this Python")
        with socket.socket() as busy:
            busy.bind(("127.0.0.1", 0))
            busy.listen(1)
            port = busy.getsockname()[1]
            line = one_line_refusal(self, run(
                [waitress_serve, f"--listen=127.0.0.1:{port}", "retrieval.wsgi:app"],
                cwd=temporary_directory(self)))
        self.assertEqual(line, f"retrieval: waitress-serve cannot listen on 127.0.0.1:{port}: "
                               "Address already in use")


class SetupPyTest(unittest.TestCase):
    def test_setup_py_stands_beside_pyproject_and_reads_it(self):
        done = run([sys.executable, "setup.py", "--version"])
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout.splitlines()[-1], __version__)


if __name__ == "__main__":
    unittest.main()
