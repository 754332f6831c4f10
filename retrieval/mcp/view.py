"""What an agent reads of a tool's answer: the compact view (MCP's default) and the provenance line.

An agent pays for every character of a tool result, and what it needs of a passage is where it
is from, its text, and how to read or check it again. So each passage is rendered as one
citation line (its title, its URL or else its file and lines, and its passage_id: the handle
read_passage and docs://passages/{id} take, from which every digest is one call away), then its
text, verbatim and unescaped; and every result starts with one provenance line (which
collection and version it is, where that documentation came from, when the snapshot was built,
a short corpus id). The service's JSON documents, digests and read tokens included, are what
`verbose: true` returns, as before.

A passage's flags (core/flags.py: its text addresses an AI, hides text, ...) end its citation
line, so the agent reads them before the text they describe.

The view is plain text, not JSON: nothing in a passage is escaped, and a passage's text runs
from the line after its citation to the blank line before the next `[n]` (or the end).
"""

from dataclasses import dataclass

from ..core.notes import NOTE_FIELDS

SEPARATOR = " · "
# How many hex digits of the corpus id the provenance line shows (the full id: verbose).
SHORT_ID = 12


@dataclass(frozen=True)
class Served:
    """The collection and version a result is of, and its collection's corpus_id."""

    collection: str
    version: str
    corpus_id: str


def served(document: dict) -> Served:
    """Return what a /search result, run result or passage is of (a request's names as served)."""
    request = document.get("request")
    if request is None:  # a passage: its own collection and version
        return Served(document["collection"], document["version"], document["corpus_id"])
    return Served(_collection_served(request),
                  request.get("served_version") or request["version"], document["corpus_id"])


def _collection_served(request: dict) -> str:
    """Return the collection a request read (echoed as served_collection where named otherwise)."""
    return request.get("served_collection") or request["collection"]


def provenance_line(what: Served, provenance) -> str:
    """Return `collection@version · source · built DATE · corpus ID` (provenance: the
    snapshot's core.provenance.Provenance, or None where none is known)."""
    if provenance is None:  # a JSON snapshot, or a service fronted (--url)
        known = ["source and build date not known"]
    else:
        known = [provenance.source(what.collection, what.version),
                 f"built {provenance.built_at[:10]}" if provenance.built_at else
                 "build date not recorded"]
    return SEPARATOR.join((f"{what.collection}@{what.version}", *known,
                           f"corpus {what.corpus_id[:SHORT_ID]}"))


def citation(item: dict, shown=frozenset()) -> str:
    """Return a passage's citation: its title, its URL (else file:lines), its passage_id, the
    versions its notes name (`deprecated 3.4`), its flags (`flags: pipe_to_shell`) and, for a
    piece of a cut unit, where it continues: the last three where it has some."""
    place = item.get("url") or f"{item['source_id']}:{item['start_line']}-{item['end_line']}"
    title = [item["title"]] if item.get("title") else []
    notes = [f"{kind} {note['version']}" for kind in NOTE_FIELDS for note in item.get(kind, ())]
    flags = item.get("flags")
    return SEPARATOR.join((*title, place, item["passage_id"], *(
        [", ".join(notes)] if notes else []), *([f"flags: {', '.join(flags)}"] if flags else []),
        *_cut(item, shown)))


def _cut(item: dict, shown) -> list:
    """Return where a piece of a unit the build cut goes on (core.fields.CUT_FIELDS), unless its
    next piece is among the passages shown with it (shown: their passage_ids)."""
    following = item.get("next_passage_id")
    if not item.get("truncated") or following is None or following in shown:
        return []
    return [f"cut: continues at line {item['next_start_line']}, "
            f"read_passage {item['next_passage_id']}"]


def not_in_version_line(document: dict) -> list:
    """Return the line saying which other versions document the API name a search asked for,
    where the version asked does not (the search's not_in_version), else no line."""
    absent = document.get("not_in_version")
    if absent is None:
        return []
    return [f"{absent['name']} is not documented in this version; "
            f"documented in {', '.join(absent['versions'])} (lookup_api reads those)"]


def notes_line(document: dict) -> list:
    """Return the line saying what the version asked documents of the API name a search asked
    for: its removal, deprecation or changes (the search's notes), each with its passage, else
    no line."""
    notes = document.get("notes")
    if not notes:
        return []
    return ["this version documents it as " + "; ".join(
        f"{note['kind']} {note['version']}".rstrip() + (f": {note['text']}" if note["text"]
                                                        else "") + f" ({note['passage_id']})"
        for note in notes)]


def _passages(items, absent: str) -> str:
    """Return numbered passages: each its citation line, then its text (or `absent`)."""
    shown = {item["passage_id"] for item in items}
    return "\n\n".join(f"[{number}] {citation(item, shown)}\n" + (
        item["text"] if "text" in item else absent)
        for number, item in enumerate(items, 1))


def search_view(document: dict, provenance) -> str:
    """Return a /search document as an agent reads it."""
    hits = document["hits"]
    with_text = sum("text" in hit for hit in hits)
    head = [provenance_line(served(document), provenance), *notes_line(document),
            *not_in_version_line(document)]
    if with_text < len(hits):  # say why some hits come without their text
        head.append(f"{len(hits)} hits, the text of {with_text} within max_text_bytes "
                    f"{document['request']['max_text_bytes']}")
    elif not hits:
        head.append("no hits")
    return "\n".join(head) + ("\n\n" + _passages(
        hits, "(text not sent: over max_text_bytes; read_passage reads it)") if hits else "")


def run_view(document: dict, provenance) -> str:
    """Return a run result as an agent reads it: its outcome, then the evidence read."""
    usage, limits = document["usage"], document["admission"]["limits"]
    outcome = (f"{document['status']} ({document['reason']}): {usage['reads']} reads, "
               f"{usage['delivered_source_bytes']} of {limits['max_source_bytes']} source bytes")
    evidence = document["evidence"]
    return "\n".join((provenance_line(served(document), provenance), outcome)) + (
        "\n\n" + _passages(evidence, "") if evidence else "\nno evidence read")


def passage_view(document: dict, provenance) -> str:
    """Return a /passages/{id} document as an agent reads it."""
    return (f"{provenance_line(served(document), provenance)}\n{citation(document)}\n"
            f"{document['text']}")


def corpus_lines(corpus: dict, provenance) -> list:
    """Return the provenance line of every collection and version a /corpus document lists."""
    return [provenance_line(Served(entry["collection"], version["version"],
                                   entry["corpus_id"]), provenance)
            for entry in corpus.get("collections", ()) for version in entry["versions"]]


def diff_lines(diff: dict, provenance) -> list:
    """Return the provenance line of each of a /diff document's two versions, old then new."""
    collection = _collection_served(diff["request"])
    return [provenance_line(Served(collection, version, diff["corpus_id"]), provenance)
            for version in (diff["old_version"], diff["new_version"])]
