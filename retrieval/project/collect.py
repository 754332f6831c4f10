"""Each pin's collection from its best source, cached, then one snapshot, its coverage and pins.

A pin's sources are tried in order (ORDER, or the user's `--order`) until one gives units:

- `site`: a rendered site the user names for it (`--site NAME=HTML_ROOT`), read as a local tree;
- `pypi`: the release's sdist (else its pure wheel) from the index pip is configured for,
  kept in the fetch cache (`releases/`), where a later build (`--offline` too) reads it;
- `git`: the repository the release's metadata names, at the release's own tag, read as its
  sdist is (sources/repository.py); `--offline`, only a clone the fetch cache holds;
- `crawl`: the release's published site, where its metadata's Documentation URL names this
  version exactly or its host puts it (packages.release_site), crawled as `retrieval build
  --source LABEL=URL` crawls it;
- `env`: the installed package's docstrings, when the environment holds the pinned version
  (another version would be served as the pinned one: never).

A source that read no docs folder (docstrings only: a release's wheel, an sdist without
docs/, doc/ or Doc/, an installed package) does not end the search while a later source in the
order may give a docs folder's pages (DOCS): it is kept, the later ones are tried, and it is
used only if none of them gives units (the table says "docstrings only" of it, and why each
later one gave nothing).

Each value but git's goes through sources.plan and Plan.fetch, as `retrieval build --source`
would, and its tree is read by the formats. What a source gave is kept in the collection cache
under the fetch cache, keyed by (distribution, version, source, where, builder): the builder is
a digest of the ingest code and the ranking facts it writes, so a changed reader never reuses a
stale collection. A re-run after one pin moves reads the others from there and fetches only it;
the snapshot is the same bytes as a cold build's (the same drafts in the same order).
"""

import dataclasses
import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .. import __version__
from ..core import model
from ..core.errors import UserError
from ..core.ranking import SECTION
from ..ingest.formats import UNREADABLE, read_passage_contents, unreadable_reason
from ..ingest.readers.docstrings import module_name
from ..ingest.sources import plan
from ..ingest.sources.form import SourceOptions
from ..ingest.sources.packages import NotOnIndex, read_release_metadata, release_site, site_packages
from ..ingest.sources.repository import fetch_repository
from ..ingest.tree import Progress, SourceTree, shown
from ..ingest.unit import UnitDraft
from .pins import INDEX, Pin, Pins, same_version

SOURCES = ("site", "pypi", "git", "crawl", "env")
# The sources that give a docs folder's pages: a docstrings-only result waits for these.
DOCS = ("site", "git", "crawl")
ORDER = SOURCES  # the default: the best docs first
NETWORK = ("pypi", "git", "crawl")  # what --offline leaves out unless the cache has it
# Of those, the sources the fetch cache keeps what they fetched of (`releases/`, git clones),
# so that --offline reads it (not with --no-cache).
KEPT = ("pypi", "git")
# The sources whose units a pin's --base-url links: a docs folder's pages (a release's, a tag's)
# and an environment's files.
LINKED = ("pypi", "git", "env")
CACHE_FORMAT = 2  # 2: a collection records whether it read a docs folder
# The note of a pin made by `project --also` (a version an upgrade moves to, not the pinned one).
ALSO = "also"


@dataclass(frozen=True)
class ProjectOptions:
    """How a project's collections are found: the order, the sites named, the environment."""

    sources: SourceOptions  # the fetch cache, the workdir, how trees are read, --offline
    order: tuple = ORDER
    sites: Mapping = field(default_factory=dict)  # {name: HTML_ROOT}
    site_urls: Mapping = field(default_factory=dict)  # {name: URL}, default the root's file URL
    env: str | None = None
    use_cache: bool = True


@dataclass
class Coverage:
    """What one pin got: the source used (None: nothing), its counts and what was missing."""

    pin: Pin
    source: str | None = None
    units: int = 0
    api_objects: int = 0
    guide_sections: int = 0
    import_names: tuple = ()
    missing: list = field(default_factory=list)
    cached: bool = False
    tree: SourceTree | None = None
    drafts: list = field(default_factory=list)

    def entry(self) -> dict:
        """Return the pin as project.json records it."""
        built = self.source is not None
        return {"name": self.pin.name, "version": self.pin.version,
                "collection": self.pin.name if built else None,
                "import_names": list(self.import_names), "source": self.source,
                "units": self.units, "api_objects": self.api_objects,
                "guide_sections": self.guide_sections, "missing": "; ".join(self.missing),
                "direct": self.pin.direct, "installed": self.pin.installed}


