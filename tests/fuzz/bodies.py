"""Request bodies: valid ones, and ones broken in each way the validator must name."""

import json
import random

from retrieval.http.errors import MAX_ISSUES

from .service import APP_BODY_CAP

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
