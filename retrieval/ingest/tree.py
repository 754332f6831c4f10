"""A documentation tree to build (SourceTree, and the PackageLayout a package source found), its
files read as untrusted input (people build from trees they downloaded), which of them are
sources (reST, Markdown, text), and the build's progress lines (Progress).

Nothing outside the tree's real path is read: a symbolic link is followed only when what it names
lies below the tree's own real path, so `leak.md -> ../outside/SECRET.md` or
`x.html -> /etc/passwd` is refused, never quoted as a passage. Only regular files are read (a FIFO
would hang the build, a device like /dev/zero fill its memory), each up to a size cap. A file whose
name is not UTF-8 cannot be a passage's source_id or URL: it is refused too. The caller reports
each refusal as a skip line, and `shown` escapes the names such a line prints, so a crafted name
cannot send escape sequences to the terminal.
"""

import contextlib
import hashlib
import os
import posixpath
import stat
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from ..core.snapshot import DEFAULT_COLLECTION

# Far above any page of the documentation sets we build (the largest page of the Python 3.11
# docs, contents.html, is 2.5 MB; its objects.inv inflates to 1 MB), far below what would take
# the build's memory: parsing costs about ten times a file's size.
DEFAULT_MAX_FILE_BYTES = 16 * 1024 * 1024
# A Python module is parsed whole with `ast` for its docstrings, which takes far more: 45-75
# bytes of memory per source byte for real modules (huggingface_hub's 700 KB hf_api.py, mypy's
# checker.py), about 500 for a crafted one of nothing but tiny expressions (a 4 MiB module in a
# 7 KB wheel took 1.7 GB). The largest real modules, generated API models, stay below 2 MiB; a
# crafted one of 2 MiB takes about 1 GB. --max-file-bytes lowers it too (module_cap).
MAX_MODULE_BYTES = 2 * 1024 * 1024
# A tree's format when none is named: the first format whose detect holds (formats/).
AUTO_FORMAT = "auto"


class Unreadable(Exception):
    """A file of a tree that is not read; the message says why, for the build's skip line."""


def real_root(root: str) -> str:
    """Return the real path of a tree's root directory (a tree given as one file: its directory)."""
    real = os.path.realpath(root)
    return real if os.path.isdir(real) else os.path.dirname(real)


@contextlib.contextmanager
def open_tree_file(root: str, relative: str):
    """Open a regular file below root (relative: '/'-separated) as a binary file object.

    Raises Unreadable if the name is not UTF-8, the path leads out of the tree's real path, or it
    is not a regular file; OSError if it cannot be opened (a missing file: FileNotFoundError).
    """
    try:
        relative.encode("utf-8")
    except UnicodeEncodeError:
        raise Unreadable("its name is not UTF-8") from None
    top = real_root(root)
    path = os.path.realpath(os.path.join(top, *relative.split("/")))
    if os.path.commonpath((top, path)) != top:
        raise Unreadable("a link out of the tree (not followed)")
    # O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
    # O_NOFOLLOW: the resolved path holds no link; one put there since is not followed.
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise Unreadable("not a regular file")
        yield handle


def _over(max_bytes: int, cap: str) -> Unreadable:
    return Unreadable(f"larger than the {max_bytes}-byte cap ({cap})")


def read_tree_file(root: str, relative: str, max_bytes: int, cap="--max-file-bytes") -> bytes:
    """Return the bytes of a regular file below root, refusing one over max_bytes (Unreadable;
    its message names the cap as `cap` says)."""
    with open_tree_file(root, relative) as handle:
        if os.fstat(handle.fileno()).st_size > max_bytes:
            raise _over(max_bytes, cap)
        data = handle.read(max_bytes + 1)  # + 1: a file that grew since is refused too
    if len(data) > max_bytes:
        raise _over(max_bytes, cap)
    return data


def check_tree_file(root: str, relative: str, max_bytes: int):
    """Raise what read_tree_file would for a file, without reading it (another reader will)."""
    with open_tree_file(root, relative) as handle:
        if os.fstat(handle.fileno()).st_size > max_bytes:
            raise _over(max_bytes, "--max-file-bytes")


def not_read(error: Exception) -> str:
    """Return the reason a skip line gives for a file read_tree_file refused (Unreadable) or
    could not open (OSError: a dangling link, a file without read permission)."""
    return f"cannot read: {error.strerror}" if isinstance(error, OSError) else str(error)


def module_cap(max_file_bytes: int) -> tuple:
    """Return (bytes, how a skip line names it) of the cap on a Python module read for its
    docstrings: MAX_MODULE_BYTES, or --max-file-bytes where that is lower."""
    if max_file_bytes < MAX_MODULE_BYTES:
        return max_file_bytes, "--max-file-bytes"
    return MAX_MODULE_BYTES, "on Python modules"


