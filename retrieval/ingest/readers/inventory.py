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
_LINE = re.compile(r"(.+?)\s+(\S+):(\S+)\s+(-?\d+)\s+?(\S*)\s+(.*)")


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
        match = _LINE.fullmatch(line.rstrip())
        if match is None:
            continue  # Sphinx itself skips lines it cannot read
        name, domain, role, _, uri, display = match.groups()
        if uri.endswith("$"):
            uri = uri[:-1] + name
        page, _, anchor = uri.partition("#")
        entries.append(InventoryEntry(name, domain, role, page, anchor,
                                      name if display == "-" else display))
    return entries
