"""Turn the bytes of a /retrieve body into a validated `RetrieveRequest`, or refuse them.

Validation is by hand and total: every field is checked, nothing is coerced (6.0 and true are not
integers here) and nothing unknown is dropped. Issue types use pydantic's vocabulary so that
clients of the earlier FastAPI design of this service keep working.
"""

from .core.admission import Limits
from .core.service import RetrieveRequest
from .core.snapshot import COLLECTION_PATTERN, DEFAULT_COLLECTION, VERSION_PATTERN
from .core.strict_json import NegativeZero, StrictJSONError, loads_strict
from .errors import InvalidJSON, InvalidRequest

MAX_QUESTION_CHARS = 1000
DEFAULT_LIMITS = Limits(max_steps=6, max_searches=2, max_reads=2, max_source_bytes=4096)
COUNT_FIELDS = ("max_steps", "max_searches", "max_reads", "max_source_bytes")
KNOWN_FIELDS = ("question", "version", "collection") + COUNT_FIELDS
# Every issue type this module can report (pydantic's names).
ISSUE_TYPES = ("model_attributes_type", "missing", "extra_forbidden", "string_type",
               "string_too_short", "string_too_long", "string_pattern_mismatch", "int_type",
               "greater_than_equal", "less_than_equal")


def _question_issue(value):
    if not isinstance(value, str):
        return "string_type"
    if not value.strip():
        return "string_too_short"
    if len(value) > MAX_QUESTION_CHARS:
        return "string_too_long"
    return None


def _version_issue(value):
    if not isinstance(value, str):
        return "string_type"
    if not VERSION_PATTERN.fullmatch(value):
        return "string_pattern_mismatch"
    return None


def _collection_issue(value):
    if not isinstance(value, str):
        return "string_type"
    if not COLLECTION_PATTERN.fullmatch(value):
        return "string_pattern_mismatch"
    return None


def _count_issue(value, maximum):
    if isinstance(value, (bool, NegativeZero)) or not isinstance(value, int):
        return "int_type"
    if value < 0:
        return "greater_than_equal"
    if value > maximum:
        return "less_than_equal"
    return None


def parse_retrieve_request(body: bytes, maxima: Limits) -> RetrieveRequest:
    """Decode and validate a /retrieve body against the server's maximum allowances."""
    try:
        document = loads_strict(body)
    except StrictJSONError as exc:
        raise InvalidJSON(str(exc)) from None
    if not isinstance(document, dict):
        raise InvalidRequest([{"path": ["body"], "type": "model_attributes_type"}])

    issues = []

    def check(field, issue):
        if issue is not None:
            issues.append({"path": ["body", field], "type": issue})

    for field, checker in (("question", _question_issue), ("version", _version_issue)):
        if field not in document:
            check(field, "missing")
        else:
            check(field, checker(document[field]))
    collection = document.get("collection", DEFAULT_COLLECTION)
    if "collection" in document:
        check("collection", _collection_issue(collection))
    counts = {}
    for field in COUNT_FIELDS:
        value = document.get(field, getattr(DEFAULT_LIMITS, field))
        check(field, _count_issue(value, getattr(maxima, field)))
        counts[field] = value
    for field in document:
        if field not in KNOWN_FIELDS:
            check(field, "extra_forbidden")
    if issues:
        raise InvalidRequest(issues)
    return RetrieveRequest(question=document["question"], version=document["version"],
                           collection=collection, limits=Limits(**counts))
