"""The OpenAPI building blocks the document and each operation describe themselves with."""

from ..core.fields import FIELD_TYPES, NOTE_FIELDS
from .contract import BODY_DIGEST_HEADER, HTTP_STATUS

HEX64 = {"type": "string", "pattern": "^[0-9a-f]{64}$"}
DIGEST_HEADER = {
    BODY_DIGEST_HEADER: {
        "description": "Hex SHA-256 of the exact response body bytes (a consistency check; it "
                       "authenticates no server).",
        "schema": HEX64,
    }
}


def field_schema(name: str) -> dict:
    """Return the schema of a passage or hit field, from its declared JSON type."""
    declared = FIELD_TYPES[name]
    if declared.hex64:
        return HEX64
    schema: dict = {"type": declared.json_type}
    if declared.items:
        schema.update(items={"enum": list(declared.items)}, minItems=1, uniqueItems=True)
    if declared.minimum is not None:
        schema["minimum"] = declared.minimum
    return schema


def note_schemas() -> dict:
    """Return the version notes' fields' schemas (core/notes.py), each present only when the
    unit's documentation has a note of its kind."""
    note = {"type": "object", "additionalProperties": False, "required": ["version", "text"],
            "properties": {"version": {"type": "string"}, "text": {"type": "string"}}}
    return {kind: {"type": "array", "minItems": 1, "items": note, "description": (
        f"Only where the unit's documentation has one: its {kind} notes, in its order "
        "(version as written, \"\" if none; text: the note's words).")}
        for kind in NOTE_FIELDS}


def ref(name):
    """Return a reference to a named component schema."""
    return {"$ref": f"#/components/schemas/{name}"}


def closed(properties, required=None):
    """Return a closed object schema (every property required unless told)."""
    return {"type": "object", "additionalProperties": False, "properties": properties,
            "required": list(properties) if required is None else required}


def response(schema, description, headers=DIGEST_HEADER):
    """Return a documented JSON response with the body-digest header."""
    return {"description": description, "headers": headers,
            "content": {"application/json": {"schema": schema}}}


def error_schema(codes):
    """Return the Error schema narrowed to these codes."""
    return {"allOf": [ref("Error"), {"type": "object", "properties": {"error": {
        "type": "object", "properties": {"code": {"enum": sorted(codes)}}}}}]}


def error_responses(statuses=None) -> dict:
    """Return one documented response per error status, each with its code enum."""
    by_status: dict[str, list[str]] = {}
    for code, status in HTTP_STATUS.items():
        by_status.setdefault(status, []).append(code)
    return {status.split()[0]: response(error_schema(codes), status.split(" ", 1)[1])
            for status, codes in sorted(by_status.items())
            if statuses is None or status.split()[0] in statuses}


# What the operations' descriptions share.
BEARER: list[dict[str, list]] = [{"bearer": []}]
CONTENT_ADDRESSED = {"ETag": {"description": "The body digest, quoted.",
                              "schema": {"type": "string"}},
                     **DIGEST_HEADER}
NOT_MODIFIED = {"description": "Not Modified: If-None-Match named the current ETag."}
IF_NONE_MATCH = {"name": "If-None-Match", "in": "header", "required": False,
                 "schema": {"type": "string"}}


def request_body(schema_name: str) -> dict:
    """Return a required JSON request body of a named component schema."""
    return {"required": True, "content": {"application/json": {"schema": ref(schema_name)}}}
