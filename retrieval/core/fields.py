"""The passage and hit field lists, once, each in the order the responses carry its fields.

The core builds its values and results in these orders (key order is part of the response
bytes); the HTTP side's schemas (OpenAPI, MCP), the client's Evidence and the framework adapters'
metadata take their field lists and JSON types from here.
"""

from dataclasses import dataclass

from .flags import FLAGS, flags_field
from .notes import NOTE_FIELDS as NOTE_FIELDS  # re-exported: a hit's fields are listed here


@dataclass(frozen=True)
class FieldType:
    """A field's JSON type, as a schema states it."""

    json_type: str  # "string", "integer" or "number"
    minimum: int | None = None  # an integer's least value
    hex64: bool = False  # a string of 64 lowercase hex digits: a SHA-256 digest or an id
    items: tuple = ()  # an array's: the strings its items are drawn from


_HEX64 = FieldType("string", hex64=True)
_STRING = FieldType("string")
_LINE = FieldType("integer", minimum=1)
# Every field a passage or a result made of one carries, by name.
FIELD_TYPES = {
    "corpus_id": _HEX64, "collection": _STRING, "search_request_id": _HEX64,
    "passage_id": _HEX64, "source_id": _STRING, "version": _STRING, "url": _STRING,
    "title": _STRING, "start_line": _LINE, "end_line": _LINE, "text": _STRING,
    "text_sha256": _HEX64, "source_sha256": _HEX64, "document_revision": _HEX64,
    "byte_count": FieldType("integer", minimum=0), "native_score": FieldType("number"),
    "rank": _LINE, "read_token": _HEX64, "read_request_id": _HEX64, "result_sha256": _HEX64,
    "flags": FieldType("array", items=FLAGS),
    "truncated": FieldType("boolean"), "previous_passage_id": _HEX64, "next_passage_id": _HEX64,
    "next_start_line": _LINE,
}

# A passage as a snapshot holds it: model.Passage's fields and the database's columns.
PASSAGE_FIELDS = ("passage_id", "source_id", "version", "url", "start_line", "end_line", "text",
                  "text_sha256", "source_sha256", "document_revision", "byte_count",
                  "collection", "title", "flags")
# A passage looked up by id (/passages/{id}): its collection's corpus_id, then its provenance.
PASSAGE_BODY_FIELDS = ("corpus_id", "collection", "passage_id", "source_id", "version",
                       "start_line", "end_line", "url", "text", "text_sha256", "source_sha256",
                       "document_revision", "byte_count")
# A search's hit, which is also the read handle that reads it.
HANDLE_FIELDS = ("corpus_id", "search_request_id", "passage_id", "source_id", "version",
                 "document_revision", "source_sha256", "start_line", "end_line", "text_sha256",
                 "byte_count", "native_score", "rank", "read_token")
# The handle's fields a passage gives (the rest are the search's).
HANDLE_PASSAGE_FIELDS = HANDLE_FIELDS[HANDLE_FIELDS.index("passage_id"):
                                      HANDLE_FIELDS.index("native_score")]
# Built snapshots' hits also name what each is, so a caller can see it without reading it.
NAMED_FIELDS = ("url", "title")
# Then, each only where the unit's documentation has a note of its kind (core/notes.py), its
# version notes: NOTE_FIELDS, each a list of {"version", "text"}; every hit, read result and
# evidence item that carries the unit's URL carries them.
# What a read adds to its handle: a read result, which a run's evidence is made of.
READ_FIELDS = ("text", "url", "read_request_id", "result_sha256")
# What a read of a piece of a unit the build cut adds after its url (and only then): that the unit
# goes on (truncated: true), and where: the piece before this one, and the piece after it with the
# line the unit goes on at (each only where there is one).
CUT_FIELDS = ("truncated", "previous_passage_id", "next_passage_id", "next_start_line")
PREVIOUS_PIECE, NEXT_PIECE = CUT_FIELDS[1:3]
# A read result as the client's Evidence has it (title, where a hit has one, stays in the raw
# document).
EVIDENCE_FIELDS = PASSAGE_FIELDS[:PASSAGE_FIELDS.index("collection")] + (
    "native_score", "rank", "result_sha256", "corpus_id", "search_request_id", "read_token",
    "read_request_id")
# What a read result carries beside those only where its passage has it (a built snapshot's
# title, flags, version notes, a cut unit's continuation): the client's Evidence keeps them, and
# the adapters' metadata passes on those present.
EVIDENCE_OPTIONAL_FIELDS = ("title", "flags") + NOTE_FIELDS + CUT_FIELDS
# A compact hit (/search, MCP): enough to cite it, to fetch it again by id, and to recompute its
# passage_id and text digest; url and title only where the snapshot names its units, flags only
# where it has any.
HIT_FIELDS = ("passage_id", "source_id", "url", "title", "version", "start_line", "end_line",
              "byte_count", "text_sha256", "flags")
# Present only where a passage has flags (core/flags.py), on every hit, handle, read result and
# passage, after the fields above: unflagged passages' bytes are as they were without them.
FLAGGED_FIELDS = ("flags",)
# What cites a passage a run read and lets anyone check it: the adapters' document metadata.
CITATION_FIELDS = ("url", "passage_id", "source_id", "version", "start_line", "end_line",
                   "text_sha256", "result_sha256", "source_sha256", "rank", "corpus_id",
                   "native_score")


def passage_hit_fields(passage) -> dict:
    """Return a passage's compact hit (HIT_FIELDS, in order): the fields it has, its flags only
    where it has some (FLAGGED_FIELDS: absent when empty, as on every hit)."""
    hit = {name: getattr(passage, name) for name in HIT_FIELDS if name not in FLAGGED_FIELDS}
    return {name: value for name, value in hit.items() if value is not None} | \
        flags_field(passage.flags)
