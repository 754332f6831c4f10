"""Verify a run result from its raw bytes: the checks the client and `retrieval check` share.

A run result verifies when its result_sha256 is the digest of its own bytes, its request_id
recomputes from the echoed request and corpus_id, and every read result it embeds (in the trace
and as evidence) recomputes its own result_sha256. What cannot be checked is refused, not
skipped: an evidence item that is not an object is no read result whose digest could recompute,
and a trace entry that is not one hides what it holds. Verification detects bytes altered in
transit or at rest; it does not authenticate the server.
"""


from . import digests


class Unverified(ValueError):
    """A run result that does not verify; the message says the first reason."""


def run_result_problems(raw: bytes, document, sent: dict | None = None) -> list:
    """Return why a run result does not verify, one line per problem (empty: it verifies).

    sent: the request fields a client sent; each one the server echoes must be what was sent,
    types included (6 is not 6.0 or true).
    """
    if not isinstance(document, dict) or not isinstance(document.get("result_sha256"), str):
        return ["run result has no result_sha256"]
    problems = []
    split = digests.split_result_sha256(raw)
    if split is None or split[1] != document["result_sha256"]:
        problems.append("result_sha256 is not the body's final member")
    elif digests.response_result_sha256(split[0]) != split[1]:
        problems.append("result_sha256 does not recompute from the body bytes")
    corpus, request = document.get("corpus_id"), document.get("request")
    if not isinstance(corpus, str) or not isinstance(request, dict) or \
            digests.request_id(corpus, request) != document.get("request_id"):
        problems.append("request_id does not recompute from the echoed request and corpus_id")
    unchecked = _unchecked_part(document)
    if unchecked is not None:
        problems.append(unchecked)
    else:
        problems.extend(_read_result_problems(document))
    problems.extend(echo_problems(request, sent or {}, ("question", "version")))
    return problems


def echo_problems(echoed, sent: dict, required=()) -> list:
    """Return one line per sent field the echoed request shows otherwise.

    A field in `required`, and any other the server echoes, must be what was sent, types
    included (6 is not 6.0 or true): a self-consistent result for some other request is still
    the wrong result.
    """
    echoed = echoed if isinstance(echoed, dict) else {}
    return [f"echoed request field {key!r} differs from what was sent"
            for key, value in sent.items()
            if (key in echoed or key in required)
            and digests.canonical_json(echoed.get(key)) != digests.canonical_json(value)]


def verify_run_result(raw: bytes, document, sent: dict | None = None):
    """Raise Unverified with the first problem unless the run result verifies."""
    problems = run_result_problems(raw, document, sent)
    if problems:
        raise Unverified(problems[0])


def verify_passage(passage: dict) -> None:
    """Raise ValueError unless a passage's text digest and passage_id recompute.

    A passage without its text (a search hit beyond the byte budget) has only its id to check,
    which needs the text digest it names; that digest is checked when the text is fetched.
    """
    if "text" in passage and digests.text_sha256(passage["text"]) != passage.get("text_sha256"):
        raise ValueError(f"passage {passage.get('passage_id')!r}: text_sha256 does not recompute")
    corpus_id, source_id, version, text_sha256, start, end = (passage.get(key) for key in (
        "corpus_id", "source_id", "version", "text_sha256", "start_line", "end_line"))
    if not (isinstance(corpus_id, str) and isinstance(source_id, str)
            and isinstance(version, str) and isinstance(text_sha256, str)
            and type(start) is int and type(end) is int):  # bool is an int, not a line number
        raise ValueError(f"passage {passage.get('passage_id')!r}: its provenance is incomplete")
    derived = digests.passage_id(corpus_id, source_id, version, start, end, text_sha256)
    if derived != passage.get("passage_id"):
        raise ValueError(f"passage {passage.get('passage_id')!r}: passage_id does not recompute")


def _unchecked_part(document: dict) -> str | None:
    """Return what of the trace and evidence is not a list of objects, or None."""
    for part in ("trace", "evidence"):
        items = document.get(part, [])
        if not isinstance(items, list):
            return f"{part} is not a list"
        if not all(isinstance(item, dict) for item in items):
            return f"{part}: an item is not an object"
    return None


def _read_result_problems(document: dict) -> list:
    """Return the first embedded read result that does not recompute, as a problem (or none)."""
    trace_reads = [entry["result"] for entry in document.get("trace", [])
                   if isinstance(entry.get("result"), dict)
                   and "read_request_id" in entry["result"]]
    for result in trace_reads + document.get("evidence", []):
        rest = {k: v for k, v in result.items() if k != "result_sha256"}
        if digests.read_result_sha256(rest) != result.get("result_sha256"):
            return [f"read result {result.get('source_id')!r}: result_sha256 does not recompute"]
    # A read result's digest covers its text and its claims about it alike, so it recomputes
    # over text that was altered before the result was made: the text is checked against them.
    for number, item in enumerate(document.get("evidence", []), 1):
        problem = _text_problem(item)
        if problem:
            return [f"evidence {number} ({item.get('source_id')} lines {item.get('start_line')}-"
                    f"{item.get('end_line')}, passage {item.get('passage_id')}): {problem}"]
    return []


def _text_problem(item: dict) -> str | None:
    """Return how an evidence item's text disagrees with its byte_count or text_sha256, or None."""
    text = item.get("text")
    if not isinstance(text, str):
        return "it has no text"
    data = text.encode("utf-8")
    if type(item.get("byte_count")) is not int or len(data) != item["byte_count"]:
        return f"its text is {len(data)} bytes, byte_count says {item.get('byte_count')}"
    if digests.sha256_hex(data) != item.get("text_sha256"):
        return "its text does not digest to its text_sha256"
    return None