def _escaped(character: str) -> str:
    code = ord(character)
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"  # a byte of a name that is not UTF-8 (surrogateescape)
    if character == "\\":
        return "\\\\"
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def shown(name: str) -> str:
    """Return a file name (or link) as a report may print it: unprintable characters escaped."""
    return "".join(c if c.isprintable() and c != "\\" else _escaped(c) for c in name)


class ShownStream:
    """A text stream that writes what it is given with every unprintable character but the
    line break escaped, as `shown` does: what a build prints (a package's name and version, an
    archive's member names, a repository's or a site's messages) cannot drive the terminal."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write("".join(c if c.isprintable() or c in "\n\t" else _escaped(c)
                                   for c in text))
        return len(text)

    def __getattr__(self, name):
        return getattr(self._stream, name)  # flush, fileno, isatty, encoding, ...


@dataclass(frozen=True)
class Dependency:
    """Another release whose classes a package's derive from, read to resolve names through
    (Flask's `Request` documents werkzeug's members with `:inherited-members:`)."""

    root: str  # where it is unpacked
    modules: tuple  # (path below root, dotted module name) of each module to read
    source: str  # what its files' paths start with where units quote them: "pypi:NAME==1.0/"


@dataclass(frozen=True)
class Description:
    """Where a release's long description is (sources/description.py): the index's page of it."""

    path: str  # below the tree's root
    markup: str  # "rst", "markdown" or "text"
    # Lines before it in its file, read as blank (a metadata file's headers): its units then
    # quote the file's own lines.
    header_lines: int = 0


@dataclass(frozen=True)
class PackageLayout:
    """What a package source found to read below a tree's root (the package format reads it)."""

    modules: tuple  # (path below the root, dotted module name) of each module to read
    docs: str | None  # the docs folder below the root, or None: the docstrings alone
    docs_url: str | None  # where the docs folder's pages are published (ends with "/"), or None
    source_url: str  # the base the files' own links start from (ends with "/")
    dirhtml: bool = False  # the docs site publishes a page at DOCNAME/, not DOCNAME.html
    dependencies: tuple = ()  # a Dependency of each release its documented classes derive from
    # Without a docs folder: the URL of each Python name on its published site, as the site's
    # objects.inv gives it (sources/site_inventory.py); empty where none was read.
    published: Mapping[str, str] = field(default_factory=dict, compare=False)
    # Without a docs folder: the release's description (its README), read as its guide.
    description: Description | None = None


@dataclass(frozen=True)
class SourceTree:
    """One documentation version to build: version, source root, base URL, and collection."""

    version: str
    root: str
    base_url: str
    collection: str = DEFAULT_COLLECTION
    format: str = AUTO_FORMAT  # by what the tree holds, or a format's name (formats/)
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES  # a larger file is skipped, reported
    # What a package source found to read (format "package"); None for every other tree.
    package: PackageLayout | None = field(default=None, compare=False)
    # Where a fetched tree came from (sources.LocalTree.provenance), written to provenance.json.
    provenance: dict | None = field(default=None, compare=False, hash=False)

    @property
    def label(self) -> str:
        """Return how progress lines and --source name this tree: [collection/]version."""
        if self.collection == DEFAULT_COLLECTION:
            return self.version
        return f"{self.collection}/{self.version}"


