"""A JSON Schema validator for the subset the OpenAPI document uses (tests only).

Supports $ref (local), allOf, oneOf, const, enum, type (string or list), properties, required,
additionalProperties: false, items, maxItems, minLength, maxLength, pattern, minimum, maximum.
"""

import re

_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def _same(a, b):
    return type(a) is type(b) and a == b


def errors(schema, value, document, path="$") -> list:
    """Return every way value violates schema (empty: valid)."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return errors(document["components"]["schemas"][name], value, document, path)
    found = []
    for part in schema.get("allOf", []):
        found += errors(part, value, document, path)
    if "oneOf" in schema:
        matching = [s for s in schema["oneOf"] if not errors(s, value, document, path)]
        if len(matching) != 1:
            found.append(f"{path}: matches {len(matching)} of oneOf, not exactly one")
    if "const" in schema and not _same(value, schema["const"]):
        found.append(f"{path}: {value!r} is not {schema['const']!r}")
    if "enum" in schema and not any(_same(value, option) for option in schema["enum"]):
        found.append(f"{path}: {value!r} not in enum")
    if "type" in schema:
        kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_TYPES[kind](value) for kind in kinds):
            return found + [f"{path}: {type(value).__name__} is not {schema['type']}"]
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in value:
                found.append(f"{path}: missing {key}")
        for key, item in value.items():
            if key in properties:
                found += errors(properties[key], item, document, f"{path}.{key}")
            elif schema.get("additionalProperties") is False:
                found.append(f"{path}: unexpected {key}")
    if isinstance(value, list):
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            found.append(f"{path}: more than {schema['maxItems']} items")
        for i, item in enumerate(value):
            if "items" in schema:
                found += errors(schema["items"], item, document, f"{path}[{i}]")
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0) or len(value) > schema.get("maxLength", 1e18):
            found.append(f"{path}: length {len(value)} out of bounds")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            found.append(f"{path}: {value[:40]!r} does not match {schema['pattern']}")
    if _TYPES["number"](value):
        if (value < schema.get("minimum", float("-inf"))
                or value > schema.get("maximum", float("inf"))):
            found.append(f"{path}: {value} out of bounds")
    return found
