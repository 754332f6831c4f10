"""A seeded, stdlib-only HTTP fuzzer for a real server, over raw sockets.

Shared by the CI-sized test (`tests/test_fuzz.py`) and the long-run command (`bench/fuzz.py`).

Each case is a pure function of (seed, index, context): `generate_case` seeds its own
`random.Random(f"fuzz:{seed}:{index}")`, so any case can be rebuilt and replayed alone, in any
order, on any thread. The context is what the fuzzer learned from the server before starting
(ETags and real passage ids, used for conditional requests); it is the same for every run against
the same build.

A case is sent on its own connection in one of three modes:

* `close`: send every byte, half-close (SHUT_WR), read until the server closes. A server that
  neither answers nor closes within the timeout is a hang.
* `sequential`: keep-alive; send one request, read its response by its framing, send the next.
* `abort`: send headers and part of the body, then close (FIN or RST) without reading.

`check_case` then applies the invariants to every response that arrived (see `check_response`).
"""

import hashlib
import json
import random
import re
import socket
import struct
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from retrieval.core import digests
from retrieval.errors import HTTP_STATUS, ISSUE_BOUNDS, MAX_ISSUES, MAX_PATH_PART
from retrieval.metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE

DIGEST_HEADER = "x-retrieval-body-sha256"
DEFAULT_TIMEOUT = 5.0
HEALTH_TIMEOUT = 2.0
APP_BODY_CAP = 4096
SERVER_BODY_CAP = 65536  # `python -m retrieval serve`: Waitress answers at or above this itself
HEADER_LIMIT = 262144  # Waitress's max_request_header_size
STATIC_DIR = Path(__file__).resolve().parent.parent / "retrieval" / "static"
STATIC_TYPES = ("text/html; charset=utf-8", "text/javascript; charset=utf-8",
                "text/css; charset=utf-8")
RUN_STATUSES = ("completed", "incomplete", "limited")
ISSUE_TYPES = ("model_attributes_type", "missing", "extra_forbidden", "string_type",
               "string_too_short", "string_too_long", "string_pattern_mismatch", "int_type",
               "greater_than_equal", "less_than_equal")

# Never in a body: a traceback, a source location, the storage engine, an exception's repr.
FORBIDDEN = (b"Traceback", b'File "', b'.py"', b"Error:")
FORBIDDEN_NOCASE = (b"sqlite",)


# --- cases -------------------------------------------------------------------------------------

@dataclass
class Req:
    """One request of a case, as the fuzzer meant it (the server may parse junk differently)."""

    method: bytes
    target: bytes
    conditional: bool = False  # carried If-None-Match

    @property
    def head(self) -> bool:
        return self.method == b"HEAD"


@dataclass
class Case:
    """One reproducible fuzz case: the bytes to send and how to send them."""

    seed: int
    index: int
    kind: str
    steps: list  # bytes per send; `close` and `abort` have one step
    requests: list  # Req per well-formed request, in order
    mode: str = "close"  # close | sequential | abort
    expect_response: bool = True  # the first request is complete and well framed
    rst: bool = False  # abort with an RST instead of a FIN
    known: str = ""  # a known defect outside the service this case runs into (not a failure)

    @property
    def data(self) -> bytes:
        return b"".join(self.steps)

    @property
    def label(self) -> str:
        return f"{self.seed}:{self.index}"


@dataclass
class Context:
    """What the fuzzer learned from the server before the run (same for every run of a build)."""

    etags: dict = field(default_factory=dict)  # path -> ETag value
    passage_ids: list = field(default_factory=list)


def _eol_join(lines, eol=b"\r\n") -> bytes:
    return b"".join(line + eol for line in lines) + eol


def http_request(method=b"POST", target=b"/retrieve", version=b"HTTP/1.1", headers=None,
                 body=b"", eol=b"\r\n", content_length="auto", content_type=b"application/json",
                 host=b"fuzz") -> bytes:
    """Assemble one request. headers are extra raw lines (bytes, without line ends)."""
    line = method + b" " + target + (b" " + version if version else b"")
    lines = [line]
    if host is not None:
        lines.append(b"Host: " + host)
    if content_type is not None:
        lines.append(b"Content-Type: " + content_type)
    if content_length == "auto":
        if body or method == b"POST":
            lines.append(b"Content-Length: %d" % len(body))
    elif content_length is not None:
        lines.append(b"Content-Length: " + content_length)
    lines.extend(headers or ())
    return _eol_join(lines, eol) + body


def chunk_body(body: bytes, rng: random.Random) -> bytes:
    """Chunked transfer coding of body, in random chunk sizes."""
    out = []
    start = 0
    while start < len(body):
        size = rng.choice((1, 2, 7, 64, 500, 4096))
        piece = body[start:start + size]
        out.append(b"%x\r\n" % len(piece) + piece + b"\r\n")
        start += size
    out.append(b"0\r\n\r\n")
    return b"".join(out)


# --- request bodies ----------------------------------------------------------------------------

QUESTIONS = (
    "Will write_text replace the contents of an existing file?",
    "How frequently does our cloud provider back up these files?",
    "What does Path.read_text return?",
    "read_text", "write_text overwritten", "text", "é", "日本語のテキスト", "x",
    "\"quoted\" AND OR NOT NEAR(a b) * ^ col:term", "'; DROP TABLE passages; --",
    "%s %d {0} ${jndi:x}", "../../etc/passwd", "<script>alert(1)</script>", "\\\\ \\\" /",
    "a" * 999, "überschreibt write_text vorhandene Dateien?", "what is the", "?!", "_", "0",
    "AND OR NOT NEAR", "NEAR(x y, 2)", "x* ^y -z +w", " ".join(f"w{i}" for i in range(40)),
    "ǅungla ﬁle Straße İstanbul ΣΑΣ", "١٢٣ ４５ ⅷ ²³", "col:text {a b}",
    "\u0000 in a question",
)
# Code points for random questions: ASCII, Latin, combining, RTL, CJK, private use, emoji,
# noncharacters and the last one. Never a surrogate (those cannot be encoded at all).
UNICODE_RANGES = ((0x20, 0x7e), (0xa0, 0x24f), (0x300, 0x36f), (0x590, 0x6ff), (0x200b, 0x206f),
                  (0x3000, 0x30ff), (0x4e00, 0x4e80), (0xe000, 0xe010), (0xfdd0, 0xfdef),
                  (0xfff0, 0xffff), (0x1f600, 0x1f64f), (0x10fff0, 0x10ffff), (0x0, 0x1f))
VERSIONS = ("3.12", "3.12", "3.12", "3.11", "9.99", "0.0", "000.000", "999.999")
COUNTS = (("max_steps", 64), ("max_searches", 32), ("max_reads", 32),
          ("max_source_bytes", 1048576))

