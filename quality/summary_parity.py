"""A release's `pypi:` build beside its rendered site's, asked by the site's summaries (issue 44).

No question set exists for most releases (the held-back libraries' questions are never looked
at), so this asks each sampled unit of the rendered build for itself: its summary, the first
sentence of its indexed prose (at most 20 words), is sent to `/search` on both builds (limit 10),
and a build finds the unit when its place (`page#id` below the site's root; Django's section ids
`s-NAME` are the `NAME` the same section also has) is among the hits. A `pypi:` miss is said why:

- merged: a unit of the `pypi:` build holds the place's name among its names, linked at another
  of them (one passage documented under several names has one place: core/identity.py);
- absent: no unit is at the place or names it;
- ranked out: the `pypi:` build has a unit at the place, below the first 10.

    python quality/summary_parity.py RENDERED_SNAPSHOT PYPI_SNAPSHOT COLLECTION VERSION \\
        [--kind object|section] [--sample 300] [--seed 7] [--examples 12]

It measures how close the two builds are for questions whose words are the docs' own, not how
well either answers a user's question (package_docs.py's question sets do that).
"""

import argparse
import random
import re
import sqlite3
import sys
from collections import Counter
from dataclasses import dataclass

from retrieval.mcp.backends import LocalBackend
from retrieval.settings import load_settings

SECTION = "section"
SUMMARY_WORDS = 20
MIN_WORDS = 6  # a unit whose prose is shorter says too little to be asked for
LIMIT = 10
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")
# The snapshot's units of one kind: (URL, indexed prose, names).
_UNITS = ("SELECT p.url, x.body, x.names FROM passages p JOIN passage_fields x USING (id) "
          "JOIN passage_facts f USING (id) WHERE f.kind {} ? ORDER BY p.id")


@dataclass(frozen=True)
class Unit:
    """A rendered unit asked for: its place and its summary."""

    place: tuple
    summary: str


def summary(body: str) -> str:
    """Return the first sentence of a unit's prose, its first SUMMARY_WORDS words."""
    first = _SENTENCE_END.split(body.strip(), maxsplit=1)[0]
    return " ".join(first.split()[:SUMMARY_WORDS])


def place(url: str) -> tuple:
    """Return (page, id) of a URL below its site's root, a Django `s-` section id unprefixed."""
    below = url.split("/html/", 1)[-1] if url.startswith("file:") else url
    page, _, fragment = below.partition("#")
    return page, fragment.removeprefix("s-")


def units(snapshot: str, kind: str) -> list:
    """Return (place, prose, names) of a snapshot's units of a kind (object: any but sections),
    the first piece of each place."""
    query = _UNITS.format("=" if kind == SECTION else "!=")
    with sqlite3.connect(f"file:{snapshot}/passages.sqlite?mode=ro", uri=True) as db:
        seen: dict = {}
        for url, body, names in db.execute(query, (SECTION,)):
            seen.setdefault(place(url), (body or "", names or ""))
    return [(where, body, names) for where, (body, names) in seen.items()]


def sample(snapshot: str, kind: str, size: int, seed: int) -> list:
    """Return up to size Units of the rendered snapshot, drawn with seed among those whose
    prose has at least MIN_WORDS words."""
    askable = [Unit(where, summary(body)) for where, body, _ in units(snapshot, kind)
               if len(body.split()) >= MIN_WORDS]
    return random.Random(seed).sample(askable, min(size, len(askable)))


def why_missed(where: tuple, places: set, names: set) -> str:
    """Return why a `pypi:` build's first LIMIT hits lack a place it may hold."""
    if where in places:
        return "ranked out"
    return "merged" if where[1] in names else "absent"


class Searcher:
    """A snapshot's service, searched in process (the MCP server's LocalBackend; no access
    log)."""

    def __init__(self, snapshot: str, collection: str, version: str):
        self.backend = LocalBackend(load_settings(
            environ={}, overrides={"snapshot": snapshot, "access_log": False}))
        self.collection, self.version = collection, version

    def places(self, query: str) -> list:
        """Return the places of a search's hits, in rank order."""
        found = self.backend.search({"query": query, "version": self.version,
                                     "collection": self.collection, "limit": LIMIT})
        return [place(hit["url"]) for hit in found["hits"]]

    def close(self) -> None:
        self.backend.close()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("rendered")
    parser.add_argument("pypi")
    parser.add_argument("collection")
    parser.add_argument("version")
    parser.add_argument("--kind", choices=("object", SECTION), default="object")
    parser.add_argument("--sample", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--examples", type=int, default=12)
    args = parser.parse_args(argv)
    asked = sample(args.rendered, args.kind, args.sample, args.seed)
    pypi_units = units(args.pypi, args.kind)
    places = {where for where, _, _ in pypi_units}
    names = {name for _, _, held in pypi_units for name in held.split()}
    builds = {"rendered": Searcher(args.rendered, args.collection, args.version),
              "pypi": Searcher(args.pypi, args.collection, args.version)}
    found: Counter = Counter()
    missed: dict = {}
    try:
        for unit in asked:
            for name, build in builds.items():
                if unit.place in build.places(unit.summary):
                    found[name] += 1
                elif name == "pypi":
                    missed.setdefault(why_missed(unit.place, places, names), []).append(
                        unit.place[1] or unit.place[0])
    finally:
        for build in builds.values():
            build.close()
    total = len(asked) or 1
    print(f"{args.collection} {args.version}, {len(asked)} {args.kind} units of the rendered "
          f"build asked by their summary: found in the first {LIMIT}, rendered "
          f"{100 * found['rendered'] / total:.1f} %, pypi {100 * found['pypi'] / total:.1f} %")
    for why, places_missed in sorted(missed.items()):
        print(f"pypi misses, {why}: {len(places_missed)}; e.g. "
              + ", ".join(places_missed[:args.examples]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
