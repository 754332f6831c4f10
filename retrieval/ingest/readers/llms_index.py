"""llms.txt (llmstxt.org): the index of a site's Markdown pages, and llms-full.txt, them inlined.

An `llms.txt` is Markdown: an H1 (the project), a blockquote summary, then H2 sections whose
lists link the pages (`- [Title](url): notes`); a section named "Optional" lists what a reader
may skip. A directory holding one, and the pages it links, is read as the index plus every
linked page found in the directory (nothing is fetched: the builder reads files only). An
`llms-full.txt` holds the pages inlined and is read as one Markdown document. Anchors come from
the Markdown headings, as for any Markdown page.
"""

import posixpath
import re
import urllib.parse
from dataclasses import dataclass

INDEX = "llms.txt"
FULL = "llms-full.txt"

# "## " and what follows, trailing blanks out: a prefix match and rstrip, linear in the line
# (a lazy group before [ \t]*$ was quadratic in a run of blanks inside the heading).
_HEADING = re.compile(r"##[ \t]+")
_LINK = re.compile(r"^[ \t]*[-*+][ \t]+\[([^\]]*)\]\(([^)\s]+)\)(?:[ \t]*:[ \t]*(.*))?$")


@dataclass(frozen=True)
class Link:
    """One page an llms.txt lists: its section, title, address and notes."""

    section: str
    title: str
    url: str
    notes: str

    @property
    def optional(self) -> bool:
        """Tell whether the index lists it as skippable (its "Optional" section)."""
        return self.section.casefold() == "optional"


def read_index(text: str) -> list:
    """Return the links of an llms.txt, in the order it lists them."""
    links, section = [], ""
    for line in text.split("\n"):
        heading = _HEADING.match(line)
        if heading:
            section = line[heading.end():].rstrip(" \t")
            continue
        link = _LINK.match(line)
        if link:
            links.append(Link(section, link.group(1), link.group(2), link.group(3) or ""))
    return links


def local_path(url: str, base_url: str) -> str | None:
    """Return the path below the tree of the page a link names, or None if it is elsewhere.

    A relative link is relative to the index; an absolute one must lie under the tree's base URL.
    """
    address = url.partition("#")[0]
    if "://" in address or address.startswith("//"):
        if not address.startswith(base_url):
            return None
        address = address[len(base_url):]
    elif address.startswith("/"):
        return None
    path = posixpath.normpath(urllib.parse.unquote(address))
    if path in (".", "") or path.startswith("../"):
        return None
    return path
