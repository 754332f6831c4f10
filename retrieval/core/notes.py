"""Version notes as data: what a unit's documentation says of when it appeared, changed or went.

A reader finds them (ingest/readers/version_notes.py: `versionadded`, `versionchanged`,
`deprecated`, `versionremoved`, their rendered forms, numpydoc's Deprecated sections); a passage
carries them in its content (corpus_id covers them) as `notes`, a list present only when the unit
has some; hits, read results and MCP answers carry them as one field per kind (NOTE_FIELDS), each
present only when not empty, so a snapshot without notes (the embedded fixture) answers byte for
byte as before.
"""

from dataclasses import dataclass

from . import checks

# The kinds, in the order a hit carries them: the version the object appeared in, the versions
# that changed it, deprecated it, removed it.
NOTE_FIELDS = ("since", "changed", "deprecated", "removed")
# What a passage's content names its notes under.
NOTES_CONTENT = "notes"


@dataclass(frozen=True)
class VersionNote:
    """One version note: its kind (a NOTE_FIELDS value), the version it names and its text."""

    kind: str
    version: str  # as the documentation writes it ("3.2", "1.6.0"); "" if it names none
    text: str  # the note's own words, whitespace collapsed; "" for a bare "New in version X."

    def content(self) -> dict:
        """Return the note as a passage's content holds it."""
        return {"kind": self.kind, "version": self.version, "text": self.text}


def notes_content(notes) -> dict:
    """Return what a passage's content says of its notes: nothing when it has none."""
    return {NOTES_CONTENT: [note.content() for note in notes]} if notes else {}


def notes_from_content(content: dict, where: str) -> tuple:
    """Validate a passage content's notes (absent: none); return them as VersionNotes."""
    raw = content.get(NOTES_CONTENT, [])
    if not isinstance(raw, list) or NOTES_CONTENT in content and not raw:
        checks.fail(f"{where}.{NOTES_CONTENT}", "must be a non-empty list (omit it for none)")
    notes = []
    for i, entry in enumerate(raw):
        at = f"{where}.{NOTES_CONTENT}[{i}]"
        checks.json_object(entry, at, ("kind", "version", "text"))
        if entry["kind"] not in NOTE_FIELDS:
            checks.fail(f"{at}.kind", f"must be one of {', '.join(NOTE_FIELDS)}")
        for field in ("version", "text"):
            if not isinstance(entry[field], str):
                checks.fail(f"{at}.{field}", "must be a string")
        notes.append(VersionNote(entry["kind"], entry["version"], entry["text"]))
    return tuple(notes)


def note_fields(notes) -> dict:
    """Return the notes as a hit carries them: {kind: [{version, text}, ...]} in NOTE_FIELDS
    order, each kind present only when the unit has a note of it."""
    fields: dict = {}
    for kind in NOTE_FIELDS:
        of_kind = [{"version": note.version, "text": note.text}
                   for note in notes if note.kind == kind]
        if of_kind:
            fields[kind] = of_kind
    return fields