# Raw JSON texts substituted for a value: odd numbers, wrong types, invalid literals.
ODD_VALUES = (
    b"1e400", b"-1e400", b"1E400", b"-0", b"-0.0", b"0.0", b"1e-400", b"-1e-400", b"6.0", b"6e0",
    b"6E+0", b"60e-1", b"true", b"false", b"null", b"0", b"-1", b"64", b"65", b"32", b"33",
    b"1048576", b"1048577", b"4294967296", b"9223372036854775807", b"9223372036854775808",
    b"-9223372036854775809", b"1.5", b"1e2", b"1e308", b"1.7976931348623157e309", b"5e-324",
    b"2.5e-324", b"\"6\"", b"[]", b"{}", b"[6]", b"{\"n\":6}", b"\"\"", b"1" + b"0" * 300,
    b"0." + b"0" * 400 + b"1", b"1" * 400 + b".5", b"1e" + b"9" * 400,
)
INVALID_VALUES = (
    b"01", b"+1", b".5", b"5.", b"0x10", b"1e", b"1e+", b"--1", b"1_000", b"NaN", b"-NaN",
    b"Infinity", b"-Infinity", b"infinity", b"nan", b"1.0e", b"0.", b"\xd9\xa1", b"6 6",
    b"True", b"None", b"undefined", b"'x'", b"\"unterminated", b"[1,]", b"{\"a\":1,}", b"",
)
# String contents (raw JSON string bodies, between the quotes).
QUESTION_TEXTS = (
    b"a" * 1000, b"a" * 1001, "é".encode() * 1000, "é".encode() * 1001,
    "\U0001F600".encode() * 1000, b"\\u0041" * 600, b"\\u00e9" * 600, b"", b" ", b"\\t\\n",
    b"\\u00a0", b"\\u3000", b"\\u200b", b"\\u0000", b"a\\u0000b", b"\\u001f", b"\\u007f",
    b"\\u0085", b"\\u2028\\u2029", b"\x00", b"\x01", b"\n", b"\t", b"\x7f", b"\x1b[31m",
    b"\\ud800", b"\\udfff", b"a\\udc00", b"\\ud800\\ud800", b"\\udbff\\udfff", b"\\ud83d\\ude00",
    b"\\uD800", b"\\ud800\\u0041", b"\\udc00\\ud800", b"\xff", b"\xc0\xaf", b"\xe0\x80\xaf",
    b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xf4\x90\x80\x80", b"\xf8\x88\x80\x80\x80", b"\xc3",
    b"\x80", b"\xef\xbf\xbe", b"\xef\xbb\xbf", b"\xef\xbf\xbf", b"\\x41", b"\\u12", b"\\uZZZZ",
    b"\\", b"\\'", "\u202eevil".encode(), "e\u0301\u0301\u0301".encode(), b"\\/\\b\\f\\r",
    "Ελληνικά write_text".encode(), b"text " * 199,
)
VERSION_VALUES = (
    b"\"3.12\"", b"\"3.11\"", b"\"9.99\"", b"\"1000.1\"", b"\"3.1234\"", b"\"3\"", b"\"3.\"",
    b"\"3.12 \"", b"\" 3.12\"", b"\"3.12\\n\"", b"\"3.12\n\"", "\"\u0663.\u0661\u0662\"".encode(),
    "\"\uff13.\uff11\uff12\"".encode(), b"\"3,12\"", b"\"3.12.1\"", b"\"\"", b"\"v3.12\"",
    b"3.12", b"null", b"[\"3.12\"]", b"\"3.12\\u0000\"", b"\"\\u0033.12\"",
)
EXTRA_KEYS = (
    b"\"fault\"", b"\"\"", b"\" \"", b"\"Question\"", b"\"question \"", b"\"max_steps\\u0000\"",
    b"\"__proto__\"", b"\"constructor\"", b"\"" + b"k" * 100 + b"\"", "\"клю\u0447\"".encode(),
    b"\"\\ud800\"", b"\"a\\\"b\"", b"\"\\n\"",
)
WHOLE_BODIES = (
    b"", b" ", b"null", b"[]", b"{}", b"\"x\"", b"0", b"true", b"[{}]", b"{\"question\":\"x\"",
    b"{,}", b"{\"a\" 1}", b"{'question': 'x'}", b"question=x&version=3.12", b"<xml/>",
    b"\x00" * 10, b"{\"question\":\"x\",\"version\":\"3.12\"}{}", b"[" * 40 + b"]" * 40,
    b"{\"question\":\"x\",\"version\":\"3.12\"", b"\"\\ud800\"", b"1e400", b"-0",
)
INTERESTING_BYTES = b"\"\\{}[],:\x00\xff\xc3\x80 \n\t0e-.+"


def _json_str(value: str, rng: random.Random) -> bytes:
    return json.dumps(value, ensure_ascii=rng.random() < 0.5).encode("utf-8")


def _nested(depth: int, rng: random.Random) -> bytes:
    if rng.random() < 0.5:
        return b"[" * depth + b"1" + b"]" * depth
    return b"{\"a\":" * depth + b"1" + b"}" * depth


_FILL = b"\x00FILL\x00"


def _mutate_pairs(pairs: list, rng: random.Random, labels: list):
    """Apply one structural mutation to a list of (key bytes, value bytes) pairs."""
    choice = rng.randrange(13)
    if choice == 12:  # a random Unicode question, JSON-escaped where JSON requires it
        low_high = [rng.choice(UNICODE_RANGES) for _ in range(rng.randint(1, 3))]
        text = "".join(chr(rng.randint(*rng.choice(low_high)))
                       for _ in range(rng.choice((1, 5, 30, 200))))
        _set(pairs, b"\"question\"", _json_str(text, rng))
        labels.append("unicode_question")
    elif choice == 0 and pairs:  # odd or invalid value for a field
        index = rng.randrange(len(pairs))
        pool = ODD_VALUES if rng.random() < 0.7 else INVALID_VALUES
        pairs[index] = (pairs[index][0], rng.choice(pool))
        labels.append("odd_value")
    elif choice == 1:  # odd question text
        text = rng.choice(QUESTION_TEXTS)
        _set(pairs, b"\"question\"", b"\"" + text + b"\"")
        labels.append("question_text")
    elif choice == 2:
        _set(pairs, b"\"version\"", rng.choice(VERSION_VALUES))
        labels.append("version")
    elif choice == 3 and pairs:  # duplicate key, same or other value, maybe spelled by escape
        key, value = rng.choice(pairs)
        if rng.random() < 0.3 and key == b"\"question\"":
            key = b"\"\\u0071uestion\""
        if rng.random() < 0.5:
            value = rng.choice(ODD_VALUES)
        pairs.insert(rng.randrange(len(pairs) + 1), (key, value))
        labels.append("duplicate_key")
    elif choice == 4:  # duplicate key nested inside an extra member
        inner = (b"{\"a\":1,\"b\":{\"c\":2,\"c\":3}}" if rng.random() < 0.5
                 else b"[{\"x\":1,\"x\":1}]")
        pairs.append((b"\"nested\"", inner))
        labels.append("nested_duplicate")
    elif choice == 5:  # deep nesting in a member or as a field value
        depth = rng.choice((31, 32, 33, 34, 64, 500, 999, 1000, 1001, 1500, 2000))
        target = rng.choice((b"\"extra\"", b"\"question\"", b"\"max_steps\""))
        _set(pairs, target, _nested(depth, rng))
        labels.append(f"nesting{depth}")
    elif choice == 6:  # unknown fields, sometimes more than the issue cap
        for _ in range(rng.choice((1, 1, 2, MAX_ISSUES + 3))):
            key = rng.choice(EXTRA_KEYS)
            if rng.random() < 0.5:
                key = b"\"x%d\"" % rng.randrange(10**6)
            pairs.append((key, rng.choice(ODD_VALUES)))
        labels.append("extra_fields")
    elif choice == 7 and pairs:  # drop a field
        pairs.pop(rng.randrange(len(pairs)))
        labels.append("missing_field")
    elif choice == 8:  # a number with as many digits as the body cap allows
        field_name = rng.choice((b"\"max_steps\"", b"\"max_source_bytes\"", b"\"extra\""))
        _set(pairs, field_name, _FILL)
        labels.append("huge_number")
    elif choice == 9:  # every count field wrong at once (many issues)
        for name, _ in COUNTS:
            _set(pairs, b"\"%s\"" % name.encode(), rng.choice(ODD_VALUES))
        labels.append("all_counts_odd")
    elif choice == 10:  # the escape-spelled twin of a known key
        pairs.append((rng.choice((b"\"\\u0071uestion\"", b"\"versio\\u006e\"",
                                  b"\"max\\u005fsteps\"")), b"\"3.12\""))
        labels.append("escaped_key")
    else:  # reorder
        rng.shuffle(pairs)
        labels.append("reordered")


def _set(pairs, key, value):
    for index, (existing, _) in enumerate(pairs):
        if existing == key:
            pairs[index] = (key, value)
            return
    pairs.append((key, value))


def _serialize(pairs, rng: random.Random) -> bytes:
    ws = lambda: rng.choice((b"", b"", b"", b" ", b"\n", b"\t", b"\r\n  "))  # noqa: E731
    sep = rng.choice((b",", b", ", b",\n"))
    colon = rng.choice((b":", b": "))
    members = [ws() + key + colon + ws() + value + ws() for key, value in pairs]
    return ws() + b"{" + sep.join(members) + b"}" + ws()


def _fill_number(body: bytes, rng: random.Random) -> bytes:
    room = APP_BODY_CAP - (len(body) - len(_FILL))
    shape = rng.randrange(5)
    digits = max(1, rng.choice((room, room, room - rng.randint(1, 60), room + 1)))
    if shape == 0:
        number = b"9" * digits
    elif shape == 1:
        number = b"-" + b"1" * max(1, digits - 1)
    elif shape == 2:
        number = b"1e" + b"9" * max(1, digits - 2)
    elif shape == 3:
        number = b"0." + b"0" * max(1, digits - 3) + b"1"
    else:
        number = b"1" * max(1, digits - 2) + b".5"
    return body.replace(_FILL, number, 1)


