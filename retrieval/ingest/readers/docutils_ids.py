"""The ids docutils and Sphinx give what they render, replicated: the build imports no third-party
library (tests/test_layout.py), and these are small pure functions. tests/test_sphinx_source.py
compares them with docutils' own where docutils is importable.

`make_id` is docutils.nodes.make_id (a section title's or a label's id); `sphinx_id` is
sphinx.util.nodes._make_id (a domain object's: capitals, dots and underscores kept).
`DocumentIds` is docutils' document-wide bookkeeping: a name's id unless taken, else `idN`.
"""

import re
import unicodedata

# docutils.nodes: its id characters, and the letters it folds before dropping non-ASCII.
_NON_ID = re.compile("[^a-z0-9]+")
_NON_ID_AT_ENDS = re.compile("^[-0-9]+|-+$")
# sphinx.util.nodes._make_id: capitals, dots and underscores are id characters too.
_SPHINX_NON_ID = re.compile("[^a-zA-Z0-9._]+")
_SPHINX_NON_ID_AT_ENDS = re.compile("^[-0-9._]+|-+$")
_TRANSLATE = {0x00f8: "o", 0x0111: "d", 0x0127: "h", 0x0131: "i", 0x0142: "l", 0x0167: "t",
              0x0180: "b", 0x0183: "b", 0x0188: "c", 0x018c: "d", 0x0192: "f", 0x0199: "k",
              0x019a: "l", 0x019e: "n", 0x01a5: "p", 0x01ab: "t", 0x01ad: "t", 0x01b4: "y",
              0x01b6: "z", 0x01e5: "g", 0x0225: "z", 0x0234: "l", 0x0235: "n", 0x0236: "t",
              0x0237: "j", 0x023c: "c", 0x023f: "s", 0x0240: "z", 0x0247: "e", 0x0249: "j",
              0x024b: "q", 0x024d: "r", 0x024f: "y"}
_DIGRAPHS = {0x00df: "sz", 0x00e6: "ae", 0x0153: "oe", 0x0238: "db", 0x0239: "qp"}


def _ascii(text: str) -> str:
    text = text.translate(_DIGRAPHS).translate(_TRANSLATE)
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return " ".join(text.split())


def make_id(text: str) -> str:
    """Return docutils.nodes.make_id(text): the id of a section title or a label."""
    return _NON_ID_AT_ENDS.sub("", _NON_ID.sub("-", _ascii(text.lower())))


def sphinx_id(text: str) -> str:
    """Return sphinx.util.nodes._make_id(text): the id of a domain object's description."""
    return _SPHINX_NON_ID_AT_ENDS.sub("", _SPHINX_NON_ID.sub("-", _ascii(text)))


class DocumentIds:
    """The ids of one document, given in document order as docutils' `set_id` gives them."""

    def __init__(self):
        self.ids: set[str] = set()
        self._counter = 0  # docutils' "id" counter, shared by every node without a name id

    def auto(self) -> str:
        """Return the next free `idN` (a footnote, an anonymous target, a repeated title)."""
        while True:
            self._counter += 1
            candidate = f"id{self._counter}"
            if candidate not in self.ids:
                self.ids.add(candidate)
                return candidate

    def named(self, name: str) -> str:
        """Return the id of a node with a name: its make_id unless empty or taken, else idN."""
        candidate = make_id(name)
        if candidate and candidate not in self.ids:
            self.ids.add(candidate)
            return candidate
        return self.auto()