class Progress:
    """Report files and passages done, with the rate, on stderr at most once a second."""

    def __init__(self, stream=None):
        self._stream = stream or sys.stderr
        self._start = time.monotonic()
        self._last = 0.0
        self.files = 0
        self.passages = 0
        self.skipped = []
        self.skipped_trees = []  # the labels of trees (or package sources) not built
        self.autodoc: dict = {}  # tree label -> [autodoc directives resolved, of how many]
        self._before = (0, 0)  # files, passages when the tree being read began (begin_tree)

    def begin_tree(self):
        """Count the lines' files and passages from here on: the tree about to be read's own.

        Of many trees (a project's dependencies), a line naming one with every earlier tree's
        passages read as that one's (django-environ's said 15,532 passages, 192 its own)."""
        self._before = (self.files, self.passages)

    def tick(self, version, force=False):
        """Say, at most once a second (or now: force), the tree's files and passages so far."""
        now = time.monotonic()
        if force or now - self._last >= 1.0:
            self._last = now
            rate = self.files / max(now - self._start, 1e-9)
            print(f"build: {version}: {self.files - self._before[0]} files, "
                  f"{self.passages - self._before[1]} passages, {rate:.0f} files/s",
                  file=self._stream, flush=True)

    def skip(self, relative_path, reason):
        self.skipped.append(relative_path)
        # Escaped: the name is the tree's, and a crafted one must not drive the terminal.
        print(f"build: skipped {shown(relative_path)}: {reason}", file=self._stream, flush=True)

    def skip_tree(self, label, reason):
        """Report a whole tree (or a package source) not built, and why."""
        self.skipped_trees.append(label)
        print(f"build: skipped {shown(label)}: {reason}", file=self._stream, flush=True)

    def note(self, message):
        print(f"build: {message}", file=self._stream, flush=True)

    def directive(self, label, resolved: bool):
        """Count one autodoc directive of a tree's docs, resolved from its source or not."""
        counts = self.autodoc.setdefault(label, [0, 0])
        counts[0] += resolved
        counts[1] += 1

    def _autodoc_said(self) -> str:
        """The last line's count of autodoc directives, and which trees' docs resolved none
        (their API reference is their docstrings' alone: loud, yet the tree is built)."""
        if not self.autodoc:
            return ""
        resolved = sum(done for done, _ in self.autodoc.values())
        total = sum(count for _, count in self.autodoc.values())
        none = [label for label, (done, _) in self.autodoc.items() if not done]
        warning = "" if not none else (
            f"; WARNING: no autodoc directive resolved in {', '.join(map(shown, none))}: "
            "its API reference is its docstrings' alone")
        return f"; {resolved} of {total} autodoc directives resolved{warning}"

    def done(self, passages, corpus):
        elapsed = time.monotonic() - self._start
        trees = len(self.skipped_trees)
        # Said only when a tree was skipped, so a build that skipped none says what it always did.
        not_built = "" if not trees else (
            f"; {trees} tree{'' if trees == 1 else 's'} skipped "
            f"({', '.join(shown(label) for label in self.skipped_trees)})")
        print(f"build: done: {passages} passages from {self.files} files "
              f"({len(self.skipped)} skipped){not_built}{self._autodoc_said()} in "
              f"{elapsed:.1f}s; corpus_id {corpus}", file=self._stream, flush=True)


def read_file(tree: SourceTree, relative_path: str, progress: Progress, name=None):
    """Return (text, sha256) of one UTF-8 file of a tree, or None (reported) if it is not UTF-8
    or not read (a link out of the tree, not a regular file, over the size cap: above).

    relative_path is below the tree's root (a tree given as one file: below its directory);
    name, if given, is how the skip line names it.
    """
    try:
        data = read_tree_file(tree.root, relative_path, tree.max_file_bytes)
    except (Unreadable, OSError) as exc:
        progress.skip(f"{tree.label}/{name or relative_path}", not_read(exc))
        return None
    try:
        text = decode_source(data)
    except UnicodeDecodeError as exc:
        # Reported and skipped whole: a half-read file would be evidence nobody wrote.
        progress.skip(f"{tree.label}/{name or relative_path}", f"not UTF-8 (byte {exc.start})")
        return None
    progress.files += 1
    progress.tick(tree.label)
    return text, hashlib.sha256(data).hexdigest()


def read_sources(tree: SourceTree, below: str, progress: Progress):
    """Yield (path below `below`, text, sha256) of each supported, UTF-8 file of a tree's
    directory `below` ("" for the whole tree)."""
    for relative_path, _ in iter_source_files(os.path.join(tree.root, below)):
        read = read_file(tree, posixpath.join(below, relative_path), progress, relative_path)
        if read is not None:
            yield relative_path, *read
    progress.tick(tree.label, force=True)


# Longest first: "x.rst.txt" (Sphinx's _sources copy) must not be taken for plain text.
SOURCE_SUFFIXES = ((".rst.txt", "rst"), (".rst", "rst"), (".md", "markdown"), (".txt", "text"))


def source_kind(relative_path: str) -> str | None:
    """Return "rst", "markdown" or "text" for a supported source file name, else None."""
    for suffix, kind in SOURCE_SUFFIXES:
        if relative_path.endswith(suffix):
            return kind
    return None


def iter_source_files(root: str) -> Iterator[tuple[str, str]]:
    """Yield (relative path with '/' separators, absolute path) of each supported file, sorted."""
    root = os.path.abspath(root)
    found = []
    for directory, subdirectories, file_names in os.walk(root):
        # Hidden directories (.git, .venv, .tox, ...) hold no documentation of the project.
        subdirectories[:] = [name for name in subdirectories if not name.startswith(".")]
        for name in file_names:
            # Hidden files are editor and OS artifacts (".#page.rst" lock links, macOS "._page.rst"
            # resource forks), never documentation; reading them would only produce failures.
            if name.startswith(".") or source_kind(name) is None:
                continue
            absolute = os.path.join(directory, name)
            relative = os.path.relpath(absolute, root).replace(os.sep, "/")
            found.append((relative, absolute))
    # Sorted by relative path so that a build walks files in the same order on every machine.
    found.sort()
    yield from found


def decode_source(data: bytes) -> str:
    """Decode source bytes as strict UTF-8, changing nothing (BOM and "\\r" are kept)."""
    # Strict, so that a passage is never quoted with replacement characters the source does not
    # contain; the caller reports and skips a file that fails.
    return data.decode("utf-8")
