"""What the fuzzer holds the service to: its header name, limits, statuses and error vocabulary."""

from pathlib import Path

from retrieval.http.contract import BODY_DIGEST_HEADER

DIGEST_HEADER = BODY_DIGEST_HEADER.lower()  # responses are read with lower-cased names
DEFAULT_TIMEOUT = 5.0
HEALTH_TIMEOUT = 2.0
APP_BODY_CAP = 4096
SERVER_BODY_CAP = 65536  # `python -m retrieval serve`: Waitress answers at or above this itself
HEADER_LIMIT = 262144  # Waitress's max_request_header_size
STATIC_DIR = Path(__file__).resolve().parents[2] / "retrieval" / "static"
STATIC_TYPES = ("text/html; charset=utf-8", "text/javascript; charset=utf-8",
                "text/css; charset=utf-8")
RUN_STATUSES = ("completed", "incomplete", "limited")
ISSUE_TYPES = ("model_attributes_type", "missing", "extra_forbidden", "string_type",
               "string_too_short", "string_too_long", "string_pattern_mismatch", "int_type",
               "greater_than_equal", "less_than_equal", "too_many_terms",
               "null_character")

# Never in a body: a traceback, a source location, the storage engine, an exception's repr.
FORBIDDEN = (b"Traceback", b'File "', b'.py"', b"Error:")
FORBIDDEN_NOCASE = (b"sqlite",)
