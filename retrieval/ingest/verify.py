"""Where a fetched snapshot's sources came from: `provenance.json`, written by the build and
checked by `retrieval verify`.

A crawled version lists every file kept (its path below the site's prefix, final URL, fetch
time and sha256): each source the snapshot quotes must be one of them, with the same digest, so
every passage can be traced to the URL and time it was fetched. A git version records the
repository, ref and commit id its folder was checked out at; a release from the index its file
and digest, an installed distribution its environment, a directory its path; and the build its
time (core/provenance.py).
"""

from pathlib import Path

from ..core.provenance import BUILT_AT, PROVENANCE, describe_source, label_of
from ..core.snapshot_directory import read_manifest
from ..core.strict_json import StrictJSONError, loads_strict
from .readers.rendered import RenderedSite


def check(snapshot_directory) -> tuple:
    """Return (problems, notes): one line per source that is not what was fetched, and one
    line per fetched version saying where it came from."""
    directory = Path(snapshot_directory)
    path = directory / PROVENANCE
    if not path.exists():
        return [], []
    try:
        recorded = loads_strict(path.read_bytes())
    except (OSError, StrictJSONError) as exc:
        return [f"{path}: unreadable: {exc}"], []
    if not isinstance(recorded, dict):
        return [f"{path}: not an object of versions"], []
    problems, notes = [], []
    sources = read_manifest(directory)["sources"]
    built_at = recorded.pop(BUILT_AT, None)
    if built_at is not None:
        notes.append(f"provenance: built {built_at}")
    for label, entry in sorted(recorded.items()):
        if not isinstance(entry, dict):
            problems.append(f"{path}: {label}: not an object")
        elif entry.get("kind") == "crawl":
            files = {f.get("path"): f for f in entry.get("files", []) if isinstance(f, dict)}
            times = sorted(str(f.get("fetched_at")) for f in files.values())
            notes.append(f"provenance: {label}: {len(files)} files crawled from "
                         f"{entry.get('prefix')} ({times[0]} to {times[-1]})" if times else
                         f"provenance: {label}: nothing crawled")
            for source in sources:
                if label_of(source["collection"], source["version"]) != label:
                    continue
                fetched = files.get(source["source_id"])
                if fetched is None:
                    problems.append(f"{label}: {source['source_id']}: not a file fetched")
                elif fetched.get("sha256") != source["sha256"]:
                    problems.append(f"{label}: {source['source_id']}: not the file fetched "
                                    f"from {fetched.get('url')}")
        else:
            described = describe_source(entry) or f"a source of kind {entry.get('kind')!r}"
            notes.append(f"provenance: {label}: {described}")
    return problems, notes


def dead_urls(snapshot_directory, html_roots) -> list:
    """Return one line per passage URL of a built snapshot that does not land on its site.

    html_roots: one rendered tree for every version, or {(collection, version): tree} for the
    versions to check (a tree built from llms.txt or Markdown has no rendered pages to check).
    """
    # Imported here: the core is only needed by this check, not by the builder's page parsing.
    from ..core import database
    from ..core.snapshot_directory import DATABASE, read_manifest

    directory = Path(snapshot_directory)
    manifest = read_manifest(directory)
    sites = {}
    for entry in manifest["collections"]:
        for version in entry["versions"]:
            key = (entry["collection"], version["version"])
            root = html_roots if isinstance(html_roots, str) else html_roots.get(key)
            if root is not None:
                # A page installed gzipped (Debian's PAGE.html.gz) is on the site all the same.
                sites[key] = RenderedSite(root, version["base_url"], compressed=True)
    conn = database.open_immutable(directory / DATABASE)
    try:
        rows = conn.execute("SELECT collection, version, url FROM passages ORDER BY id").fetchall()
    finally:
        conn.close()
    unknown = [] if isinstance(html_roots, str) else [
        f"{collection}/{version}: no such version in this snapshot"
        for collection, version in sorted(set(html_roots) - set(sites))]
    return unknown + [f"{collection}/{version}: dead URL {url}" for collection, version, url in
                      sorted(set(rows)) if (collection, version) in sites
                      and not sites[collection, version].lands(url)]
