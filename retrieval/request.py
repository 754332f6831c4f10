"""Turn the bytes of a /retrieve body into a validated `RetrieveRequest`, or refuse them.

Validation is by hand and total: every field is checked, nothing is coerced (6.0 and true are not
integers here) and nothing unknown is dropped. Issue types use pydantic's vocabulary so that
clients of the earlier FastAPI design of this service keep working.
"""

from .contract import ALLOWANCES, DEFAULT_LIMITS
from .core.admission import Limits
from .core.service import RetrieveRequest
from .core.snapshot import COLLECTION_PATTERN, DEFAULT_COLLECTION, VERSION_PATTERN
from .core.strict_json import NegativeZero, StrictJSONError, loads_strict
from .errors import ISSUE_MESSAGES, InvalidJSON, InvalidRequest

MAX_QUESTION_CHARS = 1000
KNOWN_FIELDS = ("question", "version", "collection") + ALLOWANCES
# Every issue type this module can report (pydantic's names).
ISSUE_TYPES = tuple(ISSUE_MESSAGES)
# The patterns as sent in issues and in the OpenAPI document (anchored, as JSON Schema reads them).
VERSION_REGEX = f"^{VERSION_PATTERN.pattern}$"
COLLECTION_REGEX = f"^{COLLECTION_PATTERN.pattern}$"


def _question_issue(value):
    if not isinstance(value, str):
        return {"type": "string_type"}
    if not value.strip():
        return {"type": "string_too_short"}
    if len(value) > MAX_QUESTION_CHARS:
        return {"type": "string_too_long", "limit": MAX_QUESTION_CHARS}
    return None


def _pattern_issue(compiled, regex):
    def issue(value):
        if not isinstance(value, str):
            return {"type": "string_type"}
        if not compiled.fullmatch(value):
            return {"type": "string_pattern_mismatch", "pattern": regex}
        return None
    return issue


_version_issue = _pattern_issue(VERSION_PATTERN, VERSION_REGEX)
_collection_issue = _pattern_issue(COLLECTION_PATTERN, COLLECTION_REGEX)


def _count_issue(value, maximum):
    if isinstance(value, (bool, NegativeZero)) or not isinstance(value, int):
        return {"type": "int_type"}
    if value < 0:
        return {"type": "greater_than_equal", "limit": 0}
    if value > maximum:
        return {"type": "less_than_equal", "limit": maximum}
    return None


def parse_retrieve_request(body: bytes, maxima: Limits) -> RetrieveRequest:
    """Decode and validate a /retrieve body against the server's maximum allowances."""
    try:
        document = loads_strict(body)
    except StrictJSONError as exc:
        raise InvalidJSON(str(exc), exc.byte_offset) from None
    if not isinstance(document, dict):
        raise InvalidRequest([{"path": ["body"], "type": "model_attributes_type"}])

    issues = []

    def check(field, issue):
        if issue is not None:
            issues.append({"path": ["body", field], **issue})

    for field, checker in (("question", _question_issue), ("version", _version_issue)):
        if field not in document:
            check(field, {"type": "missing"})
        else:
            check(field, checker(document[field]))
    collection = document.get("collection", DEFAULT_COLLECTION)
    if "collection" in document:
        check("collection", _collection_issue(collection))
    counts = {}
    for field in ALLOWANCES:
        value = document.get(field, getattr(DEFAULT_LIMITS, field))
        check(field, _count_issue(value, getattr(maxima, field)))
        counts[field] = value
    for field in document:
        if field not in KNOWN_FIELDS:
            check(field, {"type": "extra_forbidden"})
    if issues:
        raise InvalidRequest(issues)
    return RetrieveRequest(question=document["question"], version=document["version"],
                           collection=collection, limits=Limits(**counts))
