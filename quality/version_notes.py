"""How many of the version notes a rendered Sphinx site shows its snapshot's units carry.

The rendered pages are the oracle, read here independently of the builder: every container
Sphinx writes for a note (`<div class="versionadded">`, versionchanged, deprecated,
deprecated-removed, versionremoved; its `span.versionmodified` label names the version) is
attributed to the innermost documented object (`<dl>` whose first `<dt>` has an id) or section
(`<section id>`) still open where it stands, that is, to the unit whose URL is the page and
that id. A unit shows a note when its rendered part has one; it is covered when the snapshot's
unit of that URL carries a version field, and a note is matched when the unit carries a note of
its kind and version. Owners the snapshot has no unit for (a section read as several
paragraphs, a page its build skipped) are counted apart.

    python quality/version_notes.py --snapshot DIR --site VERSION=HTML_ROOT [--collection NAME]
        [--site ...] [--json FILE] [--misses N]
"""

import argparse
import json
import os
import re
import sqlite3
import sys

_KINDS = {"versionadded": "since", "versionchanged": "changed", "deprecated": "deprecated",
          "deprecated-removed": "deprecated", "versionremoved": "removed"}
_CONTAINER = re.compile(r"<div\b[^>]*\bclass=\"(" + "|".join(_KINDS) + r")\"[^>]*>")
_MODIFIED = re.compile(r"<span\b[^>]*\bclass=\"versionmodified[^\"]*\"[^>]*>(.*?)</span>", re.S)
_VERSION = re.compile(r"\d+(?:\.[0-9A-Za-z]+)*")
_TAG = re.compile(r"<(/?)(dl|dt|section)\b([^>]*)>")
_ID = re.compile(r"\bid=\"([^\"]+)\"")


def rendered_notes(html: str) -> list:
    """Return (owner id or None, kind, version) of every note container of a page, in order."""
    events = []  # (position, what, id)
    for tag in _TAG.finditer(html):
        closing, name, attributes = tag.groups()
        found = _ID.search(attributes)
        events.append((tag.start(), ("/" if closing else "") + name,
                       found.group(1) if found else None))
    for container in _CONTAINER.finditer(html):
        events.append((container.start(), "note", container.group(1)))
    events.sort(key=lambda event: event[0])
    stack: list = []  # open dl/section elements: [name, owner id or None]
    notes = []
    for position, what, value in events:
        if what in ("dl", "section"):
            stack.append([what, value if what == "section" else None])
        elif what in ("/dl", "/section"):
            while stack and stack.pop()[0] != what[1:]:
                pass
        elif what == "dt":
            if stack and stack[-1][0] == "dl" and stack[-1][1] is None and value:
                stack[-1][1] = value  # an object's first id names its unit
        elif what == "note":
            label = _MODIFIED.search(html, position, position + 2000)
            version = _VERSION.search(label.group(1)) if label else None
            owner = next((element[1] for element in reversed(stack) if element[1]), None)
            notes.append((owner, _KINDS[value], version.group() if version else ""))
    return notes


def snapshot_notes(snapshot: str, collection: str, version: str) -> dict:
    """Return {url: set of (kind, version)} of one version's units (empty set: none)."""
    conn = sqlite3.connect(f"file:{os.path.join(snapshot, 'passages.sqlite')}?mode=ro", uri=True)
    try:
        units = {url: set() for (url,) in conn.execute(
            "SELECT url FROM passages WHERE collection = ? AND version = ?",
            (collection, version))}
        for url, kind, noted in conn.execute(
                "SELECT p.url, n.kind, n.version FROM passage_notes n JOIN passages p "
                "ON p.id = n.id WHERE p.collection = ? AND p.version = ?",
                (collection, version)):
            units[url].add((kind, noted))
    finally:
        conn.close()
    return units


def base_url(snapshot: str, collection: str, version: str) -> str:
    """Return the base URL a version of a collection was built with (its manifest's)."""
    with open(os.path.join(snapshot, "manifest.json"), encoding="utf-8") as handle:
        manifest = json.load(handle)
    for entry in manifest["collections"]:
        if entry["collection"] == collection:
            for held in entry["versions"]:
                if held["version"] == version:
                    return held["base_url"]
    raise SystemExit(f"{snapshot}: no {collection} {version}")


def check_site(snapshot: str, collection: str, version: str, root: str) -> dict:
    """Return the counts of one rendered site against its snapshot's units, and the misses."""
    units = snapshot_notes(snapshot, collection, version)
    base = base_url(snapshot, collection, version)
    counts = {"notes": 0, "owners": 0, "units_showing": 0, "units_covered": 0,
              "notes_matched": 0, "notes_without_unit": 0}
    misses = []
    for directory, _, files in os.walk(root):
        for name in sorted(files):
            if not name.endswith(".html"):
                continue
            path = os.path.join(directory, name)
            page = os.path.relpath(path, root).replace(os.sep, "/")
            with open(path, encoding="utf-8", errors="replace") as handle:
                notes = rendered_notes(handle.read())
            by_owner: dict = {}
            for owner, kind, noted in notes:
                by_owner.setdefault(owner, []).append((kind, noted))
            for owner, shown in by_owner.items():
                counts["notes"] += len(shown)
                url = base + page + (f"#{owner}" if owner else "")
                if url not in units:
                    counts["notes_without_unit"] += len(shown)
                    continue
                counts["units_showing"] += 1
                carried = units[url]
                counts["units_covered"] += bool(carried)
                matched = sum((kind, noted) in carried for kind, noted in shown)
                counts["notes_matched"] += matched
                if matched < len(shown):
                    misses.append({"url": url, "shown": shown, "carried": sorted(carried)})
    return {"counts": counts, "misses": misses}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--snapshot", required=True)
    parser.add_argument("--site", action="append", required=True, metavar="VERSION=HTML_ROOT")
    parser.add_argument("--collection", default="default")
    parser.add_argument("--json")
    parser.add_argument("--misses", type=int, default=5, help="misses to print per site")
    options = parser.parse_args(argv)
    report = {}
    for site in options.site:
        version, _, root = site.partition("=")
        found = check_site(options.snapshot, options.collection, version, root)
        report[site] = found
        c = found["counts"]
        share = 100 * c["units_covered"] / c["units_showing"] if c["units_showing"] else 0.0
        matched = 100 * c["notes_matched"] / (c["notes"] - c["notes_without_unit"] or 1)
        print(f"{options.collection} {version}: {c['notes']} rendered notes; "
              f"{c['units_covered']} of {c['units_showing']} units showing one carry a version "
              f"field ({share:.1f} %); {c['notes_matched']} notes matched by kind and version "
              f"({matched:.1f} %); {c['notes_without_unit']} notes in no unit's URL")
        for miss in found["misses"][:options.misses]:
            print("  miss:", json.dumps(miss), file=sys.stderr)
    if options.json:
        with open(options.json, "w", encoding="utf-8") as handle:
            json.dump(report, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
