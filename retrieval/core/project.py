"""A project's pins: what `project.json`, beside a built snapshot's manifest, says it was built for.

`retrieval project` writes it: the project, the lockfile read, and per pinned distribution its
PEP 503 name, the exact version pinned, the collection built for it (null: nothing was built),
the names it is imported by, the source its docs came from and their coverage:

    {"project": "app", "lockfile": "uv.lock", "python": "3.11", "environment": null, "pins": [
      {"name": "flask", "version": "2.2.2", "collection": "flask", "import_names": ["flask"],
       "source": "pypi", "units": 120, "api_objects": 80, "guide_sections": 40, "missing": "",
       "direct": true, "installed": "2.2.2"}]}

Also optional, recorded and not served from: the Python the pins were read for (`python`), the
environment whose installed versions were read (`environment`), the ranking the build used and
why (`ranking`: {"lexical": "fitted", "semantic": "minilm" or null, "why": "..."}; the manifest's
policy is what is served), and per pin whether the project
names it itself (`direct`) and the version installed there (`installed`). A pin nothing was
built for (collection null) may have a version that is null (not pinned) or not PEP 440's normal
form: it is listed, never served.

Optional: a snapshot without it is served as before. With it, a request naming a collection but
no version is served at the pinned version, and a library is found by its distribution or import
name (names.resolve_collection). It is checked at load as strictly as the manifest (no unknown
field; each pin's collection one of the snapshot's, holding the pinned version exactly) and is
immutable loaded state. It is not content: no corpus_id covers it.
"""

from dataclasses import dataclass
from pathlib import Path

from . import checks
from .names import IMPORT_NAME_PATTERN, VERSION_PATTERN, VERSION_SHAPE, normalized_name

PROJECT = "project.json"
_FIELDS = ("project", "pins")
_OPTIONAL = ("lockfile", "python", "environment", "ranking")
_RANKING_FIELDS = ("lexical", "semantic", "why")
_PIN_FIELDS = ("name", "version", "collection", "source")
_COUNTS = ("units", "api_objects", "guide_sections")
_PIN_OPTIONAL = ("import_names", *_COUNTS, "missing", "direct", "installed")


@dataclass(frozen=True)
class Pin:
    """One pinned distribution: its version, the collection built for it, and its coverage."""

    name: str  # PEP 503's normal form
    version: str | None  # None: not pinned (only where nothing was built)
    collection: str | None  # None: nothing was built for it
    source: str | None
    import_names: tuple = ()
    units: int | None = None
    api_objects: int | None = None
    guide_sections: int | None = None
    missing: str | None = None
    direct: bool | None = None  # the project names it itself (None: not recorded)
    installed: str | None = None  # the version in the environment read, if any

    def describe(self) -> dict:
        """Return the pin as list_docs and resolve_library show it."""
        return {"name": self.name, "version": self.version, "collection": self.collection,
                "import_names": list(self.import_names), "source": self.source,
                **{name: getattr(self, name) for name in _COUNTS}, "missing": self.missing}


@dataclass(frozen=True)
class Project:
    """What a snapshot was built for: a project's name, its lockfile and its pins, in order."""

    project: str
    lockfile: str | None
    pins: tuple

    def pin_of(self, collection: str) -> Pin | None:
        """Return the pin whose collection this is, or None."""
        return next((pin for pin in self.pins if pin.collection == collection), None)


def _count(value, where: str) -> int | None:
    return None if value is None else checks.integer(value, where, 0)


def _pin(raw, where: str, collections: dict) -> Pin:
    checks.json_object(raw, where, _PIN_FIELDS, _PIN_OPTIONAL)
    name = checks.string(raw["name"], f"{where}.name")
    if normalized_name(name) != name:
        checks.fail(f"{where}.name", f"must be PEP 503's normal form ({normalized_name(name)})")
    collection = checks.string_or_none(raw["collection"], f"{where}.collection")
    version = checks.string_or_none(raw["version"], f"{where}.version")
    if collection is not None:
        # Only what is served is held to a held version's shape; a pin nothing was built for
        # is listed as the lockfile has it (null: not pinned).
        if version is None or not VERSION_PATTERN.fullmatch(version):
            checks.fail(f"{where}.version", f"must be {VERSION_SHAPE}")
        if collection not in collections:
            checks.fail(f"{where}.collection", f"{collection!r} is not one of the snapshot's "
                        f"collections ({', '.join(collections)})")
        held = collections[collection].version_names()
        if version not in held:
            checks.fail(f"{where}.version", f"collection {collection} holds no {version} (it "
                        f"holds {', '.join(held)})")
    import_names = raw.get("import_names", [])
    if not isinstance(import_names, list) or not all(
            isinstance(n, str) and IMPORT_NAME_PATTERN.fullmatch(n) for n in import_names):
        checks.fail(f"{where}.import_names", "must be a list of dotted Python names")
    missing = raw.get("missing")
    if missing is not None and not isinstance(missing, str):
        checks.fail(f"{where}.missing", "must be a string or null")
    direct = raw.get("direct")
    if direct is not None and not isinstance(direct, bool):
        checks.fail(f"{where}.direct", "must be true, false or null")
    installed = checks.string_or_none(raw.get("installed"), f"{where}.installed")
    counts = {field: _count(raw.get(field), f"{where}.{field}") for field in _COUNTS}
    return Pin(name, version, collection, checks.string_or_none(raw["source"], f"{where}.source"),
               tuple(import_names), missing=missing, direct=direct, installed=installed,
               **counts)


def parse_project(document, collections: dict) -> Project:
    """Check a project.json document against the snapshot's collections; return it."""
    checks.json_object(document, "project.json", _FIELDS, _OPTIONAL)
    project = checks.string(document["project"], "project")
    lockfile = checks.string_or_none(document.get("lockfile"), "lockfile")
    for field in ("python", "environment"):  # recorded, not served from
        checks.string_or_none(document.get(field), field)
    if "ranking" in document:  # recorded: the manifest's policy is what is served
        ranking = checks.json_object(document["ranking"], "ranking", _RANKING_FIELDS)
        checks.string(ranking["lexical"], "ranking.lexical")
        checks.string_or_none(ranking["semantic"], "ranking.semantic")
        checks.string(ranking["why"], "ranking.why")
    if not isinstance(document["pins"], list):
        checks.fail("pins", "must be a list")
    pins = tuple(_pin(raw, f"pins[{i}]", collections) for i, raw in enumerate(document["pins"]))
    for field in ("name", "collection"):
        values = [getattr(pin, field) for pin in pins if getattr(pin, field) is not None]
        twice = sorted({value for value in values if values.count(value) > 1})
        if twice:
            checks.fail("pins", f"{field} {twice[0]!r} is pinned twice")
    return Project(project, lockfile, pins)


def read_project(directory: Path, collections: dict) -> Project | None:
    """Read and check a snapshot directory's project.json; None where it has none."""
    path = directory / PROJECT
    try:
        document = checks.json_file(path)
    except FileNotFoundError:
        return None
    try:
        return parse_project(document, collections)
    except checks.SnapshotError as exc:
        raise checks.SnapshotError(f"{path}: {exc}") from None