def _mutate_bytes(body: bytes, rng: random.Random, labels: list) -> bytes:
    """Apply one byte-level mutation."""
    choice = rng.randrange(10)
    if choice == 0 and body:
        data = bytearray(body)
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        labels.append("bit_flip")
        return bytes(data)
    if choice == 1 and body:
        labels.append("truncate")
        return body[:rng.randrange(len(body))]
    if choice == 2:
        at = rng.randrange(len(body) + 1)
        insert = bytes(rng.choice(INTERESTING_BYTES) for _ in range(rng.randint(1, 4)))
        labels.append("insert")
        return body[:at] + insert + body[at:]
    if choice == 3 and body:
        start = rng.randrange(len(body))
        end = min(len(body), start + rng.randint(1, 16))
        labels.append("delete_slice" if rng.random() < 0.5 else "duplicate_slice")
        if labels[-1] == "delete_slice":
            return body[:start] + body[end:]
        return body[:end] + body[start:end] + body[end:]
    if choice == 4:
        bom = rng.randrange(5)
        labels.append(f"bom{bom}")
        if bom == 0:
            return b"\xef\xbb\xbf" + body
        text = body.decode("utf-8", errors="replace")
        return (b"\xff\xfe" + text.encode("utf-16-le"), b"\xfe\xff" + text.encode("utf-16-be"),
                text.encode("utf-16"), text.encode("utf-32"))[bom - 1]
    if choice == 5:
        labels.append("trailing")
        return body + rng.choice((b"x", b"}", b"{}", b" {}", b"\x00", b",", b"]", b"//", b"/* */",
                                  b"\n\n\n", b"\xff", b"\r\n0\r\n\r\n", b"GET / HTTP/1.1",
                                  b"\xef\xbb\xbf"))
    if choice == 6:
        labels.append("leading")
        return rng.choice((b"\x0c", b"\xc2\xa0", b"\x00", b"\v", b" \n\r\t")) + body
    if choice == 7:  # pad to a size at an edge
        size = rng.choice((APP_BODY_CAP - 1, APP_BODY_CAP, APP_BODY_CAP, APP_BODY_CAP + 1,
                           5000, 20000))
        labels.append(f"pad{size}")
        return body + b" " * max(0, size - len(body))
    if choice == 8 and body:  # swap two bytes
        data = bytearray(body)
        a, b = rng.randrange(len(data)), rng.randrange(len(data))
        data[a], data[b] = data[b], data[a]
        labels.append("swap")
        return bytes(data)
    labels.append("unchanged")
    return body


def generate_body(rng: random.Random):
    """Return (body bytes, labels): a valid /retrieve body, usually mutated."""
    labels = []
    if rng.random() < 0.06:
        labels.append("whole")
        return rng.choice(WHOLE_BODIES), labels
    pairs = [(b"\"question\"", _json_str(rng.choice(QUESTIONS), rng)),
             (b"\"version\"", _json_str(rng.choice(VERSIONS), rng))]
    for name, maximum in COUNTS:
        if rng.random() < 0.3:
            pairs.append((b"\"%s\"" % name.encode(), b"%d" % rng.randint(0, maximum)))
    for _ in range(rng.choice((0, 1, 1, 1, 2, 2, 3))):
        _mutate_pairs(pairs, rng, labels)
    body = _serialize(pairs, rng)
    if _FILL in body:
        body = _fill_number(body, rng)
    for _ in range(rng.choice((0, 0, 0, 1, 1, 2))):
        body = _mutate_bytes(body, rng, labels)
    return body, labels or ["valid"]


def valid_body(rng: random.Random) -> bytes:
    payload = {"question": rng.choice(QUESTIONS[:5]), "version": rng.choice(("3.12", "3.11"))}
    if rng.random() < 0.3:
        payload["max_steps"] = rng.randint(0, 8)
    return json.dumps(payload).encode()


# --- generators: one per kind ------------------------------------------------------------------

def gen_body(rng, ctx, case):
    """A mutated or generated body on an otherwise ordinary POST /retrieve."""
    body, labels = generate_body(rng)
    framing = rng.choices(("cl", "chunked", "chunked+cl", "http10"), (80, 12, 4, 4))[0]
    headers = []
    content_length = "auto"
    version = b"HTTP/1.1"
    if framing == "chunked":
        headers.append(b"Transfer-Encoding: chunked")
        content_length = None
        body = chunk_body(body, rng)
    elif framing == "chunked+cl":
        headers.append(b"Transfer-Encoding: chunked")
        content_length = rng.choice((b"%d" % len(body), b"3", b"99999"))
        body = chunk_body(body, rng)
    elif framing == "http10":
        version = b"HTTP/1.0"
    if rng.random() < 0.3:
        headers.append(b"Connection: close")
    case.kind = "body/" + framing + "/" + "+".join(labels)
    case.steps = [http_request(version=version, headers=headers, body=body,
                               content_length=content_length)]
    case.requests = [Req(b"POST", b"/retrieve")]


CONTENT_TYPES = (
    b"application/json", b"APPLICATION/JSON", b"Application/Json",
    b"application/json; charset=utf-8",
    b"application/json;charset=\"UTF-8\"", b"application/json; charset=utf8",
    b"application/json; charset=latin-1", b"application/json; charset=utf-16",
    b"application/json; charset=", b"application/json;charset", b"application/json; foo=bar",
    b"application/json ; charset=utf-8 ; x=y", b"text/json", b"application/jsonx", b"json",
    b"application/json, text/plain", b"application/*", b"*/*", b"", b"text/plain",
    b"application/ld+json", b"multipart/form-data; boundary=x",
    b"application/x-www-form-urlencoded", b"application/json\xff", b"application/json\x00",
    b"\tapplication/json", b"application/json; charset=utf-8; charset=latin-1",
    b"application/json; charset=\"utf-8", b"application/" + b"j" * 5000,
)


def gen_media_type(rng, ctx, case):
    body = valid_body(rng)
    choice = rng.randrange(10)
    content_type = rng.choice(CONTENT_TYPES)
    headers = []
    if choice == 0:  # no Content-Type at all
        content_type = None
    elif choice == 1:  # two Content-Type headers
        headers.append(b"Content-Type: " + rng.choice(CONTENT_TYPES))
    elif choice == 2:  # underscore spelling: Waitress drops it
        headers.append(b"Content_Type: application/json")
        content_type = None
    case.kind = f"media/{choice}"
    case.steps = [http_request(content_type=content_type, headers=headers, body=body)]
    case.requests = [Req(b"POST", b"/retrieve")]


def gen_framing(rng, ctx, case):
    """Content-Length and Transfer-Encoding anomalies."""
    body = valid_body(rng) if rng.random() < 0.7 else generate_body(rng)[0]
    n = len(body)
    variant = rng.randrange(20)
    version = b"HTTP/1.1"
    headers = []
    content_length = "auto"
    send = body
    expect = True
    if variant == 0:  # no Content-Length: the body becomes the next request (junk)
        content_length = None
    elif variant == 1:  # Content-Length that is not a decimal number
        content_length = rng.choice((b"abc", b"-1", b"+%d" % n, b"%d.0" % n, b"0x10", b"1e3",
                                     b"", b" ", "\u0665".encode(), b"%d %d" % (n, n),
                                     b"%d,%d" % (n, n), b"-0", b"\xff"))
    elif variant == 2:  # duplicated Content-Length, same or different values
        headers.append(b"Content-Length: %d" % rng.choice((n, n + 1, max(0, n - 1), 0)))
    elif variant == 3:  # declared longer than sent: the server waits; EOF ends it
        content_length = b"%d" % (n + rng.randint(1, 100))
        expect = False
    elif variant == 4:  # declared shorter than sent: the rest is a junk next request
        content_length = b"%d" % rng.randrange(max(1, n))
    elif variant == 5:  # huge declared length, no body: Waitress's own 413
        content_length = rng.choice((b"99999999999999999999", b"%d" % SERVER_BODY_CAP,
                                     b"1" + b"0" * 40))
        send = b""
    elif variant == 6:  # over the app cap, under Waitress's
        send = body + b" " * (APP_BODY_CAP + 1 - n + rng.choice((0, 0, 100)))
    elif variant == 7:  # leading zeros / whitespace around the number
        content_length = rng.choice((b"000%d" % n, b" %d" % n, b"%d " % n, b"\t%d" % n))
    elif variant in (8, 9):  # both Transfer-Encoding and Content-Length
        content_length = None
        te = b"Transfer-Encoding: " + rng.choice((b"chunked", b"Chunked", b"CHUNKED"))
        cl = b"Content-Length: " + rng.choice((b"%d" % n, b"3", b"abc", b"-1", b"99999"))
        headers.extend([te, cl] if variant == 8 else [cl, te])
        send = chunk_body(body, rng)
    elif variant == 10:  # odd Transfer-Encoding values
        content_length = None
        te = rng.choice((b"chunked, chunked", b"gzip, chunked", b"chunked, gzip", b"identity",
                         b"gzip", b"", b" chunked", b"chunked;q=1", b"xchunked", b"chunked\t",
                         b"deflate", b"compress, chunked"))
        headers.append(b"Transfer-Encoding: " + te)
        send = chunk_body(body, rng)
        expect = te.strip(b" \t").lower() not in (b"",)
    elif variant == 11:  # two Transfer-Encoding headers
        content_length = None
        headers += [b"Transfer-Encoding: chunked", b"Transfer-Encoding: " +
                    rng.choice((b"chunked", b"gzip"))]
        send = chunk_body(body, rng)
    elif variant == 12:  # bad chunk sizes and terminators
        content_length = None
        headers.append(b"Transfer-Encoding: chunked")
        bad = rng.randrange(12)
        piece = body[:5] if len(body) >= 5 else body.ljust(5)
        send = (
            b"zz\r\n" + piece + b"\r\n0\r\n\r\n",
            b"-5\r\n" + piece + b"\r\n0\r\n\r\n",
            b"0x5\r\n" + piece + b"\r\n0\r\n\r\n",
            b"5 \r\n" + piece + b"\r\n0\r\n\r\n",
            b"5;ext=1\r\n" + piece + b"\r\n0\r\n\r\n",
            b"5;\r\n" + piece + b"\r\n0\r\n\r\n",
            b"ffffffffffffffffffffffff\r\n" + piece + b"\r\n",
            b"\r\n" + piece + b"\r\n0\r\n\r\n",
            b"3\r\n" + piece + b"\r\n0\r\n\r\n",  # data longer than the size
            b"5\r\n" + piece,  # no terminating chunk: the server waits
            b"0005\r\n" + piece + b"\r\n0\r\nX-Trailer: 1\r\n\r\n",
            b"5\n" + piece + b"\n0\n\n",
        )[bad]
        expect = bad not in (6, 7, 9, 11)
        variant = f"12.{bad}"
    elif variant == 13:  # chunked under HTTP/1.0 (Waitress ignores TE there)
        version = b"HTTP/1.0"
        content_length = None
        headers.append(b"Transfer-Encoding: chunked")
        send = chunk_body(body, rng)
    elif variant == 14:  # Expect: 100-continue, with and without a body
        headers.append(b"Expect: 100-continue")
        if rng.random() < 0.3:
            send = b""
            content_length = rng.choice((b"0", None))
    elif variant == 15:  # Content-Length of zero with a body following
        content_length = b"0"
    elif variant == 16:  # chunked total exactly at and over the app cap
        content_length = None
        headers.append(b"Transfer-Encoding: chunked")
        size = rng.choice((APP_BODY_CAP, APP_BODY_CAP + 1, 10000))
        send = chunk_body(body + b" " * max(0, size - n), rng)
    elif variant == 17:  # a body at and just under Waitress's own cap (rare, 64 KiB)
        size = rng.choice((SERVER_BODY_CAP - 1, SERVER_BODY_CAP))
        send = body + b" " * (size - n)
        if rng.random() < 0.5:
            content_length = None
            headers.append(b"Transfer-Encoding: chunked")
            send = chunk_body(send, rng)
    elif variant == 18:  # GET with a body
        target = rng.choice((b"/health", b"/corpus"))
        case.kind = "framing/get_body"
        case.steps = [http_request(b"GET", target, body=body)]
        case.requests = [Req(b"GET", target)]
        return
    else:  # HTTP/1.0 keep-alive with a body
        version = b"HTTP/1.0"
        headers.append(b"Connection: keep-alive")
    case.kind = f"framing/{variant}"
    case.steps = [http_request(version=version, headers=headers, body=send,
                               content_length=content_length)]
    case.requests = [Req(b"POST", b"/retrieve")]
    case.expect_response = expect


