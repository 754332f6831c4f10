"""Name lookups: which of a collection's versions document an API name, said, never guessed.

A lookup finds the units whose qualified names are the name asked for (or end with it after a
dot: `DataFrame.append` is `pandas.DataFrame.append`), or, for a bare name, whose bare names
are, in every version of the collection the snapshot holds. What it answers is about the version
asked alone: found there (first what that version's documentation says of its deprecation,
removal or changes), not in that version but in others (which, with their passages, each
labelled with its own version), or nowhere. Another version's passage is never given as the
asked version's.
"""

import re
from dataclasses import dataclass

from .fields import passage_hit_fields
from .names import version_order
from .notes import note_fields

# The statuses: found in the asked version; found there and documented there as deprecated or
# removed; documented only in other versions; documented in none.
FOUND, DEPRECATED, NOT_IN_VERSION, NOT_FOUND = (
    "found", "deprecated", "not_in_version", "not_found")
STATUSES = (FOUND, DEPRECATED, NOT_IN_VERSION, NOT_FOUND)
# The notes a found object's answer says first, the most telling kind first (notes.NOTE_FIELDS'
# kinds but `since`).
FIRST_KINDS = ("removed", "deprecated", "changed")
# The most matching units a lookup reads before it filters them by name (a bare name as
# common as `get` matches a few hundred in a collection's versions).
MAX_NAMED_ROWS = 10000
_WORD = re.compile(r"[^\W_]+")


def name_query(name: str) -> str | None:
    """Return the FTS5 query of a name's words as a phrase in the names fields (None: none)."""
    words = _WORD.findall(name)
    return '{names name} : "' + " ".join(words) + '"' if words else None


def names_match(name: str, qualified: str, bare: str) -> bool:
    """Tell whether a unit with these qualified and bare names documents `name`."""
    if "." not in name and name in bare.split():
        return True
    return any(q == name or q.endswith("." + name) for q in qualified.split())


def exactness(name: str, qualified: str) -> int:
    """Return 0 for a unit whose qualified name is the name itself, else 1 (sorted first)."""
    return 0 if name in qualified.split() else 1


@dataclass(frozen=True)
class Lookup:
    """A name's units in the asked version and in the collection's other versions."""

    name: str
    version: str  # the version asked (served)
    found: dict  # version -> tuple of Passages (best first), versions with some only

    @property
    def here(self) -> tuple:
        """Return the asked version's passages."""
        return self.found.get(self.version, ())

    @property
    def other_versions(self) -> tuple:
        """Return the other versions that document the name, in version order."""
        return tuple(sorted((v for v in self.found if v != self.version), key=version_order))

    def first_notes(self) -> list:
        """Return what the asked version says of the name's removal, deprecation and changes
        (first_notes of its passages)."""
        return first_notes((passage.passage_id, passage.notes) for passage in self.here)

    @property
    def status(self) -> str:
        """Return the answer's status (STATUSES)."""
        if self.here:
            return DEPRECATED if any(note["kind"] != "changed" for note in self.first_notes()) \
                else FOUND
        return NOT_IN_VERSION if self.other_versions else NOT_FOUND


def first_notes(noted) -> list:
    """Return what a version says of a name's removal, deprecation and changes, in FIRST_KINDS
    order, each with the passage that says it, from its units' (passage_id, VersionNotes), best
    first."""
    noted = tuple(noted)
    return [{"kind": note.kind, "version": note.version, "text": note.text,
             "passage_id": passage_id}
            for kind in FIRST_KINDS for passage_id, notes in noted
            for note in notes if note.kind == kind]


def passage_hit(passage) -> dict:
    """Return a passage as a compact hit lists it (fields.HIT_FIELDS, those it has, its flags
    where it has some, and its version notes), without text."""
    return passage_hit_fields(passage) | note_fields(passage.notes)


def not_in_version(found: Lookup) -> dict:
    """Return what a search answers of a name the asked version does not document and others
    do: the name, those versions, and their passages' hits, each with its own version."""
    versions = found.other_versions
    return {"name": found.name, "versions": list(versions),
            "hits": [passage_hit(passage) for version in versions
                     for passage in found.found[version]]}