def parse_order(text: str) -> tuple:
    """Return the sources of an --order value (comma-separated SOURCES names, each once)."""
    order = tuple(name.strip() for name in text.split(",") if name.strip())
    unknown = [name for name in order if name not in SOURCES]
    if unknown or not order or len(set(order)) != len(order):
        raise UserError(f"--order {text}: give some of {','.join(SOURCES)}, each once")
    return order


# --- the collection cache --------------------------------------------------------------------

_builder_digest: list = []


def builder_digest() -> str:
    """Return a digest of what makes a collection's drafts: the ingest code, ranking facts and
    flags."""
    if not _builder_digest:
        digest = hashlib.sha256(f"retrieval {__version__} cache {CACHE_FORMAT}\n".encode())
        package = Path(__file__).resolve().parents[1]  # retrieval/
        files = sorted((package / "ingest").rglob("*.py"))
        for path in [*files, package / "core" / "ranking.py", package / "core" / "flags.py"]:
            digest.update(path.relative_to(package).as_posix().encode() + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
        _builder_digest.append(digest.hexdigest())
    return _builder_digest[0]


def _cache_path(options: ProjectOptions, pin: Pin, source: str, where: str) -> Path:
    key = json.dumps([pin.name, pin.version, source, where, builder_digest()])
    name = hashlib.sha256(key.encode()).hexdigest()
    return Path(options.sources.cache_dir, "collections", pin.name, f"{name}.json")


@dataclass(frozen=True)
class Found:
    """What one source gave a pin: its tree and drafts, whether a docs folder was read."""

    source: str
    tree: SourceTree
    drafts: list
    import_names: tuple
    docs: bool  # read a docs folder (or a site): not docstrings alone
    cached: bool = False


def _read_docs(tree: SourceTree) -> bool:
    """Return whether a tree reads a docs folder or site: not a package's docstrings alone."""
    return tree.package is None or tree.package.docs is not None


def _load(path: Path, source: str) -> Found | None:
    """Return a cached collection, or None (absent, unreadable)."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
        tree = SourceTree(document["version"], "", document["base_url"], document["collection"],
                          provenance=document["provenance"])
        drafts = [UnitDraft(content, heading) for content, heading in document["drafts"]]
        return Found(source, tree, drafts, tuple(document["import_names"]),
                     bool(document["docs"]), cached=True)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _store(path: Path, found: Found) -> None:
    """Keep a collection's drafts (written whole or not at all)."""
    tree = found.tree
    document = {"version": tree.version, "collection": tree.collection,
                "base_url": tree.base_url, "provenance": tree.provenance,
                "import_names": list(found.import_names), "docs": found.docs,
                "drafts": [[draft.content, draft.heading] for draft in found.drafts]}
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    try:
        partial.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


# --- one pin ---------------------------------------------------------------------------------

def _top_names(modules) -> tuple:
    """Return the import names of a package's modules: their top-level names, public first."""
    names = list(dict.fromkeys(dotted.split(".")[0] for _, dotted in modules))
    public = [name for name in names if not name.startswith("_")]
    return tuple(sorted(public or names))


def _installed_import_names(env: str | None, name: str) -> tuple:
    """Return the import names of a distribution installed in env, from its RECORD."""
    import importlib.metadata

    from ..core.names import normalized_name

    site = site_packages(Path(env)) if env else None
    if site is None:
        return ()
    for dist in importlib.metadata.distributions(path=[str(site)]):
        if normalized_name(dist.metadata["Name"] or "") == name:
            modules = [(None, dotted) for file in dist.files or ()
                       if not str(file).startswith("..")
                       and (dotted := module_name(str(file).replace(os.sep, "/"))) is not None]
            return _top_names(modules)
    return ()


def _value(source: str, pin: Pin, label: str, options: ProjectOptions) -> tuple:
    """Return (the --source value, where: what else keys its cache) or (None, why not)."""
    if source == "site":
        root = options.sites.get(pin.name)
        if root is None:
            return None, None  # none named for it: not a miss
        return f"{label}={root}", os.path.realpath(root)
    if source == "pypi":
        if pin.origin != INDEX:
            return None, f"locked from {pin.origin}, not an index"
        return f"{label}=pypi:{pin.name}=={pin.version}", ""
    if source == "env":
        if options.env is None:
            return None, "no environment (--env)"
        if pin.installed is None:
            return None, f"not installed in {options.env}"
        if not same_version(pin.installed, pin.version or ""):
            return None, f"{options.env} has {pin.installed}, not the pinned version"
        return f"{pin.name}=env:{options.env}", os.path.realpath(options.env)
    # git, crawl: found from the release's metadata when fetched
    if pin.origin != INDEX:
        return None, f"locked from {pin.origin}, not an index"
    return f"{pin.name}=={pin.version}", ""


def _counted(coverage: Coverage, found: Found) -> Coverage:
    drafts, import_names = found.drafts, found.import_names
    kinds = [draft.content["kind"] for draft in drafts]
    coverage.source, coverage.tree, coverage.drafts = found.source, found.tree, drafts
    coverage.cached = found.cached
    coverage.units = len(drafts)
    coverage.guide_sections = kinds.count(SECTION)
    coverage.api_objects = len(kinds) - coverage.guide_sections
    coverage.import_names = import_names
    if not coverage.guide_sections:
        coverage.missing.append("no guide sections")
    if not coverage.api_objects:
        coverage.missing.append("no API objects")
    return coverage


def _fetch(value: str, source: str, label: str, pin: Pin, options: ProjectOptions,
           progress: Progress) -> tuple:
    """Return (tree, drafts, import names) of one source value; raise UserError if it fails."""
    collection, version = label.split("/", 1)
    # This pin's --base-url alone (a plan refuses one of no --source it builds); a crawl's
    # units are at the crawled site's own URLs and a site's at its --site-url.
    given = options.sources.base_urls.get(label)
    base_urls = {label: given} if given and source in LINKED else {}
    if source == "site":
        root = options.sites[pin.name]
        base_urls[label] = options.site_urls.get(pin.name) or \
            Path(root).resolve().as_uri() + "/"
    sources = dataclasses.replace(options.sources, base_urls=base_urls)
    if source == "git":
        tree = fetch_repository(pin.name, pin.version or "", label, sources)
    elif source == "crawl":
        tree = _crawled(pin, label, sources, progress)
    else:
        trees = plan([value], sources).fetch(progress)
        tree = dataclasses.replace(trees[0], collection=collection, version=version)
    files, passages = progress.files, progress.passages
    try:
        drafts = read_passage_contents(tree, progress)
    except UNREADABLE as exc:
        progress.files, progress.passages = files, passages
        raise UserError(shown(unreadable_reason(exc).replace("\n", " "))) from None
    if tree.package is not None and tree.package.modules:
        import_names = _top_names(tree.package.modules)
    else:
        import_names = _installed_import_names(options.env, pin.name)
    return tree, drafts, import_names


def _crawled(pin: Pin, label: str, sources: SourceOptions, progress: Progress) -> SourceTree:
    """Return the crawled tree of a release's own published site (packages.release_site)."""
    _, metadata = read_release_metadata(pin.name, pin.version or "", sources)
    url, why = release_site(metadata, pin.version or "")
    if url is None:
        raise UserError(why)
    try:
        return plan([f"{label}={url}"], sources).fetch(progress)[0]
    except UserError as error:
        raise UserError(str(error).removeprefix("--source ").removeprefix(f"{label}=")) \
            from None


def collect_one(pin: Pin, options: ProjectOptions, progress: Progress) -> Coverage:
    """Return what one pin gets from the first of its sources that gives units."""
    coverage = Coverage(pin)
    if pin.version is None:
        coverage.missing.append(pin.note or "not pinned")
        return coverage
    # The core's check, read when called: it widens with the versions the service accepts.
    if not model.VERSION_PATTERN.fullmatch(pin.version):
        coverage.missing.append(f"skipped: version {pin.version} is not {model.VERSION_SHAPE} "
                                "(the service cannot serve it yet)")
        return coverage
    if not model.COLLECTION_PATTERN.fullmatch(pin.name):
        coverage.missing.append(f"skipped: {pin.name} is not a collection name")
        return coverage
    label = f"{pin.name}/{pin.version}"
    kept = None  # the first docstrings-only result, while a later source may give docs pages
    not_on_index = None  # the source that found the index without the release, once asked
    for at, source in enumerate(options.order):
        if kept is not None and source not in DOCS:
            continue
        if not_on_index is not None and source in NETWORK:
            # Each of these reads the release from the index: asking again gets the same answer.
            coverage.missing.append(f"{source}: not on the index (see {not_on_index})")
            continue
        try:
            found = _try(source, pin, label, options, progress, coverage.missing)
        except NotOnIndex:
            not_on_index = source
            continue
        if found is None:
            continue
        if found.docs:
            return _counted(coverage, found)
        if kept is None:
            if not any(later in DOCS for later in options.order[at + 1:]):
                return _counted(coverage, found)
            kept = found
            coverage.missing.append(f"{source}: docstrings only (no docs folder)")
    return coverage if kept is None else _counted(coverage, kept)


def _try(source: str, pin: Pin, label: str, options: ProjectOptions, progress: Progress,
         missing: list) -> Found | None:
    """Return what one source gives a pin, or None with why not appended to missing (nothing
    appended when the source is not one for this pin: no --site for it); NotOnIndex, after
    appending why, when the index has no file of the release."""
    value, where = _value(source, pin, label, options)
    if value is None:
        if where is not None:
            missing.append(f"{source}: {where}")
        return None
    base_url = options.sources.base_urls.get(label) if source in LINKED else None
    # A --base-url changes the units' URLs: a collection built without it (or with another)
    # is another collection.
    cache = _cache_path(options, pin, source, where if base_url is None else
                        f"{where}\0{base_url}")
    cached = _load(cache, source) if options.use_cache else None
    if cached is not None:
        progress.note(f"{label}: {source}: from the collection cache")
        return cached
    if options.sources.offline and source in NETWORK and \
            (source not in KEPT or not options.use_cache):
        missing.append(f"{source}: offline, not in the cache")
        return None
    try:
        tree, drafts, import_names = _fetch(value, source, label, pin, options, progress)
    except UserError as error:
        reason = str(error).removeprefix("--source ").removeprefix(value + ": ") \
            .removeprefix(value.partition("=")[2] + ": ")
        missing.append(f"{source}: {reason}")
        if isinstance(error, NotOnIndex):
            raise
        return None
    if not drafts:
        missing.append(f"{source}: no units")
        return None
    found = Found(source, tree, drafts, import_names, _read_docs(tree))
    if options.use_cache:
        _store(cache, found)
    return found


def collect(pins: Pins, options: ProjectOptions, progress: Progress) -> list:
    """Return each pin's Coverage, in the pins' order (a pin that gets nothing included)."""
    return [collect_one(pin, options, progress) for pin in pins.pins]


# --- the report ------------------------------------------------------------------------------

def coverage_table(coverages: list, environment: str | None = None) -> str:
    """Return the coverage table: one row per pin, the source used and what was missing;
    environment: the one the pins were compared with (a pin it lacks is drift too)."""
    header = ("dependency", "version", "source", "units", "api", "sections", "missing")
    rows = []
    for c in coverages:
        drift = []
        if c.pin.installed is not None and c.pin.version is not None \
                and not same_version(c.pin.installed, c.pin.version):
            drift = [f"drift: installed {c.pin.installed}"]
        elif environment is not None and c.pin.installed is None and c.pin.version is not None \
                and c.pin.note != ALSO:
            # As pins.drift says it on stderr: the project pins what its environment lacks.
            drift = ["drift: not installed"]
        rows.append((c.pin.name + ("" if c.pin.direct else " (t)")
                     + (" (also)" if c.pin.note == ALSO else ""), c.pin.version or "-",
                     (c.source or "none") + (" (cached)" if c.cached else ""),
                     str(c.units), str(c.api_objects), str(c.guide_sections),
                     "; ".join(drift + c.missing) or "-"))
    built = sum(1 for c in coverages if c.source)
    rows.append((f"{built} of {len(coverages)} built", "", "", str(sum(c.units for c in coverages)),
                 str(sum(c.api_objects for c in coverages)),
                 str(sum(c.guide_sections for c in coverages)), ""))
    widths = [max(len(row[i]) for row in (header, *rows)) for i in range(len(header) - 1)]
    lines = ["  ".join([*(cell.ljust(width) for cell, width in zip(row[:-1], widths,
                                                                    strict=True)), row[-1]])
             for row in (header, *rows)]
    return "\n".join(line.rstrip() for line in lines) + "\n"


def project_document(project: str, pins: Pins, coverages: list, python: str,
                     ranking: dict) -> dict:
    """Return project.json: the project, its pins file, the target, the ranking used and each
    pin's coverage."""
    return {"project": project, "lockfile": pins.lockfile, "python": python,
            "environment": pins.environment, "ranking": ranking,
            "pins": [c.entry() for c in coverages]}


def write_project_json(out: str, document: dict) -> None:
    """Write project.json beside the manifest (whole or not at all)."""
    path = Path(out, "project.json")
    partial = Path(out, "project.json.partial")
    try:
        partial.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n",
                           encoding="utf-8")
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


def drafts_reader(coverages: list):
    """Return the builder's `read`: each built collection's drafts, in the trees' order."""
    by_label = {c.tree.label: c.drafts for c in coverages if c.tree is not None}

    def read(trees, progress) -> list:
        return [draft for tree in trees for draft in by_label[tree.label]]

    return read
