"""What a project pins (retrieval/project/pins.py) and PEP 508 markers (markers.py).

Each lock format is read from a small sample written here: its pins, which are direct and which
only transitive (`--all`), and the markers that leave a dependency out for the target
interpreter. Requirements files with includes, constraints, hashes and markers; pyproject.toml
with an environment; drift between the pins and an environment, said, never hidden.
"""

import json
import os
import unittest

from retrieval.project import markers
from retrieval.project.markers import MarkerError, evaluate, target_environment
from retrieval.project.pins import PinsError, default_env, drift, find_pins_file, read_pins
from tests.package_fixtures import write_site_packages
from tests.support import temporary_directory

TIER = "unit"

LINUX_311 = dict(target_environment("3.11.4"), sys_platform="linux", platform_system="Linux",
                 os_name="posix", platform_machine="x86_64", implementation_name="cpython")


def write(folder: str, files: dict) -> str:
    for name, text in files.items():
        path = os.path.join(folder, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as out:
            out.write(text)
    return folder


def pinned(pins) -> dict:
    """{name: (version, direct)} of a Pins."""
    return {pin.name: (pin.version, pin.direct) for pin in pins.pins}


class MarkerTest(unittest.TestCase):
    def test_markers_evaluate_for_the_target(self):
        cases = {
            'python_version >= "3.8"': True,
            'python_version < "3.8"': False,
            "python_version > '3.9'": True,  # 3.11 > 3.9 as versions, not as strings
            'python_full_version == "3.11.*"': True,
            'python_full_version != "3.11.*"': False,
            'python_full_version ~= "3.11.0"': True,
            'python_full_version ~= "3.10.0"': False,
            'python_version ~= "3.9"': True,
            'python_full_version >= "3.11.4" and python_full_version < "3.12"': True,
            'sys_platform == "win32" or (os_name == "posix" and platform_machine == "x86_64")':
                True,
            'sys_platform == "win32" or os_name == "posix" and platform_machine == "arm64"':
                False,  # and binds tighter than or
            '(sys_platform == "win32" or os_name == "posix") and platform_machine == "arm64"':
                False,
            '"linux" in sys_platform': True,
            '"darwin" not in sys_platform': True,
            'platform_system == "Linux" and implementation_name == "cpython"': True,
            'extra == "socks"': False,
            'extra != "socks"': True,
            "os.name == 'posix'": True,  # PEP 345's spelling
            '"3.12" > python_version': True,
        }
        for marker, expected in cases.items():
            with self.subTest(marker=marker):
                self.assertIs(evaluate(marker, LINUX_311), expected)

    def test_extras_and_the_target_python_are_the_callers(self):
        environment = dict(target_environment("3.8", extras=["SOCKS"]), sys_platform="linux")
        self.assertTrue(evaluate('extra == "socks"', environment))
        self.assertTrue(evaluate('python_version < "3.9" and extra == "Socks"', environment))
        self.assertEqual(environment["python_full_version"], "3.8.0")
        self.assertTrue(evaluate('"socks" in extras', environment))  # PEP 751's sets

    def test_a_broken_marker_is_refused_in_one_line(self):
        for marker in ('python_version >= ', 'python_version >= "3.8" and', 'nope == "1"',
                       '(python_version >= "3.8"', 'python_version = "3"',
                       'extra > "socks"'):
            with self.subTest(marker=marker), self.assertRaises(MarkerError):
                evaluate(marker, LINUX_311)
        with self.assertRaises(MarkerError):
            target_environment("three")

    def test_versions_compare_as_pep_440_says(self):
        self.assertTrue(markers.compare("3.10", ">", "3.9"))
        self.assertTrue(markers.compare("2.0.0", "==", "2"))
        self.assertTrue(markers.compare("2.5.0b1", "<", "2.5.0"))
        self.assertTrue(markers.compare("1.0.post1", ">", "1.0"))
        self.assertFalse(markers.compare("2.0", "===", "2.0.0"))
        self.assertTrue(markers.compare("linux", "<", "win32"))  # not versions: strings


UV_LOCK = '''\
version = 1
requires-python = ">=3.9"
resolution-markers = ["python_version >= '3.10'", "python_version < '3.10'"]

[[package]]
name = "myapp"
version = "0.1.0"
source = { editable = "." }
dependencies = [
    { name = "flask" },
    { name = "colorama", marker = "sys_platform == 'win32'" },
    { name = "Requests" },
]

[package.dev-dependencies]
dev = [{ name = "pytest" }]

[[package]]
name = "flask"
version = "2.2.2"
source = { registry = "https://pypi.org/simple" }
dependencies = [{ name = "click" }, { name = "werkzeug" }]

[[package]]
name = "click"
version = "8.1.3"
source = { registry = "https://pypi.org/simple" }
dependencies = [{ name = "colorama", marker = "platform_system == 'Windows'" }]

[[package]]
name = "colorama"
version = "0.4.6"
source = { registry = "https://pypi.org/simple" }

[[package]]
name = "werkzeug"
version = "2.2.3"
source = { git = "https://github.com/pallets/werkzeug?tag=2.2.3" }

[[package]]
name = "requests"
version = "2.28.1"
source = { registry = "https://pypi.org/simple" }
resolution-markers = ["python_version >= '3.10'"]

[[package]]
name = "requests"
version = "2.25.0"
source = { registry = "https://pypi.org/simple" }
resolution-markers = ["python_version < '3.10'"]

[[package]]
name = "pytest"
version = "8.0.0"
source = { registry = "https://pypi.org/simple" }
'''

POETRY_LOCK = '''\
[[package]]
name = "Flask"
version = "2.2.2"
description = "web"
optional = false
python-versions = ">=3.7"
files = []

[package.dependencies]
click = ">=8.0"
importlib-metadata = {version = ">=3.6.0", markers = "python_version < \\"3.10\\""}

[[package]]
name = "click"
version = "8.1.3"
description = ""
optional = false
python-versions = ">=3.7"
files = []

[[package]]
name = "importlib-metadata"
version = "6.0.0"
description = ""
optional = false
python-versions = ">=3.7"
files = []

[metadata]
lock-version = "2.0"
python-versions = "^3.9"
content-hash = "x"
'''

POETRY_PYPROJECT = '''\
[tool.poetry]
name = "myapp"

[tool.poetry.dependencies]
python = "^3.9"
flask = "2.2.2"
'''

PDM_LOCK = '''\
[metadata]
groups = ["default"]
lock_version = "4.4"

[[package]]
name = "flask"
version = "2.2.2"
requires_python = ">=3.7"
groups = ["default"]
dependencies = ["click>=8.0", "importlib-metadata>=3.6.0; python_version < \\"3.10\\""]

[[package]]
name = "click"
version = "8.1.3"
groups = ["default"]
dependencies = ["colorama; platform_system == \\"Windows\\""]

[[package]]
name = "importlib-metadata"
version = "6.0.0"
groups = ["default"]

[[package]]
name = "colorama"
version = "0.4.6"
groups = ["default"]
marker = "platform_system == \\"Windows\\""
'''

PEP621 = '''\
[project]
name = "myapp"
version = "0.1"
dependencies = ["Flask>=2", "tomli; python_version < '3.11'"]
'''

PYLOCK = '''\
lock-version = "1.0"
requires-python = ">=3.9"
created-by = "test"

[[packages]]
name = "flask"
version = "2.2.2"
index = "https://pypi.org/simple"
dependencies = [{ name = "click" }]

[[packages]]
name = "click"
version = "8.1.3"
index = "https://pypi.org/simple"

[[packages]]
name = "colorama"
version = "0.4.6"
marker = "sys_platform == 'win32'"

[[packages]]
name = "sphinx"
version = "7.0.0"
marker = "'docs' in dependency_groups"
'''

PIPFILE_LOCK = {
    "_meta": {"hash": {"sha256": "x"}},
    "default": {
        "flask": {"version": "==2.2.2", "hashes": ["sha256:aa"], "index": "pypi"},
        "click": {"version": "==8.1.3", "markers": "python_version >= '3.7'"},
        "pywin32": {"version": "==306", "markers": "sys_platform == 'win32'"},
        "mylib": {"git": "https://example.org/mylib.git", "ref": "abc"},
    },
    "develop": {"pytest": {"version": "==8.0.0"}},
}


class LockFileTest(unittest.TestCase):
    def folder(self, files: dict) -> str:
        return write(temporary_directory(self), files)

    def test_uv_lock_direct_from_the_project_and_the_closure_with_all(self):
        folder = self.folder({"uv.lock": UV_LOCK})
        pins = read_pins(folder, LINUX_311)
        self.assertEqual(pins.lockfile, "uv.lock")
        # colorama's marker does not hold on Linux; the fork for 3.10+ gives requests 2.28.1;
        # pytest is a dev dependency, the project itself no pin.
        self.assertEqual(pinned(pins), {"flask": ("2.2.2", True), "requests": ("2.28.1", True)})
        every = read_pins(folder, LINUX_311, transitive=True)
        self.assertEqual(pinned(every), {"flask": ("2.2.2", True), "requests": ("2.28.1", True),
                                         "click": ("8.1.3", False),
                                         "werkzeug": ("2.2.3", False)})
        self.assertEqual((pins.closure, every.closure), (False, True))
        werkzeug = next(pin for pin in every.pins if pin.name == "werkzeug")
        self.assertTrue(werkzeug.origin.startswith("git: "), werkzeug.origin)
        windows = dict(LINUX_311, sys_platform="win32", platform_system="Windows")
        self.assertIn("colorama", pinned(read_pins(folder, windows)))
        old = dict(LINUX_311, python_version="3.9", python_full_version="3.9.1")
        self.assertEqual(pinned(read_pins(folder, old))["requests"], ("2.25.0", True))

    def test_poetry_lock_direct_from_pyproject(self):
        folder = self.folder({"poetry.lock": POETRY_LOCK, "pyproject.toml": POETRY_PYPROJECT})
        self.assertEqual(pinned(read_pins(folder, LINUX_311)), {"flask": ("2.2.2", True)})
        self.assertEqual(pinned(read_pins(folder, LINUX_311, transitive=True)),
                         {"flask": ("2.2.2", True), "click": ("8.1.3", False)})
        old = dict(LINUX_311, python_version="3.9")
        self.assertIn("importlib-metadata", pinned(read_pins(folder, old, transitive=True)))

    def test_pdm_lock_direct_from_pep_621_dependencies(self):
        folder = self.folder({"pdm.lock": PDM_LOCK, "pyproject.toml": PEP621})
        self.assertEqual(pinned(read_pins(folder, LINUX_311)), {"flask": ("2.2.2", True)})
        self.assertEqual(pinned(read_pins(folder, LINUX_311, transitive=True)),
                         {"flask": ("2.2.2", True), "click": ("8.1.3", False)})

    def test_pylock_toml_roots_are_direct_and_markers_hold_or_not(self):
        folder = self.folder({"pylock.toml": PYLOCK})
        pins = read_pins(folder, LINUX_311)
        self.assertEqual(pinned(pins), {"flask": ("2.2.2", True)})  # nobody depends on it
        self.assertEqual(pinned(read_pins(folder, LINUX_311, transitive=True)),
                         {"flask": ("2.2.2", True), "click": ("8.1.3", False)})
        # Beside a pyproject.toml, its dependencies are the direct ones.
        write(folder, {"pyproject.toml": PEP621.replace('"Flask>=2"', '"click"')})
        self.assertEqual(pinned(read_pins(folder, LINUX_311)), {"click": ("8.1.3", True)})

    def test_pipfile_lock_default_section(self):
        folder = self.folder({"Pipfile.lock": json.dumps(PIPFILE_LOCK)})
        pins = read_pins(folder, LINUX_311)
        self.assertEqual(pinned(pins), {"flask": ("2.2.2", True), "click": ("8.1.3", True),
                                        "mylib": (None, True)})
        self.assertTrue(any("does not say which" in note for note in pins.notes), pins.notes)
        write(folder, {"Pipfile": '[packages]\nflask = "==2.2.2"\n'})
        self.assertEqual(pinned(read_pins(folder, LINUX_311)), {"flask": ("2.2.2", True)})
        self.assertEqual(pinned(read_pins(folder, LINUX_311, transitive=True))["click"],
                         ("8.1.3", False))

    def test_the_most_trusted_file_is_read(self):
        folder = self.folder({"requirements.txt": "flask==2.0.0\n", "pyproject.toml": PEP621,
                              "pdm.lock": PDM_LOCK})
        self.assertEqual(find_pins_file(folder)[0], "pdm.lock")
        write(folder, {"uv.lock": UV_LOCK})
        self.assertEqual(find_pins_file(folder)[0], "uv.lock")
        write(folder, {"pylock.toml": PYLOCK})
        self.assertEqual(find_pins_file(folder)[0], "pylock.toml")
        self.assertEqual(find_pins_file(os.path.join(folder, "requirements.txt"))[0],
                         "requirements")
        with self.assertRaises(PinsError):
            find_pins_file(self.folder({"README.md": "nothing"}))

    def test_a_broken_lock_is_one_line(self):
        folder = self.folder({"uv.lock": "version = [\n"})
        with self.assertRaisesRegex(PinsError, "uv.lock: not TOML"):
            read_pins(folder, LINUX_311)


GROUPS_PYPROJECT = '''\
[project]
name = "myapp"
version = "0.1"
dependencies = ["Flask>=2"]

[dependency-groups]
Test = ["pytest>=8", "colorama; sys_platform == 'win32'"]
docs = ["sphinx", {include-group = "test"}]
loop = [{include-group = "loop"}]
'''

POETRY_GROUPS = POETRY_PYPROJECT + '''
[tool.poetry.group.test.dependencies]
pytest = "^8"

[tool.poetry.dev-dependencies]
click = "*"
'''


def poetry_package(name: str, version: str) -> str:
    """A poetry.lock package table of no dependencies."""
    return (f'\n[[package]]\nname = "{name}"\nversion = "{version}"\noptional = false\n'
            'python-versions = ">=3.8"\nfiles = []\n')


def grouped(*groups) -> dict:
    """LINUX_311 with these dependency groups asked for."""
    return dict(LINUX_311, dependency_groups=frozenset(
        target_environment("3.11", groups=groups)["dependency_groups"]))


class DependencyGroupTest(unittest.TestCase):
    """--group: a group's dependencies are read as the project's own, from each format."""

    def folder(self, files: dict) -> str:
        return write(temporary_directory(self), files)

    def test_pep_735_groups_with_includes_and_markers(self):
        lock = POETRY_LOCK + poetry_package("pytest", "8.0.0") + poetry_package("sphinx", "7.0.0")
        folder = self.folder({"poetry.lock": lock, "pyproject.toml": GROUPS_PYPROJECT})
        self.assertEqual(pinned(read_pins(folder, LINUX_311)), {"flask": ("2.2.2", True)})
        self.assertEqual(pinned(read_pins(folder, grouped("test"))),
                         {"flask": ("2.2.2", True), "pytest": ("8.0.0", True)})
        # docs includes test; colorama's marker does not hold on Linux.
        self.assertEqual(pinned(read_pins(folder, grouped("Docs"))),
                         {"flask": ("2.2.2", True), "pytest": ("8.0.0", True),
                          "sphinx": ("7.0.0", True)})
        with self.assertRaises(PinsError) as refused:
            read_pins(folder, grouped("lint"))
        self.assertIn("--group lint:", str(refused.exception))
        self.assertIn("(it defines: docs, loop, test)", str(refused.exception))
        with self.assertRaises(PinsError) as refused:
            read_pins(folder, grouped("loop"))
        self.assertIn("dependency group loop includes itself", str(refused.exception))

    def test_poetry_groups_and_the_old_dev_dependencies(self):
        lock = POETRY_LOCK + poetry_package("pytest", "8.0.0")
        folder = self.folder({"poetry.lock": lock, "pyproject.toml": POETRY_GROUPS})
        self.assertEqual(pinned(read_pins(folder, grouped("test", "dev"))),
                         {"flask": ("2.2.2", True), "pytest": ("8.0.0", True),
                          "click": ("8.1.3", True)})

    def test_uv_lock_dev_dependencies(self):
        folder = self.folder({"uv.lock": UV_LOCK})
        self.assertEqual(pinned(read_pins(folder, grouped("dev"))),
                         {"flask": ("2.2.2", True), "requests": ("2.28.1", True),
                          "pytest": ("8.0.0", True)})
        with self.assertRaises(PinsError) as refused:
            read_pins(folder, grouped("docs"))
        self.assertIn("(it defines: dev)", str(refused.exception))

    def test_pylock_group_markers(self):
        folder = self.folder({"pylock.toml": PYLOCK})
        self.assertNotIn("sphinx", pinned(read_pins(folder, LINUX_311)))
        self.assertEqual(pinned(read_pins(folder, grouped("docs")))["sphinx"], ("7.0.0", True))

    def test_pipfile_lock_sections(self):
        folder = self.folder({"Pipfile.lock": json.dumps(PIPFILE_LOCK),
                              "Pipfile": '[packages]\nflask = "==2.2.2"\n'
                                         '[dev-packages]\npytest = "*"\n'})
        self.assertEqual(pinned(read_pins(folder, grouped("dev"))),
                         {"flask": ("2.2.2", True), "pytest": ("8.0.0", True)})
        with self.assertRaises(PinsError) as refused:
            read_pins(folder, grouped("docs"))
        self.assertIn("(it defines: dev)", str(refused.exception))

    def test_a_requirements_file_has_no_groups(self):
        folder = self.folder({"requirements.txt": "flask==2.2.2\n"})
        with self.assertRaises(PinsError) as refused:
            read_pins(folder, grouped("dev"))
        self.assertIn("a requirements file has no dependency groups", str(refused.exception))


class RequirementsTest(unittest.TestCase):
    def test_includes_constraints_hashes_and_markers(self):
        folder = write(temporary_directory(self), {
            "requirements.txt": (
                "# the app\n"
                "-r base.txt\n"
                "-c constraints.txt\n"
                "Flask==2.2.2 \\\n"
                "    --hash=sha256:aaaa \\\n"
                "    --hash=sha256:bbbb\n"
                "requests[socks] == 2.28.1 ; python_version >= '3.7'  # pinned\n"
                "pywin32==306; sys_platform == 'win32'\n"
                "itsdangerous\n"
                "-e ./vendored\n"
                "./local-wheel.whl\n"
                "--index-url https://example.org/simple\n"),
            "base.txt": "click==8.1.3\n-r requirements.txt\n",  # a cycle is read once
            "constraints.txt": "itsdangerous==2.1.2\nnot-required==1.0\n",
        })
        pins = read_pins(folder, LINUX_311)
        self.assertEqual(pinned(pins), {"click": ("8.1.3", True), "flask": ("2.2.2", True),
                                        "requests": ("2.28.1", True),
                                        "itsdangerous": ("2.1.2", True)})
        notes = "\n".join(pins.notes)
        self.assertIn("editable", notes)
        self.assertIn("local-wheel.whl", notes)

    def test_an_unpinned_requirement_is_listed_and_takes_the_environment_version(self):
        folder = write(temporary_directory(self), {"requirements-prod.txt": "flask>=2\n",
                                                   "requirements-dev.txt": "pytest==8.0.0\n"})
        pins = read_pins(folder, LINUX_311)
        self.assertEqual(pinned(pins), {"flask": (None, True), "pytest": ("8.0.0", True)})
        self.assertIn("not pinned (>=2)", pins.pins[0].note)
        env = write_site_packages(os.path.join(folder, "site"), {"Flask": ("2.3.1", {})})
        pins = read_pins(folder, LINUX_311, env=env)
        self.assertEqual(pinned(pins)["flask"], ("2.3.1", True))
        self.assertIn("the installed version", pins.pins[0].note)

    def test_all_says_a_requirements_file_or_pyproject_has_no_closure(self):
        # Neither lists what its pins depend on: --all builds what they name, and says so.
        folder = write(temporary_directory(self), {"requirements.txt": "flask==2.2.2\n"})
        direct = read_pins(folder, LINUX_311)
        everything = read_pins(folder, LINUX_311, transitive=True)
        self.assertEqual(pinned(everything), pinned(direct))
        self.assertFalse(everything.closure)
        self.assertEqual(direct.notes, ())
        self.assertIn("--all: requirements.txt does not list what its pins depend on",
                      "\n".join(everything.notes))
        os.remove(os.path.join(folder, "requirements.txt"))
        write(folder, {"pyproject.toml": PEP621})
        env = write_site_packages(os.path.join(folder, "site"), {"Flask": ("2.2.2", {})})
        self.assertIn("--all: pyproject.toml does not list", "\n".join(
            read_pins(folder, LINUX_311, transitive=True, env=env).notes))

    def test_a_missing_include_is_one_line(self):
        folder = write(temporary_directory(self), {"requirements.txt": "-r nope.txt\n"})
        with self.assertRaisesRegex(PinsError, "nope.txt: no such file"):
            read_pins(folder, LINUX_311)


class EnvironmentTest(unittest.TestCase):
    def test_pyproject_takes_the_installed_versions(self):
        folder = write(temporary_directory(self), {"pyproject.toml": PEP621})
        with self.assertRaisesRegex(PinsError, "give --env"):
            read_pins(folder, LINUX_311)
        env = write_site_packages(os.path.join(folder, "site"), {"Flask": ("2.2.2", {})})
        pins = read_pins(folder, LINUX_311, env=env)
        self.assertEqual(pinned(pins), {"flask": ("2.2.2", True)})  # tomli: not on 3.11

    def test_the_default_environment_is_dot_venv_else_venv_beside_the_pins(self):
        folder = write(temporary_directory(self), {"requirements.txt": "flask==2.2.2\n"})
        self.assertIsNone(default_env(folder))
        os.makedirs(os.path.join(folder, "venv"))  # not an environment: no site-packages
        self.assertIsNone(default_env(folder))
        site = os.path.join("lib", "python3.11", "site-packages")
        write_site_packages(os.path.join(folder, "venv", site), {"Flask": ("2.2.2", {})})
        self.assertEqual(default_env(os.path.join(folder, "requirements.txt")),
                         os.path.join(folder, "venv"))
        write_site_packages(os.path.join(folder, ".venv", site), {"Flask": ("2.3.0", {})})
        self.assertEqual(default_env(folder), os.path.join(folder, ".venv"))

    def test_drift_is_reported_for_every_pin_the_environment_differs_on(self):
        folder = write(temporary_directory(self), {
            "requirements.txt": "flask==2.2.2\nclick==8.1.3\nrequests==2.28.1\n"})
        env = write_site_packages(os.path.join(folder, "site"), {
            "Flask": ("2.3.0", {}), "click": ("8.1.3", {})})
        pins = read_pins(folder, LINUX_311, env=env)
        self.assertEqual({pin.name: pin.installed for pin in pins.pins},
                         {"flask": "2.3.0", "click": "8.1.3", "requests": None})
        self.assertEqual(drift(pins), [
            f"drift: flask pinned 2.2.2, installed 2.3.0 in {env}",
            f"drift: requests pinned 2.28.1, not installed in {env}"])
        self.assertEqual(drift(read_pins(folder, LINUX_311)), [])  # no environment: nothing


if __name__ == "__main__":
    unittest.main()
