"""Small releases and environments for the package-source tests, made here (no index needed).

A release is written the way an index serves it: an sdist (tar.gz, with PKG-INFO and an in-tree
PEP 517 backend, which the builder never calls: tests/test_index_fetch.py shows nothing of a
release runs) or a wheel (zip); a find-links directory of them stands in for the index.
"""

import io
import os
import tarfile
import zipfile

# Its metadata hook only, what `pip download` would call: it writes the METADATA of the sdist.
BACKEND = '''\
import os


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    name = "{dist}-{version}.dist-info"
    os.makedirs(os.path.join(metadata_directory, name))
    with open(os.path.join(metadata_directory, name, "METADATA"), "w") as out:
        out.write(open("PKG-INFO").read())
    return name


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    raise RuntimeError("not built here")
'''

PYPROJECT = '''\
[build-system]
requires = []
build-backend = "fakebackend"
backend-path = ["_backend"]
'''

INIT = '''\
"""Demo: a package to document.

It has a core module and a broken one.
"""
from .core import Engine as Engine
from .core import make_engine

__all__ = ["Engine", "make_engine", "DEFAULT_SIZE"]

#: How big an engine is unless told.
DEFAULT_SIZE = 8
'''

CORE = '''\
"""The engine and its helpers."""
import typing as t


class Engine:
    """Run jobs in order.

    An engine keeps its jobs in a queue.

    >>> Engine(2).size
    2
    """

    #: Jobs run at most this many times.
    retries = 3

    def __init__(self, size: int,
                 name: str = "engine") -> None:
        #: The name the engine reports.
        self.name = name

    def register_job(self, job: t.Callable, **options: t.Any) -> None:
        """Register a job to run when the engine starts.

        :param job: the callable to run.
        :param options: passed to the job.
        """

    def stop(self):
        """Stop every job."""

    def undocumented(self, x):
        pass

    def _hidden(self):
        """Private."""


class EngineError(RuntimeError):
    """Raised when a job fails."""


def make_engine(size=8, *, name=None):
    """Return an engine of the given size."""
    return Engine(size)


def _private_helper():
    """Not in the API."""


shared_engine = make_engine(1)
'''

BROKEN = '''\
"""This module does not parse."""

def oops(:
    pass
'''

API_RST = '''\
API
===

.. currentmodule:: demo

The engine
----------

.. autoclass:: Engine
   :members:
   :exclude-members: stop

.. autofunction:: make_engine

.. autodata:: DEFAULT_SIZE

.. autoexception:: demo.core.EngineError

.. automethod:: Engine.stop

.. autoclass:: Missing

Start with :func:`~demo.make_engine`, then :meth:`Engine.register_job`.

.. automodule:: demo.core
   :members: make_engine
'''

GUIDE_MD = '''\
# Guide

Start an engine with make_engine and register jobs on it.
'''


def pkg_info(dist: str, version: str, documentation: str | None = None,
             description: str | None = None) -> str:
    """Return a release's metadata; description: its body (the release's README), after the
    headers as the build tools write it, with a Description-Content-Type of Markdown where it
    starts with a Markdown heading."""
    lines = ["Metadata-Version: 2.1", f"Name: {dist}", f"Version: {version}"]
    if documentation:
        lines.append(f"Project-URL: Documentation, {documentation}")
    if description is not None and description.startswith("# "):
        lines.append("Description-Content-Type: text/markdown")
    return "\n".join(lines) + "\n" + ("" if description is None else "\n" + description)


def _add(tar: tarfile.TarFile, name: str, data: bytes):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = 0o644
    tar.addfile(info, io.BytesIO(data))


def write_sdist(directory: str, dist: str, version: str, files: dict,
                documentation: str | None = None, description: str | None = None) -> str:
    """Write DIST-VERSION.tar.gz with PKG-INFO, the in-tree backend and files; return its path."""
    top = f"{dist}-{version}"
    path = os.path.join(directory, f"{top}.tar.gz")
    every = {"PKG-INFO": pkg_info(dist, version, documentation, description),
             "pyproject.toml": PYPROJECT,
             "_backend/fakebackend.py": BACKEND.format(dist=dist.replace("-", "_"),
                                                       version=version)} | files
    with tarfile.open(path, "w:gz") as tar:
        for name, text in every.items():
            _add(tar, f"{top}/{name}", text.encode("utf-8"))
    return path


def write_wheel(directory: str, dist: str, version: str, files: dict,
                tag: str = "py3-none-any", description: str | None = None) -> str:
    """Write a wheel of files (paths below site-packages; text, or bytes as they are) for one
    tag (a pure-Python wheel by default), its METADATA's body description; return its path."""
    stem = f"{dist.replace('-', '_')}-{version}"
    path = os.path.join(directory, f"{stem}-{tag}.whl")
    info = f"{stem}.dist-info"
    with zipfile.ZipFile(path, "w") as wheel:
        for name, text in files.items():
            wheel.writestr(name, text)
        wheel.writestr(f"{info}/METADATA", pkg_info(dist, version, description=description))
        wheel.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: "
                                        f"{str(tag == 'py3-none-any').lower()}\nTag: {tag}\n")
        wheel.writestr(f"{info}/RECORD", "")
    return path


def demo_sdist(directory: str, documentation: str | None = None) -> str:
    """The demo release: src/ layout, a docs folder of autodoc directives and Markdown."""
    return write_sdist(directory, "demo-pkg", "1.0", {
        "src/demo/__init__.py": INIT, "src/demo/core.py": CORE, "src/demo/broken.py": BROKEN,
        "docs/api.rst": API_RST, "docs/guide.md": GUIDE_MD, "docs/conf.py": "project = 'demo'\n",
        "setup.py": "raise SystemExit('never run')\n", "tests/test_core.py": '"""Tests."""\n',
    }, documentation)


def plain_sdist(directory: str) -> str:
    """A docstring-only release: no docs folder, a flat layout."""
    return write_sdist(directory, "plain", "2.0", {"plain/__init__.py": INIT.replace(
        "demo", "plain"), "plain/core.py": CORE, "setup.py": "raise SystemExit(1)\n"})


def write_site_packages(root: str, distributions: dict) -> str:
    """Write a site-packages of {dist: (version, {path: text}[, METADATA's body])}, with
    dist-info and RECORD."""
    os.makedirs(root, exist_ok=True)
    for dist, (version, files, *description) in distributions.items():
        info = f"{dist.replace('-', '_')}-{version}.dist-info"
        os.makedirs(os.path.join(root, info))
        record = []
        for name, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(root, name)), exist_ok=True)
            with open(os.path.join(root, name), "w", encoding="utf-8") as out:
                out.write(text)
            record.append(f"{name},,")
        with open(os.path.join(root, info, "METADATA"), "w", encoding="utf-8") as out:
            out.write(pkg_info(dist, version, description=next(iter(description), None)))
        with open(os.path.join(root, info, "RECORD"), "w", encoding="utf-8") as out:
            out.write("\n".join(record + [f"{info}/METADATA,,", f"{info}/RECORD,,"]) + "\n")
    return root
