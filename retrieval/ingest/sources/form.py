"""What every source form is given and gives back: the options, one parsed value, a local tree.

A `--source` value is `[LABEL=]SPEC`. Its form (a row of sources.FORMS) is chosen by SPEC's
scheme; the form's `fetch` turns the value into SourceTrees. A tree form (a local path, a crawled
site, a git checkout) is one tree under the label it must be given; a package form (`pypi:`,
`env:`) names packages, its label optional, and gives a tree per package it finds.
"""

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ...core.errors import UserError
from ...core.model import COLLECTION_PATTERN, DEFAULT_COLLECTION, VERSION_PATTERN, VERSION_SHAPE
from ..tree import AUTO_FORMAT, DEFAULT_MAX_FILE_BYTES, SourceTree
from .http_get import Limits


class SourceError(UserError):
    """A --source or --base-url value that cannot be built from as given; one line."""


@dataclass(frozen=True)
class SourceOptions:
    """What every form may need: --base-url by label, how trees are read, where fetches go."""

    cache_dir: str  # the fetch cache: crawled sites and git checkouts stay there
    workdir: str = ""  # fetched releases are unpacked here and removed after the build
    base_urls: Mapping[str, str] = field(default_factory=dict)  # --base-url by label
    format: str = AUTO_FORMAT  # --format
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES  # --max-file-bytes
    limits: Limits = field(default_factory=Limits)  # the crawl's bounds
    stream: object = None  # where fetch progress goes (None: stderr)
    # Where fetched release archives are kept, by distribution and version, and read from
    # before the index is asked (None: each build fetches its own, then removes it).
    releases: str | None = None
    offline: bool = False  # nothing fetched: a release only from `releases`


@dataclass(frozen=True)
class Requested:
    """One --source value: the label given with it ("" if none) and its spec."""

    value: str
    label: str
    spec: str


@dataclass(frozen=True)
class LocalTree:
    """A tree form's source as the builder reads it: a local root, and what the source says."""

    root: str
    base_url: str | None = None  # where its pages are published, if the source itself says
    format: str | None = None  # how to read it, if the source decides (None: --format)
    provenance: dict | None = None  # recorded in the snapshot (provenance.json)


@dataclass(frozen=True)
class SourceForm:
    """One form of --source: its scheme, how it is fetched, what its values must say."""

    scheme: str  # the spec's prefix; "" (the last row) matches any spec: a local path
    fetch: Callable[[Requested, SourceOptions], list]  # -> its SourceTrees
    labelled: bool  # a tree form: the value must be LABEL=SPEC
    gives_base_url: bool = False  # the source says where its pages are published
    # Checks that need no fetch, run for every value before any value is fetched.
    check: Callable[[Requested], None] | None = None


def collection_version(label: str) -> tuple:
    """Return (collection, version) of a checked [COLLECTION/]VERSION label."""
    collection, _, version = label.rpartition("/")
    collection = collection or DEFAULT_COLLECTION
    if not COLLECTION_PATTERN.fullmatch(collection):
        raise SourceError(f"collection {collection!r} must match {COLLECTION_PATTERN.pattern}")
    if not VERSION_PATTERN.fullmatch(version):
        raise SourceError(f"version {version!r} is not {VERSION_SHAPE}")
    return collection, version


def tree_form(fetch_local: Callable[[Requested, SourceOptions], LocalTree]) -> Callable:
    """Return the fetch of a tree form: its one local tree, as a SourceTree under its label."""

    def fetch(requested: Requested, options: SourceOptions) -> list:
        local = fetch_local(requested, options)
        collection, version = collection_version(requested.label)
        form = options.format if options.format != AUTO_FORMAT else local.format or AUTO_FORMAT
        published = options.base_urls.get(requested.label) or local.base_url
        # resolve() refused a tree form without a --base-url unless its source gives one.
        assert published is not None, f"--source {requested.label}: no base URL"
        return [SourceTree(version, local.root, published, collection, form,
                           options.max_file_bytes, provenance=local.provenance)]

    return fetch


def default_cache_dir() -> str:
    """Return the fetch cache: $XDG_CACHE_HOME/retrieval/fetch, else ~/.cache/retrieval/fetch."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "retrieval", "fetch")
