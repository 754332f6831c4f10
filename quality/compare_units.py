"""A release's `pypi:` build beside its rendered site's, unit by unit (issue 44).

For each library built by package_docs.py (`--out DIR` holds `pypi-LIB` and `rendered-LIB`
snapshot directories), every unit of the two builds is matched by URL (`page#id`, below the
site's root), not by question, and the differences counted: units on one side only (by kind:
section, object), titles, kinds, reference-page flags, in-links and priors at the same URL, and
text one side has much more of (1.5 times the other's plus 100 characters). `pypi:` units that
link into the release (`pypi:DIST==VERSION/PATH#Ln-Lm`: objects no page documents) are counted
apart. The report is a Markdown table on stdout; --list KIND prints the URLs of one row.

    python quality/compare_units.py DIR [--libraries beautifulsoup4,jinja2] [--list ROW]
"""

import argparse
import os
import sqlite3
import sys
from collections import Counter

RELEASE_LINK = "pypi:"
_KINDS = ("section", "page")


def units(snapshot: str) -> dict:
    """Return {URL below the site's root: its unit's facts} of a snapshot directory (the first
    piece of a unit cut in several)."""
    query = ("SELECT p.url, p.title, p.text, f.kind, f.in_links, f.reference_page, f.prior "
             "FROM passages p JOIN passage_facts f USING (id) ORDER BY p.id")
    with sqlite3.connect(os.path.join(snapshot, "passages.sqlite")) as db:
        found: dict = {}
        for url, title, text, kind, in_links, reference, prior in db.execute(query):
            key = url.split("/html/", 1)[-1] if url.startswith("file:") else url
            found.setdefault(key, {"title": title, "text": text, "kind": kind,
                                   "in_links": in_links, "reference": reference,
                                   "prior": prior})
        return found


def _kind(kind: str) -> str:
    return kind if kind in _KINDS else "object"


def _longer(one: str, other: str) -> bool:
    return len(one) > 1.5 * len(other) + 100


def compare(pypi: dict, rendered: dict) -> dict:
    """Return {row: [URL, ...]} of the differences between two builds' units."""
    rows: dict = {}

    def add(row: str, url: str):
        rows.setdefault(row, []).append(url)

    linked = {url: unit for url, unit in pypi.items() if not url.startswith(RELEASE_LINK)}
    for url in pypi.keys() - linked.keys():
        add("pypi: linked into the release", url)
    for url in linked.keys() - rendered.keys():
        add(f"only pypi: {_kind(linked[url]['kind'])}", url)
    for url in rendered.keys() - linked.keys():
        add(f"only rendered: {_kind(rendered[url]['kind'])}", url)
    for url in linked.keys() & rendered.keys():
        ours, theirs = linked[url], rendered[url]
        add("same URL", url)
        for field in ("title", "kind", "reference", "prior"):
            if ours[field] != theirs[field]:
                add(f"{field} differs", url)
        if ours["in_links"] != theirs["in_links"]:
            add("in-links: pypi more" if ours["in_links"] > theirs["in_links"]
                else "in-links: rendered more", url)
        if _longer(ours["text"], theirs["text"]):
            add("text: pypi much longer", url)
        elif _longer(theirs["text"], ours["text"]):
            add("text: rendered much longer", url)
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", help="package_docs.py's --out directory")
    parser.add_argument("--libraries", help="comma-separated (default: each with both builds)")
    parser.add_argument("--list", metavar="ROW", help="print the URLs of one row, per library")
    args = parser.parse_args(argv)
    names = sorted(entry.removeprefix("pypi-") for entry in os.listdir(args.directory)
                   if entry.startswith("pypi-")
                   and os.path.isdir(os.path.join(args.directory, "rendered" + entry[4:])))
    libraries = args.libraries.split(",") if args.libraries else names
    found = {library: compare(units(os.path.join(args.directory, f"pypi-{library}")),
                              units(os.path.join(args.directory, f"rendered-{library}")))
             for library in libraries}
    if args.list:
        for library, rows in found.items():
            for url in sorted(rows.get(args.list, [])):
                print(f"{library}\t{url}")
        return 0
    counts = {library: Counter({row: len(urls) for row, urls in rows.items()})
              for library, rows in found.items()}
    print("| difference | " + " | ".join(libraries) + " |")
    print("|---|" + "---:|" * len(libraries))
    for row in sorted({row for rows in counts.values() for row in rows}):
        print(f"| {row} | " + " | ".join(str(counts[library][row]) for library in libraries)
              + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
