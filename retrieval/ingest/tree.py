"""A documentation tree's files, read as untrusted input: people build from trees they downloaded.

Nothing outside the tree's real path is read: a symbolic link is followed only when what it names
lies below the tree's own real path, so `leak.md -> ../outside/SECRET.md` or
`x.html -> /etc/passwd` is refused, never quoted as a passage. Only regular files are read (a FIFO
would hang the build, a device like /dev/zero fill its memory), each up to a size cap. A file whose
name is not UTF-8 cannot be a passage's source_id or URL: it is refused too. The caller reports
each refusal as a skip line, and `shown` escapes the names such a line prints, so a crafted name
cannot send escape sequences to the terminal.
"""

import contextlib
import os
import stat

# Far above any page of the documentation sets we build (the largest page of the Python 3.11
# docs, contents.html, is 2.5 MB; its objects.inv inflates to 1 MB), far below what would take
# the build's memory: parsing costs about ten times a file's size.
DEFAULT_MAX_FILE_BYTES = 16 * 1024 * 1024


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


def read_tree_file(root: str, relative: str, max_bytes: int) -> bytes:
    """Return the bytes of a regular file below root, refusing one over max_bytes (Unreadable)."""
    with open_tree_file(root, relative) as handle:
        if os.fstat(handle.fileno()).st_size > max_bytes:
            raise Unreadable(f"larger than the {max_bytes}-byte cap (--max-file-bytes)")
        data = handle.read(max_bytes + 1)  # + 1: a file that grew since is refused too
    if len(data) > max_bytes:
        raise Unreadable(f"larger than the {max_bytes}-byte cap (--max-file-bytes)")
    return data


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
