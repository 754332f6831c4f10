"""The checks every request body shares: strict JSON, the text field, version, collection, counts.

Each operation validates its own body with these (operations/retrieve.py, operations/search.py).
Validation is by hand and total: every field is checked, nothing is coerced (6.0 and true are
not integers here) and nothing unknown is dropped. Issue types use pydantic's vocabulary so that
clients of the earlier FastAPI design of this service keep working.
"""

from ..core.names import REQUEST_COLLECTION_PATTERN, REQUEST_VERSION_PATTERN
from ..core.query import MAX_QUERY_TERMS, too_many_terms
from ..core.snapshot import DEFAULT_COLLECTION
from ..core.strict_json import NegativeZero, StrictJSONError, loads_strict
from .errors import ISSUE_MESSAGES, InvalidJSON, InvalidRequest

MAX_QUESTION_CHARS = 1000
# Every issue type this module can report (pydantic's names).
ISSUE_TYPES = tuple(ISSUE_MESSAGES)
# The patterns as sent in issues and in the OpenAPI document (anchored, as JSON Schema reads them):
# versions and collections as people write them (core/names.py), resolved to what is held.
VERSION_REGEX = f"^{REQUEST_VERSION_PATTERN.pattern}$"
COLLECTION_REGEX = f"^{REQUEST_COLLECTION_PATTERN.pattern}$"


def _question_issue(value):
    if not isinstance(value, str):
        return {"type": "string_type"}
    if not value.strip():
        return {"type": "string_too_short"}
    if len(value) > MAX_QUESTION_CHARS:
        return {"type": "string_too_long", "limit": MAX_QUESTION_CHARS}
    return None


def search_query_issue(value, count_terms: bool = True):
    """Return what a search query may not be besides a question's issues, or None.

    A NUL cannot reach the index as text (FTS5 reads it as the end of the query): it is the
    caller's mistake, not a failed search. Too many distinct terms would cost the deadline
    (count_terms: the query is searched as written).
    """
    if not isinstance(value, str):
        return None  # _question_issue says what is wrong
    if "\x00" in value:
        return {"type": "null_character"}
    if count_terms and too_many_terms(value):
        return {"type": "too_many_terms", "limit": MAX_QUERY_TERMS}
    return None


def _pattern_issue(compiled, regex):
    def issue(value):
        if not isinstance(value, str):
            return {"type": "string_type"}
        if not compiled.fullmatch(value):
            return {"type": "string_pattern_mismatch", "pattern": regex}
        return None
    return issue


_version_issue = _pattern_issue(REQUEST_VERSION_PATTERN, VERSION_REGEX)
_collection_issue = _pattern_issue(REQUEST_COLLECTION_PATTERN, COLLECTION_REGEX)
# The same checks for a body with fields of its own (operations/diff.py).
version_issue, collection_issue = _version_issue, _collection_issue
# The issue of a request that names no version where the collection read has no pin.
MISSING_VERSION = {"path": ["body", "version"], "type": "missing"}


def count_issue(value, maximum):
    if isinstance(value, (bool, NegativeZero)) or not isinstance(value, int):
        return {"type": "int_type"}
    if value < 0:
        return {"type": "greater_than_equal", "limit": 0}
    if value > maximum:
        return {"type": "less_than_equal", "limit": maximum}
    return None


def body_issue(field, issue) -> list:
    """Return a field's issue located in the body, as a list of zero or one issues."""
    return [] if issue is None else [{"path": ["body", field], **issue}]


def common_issues(document, text_field: str, default_collection: str | None = DEFAULT_COLLECTION,
                  pins: bool = False):
    """Check what every request body shares: an object, its text, version and collection.

    Return the issues found and the collection (default_collection when the body names none:
    the app passes its snapshot's, which is None if the snapshot has none); refuse a body that
    is no object. pins: the snapshot pins versions (project.json), so a body may name none;
    whether the collection read has a pin is told once the caller may read it (AppState.resolved).
    """
    if not isinstance(document, dict):
        raise InvalidRequest([{"path": ["body"], "type": "model_attributes_type"}])
    issues = []
    for field, checker in ((text_field, _question_issue), ("version", _version_issue)):
        if field in document:
            issues += body_issue(field, checker(document[field]))
        elif not (pins and field == "version"):
            issues += body_issue(field, {"type": "missing"})
    collection = document.get("collection", default_collection)
    if "collection" in document:
        issues += body_issue("collection", _collection_issue(collection))
    return issues, collection


def decode_body(body: bytes):
    """Decode a request body's JSON strictly; refuse it (invalid_json, with the byte offset)."""
    try:
        return loads_strict(body)
    except StrictJSONError as exc:
        raise InvalidJSON(str(exc), exc.byte_offset) from None
