"""Where a fetched snapshot's sources came from: `provenance.json`, written by the build and
checked by `retrieval verify`.

A crawled version lists every file kept (its path below the site's prefix, final URL, fetch
time and sha256): each source the snapshot quotes must be one of them, with the same digest, so
every passage can be traced to the URL and time it was fetched. A git version records the
repository, ref and commit id its folder was checked out at.
"""

from pathlib import Path

from ..core.snapshot import DEFAULT_COLLECTION
from ..core.snapshot_directory import PROVENANCE, read_manifest
from ..core.strict_json import StrictJSONError, loads_strict


def _label(collection: str, version: str) -> str:
    return version if collection == DEFAULT_COLLECTION else f"{collection}/{version}"


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
                if _label(source["collection"], source["version"]) != label:
                    continue
                fetched = files.get(source["source_id"])
                if fetched is None:
                    problems.append(f"{label}: {source['source_id']}: not a file fetched")
                elif fetched.get("sha256") != source["sha256"]:
                    problems.append(f"{label}: {source['source_id']}: not the file fetched "
                                    f"from {fetched.get('url')}")
        else:
            notes.append(f"provenance: {label}: {entry.get('kind')} {entry.get('url')} "
                         f"@{entry.get('ref')} commit {entry.get('commit')} "
                         f"({entry.get('path')})")
    return problems, notes