def gen_headers(rng, ctx, case):
    """Header syntax and size anomalies on an otherwise valid request."""
    body = valid_body(rng)
    variant = rng.randrange(14)
    headers = []
    eol = b"\r\n"
    expect = True
    method, target = b"POST", b"/retrieve"
    if rng.random() < 0.3:
        method, target, body = b"GET", b"/health", b""
    if variant == 0:
        headers.append(rng.choice((b"Content-Type : application/json", b"NoColonHere",
                                   b": empty-name", b"X Y: z", b"X-\x00: 1", b"X-\xff: 1",
                                   b"(x): 1", b"X-A:: b")))
    elif variant == 1:  # obs-fold continuation
        headers += [b"X-Folded: a", rng.choice((b" b", b"\tb", b"  "))]
    elif variant == 2:  # odd values
        headers.append(b"X-Odd: " + rng.choice((b"\x00", b"\x7f", b"\xff\xfe", b"a\x01b",
                                               "é".encode(), b"\x1b[31m")))
    elif variant == 3:  # bare CR or LF inside a line
        headers.append(rng.choice((b"X-A: a\rb", b"X-A: a\nb", b"X-A: a\r")))
    elif variant == 4:  # LF-only line ends: no CRLFCRLF ever arrives
        eol = b"\n"
        expect = False
    elif variant == 5:  # many small headers
        headers += [b"X-H%d: v" % i for i in range(rng.choice((100, 1000, 3000)))]
    elif variant == 6:  # one big header within Waitress's limit
        headers.append(b"X-Pad: " + b"p" * rng.choice((8000, 65536, 200000)))
    elif variant == 7:  # beyond Waitress's header limit (rare: few and slow)
        if rng.random() < 0.08:
            headers.append(b"X-Pad: " + b"p" * (HEADER_LIMIT + rng.choice((0, 1000, 40000))))
            expect = False  # Waitress answers 431 mid-upload and may reset the connection
        else:
            headers.append(b"X-Pad: " + b"p" * (HEADER_LIMIT - 2000))
    elif variant == 8:  # Host anomalies
        headers.append(rng.choice((b"Host: other", b"Host: ", b"Host: a b", b"Host: \xff")))
    elif variant == 9:
        headers.append(b"Connection: " + rng.choice((b"close", b"keep-alive", b"Upgrade",
                                                    b"close, keep-alive", b"", b"\xff")))
    elif variant == 10:  # blank lines before the request line (allowed by RFC 9112)
        case.kind = "headers/leading_crlf"
        case.steps = [b"\r\n\r\n" + http_request(method, target, body=body)]
        case.requests = [Req(method, target)]
        return
    elif variant == 11:  # underscore header names collide with dash names after mapping
        headers += [b"Content_Length: 1", b"X_Retrieval_Body_SHA256: x"]
    elif variant == 12:  # hop-by-hop and forwarding headers
        headers += [b"X-Forwarded-For: 1.2.3.4", b"Forwarded: for=x", b"X-Forwarded-Proto: https",
                    b"Upgrade: h2c", b"HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA"]
    else:  # a header line of only whitespace
        headers.append(rng.choice((b" ", b"\t")))
    case.kind = f"headers/{variant}"
    case.steps = [http_request(method, target, headers=headers, body=body, eol=eol)]
    case.requests = [Req(method, target)]
    case.expect_response = expect


METHODS = (b"GET", b"GET", b"HEAD", b"POST", b"POST", b"PUT", b"DELETE", b"PATCH", b"OPTIONS",
           b"TRACE", b"CONNECT", b"get", b"post", b"Get", b"FOO", b"M-SEARCH", b"PROPFIND",
           b"G" * 1000, b"GET\x00", b"\xff", b"BREW", b"*", b"PRI")
ROUTES = (b"/retrieve", b"/health", b"/corpus", b"/openapi.json", b"/", b"/inspector.js",
          b"/inspector.css", b"/metrics")
ODD_PATHS = (
    b"/retrieve/", b"//retrieve", b"/retrieve?x=1", b"/retrieve?", b"/retrieve?question=x",
    b"/retrieve#frag", b"/retrieve?#", b"/RETRIEVE", b"/Retrieve", b"/%72etrieve", b"/%2e%2e/",
    b"/%2e%2e/retrieve", b"/../retrieve", b"/./retrieve", b"/retrieve/..", b"/retrieve%00",
    b"/retrieve%2f", b"/%00", b"/%ff%fe", b"/%", b"/%zz", b"/%u0041", b"/passages/", b"/passages",
    b"/passages//", b"/passages/../health", b"/passages/%2e%2e", b"/health/", b"/health?x=1",
    b"/health%20", b"/corpus?", b"/openapi.json/", b"/index.html", b"*", b"http://fuzz/retrieve",
    b"http://fuzz:80/health", b"https://fuzz/health", b"http://[::1]/health", b"health",
    b"retrieve", b"/retrieve;x=1", "/é".encode(), b"/\xff\xfe", "/путь".encode(),
    b"/retrieve\x7f",
    b"/\x00", b"/%20", b"/~", b"/inspector.js?v=1", b"/%69nspector.css", b"//", b"///health",
    b"/\\health", b"/health\\", b"/passages/%41", b"/passages/\xff",
)
VERSIONS_LINE = (b"HTTP/1.1", b"HTTP/1.1", b"HTTP/1.0", b"HTTP/0.9", b"HTTP/2.0", b"HTTP/1.2",
                 b"HTTP/9.9", b"http/1.1", b"HTTP/11", b"", b"HTTP/1.1 extra", b"HTTPS/1.1",
                 b"HTTP/1.1 ")


