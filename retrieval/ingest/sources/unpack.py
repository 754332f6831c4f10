"""Unpack a downloaded sdist or wheel safely: no member outside the target, no links, no bombs.

An archive comes from a package index, so its member names, kinds and sizes are not trusted: a
name that is absolute or climbs out with `..` makes the whole archive refused (only a hostile or
broken archive has one); a symbolic or hard link, a device or a FIFO is not extracted (an sdist
may hold a harmless link, and nothing here needs one); and the bytes written are counted as they
are written, so a member that lies about its size cannot fill the disk.
"""

import os
import stat
import tarfile
import zipfile
import zlib
from pathlib import Path

from ...core.errors import UserError
from ..tree import shown

# No release's sources come near these; an archive that does is refused rather than unpacked.
MAX_UNPACKED_BYTES = 512 * 1024 * 1024
MAX_MEMBERS = 100_000
_CHUNK = 1024 * 1024
ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".tar", ".zip", ".whl")


class UnpackError(UserError):
    """An archive that cannot or may not be unpacked."""


def _target(root: Path, name: str) -> Path:
    """Return where a member goes below root, or raise UnpackError if it would leave it."""
    parts = name.replace("\\", "/").split("/")
    if "\0" in name or name.startswith(("/", "\\")) or ":" in parts[0] or ".." in parts:
        raise UnpackError(f"member {name!r} would be written outside the unpacked tree")
    return root.joinpath(*[part for part in parts if part not in ("", ".")])


class _Budget:
    """Counts members and bytes written against the limits."""

    def __init__(self, archive: str):
        self.archive = archive
        self.members = 0
        self.bytes = 0

    def member(self):
        self.members += 1
        if self.members > MAX_MEMBERS:
            raise UnpackError(f"{self.archive}: more than {MAX_MEMBERS} members")

    def copy(self, source, target: Path):
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target, "wb") as out:
            while chunk := source.read(_CHUNK):
                self.bytes += len(chunk)
                if self.bytes > MAX_UNPACKED_BYTES:
                    raise UnpackError(f"{self.archive}: unpacks to more than "
                                      f"{MAX_UNPACKED_BYTES // (1024 * 1024)} MiB")
                out.write(chunk)


def unpack(archive: str, root: str) -> list:
    """Unpack a .tar[.gz|.bz2|.xz], .zip or .whl into root; return the names not extracted
    (as `shown` prints them: a member's name may hold escape sequences).

    Raises UnpackError for an archive that is not one, is damaged, or is refused.
    """
    name = os.path.basename(archive)
    target = Path(root)
    target.mkdir(parents=True, exist_ok=True)
    budget = _Budget(name)
    try:
        if name.endswith((".zip", ".whl")):
            return _unpack_zip(archive, target, budget)
        if name.endswith(ARCHIVE_SUFFIXES):
            return _unpack_tar(archive, target, budget)
    except (tarfile.TarError, zipfile.BadZipFile, zlib.error, EOFError, RuntimeError,
            NotImplementedError, OSError) as exc:
        # One line: tarfile's ReadError lists each compression it tried on a line of its own.
        raise UnpackError(f"{name}: will not unpack: {shown(' '.join(str(exc).split()))}") \
            from None
    raise UnpackError(f"{name}: not an archive this reads ({', '.join(ARCHIVE_SUFFIXES)})")


def _unpack_tar(archive: str, root: Path, budget: _Budget) -> list:
    left_out = []
    with tarfile.open(archive, "r:*") as tar:
        for member in tar:
            budget.member()
            path = _target(root, member.name)
            if member.isdir():
                path.mkdir(parents=True, exist_ok=True)
            elif member.isfile() or member.islnk() or member.issym():
                # A link is written as a copy of the member it names, read from the archive
                # (webassets 0.12's sdist stores its package's files as hard links; nibabel's
                # doc/source/changelog.rst -> ../../Changelog); no link is made on disk, and
                # one naming what the archive does not hold (/etc/passwd) is left out.
                try:
                    source = tar.extractfile(member)
                except (KeyError, RecursionError):  # a link to a link to ... itself
                    source = None
                if source is None:
                    left_out.append(shown(member.name))
                    continue
                with source:
                    budget.copy(source, path)
            else:
                left_out.append(shown(member.name))
    return left_out


def _unpack_zip(archive: str, root: Path, budget: _Budget) -> list:
    left_out = []
    with zipfile.ZipFile(archive) as package:
        for info in package.infolist():
            budget.member()
            path = _target(root, info.filename)
            kind = stat.S_IFMT(info.external_attr >> 16)  # 0: written without a file type
            if info.is_dir():
                path.mkdir(parents=True, exist_ok=True)
            elif kind and kind != stat.S_IFREG:
                left_out.append(shown(info.filename))  # a link (or worse) stored as a zip member
            else:
                with package.open(info) as source:
                    budget.copy(source, path)
    return left_out
