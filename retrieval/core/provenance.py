"""Where a built snapshot's documentation came from and when it was built: `provenance.json`.

The build writes it beside the manifest, outside every identity: one entry per version, by label
(`[COLLECTION/]VERSION`), saying what kind of source it was read from (a crawled site, a git
checkout, a release from the package index, an installed environment, a directory) and what
that source was, and `built_at`, when the snapshot was written (a key no label can be: a label's
version starts with a digit). Entries a build of an older retrieval wrote (crawl and git only,
no `built_at`) read the same way. Nothing here is covered by a corpus_id: two builds of the same
inputs still have the same manifest and identity, whenever and wherever they ran.
"""

import json
from dataclasses import dataclass, field
from pathlib import Path

from .checks import SnapshotError, json_file
from .names import DEFAULT_COLLECTION

PROVENANCE = "provenance.json"
# The snapshot's own entry: when it was built (UTC, ISO 8601), not a version's.
BUILT_AT = "built_at"
# How many hex digits of a digest a one-line description shows.
SHORT = 12


def label_of(collection: str, version: str) -> str:
    """Return the label a version's entry is recorded under."""
    return version if collection == DEFAULT_COLLECTION else f"{collection}/{version}"


@dataclass(frozen=True)
class Provenance:
    """What a snapshot records of its sources: entries by label, base URLs, the build time."""

    built_at: str | None = None
    entries: dict = field(default_factory=dict)  # label -> the recorded entry
    base_urls: dict = field(default_factory=dict)  # label -> the manifest's base_url

    def source(self, collection: str, version: str) -> str:
        """Return one line saying where a version's documentation came from."""
        label = label_of(collection, version)
        entry = self.entries.get(label)
        described = describe_source(entry) if isinstance(entry, dict) else None
        if described is not None:
            return described
        base_url = self.base_urls.get(label)
        return f"source not recorded, pages at {base_url}" if base_url else "source not recorded"


def describe_source(entry: dict) -> str | None:
    """Return one line for a recorded entry, or None for a kind this version does not know."""
    kind = entry.get("kind")
    if kind == "crawl":
        times = sorted(str(f.get("fetched_at"))[:10] for f in entry.get("files", ())
                       if isinstance(f, dict) and f.get("fetched_at"))
        when = "" if not times else (
            f" {times[0]}" if times[0] == times[-1] else f" {times[0]} to {times[-1]}")
        return f"crawled {entry.get('prefix') or entry.get('url')}{when}"
    if kind == "git":
        return (f"git {entry.get('url')} @{entry.get('ref')} commit "
                f"{str(entry.get('commit'))[:SHORT]} {entry.get('path')}/")
    if kind == "pypi":
        inherited = "".join(
            f"; members inherited from {other.get('dist')}=={other.get('version')} "
            f"{other.get('file')} sha256 {str(other.get('sha256'))[:SHORT]}"
            for other in entry.get("inherited_from", ()) if isinstance(other, dict))
        # A release with no docs folder placed by its site's objects.inv (site_inventory.py).
        inventory = entry.get("inventory")
        placed = (f"; places from {inventory.get('url')} sha256 "
                  f"{str(inventory.get('sha256'))[:SHORT]}" if isinstance(inventory, dict) else "")
        return (f"pypi {entry.get('dist')}=={entry.get('version')} {entry.get('file')} "
                f"sha256 {str(entry.get('sha256'))[:SHORT]}{inherited}{placed}")
    if kind == "env":
        return f"installed {entry.get('dist')} in {entry.get('path')}"
    if kind == "path":
        return f"directory {entry.get('path')}"
    return None


def read_provenance(directory: Path, manifest: dict) -> Provenance:
    """Read a snapshot directory's provenance.json (none: nothing recorded but base URLs).

    It is not part of the snapshot's identity, but what it says is shown to callers, so a file
    that is there and is not an object of entries is refused, as a bad manifest is.
    """
    base_urls = {label_of(entry["collection"], version["version"]): version.get("base_url")
                 for entry in manifest["collections"] for version in entry["versions"]}
    path = directory / PROVENANCE
    try:
        recorded = json_file(path)
    except FileNotFoundError:
        return Provenance(base_urls=base_urls)
    built_at = recorded.pop(BUILT_AT, None) if isinstance(recorded, dict) else None
    if not isinstance(recorded, dict) or not all(
            isinstance(entry, dict) for entry in recorded.values()) or \
            not isinstance(built_at, (str, type(None))):
        raise SnapshotError(f"{path}: not an object of entries by version (and built_at)")
    return Provenance(built_at, recorded, base_urls)


def write_provenance(path: Path, entries: dict, built_at: str) -> None:
    """Write provenance.json: the versions' entries and when the snapshot was built."""
    path.write_text(json.dumps({**entries, BUILT_AT: built_at}, indent=1, sort_keys=True) + "\n",
                    encoding="utf-8")