def _odd_target(rng, ctx) -> bytes:
    choice = rng.randrange(10)
    if choice < 3:
        return rng.choice(ROUTES)
    if choice < 6:
        return rng.choice(ODD_PATHS)
    if choice < 8:  # /passages/<something>
        valid = rng.choice(ctx.passage_ids) if ctx.passage_ids else "0" * 64
        junk = rng.choice((
            valid, valid.upper(), valid[:63], valid + "0", valid + "/", valid + "?x=1",
            valid + "%0a", "%" + "%".join(valid[i:i + 2] for i in range(0, 64, 2)),
            "".join(rng.choice("0123456789abcdef") for _ in range(64)), "<script>", "日本",
            "a" * 5000, "..", "%2e%2e%2fhealth", valid + "\n"))
        return b"/passages/" + junk.encode("utf-8")
    size = rng.choice((2000, 8000, 65536, 200000)) if rng.random() < 0.9 else HEADER_LIMIT + 10
    return b"/" + b"a" * size


def gen_request_line(rng, ctx, case):
    """Odd methods, paths and protocol versions."""
    method = rng.choice(METHODS)
    target = _odd_target(rng, ctx)
    version = rng.choice(VERSIONS_LINE)
    body = valid_body(rng) if method in (b"POST", b"PUT", b"PATCH") or rng.random() < 0.1 else b""
    separator = rng.choice((b" ", b" ", b" ", b"  ", b"\t"))
    head = method + separator + target + ((separator + version) if version else b"")
    lines = [head, b"Host: fuzz", b"Content-Type: application/json"]
    if body:
        lines.append(b"Content-Length: %d" % len(body))
    if rng.random() < 0.2:
        lines.append(b"Connection: " + rng.choice((b"close", b"keep-alive")))
    case.kind = "line/" + method[:12].decode("latin-1") + "/" + version.decode("latin-1")
    case.steps = [_eol_join(lines) + body]
    case.requests = [Req(method, target)]
    # Waitress closes on EOF without answering only an incomplete request; every one of these
    # is complete, except a header section that is over the limit (431, maybe reset).
    case.expect_response = len(target) < HEADER_LIMIT


def gen_conditional(rng, ctx, case):
    """If-None-Match on cacheable and uncacheable routes."""
    method = rng.choice((b"GET", b"GET", b"HEAD"))
    paths = [b"/corpus", b"/openapi.json", b"/health", b"/", b"/passages/" + b"0" * 64]
    paths += [b"/passages/" + pid.encode() for pid in ctx.passage_ids]
    target = rng.choice(paths)
    etag = ctx.etags.get(target.decode(), "\"" + "f" * 64 + "\"")
    value = rng.choice((
        etag, "W/" + etag, "*", "\"junk\", " + etag, etag.strip("\""), "junk", "",
        ", ".join(["\"x%d\"" % i for i in range(1000)] + [etag]), etag + ", *", etag.upper(),
        " " + etag + " ", "W/\"" + "0" * 64 + "\""))
    headers = [b"If-None-Match: " + value.encode()]
    if rng.random() < 0.2:
        headers.append(b"If-None-Match: " + etag.encode())
    case.kind = "conditional"
    case.steps = [http_request(method, target, headers=headers, content_type=None)]
    case.requests = [Req(method, target, conditional=True)]


def _simple_request(rng, ctx, keep_alive_header=False, version=b"HTTP/1.1"):
    """One well-framed request of a keep-alive sequence: (bytes, Req)."""
    headers = [b"Connection: keep-alive"] if keep_alive_header else []
    choice = rng.randrange(12)
    if choice < 3:
        body = valid_body(rng)
        if choice == 2:
            headers.append(b"Transfer-Encoding: chunked")
            return (http_request(version=version, headers=headers, body=chunk_body(body, rng),
                                 content_length=None), Req(b"POST", b"/retrieve"))
        return http_request(version=version, headers=headers, body=body), Req(b"POST", b"/retrieve")
    if choice == 3:
        body, _ = generate_body(rng)
        return http_request(version=version, headers=headers, body=body), Req(b"POST", b"/retrieve")
    if choice == 4:
        target = rng.choice((b"/health", b"/corpus", b"/openapi.json", b"/"))
        method = rng.choice((b"GET", b"HEAD"))
        return (http_request(method, target, version, headers=headers, content_type=None),
                Req(method, target))
    if choice == 5 and ctx.passage_ids:
        target = b"/passages/" + rng.choice(ctx.passage_ids).encode()
        return http_request(b"GET", target, version, headers=headers), Req(b"GET", target)
    if choice == 6:
        return (http_request(b"GET", b"/nope", version, headers=headers), Req(b"GET", b"/nope"))
    if choice == 7:
        method = rng.choice((b"DELETE", b"PUT", b"GET"))
        return (http_request(method, b"/retrieve", version, headers=headers),
                Req(method, b"/retrieve"))
    if choice == 8:
        return (http_request(version=version, headers=headers, body=valid_body(rng),
                             content_type=b"text/plain"), Req(b"POST", b"/retrieve"))
    if choice == 9:
        return (http_request(target=b"/retrieve?x=1", version=version, headers=headers,
                             body=valid_body(rng)), Req(b"POST", b"/retrieve?x=1"))
    if choice == 10:
        return (http_request(version=version, headers=headers, body=b" " * (APP_BODY_CAP + 1)),
                Req(b"POST", b"/retrieve"))
    target = b"/health"
    return (http_request(b"GET", target, version, headers=headers,
                         content_type=None), Req(b"GET", target))


def gen_keepalive(rng, ctx, case):
    """Several well-framed requests on one connection: pipelined, or one at a time."""
    count = rng.randint(2, 5)
    http10 = rng.random() < 0.2
    version = b"HTTP/1.0" if http10 else b"HTTP/1.1"
    pairs = [_simple_request(rng, ctx, keep_alive_header=http10, version=version)
             for _ in range(count)]
    case.mode = rng.choice(("close", "sequential"))
    case.kind = f"keepalive/{case.mode}/{version.decode()}/{count}"
    case.steps = [data for data, _ in pairs]
    if case.mode == "close":
        case.steps = [b"".join(case.steps)]
    case.requests = [req for _, req in pairs]


