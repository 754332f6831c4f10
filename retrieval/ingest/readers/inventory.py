"""Sphinx inventories (objects.inv, version 2): the documentation's own index of named objects.

Format: four header lines ("# Sphinx inventory version 2", project, version, a note), then zlib
of one line per object: `name domain:role priority uri dispname`, where a uri ending in "$"
stands for the name itself and a dispname "-" for the name.
"""

import re
import zlib
from dataclasses import dataclass

from ..tree import DEFAULT_MAX_FILE_BYTES

# Where Sphinx writes it: at the root of the published site.
INVENTORY = "objects.inv"
_HEADER = b"# Sphinx inventory version 2"
# A line is `(.+?)\s+(\S+):(\S+)\s+(-?\d+)\s+?(\S*)\s+(.*)` (Sphinx's own pattern), read by
# _fields in one pass: that pattern backtracks over every split of the name and of the type, so a
# crafted line of a few kilobytes took seconds (a 199-byte objects.inv, 12 s).
_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"\S+")
_NUMBER = re.compile(r"-?\d+")


class InventoryError(ValueError):
    """An objects.inv file is not a Sphinx version 2 inventory."""


@dataclass(frozen=True)
class InventoryEntry:
    """One named object: its name, domain, role, page (below the site root) and anchor."""

    name: str
    domain: str
    role: str
    page: str
    anchor: str
    display_name: str


def read_inventory(data: bytes, max_bytes: int = DEFAULT_MAX_FILE_BYTES) -> list:
    """Decode an objects.inv file into its entries, in file order.

    The compressed part may inflate to at most max_bytes: a zlib bomb (510 KB that inflate to
    1 GB) is refused once that much is out, never inflated whole.
    """
    lines = data.split(b"\n", 4)
    if len(lines) < 5 or lines[0].rstrip() != _HEADER:
        raise InventoryError("not a Sphinx inventory version 2 (first line)")
    inflater = zlib.decompressobj()
    try:
        inflated = inflater.decompress(lines[4], max_bytes + 1)
        if len(inflated) > max_bytes:
            raise InventoryError(f"its compressed part inflates past the {max_bytes}-byte cap "
                                 "(--max-file-bytes)")
        if not inflater.eof:
            raise InventoryError("compressed part unreadable: incomplete or truncated stream")
        body = inflated.decode("utf-8")
    except (zlib.error, UnicodeDecodeError) as exc:
        raise InventoryError(f"compressed part unreadable: {exc}") from None
    if inflater.unconsumed_tail:
        raise InventoryError(f"compressed part expands past {max_bytes} bytes")
    if not inflater.eof:
        raise InventoryError("compressed part unreadable: incomplete or truncated stream")
    entries = []
    for line in body.splitlines():
        fields = _fields(line.rstrip())
        if fields is None:
            continue  # Sphinx itself skips lines it cannot read
        name, domain, role, uri, display = fields
        if uri.endswith("$"):
            uri = uri[:-1] + name
        page, _, anchor = uri.partition("#")
        entries.append(InventoryEntry(name, domain, role, page, anchor,
                                      name if display == "-" else display))
    return entries


def _fields(line: str) -> tuple | None:
    """Return (name, domain, role, uri, display name) of an inventory line, or None.

    The name is the shortest that the rest can follow: it ends where a run of blanks does whose
    next word is `domain:role` (split at its last ":"), then a priority, then the uri (empty when
    two blanks follow the priority) and the display name. Each word is looked at by one or two
    of the runs before it only: linear in the line.
    """
    for blanks in _SPACE.finditer(line):
        if blanks.start() == 0 and blanks.end() == 1:
            continue  # the name has at least one character
        kind = _WORD.match(line, blanks.end())
        if kind is None:
            continue
        colon = kind.group().rfind(":", 1, len(kind.group()) - 1)
        after_kind = _SPACE.match(line, kind.end())
        if colon == -1 or after_kind is None:
            continue
        priority = _NUMBER.match(line, after_kind.end())
        if priority is None or _SPACE.match(line, priority.end()) is None:
            continue
        uri = _WORD.match(line, priority.end() + 1)
        uri_end = uri.end() if uri else priority.end() + 1
        after_uri = _SPACE.match(line, uri_end)
        if after_uri is None:
            continue
        return (line[:max(blanks.start(), 1)], kind.group()[:colon], kind.group()[colon + 1:],
                uri.group() if uri else "", line[after_uri.end():])
    return None
