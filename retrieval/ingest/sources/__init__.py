"""Where a `--source` value lives -> the trees to build from: the one registry of source forms.

A value is a local path, or starts with a scheme of FETCHERS. A tree form (Fetcher) gives one
tree, built under the label given with it: `https://` (a published site, crawled; `http://` for
loopback hosts only), `git+` (a git repository at a ref); each leaves its tree in the fetch cache
and says where it came from, and the builder reads it as it reads any local one. A package form
(PackageFetcher: `pypi:`, `env:`, packages.py) names packages, its label optional, and
gives SourceTrees of its own. A new form of source is one entry of FETCHERS.
"""

import os
import sys
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from . import crawl, git, packages
from .http_get import Limits


@dataclass(frozen=True)
class FetchOptions:
    """What every fetcher may need: the cache directory, crawl limits, where progress goes."""

    cache_dir: str
    limits: Limits = field(default_factory=Limits)
    stream: object = None


@dataclass(frozen=True)
class LocalTree:
    """A source as the builder reads it: a local root, and what the source says about it."""

    root: str
    base_url: str | None = None  # where its pages are published, if the source itself says
    format: str | None = None  # how to read it, if the source decides (None: --format)
    provenance: dict | None = None  # recorded in the snapshot (provenance.json)


def default_cache_dir() -> str:
    """Return the fetch cache: $XDG_CACHE_HOME/retrieval/fetch, else ~/.cache/retrieval/fetch."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "retrieval", "fetch")


def _crawled(spec: str, label: str, options: FetchOptions) -> LocalTree:
    from ...hosts import is_loopback  # the one definition of a loopback listen address

    host = urllib.parse.urlsplit(spec).hostname or ""
    if spec.startswith("http://") and not is_loopback(host):
        raise crawl.CrawlError(f"{spec}: use https:// (http:// is for loopback hosts only)")
    result = crawl.crawl(spec, options.cache_dir, options.limits, label,
                         options.stream or sys.stderr)
    prefix, _ = crawl.split_prefix(spec)
    has_html = any(f.path.endswith((".html", ".htm")) for f in result.files)
    has_sources = any(f.path.startswith("_sources/") for f in result.files)
    # Pages without a generator's own layout are read page by page (--format html).
    return LocalTree(result.root, prefix, "html" if has_html and not has_sources else None,
                     {"kind": "crawl", "url": spec, "prefix": prefix,
                      "files": [f.provenance() for f in result.files]})


def _git(spec: str, label: str, options: FetchOptions) -> LocalTree:
    folder, provenance = git.fetch(spec, options.cache_dir, options.stream)
    return LocalTree(folder, None, None, provenance)


@dataclass(frozen=True)
class Fetcher:
    """A form of --source that is one tree: how to fetch it, whether it knows its published URL."""

    fetch: Callable[[str, str, FetchOptions], LocalTree]  # (value, label, options)
    gives_base_url: bool


@dataclass(frozen=True)
class PackageFetcher:
    """A form of --source that names packages, `[LABEL=]SCHEME...`: how to fetch their trees."""

    # (label or "", the value after the scheme, --base-url by label, work directory, the label
    # checker (label -> (collection, version))) -> SourceTrees
    fetch: Callable[[str, str, dict, str, Callable], list]


Form = TypeVar("Form", Fetcher, PackageFetcher)  # either kind of entry below (_forms)
# Scheme prefix -> its fetcher. A value matching none is a local path.
FETCHERS: dict[str, Fetcher | PackageFetcher] = {
    "https://": Fetcher(_crawled, True),
    "http://": Fetcher(_crawled, True),
    git.SCHEME: Fetcher(_git, False),
    "pypi:": PackageFetcher(packages.fetch_pypi),
    "env:": PackageFetcher(packages.fetch_env),
}


def _forms(kind: type[Form]) -> dict[str, Form]:
    """Return the entries of FETCHERS of one kind (Fetcher or PackageFetcher), in order."""
    return {scheme: fetcher for scheme, fetcher in FETCHERS.items() if isinstance(fetcher, kind)}


def _fetcher(spec: str) -> Fetcher | None:
    return next((f for scheme, f in _forms(Fetcher).items() if spec.startswith(scheme)), None)


def scheme_of(value: str) -> str | None:
    """Return the package scheme a --source value uses, or None for a tree."""
    for spec in (value, value.partition("=")[2]):
        for scheme in _forms(PackageFetcher):
            if spec.startswith(scheme):
                return scheme
    return None


def fetch_sources(values: list, base_urls: dict, workdir: str, collection_version) -> list:
    """Return the SourceTrees of the package --source values, their files below workdir.

    base_urls: the --base-url values by label; collection_version checks a label.
    """
    trees = []
    for value in values:
        scheme = scheme_of(value)
        assert scheme is not None, "values are package --source values (scheme_of)"
        label, spec = ("", value) if value.startswith(scheme) else value.split("=", 1)
        trees.extend(_forms(PackageFetcher)[scheme].fetch(label, spec[len(scheme):], base_urls,
                                                          workdir, collection_version))
    return trees


def is_local(spec: str) -> bool:
    """Tell whether a tree --source value (not a package one: scheme_of) is a local path."""
    return _fetcher(spec) is None


def gives_base_url(spec: str) -> bool:
    """Tell whether a --source value says where its pages are published (a crawled site)."""
    fetcher = _fetcher(spec)
    return fetcher is not None and fetcher.gives_base_url


def resolve(spec: str, label: str, options: FetchOptions) -> LocalTree:
    """Return the local tree of a --source value, fetching it first if it lives elsewhere."""
    fetcher = _fetcher(spec)
    if fetcher is None:
        return LocalTree(spec)
    try:
        return fetcher.fetch(spec, label, options)
    except OSError as exc:  # the fetch cache cannot be written, or the disk is full
        raise ValueError(f"{spec}: {exc.strerror or exc} ({exc.filename or options.cache_dir})") \
            from None