def gen_abort(rng, ctx, case):
    """Headers and part of the body, then the client goes away."""
    body = valid_body(rng) if rng.random() < 0.7 else generate_body(rng)[0]
    if rng.random() < 0.3:
        data = http_request(headers=[b"Transfer-Encoding: chunked"], content_length=None,
                            body=chunk_body(body, rng))
    else:
        data = http_request(body=body)
    head_end = data.find(b"\r\n\r\n") + 4
    where = rng.randrange(4)
    if where == 0:  # inside the headers
        cut = rng.randrange(1, head_end)
    elif where == 1:  # right after the headers
        cut = head_end
    else:  # half the body, or some other part of it
        body_len = len(data) - head_end
        cut = head_end + (body_len // 2 if where == 2 else rng.randrange(max(1, body_len)))
    case.mode = "abort"
    case.rst = rng.random() < 0.5
    case.kind = f"abort/{where}/{'rst' if case.rst else 'fin'}"
    case.steps = [data[:cut]]
    case.requests = [Req(b"POST", b"/retrieve")]
    case.expect_response = False


def gen_garbage(rng, ctx, case):
    """Random bytes where a request should be."""
    length = rng.choice((1, 10, 100, 1000))
    alphabet = rng.choice((bytes(range(256)), b"GET/ HTP1.\r\n:abc", b"\r\n", b"\x00"))
    junk = bytes(rng.choice(alphabet) for _ in range(length))
    case.kind = "garbage"
    case.steps = [junk + (b"\r\n\r\n" if rng.random() < 0.7 else b"")]
    case.requests = []
    case.expect_response = False


GENERATORS = (
    (gen_body, 40), (gen_media_type, 6), (gen_framing, 14), (gen_headers, 8),
    (gen_request_line, 14), (gen_conditional, 5), (gen_keepalive, 7), (gen_abort, 4),
    (gen_garbage, 2),
)
_GEN_FUNCS = [g for g, _ in GENERATORS]
_GEN_WEIGHTS = [w for _, w in GENERATORS]


def generate_case(seed: int, index: int, ctx: Context) -> Case:
    """Build case `index` of run `seed`; the same arguments always give the same bytes."""
    rng = random.Random(f"fuzz:{seed}:{index}")
    case = Case(seed=seed, index=index, kind="", steps=[], requests=[])
    rng.choices(_GEN_FUNCS, _GEN_WEIGHTS)[0](rng, ctx, case)
    return case


# --- responses ---------------------------------------------------------------------------------

class ProtocolError(Exception):
    """The bytes received are not a well-formed HTTP/1.x response."""


@dataclass
class Response:
    version: str
    status: int
    reason: str
    headers: list  # (lower-cased name, value)
    body: bytes
    head: bytes = b""

    def header(self, name):
        for key, value in self.headers:
            if key == name:
                return value
        return None

    def all(self, name):
        return [value for key, value in self.headers if key == name]

    @property
    def from_app(self) -> bool:
        return self.header(DIGEST_HEADER) is not None

    def describe(self, limit=300) -> str:
        return (f"{self.version} {self.status} {self.reason} headers={self.headers} "
                f"body[{len(self.body)}]={_excerpt(self.body, limit)}")


_STATUS_LINE = re.compile(rb"HTTP/(\d\.\d) (\d{3})(?: (.*))?")


def parse_response(buf: bytes, method: Optional[bytes], eof: bool):
    """Parse one response from the start of buf: (Response, rest), or None if more is needed."""
    end = buf.find(b"\r\n\r\n")
    if end < 0:
        if eof and buf:
            raise ProtocolError(f"incomplete response head: {_excerpt(buf, 200)}")
        return None
    head, rest = buf[:end], buf[end + 4:]
    lines = head.split(b"\r\n")
    match = _STATUS_LINE.fullmatch(lines[0])
    if match is None:
        raise ProtocolError(f"bad status line: {_excerpt(lines[0], 200)}")
    headers = []
    for line in lines[1:]:
        name, sep, value = line.partition(b":")
        if not sep or not name or name != name.strip():
            raise ProtocolError(f"bad header line: {_excerpt(line, 200)}")
        headers.append((name.decode("latin-1").lower(), value.strip(b" \t").decode("latin-1")))
    response = Response(match[1].decode(), int(match[2]), (match[3] or b"").decode("latin-1"),
                        headers, b"", head)
    status = response.status
    no_body = (100 <= status < 200 or status in (204, 304) or (
        method == b"HEAD" and (response.from_app or response.header("content-security-policy"))))
    lengths = response.all("content-length")
    if no_body:
        return response, rest
    if "chunked" in (response.header("transfer-encoding") or "").lower():
        body, rest = _dechunk(rest, eof)
        if body is None:
            return None
        response.body = body
        return response, rest
    if lengths:
        if len(set(lengths)) != 1 or not lengths[0].isdigit():
            raise ProtocolError(f"bad Content-Length {lengths!r}")
        size = int(lengths[0])
        if len(rest) < size:
            if eof:
                raise ProtocolError(f"body truncated: {len(rest)} of {size} bytes")
            return None
        response.body = rest[:size]
        return response, rest[size:]
    if not eof:
        return None  # read to close
    response.body = rest
    return response, b""


def _dechunk(data: bytes, eof: bool):
    parts = []
    pos = 0
    while True:
        line_end = data.find(b"\r\n", pos)
        if line_end < 0:
            if eof:
                raise ProtocolError("chunked body truncated")
            return None, data
        size_text = data[pos:line_end].split(b";")[0].strip()
        try:
            size = int(size_text, 16)
        except ValueError:
            raise ProtocolError(f"bad chunk size {size_text[:40]!r}") from None
        pos = line_end + 2
        if size == 0:
            trailer_end = data.find(b"\r\n", pos)
            if trailer_end < 0:
                if eof:
                    raise ProtocolError("chunked trailer truncated")
                return None, data
            return b"".join(parts), data[trailer_end + 2:]
        if len(data) < pos + size + 2:
            if eof:
                raise ProtocolError("chunk truncated")
            return None, data
        parts.append(data[pos:pos + size])
        pos += size + 2


def parse_all(data: bytes, methods: list):
    """Parse every response in data (read to close). Returns (responses, problem or None)."""
    responses = []
    index = 0
    while data:
        method = methods[index] if index < len(methods) else None
        try:
            parsed = parse_response(data, method, eof=True)
        except ProtocolError as exc:
            return responses, str(exc)
        if parsed is None:
            return responses, "incomplete response"
        response, data = parsed
        responses.append(response)
        if response.status >= 200:
            index += 1
    return responses, None


# --- running a case ----------------------------------------------------------------------------

@dataclass
class Outcome:
    responses: list = field(default_factory=list)
    end: str = ""  # closed | reset | timeout | sent (abort) | kept (sequential, we closed)
    problems: list = field(default_factory=list)  # transport-level violations
    elapsed: float = 0.0
    received: bytes = b""


def _recv_to_close(sock, outcome):
    chunks = []
    while True:
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            outcome.end = "timeout"
            break
        except ConnectionResetError:
            outcome.end = "reset"
            break
        if not chunk:
            outcome.end = "closed"
            break
        chunks.append(chunk)
    return b"".join(chunks)


def run_case(case: Case, host: str, port: int, timeout: float = DEFAULT_TIMEOUT) -> Outcome:
    """Send a case on a fresh connection and collect what comes back."""
    outcome = Outcome()
    started = time.perf_counter()
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except OSError as exc:
        outcome.end = "connect_failed"
        outcome.problems.append(f"cannot connect: {exc}")
        return outcome
    try:
        sock.settimeout(timeout)
        if case.mode == "abort":
            try:
                sock.sendall(case.steps[0])
            except OSError:
                pass
            if case.rst:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            outcome.end = "sent"
        elif case.mode == "close":
            try:
                sock.sendall(case.steps[0])
                sock.shutdown(socket.SHUT_WR)
            except OSError:
                pass  # the server may answer and close before reading everything (431, 413)
            data = _recv_to_close(sock, outcome)
            outcome.received = data
            methods = [req.method for req in case.requests]
            outcome.responses, problem = parse_all(data, methods)
            if problem and outcome.end != "reset":
                outcome.problems.append(f"unparseable response bytes: {problem}")
            if outcome.end == "timeout":
                outcome.problems.append(
                    f"hang: no close within {timeout}s after the request was sent "
                    f"({len(data)} bytes received)")
        else:
            _run_sequential(case, sock, outcome, timeout)
    finally:
        sock.close()
        outcome.elapsed = time.perf_counter() - started
    return outcome


def _run_sequential(case, sock, outcome, timeout):
    buf = b""
    for step, req in zip(case.steps, case.requests):
        try:
            sock.sendall(step)
        except OSError as exc:
            outcome.problems.append(f"keep-alive connection unusable before request "
                                    f"{len(outcome.responses) + 1}: {exc}")
            return
        eof = False
        while True:
            try:
                parsed = parse_response(buf, req.method, eof)
            except ProtocolError as exc:
                outcome.problems.append(f"unparseable response bytes: {exc}")
                return
            if parsed is not None:
                response, buf = parsed
                outcome.responses.append(response)
                if response.status < 200:
                    continue
                break
            if eof:
                outcome.end = "closed"
                outcome.problems.append(
                    f"server closed a keep-alive connection without answering request "
                    f"{len(outcome.responses) + 1}")
                return
            try:
                chunk = sock.recv(65536)
            except socket.timeout:
                outcome.end = "timeout"
                outcome.problems.append(f"hang: no response within {timeout}s on a keep-alive "
                                        f"connection (request {len(outcome.responses) + 1})")
                return
            except ConnectionResetError:
                outcome.end = "reset"
                outcome.problems.append("connection reset on a keep-alive connection")
                return
            if not chunk:
                eof = True
            buf += chunk
        if (response.header("connection") or "").lower() == "close":
            outcome.end = "closed"
            return  # the server said so; the rest of the sequence is not sent
    outcome.end = "kept"


# --- invariants --------------------------------------------------------------------------------

def _static_bodies():
    try:
        return {path.read_bytes() for path in STATIC_DIR.iterdir() if path.is_file()}
    except OSError:
        return set()


STATIC_BODIES = _static_bodies()
_HEX64 = re.compile(r"[0-9a-f]{64}")


def forbidden_tokens(body: bytes, request: bytes = b"") -> list:
    """Return the forbidden tokens in body that the request did not itself carry (echoes)."""
    found = [t.decode() for t in FORBIDDEN if t in body and t not in request]
    lowered_body, lowered_request = body.lower(), request.lower()
    found += [t.decode() for t in FORBIDDEN_NOCASE
              if t in lowered_body and t not in lowered_request]
    return found


def _document_kind(value) -> Optional[str]:
    if not isinstance(value, dict):
        return None
    keys = set(value)
    if "schema_version" in keys and "result_sha256" in keys:
        return "retrieve"
    if keys == {"status", "mode", "corpus_id"}:
        return "health"
    if keys == {"default_collection", "collections"}:
        return "corpus"
    if "openapi" in keys and "paths" in keys:
        return "openapi"
    if {"passage_id", "text", "text_sha256"} <= keys:
        return "passage"
    return None


def _route(req: Optional[Req]) -> Optional[str]:
    """The document kind a plain request must get, or None when the target is unusual."""
    if req is None:
        return None
    plain = {b"/health": "health", b"/corpus": "corpus", b"/openapi.json": "openapi",
             b"/retrieve": "retrieve"}
    if req.target in plain:
        return plain[req.target]
    if req.target.startswith(b"/passages/") and _HEX64.fullmatch(req.target[10:].decode(
            "latin-1")):
        return "passage"
    return None


def _check_error_body(value, status, response, problems):
    if not isinstance(value, dict) or set(value) != {"error", "admission"}:
        problems.append(f"error body is not {{error, admission}}: {str(value)[:200]}")
        return
    if value["admission"] != {"accepted": False}:
        problems.append(f"error admission is {value['admission']!r}")
    error = value["error"]
    if not isinstance(error, dict) or not isinstance(error.get("code"), str):
        problems.append(f"error member has no string code: {str(error)[:200]}")
        return
    if not isinstance(error.get("message"), str) or not error["message"]:
        problems.append(f"error member has no message: {str(error)[:200]}")
    code = error["code"]
    if code not in HTTP_STATUS:
        problems.append(f"undocumented error code {code!r}")
        return
    expected = int(HTTP_STATUS[code].split()[0])
    if expected != status:
        problems.append(f"code {code!r} sent with HTTP {status}, documented {expected}")
    if code == "internal_error":
        problems.append("internal_error: the app hit a bug (its traceback is in the server log)")
    if code == "method_not_allowed" and not response.header("allow"):
        problems.append("405 without an Allow header")
    issues = error.get("issues")
    if code == "invalid_request":
        if not isinstance(issues, list) or not 1 <= len(issues) <= MAX_ISSUES:
            problems.append(f"invalid_request issues malformed: {str(issues)[:200]}")
            return
        for issue in issues:
            if (not isinstance(issue, dict) or not {"path", "type", "message"} <= set(issue)
                    or not set(issue) <= {"path", "type", "message", *ISSUE_BOUNDS}
                    or issue["type"] not in ISSUE_TYPES or not isinstance(issue["path"], list)
                    or not all(isinstance(p, str) and len(p) <= MAX_PATH_PART
                               for p in issue["path"])):
                problems.append(f"malformed issue {str(issue)[:200]}")
    elif issues is not None:
        problems.append(f"issues on a {code!r} error")


def _check_run_body(value, raw, status, problems):
    if value.get("schema_version") != 1 or value.get("model_called") is not False:
        problems.append("retrieval result without schema_version 1 / model_called false")
    run_status = value.get("status")
    if status == 200 and run_status not in RUN_STATUSES:
        problems.append(f"HTTP 200 with run status {run_status!r}")
    if status == 503 and run_status != "failed":
        problems.append(f"HTTP 503 with run status {run_status!r}")
    if (value.get("admission") or {}).get("accepted") is not True:
        problems.append("retrieval result not admitted")
    split = digests.split_result_sha256(raw)
    if split is None:
        problems.append("retrieval result does not end with its result_sha256 member")
    else:
        without, claimed = split
        if digests.response_result_sha256(without) != claimed:
            problems.append("result_sha256 does not match the body")


def check_response(response: Response, req: Optional[Req], request_bytes: bytes) -> list:
    """Return the invariant violations of one response (empty when it is acceptable)."""
    problems = []
    status = response.status
    body = response.body
    bad = forbidden_tokens(body, request_bytes)
    if bad and not (status == 200 and body in STATIC_BODIES):
        problems.append(f"internal detail in the body: {bad}")
    if 100 <= status < 200:
        if status != 100:
            problems.append(f"unexpected interim status {status}")
        return problems
    if status >= 500 and not (status == 503 and response.from_app) and not (
            status == 501 and not response.from_app and _is_waitress_error(response)
            and b"transfer-encoding" in request_bytes.lower()):
        # 501 is Waitress's answer to a transfer coding it does not implement (RFC 9112 6.1
        # requires it); it is the one 5xx allowed, and the summary counts it.
        problems.append(f"HTTP {status}")
    if response.from_app:
        return problems + _check_app_response(response, req)
    # No digest header: Waitress's own answer, a static file, or a 304.
    if status == 304:
        if req is not None and not req.conditional:
            problems.append("304 to a request without If-None-Match")
        if not response.header("etag"):
            problems.append("304 without an ETag")
        return problems
    if status == 200 and response.header("content-security-policy"):
        if response.header("content-type") not in STATIC_TYPES:
            problems.append(f"static response typed {response.header('content-type')!r}")
        if req is not None and req.method not in (b"GET", b"HEAD"):
            problems.append(f"static file served to {req.method!r}")
        if req is not None and req.head:
            if body:
                problems.append("HEAD of a static file carried a body")
        elif STATIC_BODIES and body not in STATIC_BODIES:
            problems.append("static response body is none of the shipped static files")
        return problems
    if 400 <= status < 500 or status == 501:
        if not _is_waitress_error(response):
            problems.append(f"HTTP {status} with neither the body digest header nor the shape "
                            "of a Waitress error page")
        return problems
    if status < 500:
        problems.append(f"HTTP {status} without the body digest header (not a Waitress 4xx, "
                        "static file or 304)")
    return problems


def _is_waitress_error(response) -> bool:
    """Waitress's own error page: plain text ending with its `(generated by IDENT)` tag."""
    return ((response.header("content-type") or "").startswith("text/plain")
            and b"(generated by " in response.body[-200:])


def _check_app_response(response, req):
    problems = []
    status = response.status
    body = response.body
    digest_values = response.all(DIGEST_HEADER)
    if len(digest_values) != 1:
        problems.append(f"{len(digest_values)} digest headers")
    content_type = response.header("content-type")
    metrics = content_type == METRICS_CONTENT_TYPE and status == 200 and (
        req is None or req.target == b"/metrics")
    if content_type != "application/json" and not metrics:
        problems.append(f"app response typed {content_type!r}")
    if req is not None and req.head:
        if body:
            problems.append("HEAD response carried a body")
        return problems
    if hashlib.sha256(body).hexdigest() != digest_values[0]:
        problems.append(f"{DIGEST_HEADER} {digest_values[0]!r} != sha256(body) "
                        f"{hashlib.sha256(body).hexdigest()!r}")
    if metrics:
        if not body.endswith(b"\n") or b"# TYPE retrieval_requests_total counter" not in body:
            problems.append("metrics body is not the Prometheus exposition")
        return problems
    try:
        value = json.loads(body)
    except ValueError as exc:
        problems.append(f"app body is not JSON: {exc}")
        return problems
    kind = _document_kind(value)
    if status >= 400 and not (status == 503 and kind is not None):
        _check_error_body(value, status, response, problems)
        return problems
    if status == 503:
        if kind == "retrieve":
            _check_run_body(value, body, status, problems)
        elif value != {"status": "not_ready"}:
            problems.append(f"503 body is neither a failed run nor not_ready: {str(value)[:200]}")
        return problems
    if status != 200:
        problems.append(f"unexpected app status {status}")
        return problems
    if kind is None:
        problems.append(f"200 body is no documented document: {str(value)[:200]}")
        return problems
    expected = _route(req)
    if expected is not None and expected != kind:
        problems.append(f"{req.method!r} {req.target!r} answered with a {kind} document")
    if kind == "retrieve":
        _check_run_body(value, body, status, problems)
    elif kind == "health" and value.get("status") != "ok":
        problems.append(f"health 200 with status {value.get('status')!r}")
    elif kind == "passage":
        if expected == "passage" and value["passage_id"] != req.target[10:].decode("latin-1"):
            problems.append("passage document for another passage id")
        if hashlib.sha256(value["text"].encode("utf-8")).hexdigest() != value["text_sha256"]:
            problems.append("passage text_sha256 does not match its text")
    return problems


def check_case(case: Case, outcome: Outcome) -> list:
    """Return every violation of a case: transport problems plus per-response invariants."""
    problems = list(outcome.problems)
    if case.mode == "abort":
        return problems
    request_bytes = case.data
    finals = [r for r in outcome.responses if r.status >= 200]
    if case.expect_response and not finals and outcome.end not in ("timeout",):
        problems.append(f"no response to a complete request (connection {outcome.end})")
    index = 0
    for response in outcome.responses:
        req = case.requests[index] if index < len(case.requests) else None
        for problem in check_response(response, req, request_bytes):
            problems.append(f"response {index + 1}: {problem}")
        if response.status >= 200:
            index += 1
    if case.mode == "close" and len(case.requests) > 1 and len(finals) < len(case.requests):
        # Pipelined well-framed requests: all are answered unless the server said it closes.
        last = finals[-1] if finals else None
        if last is None or (last.header("connection") or "").lower() != "close":
            problems.append(f"{len(finals)} of {len(case.requests)} pipelined requests answered, "
                            "and the last answer did not say Connection: close")
    return problems


def classify(response: Response) -> str:
    """A short label for the summary: status plus error code or document kind."""
    if response.from_app:
        try:
            value = json.loads(response.body) if response.body else None
        except ValueError:
            value = None
        if isinstance(value, dict) and isinstance(value.get("error"), dict):
            return f"{response.status} {value['error'].get('code')}"
        kind = _document_kind(value)
        if kind == "retrieve":
            return f"{response.status} {kind}:{value.get('status')}"
        return f"{response.status} {kind or ('app-head' if not response.body else 'app')}"
    if response.header("content-security-policy"):
        return f"{response.status} static"
    if response.status in (100, 304):
        return str(response.status)
    return f"{response.status} waitress"


# --- reporting ---------------------------------------------------------------------------------

def _excerpt(data: bytes, limit: int = 600) -> str:
    if len(data) <= limit:
        return repr(data)
    head = limit * 2 // 3
    tail = limit - head
    return f"{data[:head]!r} ...[{len(data) - limit} bytes elided]... {data[-tail:]!r}"


def format_failure(case: Case, outcome: Outcome, problems: list, limit: int = 600) -> str:
    lines = [
        f"FUZZ VIOLATION seed={case.seed} index={case.index} kind={case.kind} mode={case.mode}",
        f"  replay: python bench/fuzz.py --replay {case.label}   (plus --url URL for a running "
        "server)",
    ]
    lines += [f"  problem: {p}" for p in problems]
    for number, step in enumerate(case.steps, 1):
        lines.append(f"  request step {number} ({len(step)} bytes): {_excerpt(step, limit)}")
    lines.append(f"  connection: {outcome.end} after {outcome.elapsed:.3f}s")
    for number, response in enumerate(outcome.responses, 1):
        lines.append(f"  response {number}: {response.describe(limit // 2)}")
    if not outcome.responses and outcome.received:
        lines.append(f"  received: {_excerpt(outcome.received, limit)}")
    return "\n".join(lines)


# --- the run -----------------------------------------------------------------------------------

def exchange(host, port, request: bytes, timeout=DEFAULT_TIMEOUT):
    """One request, read to close: the first response, or raise ProtocolError / OSError."""
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.settimeout(timeout)
        sock.sendall(request)
        sock.shutdown(socket.SHUT_WR)
        outcome = Outcome()
        data = _recv_to_close(sock, outcome)
    if outcome.end != "closed":
        raise ProtocolError(f"connection {outcome.end}")
    method = request.split(b" ", 1)[0]
    responses, problem = parse_all(data, [method])
    if problem or not responses:
        raise ProtocolError(problem or "no response")
    return responses[-1]


def health_problem(host, port, timeout=HEALTH_TIMEOUT) -> Optional[str]:
    """None if GET /health answers 200 {"status":"ok",...} within timeout, else why not."""
    started = time.perf_counter()
    try:
        response = exchange(host, port, b"GET /health HTTP/1.1\r\nHost: fuzz\r\n"
                                        b"Connection: close\r\n\r\n", timeout)
    except (OSError, ProtocolError) as exc:
        return f"GET /health failed: {exc}"
    elapsed = time.perf_counter() - started
    if response.status != 200:
        return f"GET /health answered {response.status}"
    try:
        value = json.loads(response.body)
    except ValueError:
        return "GET /health body is not JSON"
    if not isinstance(value, dict) or value.get("status") != "ok":
        return f"GET /health body {response.body[:200]!r}"
    if response.header(DIGEST_HEADER) != hashlib.sha256(response.body).hexdigest():
        return "GET /health digest header does not match"
    if elapsed > timeout:
        return f"GET /health took {elapsed:.2f}s"
    return None


def _get(host, port, path, timeout):
    """GET path on a fresh connection; return the response, or None if none came."""
    request = f"GET {path} HTTP/1.1\r\nHost: fuzz\r\nConnection: close\r\n\r\n".encode()
    try:
        return exchange(host, port, request, timeout)
    except (OSError, ProtocolError):
        return None


def probe_context(host, port, timeout=DEFAULT_TIMEOUT) -> Context:
    """Learn ETags and real passage ids from the server (deterministic for one build)."""
    ctx = Context()
    responses = {path: _get(host, port, path, timeout) for path in ("/corpus", "/openapi.json")}
    versions = ["3.12"]
    try:
        listed = json.loads(responses["/corpus"].body)["collections"][0]["versions"]
        versions = [v["version"] for v in listed][:2] or versions
    except (AttributeError, ValueError, KeyError, TypeError):
        pass
    found = set()
    for version in versions:
        for question in QUESTIONS[:3]:
            body = json.dumps({"question": question, "version": version}).encode()
            try:
                response = exchange(host, port, http_request(body=body), timeout)
                evidence = json.loads(response.body).get("evidence", [])
                found.update(item["passage_id"] for item in evidence if "passage_id" in item)
            except (OSError, ProtocolError, ValueError, AttributeError, TypeError):
                pass
    ctx.passage_ids = sorted(found)[:8]
    for pid in ctx.passage_ids:
        responses[f"/passages/{pid}"] = _get(host, port, f"/passages/{pid}", timeout)
    for path, response in responses.items():
        if response is not None and response.header("etag"):
            ctx.etags[path] = response.header("etag")
    return ctx


@dataclass
class Failure:
    case: Case
    outcome: Outcome
    problems: list

    def format(self) -> str:
        return format_failure(self.case, self.outcome, self.problems)


@dataclass
class Summary:
    seed: int
    cases: int = 0
    elapsed: float = 0.0
    statuses: Counter = field(default_factory=Counter)
    kinds: Counter = field(default_factory=Counter)
    ends: Counter = field(default_factory=Counter)
    failures: list = field(default_factory=list)  # Failure
    failure_count: int = 0
    health_failures: list = field(default_factory=list)
    slowest: float = 0.0
    known: Counter = field(default_factory=Counter)

    @property
    def ok(self) -> bool:
        return self.failure_count == 0 and not self.health_failures

    def report(self) -> str:
        rate = self.cases / self.elapsed if self.elapsed else 0.0
        lines = [f"fuzz seed={self.seed}: {self.cases} cases in {self.elapsed:.1f}s "
                 f"({rate:.0f} cases/s), slowest case {self.slowest:.2f}s, "
                 f"{self.failure_count} failing case(s), "
                 f"{len(self.health_failures)} health failure(s)"]
        lines.append("responses: " + ", ".join(
            f"{label} x{count}" for label, count in sorted(self.statuses.items())))
        lines.append("connections: " + ", ".join(
            f"{label} x{count}" for label, count in sorted(self.ends.items())))
        lines.append("kinds: " + ", ".join(
            f"{label} x{count}" for label, count in sorted(self.kinds.items())))
        if self.known:
            lines.append("known defects outside the service (not failures): " + ", ".join(
                f"{label} x{count}" for label, count in sorted(self.known.items())))
        lines += self.health_failures
        lines += [failure.format() for failure in self.failures]
        return "\n".join(lines)


class Fuzzer:
    """Run cases [start, start+count) of a seed against host:port on a thread pool."""

    def __init__(self, host, port, seed, ctx=None, workers=8, batch=500,
                 timeout=DEFAULT_TIMEOUT, alive=None, max_failures=20, stop_after=100,
                 log=None):
        self.host, self.port, self.seed = host, port, seed
        self.ctx = ctx if ctx is not None else probe_context(host, port, timeout)
        self.workers, self.batch, self.timeout = workers, batch, timeout
        self.alive = alive
        self.max_failures = max_failures
        # A broken server (a hang costs `timeout` per case) ends the run early instead of late.
        self.stop_after = stop_after
        self.log = log
        self._lock = threading.Lock()

    def one(self, index: int, summary: Summary):
        if summary.failure_count >= self.stop_after:
            return None
        case = generate_case(self.seed, index, self.ctx)
        outcome = run_case(case, self.host, self.port, self.timeout)
        problems = check_case(case, outcome)
        with self._lock:
            summary.cases += 1
            summary.kinds[case.kind.split("/")[0]] += 1
            summary.ends[outcome.end] += 1
            summary.slowest = max(summary.slowest, outcome.elapsed)
            if case.known:
                summary.known[case.known] += 1
            for response in outcome.responses:
                summary.statuses[classify(response)] += 1
            if problems:
                summary.failure_count += 1
                if len(summary.failures) < self.max_failures:
                    summary.failures.append(Failure(case, outcome, problems))
        return problems

    def run(self, count: int, start: int = 0) -> Summary:
        summary = Summary(seed=self.seed)
        started = time.perf_counter()
        with ThreadPoolExecutor(self.workers) as pool:
            for batch_start in range(start, start + count, self.batch):
                indices = range(batch_start, min(start + count, batch_start + self.batch))
                list(pool.map(lambda i: self.one(i, summary), indices))
                problem = health_problem(self.host, self.port)
                if problem is None and self.alive is not None and not self.alive():
                    problem = "server process is no longer running"
                if problem is not None:
                    summary.health_failures.append(
                        f"after cases {indices.start}..{indices.stop - 1}: {problem}")
                    break
                if summary.failure_count >= self.stop_after:
                    summary.health_failures.append(
                        f"stopped after {summary.failure_count} failing cases")
                    break
                if self.log is not None:
                    self.log(f"{indices.stop - start}/{count} cases, "
                             f"{summary.failure_count} failing, "
                             f"{time.perf_counter() - started:.1f}s")
        summary.elapsed = time.perf_counter() - started
        return summary
