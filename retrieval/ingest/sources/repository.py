"""A release's repository at its own tag, read as its sdist is: `retrieval project`'s git step.

The repository is the first Project-URL of the release's metadata (Source, Source Code,
Repository, Code, GitHub, GitLab, then Homepage, then the Home-page field) that names a
repository on a known forge (FORGES), read from the release's archive as `pypi:` fetches and
keeps it (nothing of it runs); only `https://HOST/OWNER/NAME` is kept of it, whatever else the
URL says. Its tags are listed (`git ls-remote`) and the release's is the one whose version,
after an optional prefix (`v`, the distribution's name, `release`, `version` and a separator),
is the pinned version exactly (PEP 440's normal form: `v1.2.0` for 1.2.0, never `1.2` nor
`1.2.1`): another version's docs are never read as this one's. The tag is checked out at
depth 1 with the `git+` source's bounds (git.py: the transports allowed, no prompt, the
timeout, a docs folder that must stay inside the checkout), and read as an sdist is: its docs
folder (`docs_dir` of mkdocs.yml, docs/, doc/) with autodoc resolved from its package source.

What was found is recorded in the fetch cache (git/releases/DIST/VERSION.json: the URL, the tag,
the commit), so that `--offline` reads a clone already there, at that commit, and asks nothing.
"""

import json
import os
import re
import urllib.parse
from pathlib import Path

from ...core.names import normal_version
from ...core.names import normalized_name as normalized
from ..formats.package import PACKAGE_FORMAT
from ..readers.markdown import CONFIG
from ..tree import PackageLayout, SourceTree
from . import git
from .form import SourceOptions, collection_version
from .layout import sdist_modules
from .packages import FetchError, build_note, docs_site, docs_urls, read_release_metadata

# The forges whose repositories are cloned, and where each shows a file at a tag (the base the
# units' links to their source lines start from).
FORGES = {"github.com": "{repo}/blob/{tag}/", "gitlab.com": "{repo}/-/blob/{tag}/",
          "codeberg.org": "{repo}/src/tag/{tag}/", "bitbucket.org": "{repo}/src/{tag}/"}
# The Project-URL labels that name the repository (lower case, letters only), most telling
# first; the homepage last, since it is often a docs site.
_LABELS = ("source", "sourcecode", "repository", "repo", "code", "github", "gitlab",
           "homepage", "home")
_SEGMENT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
# What may stand before the version in a release's tag, besides the distribution's name.
_TAG_WORDS = ("release", "version", "rel")
_TAG_SEPARATORS = "-_/"


def repository_url(metadata) -> str | None:
    """Return https://FORGE/OWNER/NAME of the first repository a release's metadata names."""
    found = []
    for entry in metadata.get_all("Project-URL") or ():
        label, _, url = entry.partition(",")
        key = re.sub(r"[^a-z]", "", label.casefold())
        if key in _LABELS:
            found.append((_LABELS.index(key), url.strip()))
    found.append((len(_LABELS), (metadata.get("Home-page") or "").strip()))
    for _, url in sorted(found, key=lambda pair: pair[0]):
        repo = _forge_repository(url)
        if repo is not None:
            return repo
    return None


def _forge_repository(url: str) -> str | None:
    parts = urllib.parse.urlsplit(url)
    host = (parts.hostname or "").lower().removeprefix("www.")
    if parts.scheme not in ("https", "http") or host not in FORGES:
        return None
    segments = parts.path.strip("/").split("/")
    if len(segments) < 2 or not all(_SEGMENT.fullmatch(s) for s in segments[:2]):
        return None
    owner, name = segments[0], segments[1].removesuffix(".git")
    return f"https://{host}/{owner}/{name}" if name else None


def release_tag(tags, name: str, version: str) -> str | None:
    """Return the tag of exactly this release among tags, or None (the best-named if several)."""
    wanted = normal_version(version) or version
    found = []
    for tag in tags:
        for rank, rest in _tag_versions(tag, name):
            if (normal_version(rest) or rest) == wanted:
                # The version as written before another spelling of it; then the tag's text.
                found.append((rank, rest.removeprefix("v") != version, tag))
    return min(found)[2] if found else None


def _tag_versions(tag: str, name: str) -> list:
    """Return (rank, what may be the version) of each way a tag may be read: whole, else after
    the distribution's name or a word and a separator."""
    readings = [(0, tag)]
    for at, char in enumerate(tag):
        if char in _TAG_SEPARATORS and at and tag[at + 1:at + 2].isalnum():
            prefix = tag[:at]
            if normalized(prefix) == name:
                readings.append((1, tag[at + 1:]))
            elif prefix.casefold() in _TAG_WORDS:
                readings.append((2, tag[at + 1:]))
    return readings


def _record_path(cache_dir: str, name: str, version: str) -> Path:
    return Path(cache_dir, "git", "releases", name, f"{normal_version(version) or version}.json")


def _found(name: str, version: str, options: SourceOptions) -> tuple:
    """Return (repository, tag, metadata's docs URLs, checkout, commit) of a release, fetched."""
    archive, metadata = read_release_metadata(name, version, options)
    repo = repository_url(metadata)
    if repo is None:
        raise FetchError(f"{archive}'s metadata names no repository on "
                         f"{', '.join(FORGES)} (Project-URL Source, Repository, Homepage...)")
    spec = f"git+{repo}"
    tag = release_tag(git.remote_tags(repo, spec, options.cache_dir), name, version)
    if tag is None:
        raise FetchError(f"{repo} has no tag of {version} (v{version}, {version}, "
                         f"{name}-{version}...; only the exact version is read)")
    checkout, _, commit = git.check_out(f"{spec}@refs/tags/{tag}", options.cache_dir,
                                        options.stream)
    urls = docs_urls(metadata)
    record = _record_path(options.cache_dir, name, version)
    record.parent.mkdir(parents=True, exist_ok=True)
    partial = record.with_suffix(".partial")  # written whole or not at all
    partial.write_text(json.dumps({"url": repo, "tag": tag, "commit": commit, "urls": urls}),
                       encoding="utf-8")
    os.replace(partial, record)
    return repo, tag, urls, checkout, commit


def _cached(name: str, version: str, options: SourceOptions) -> tuple:
    """Return what _found returns, from the record and the clone the fetch cache holds."""
    try:
        record = json.loads(_record_path(options.cache_dir, name, version)
                            .read_text(encoding="utf-8"))
        repo, tag, commit, urls = record["url"], record["tag"], record["commit"], record["urls"]
    except (OSError, ValueError, KeyError, TypeError):
        raise FetchError("offline, and no clone of its repository is cached") from None
    checkout = git.checkout_path(repo, f"refs/tags/{tag}", options.cache_dir)
    spec = f"git+{repo}@refs/tags/{tag}"
    if not os.path.isdir(os.path.join(checkout, ".git")) or \
            git.head_commit(checkout, spec) != commit:
        raise FetchError(f"offline, and the clone of {repo} at {tag} is not cached")
    return repo, tag, urls, checkout, commit


def fetch_repository(name: str, version: str, label: str, options: SourceOptions) -> SourceTree:
    """Check out a release's repository at its tag; return its tree: docs folder and autodoc.

    Raises a UserError saying why when the release names no repository on a known forge, the
    repository has no tag of the version, or the tag has no docs folder.
    """
    collection, version_label = collection_version(label)
    if options.offline:
        repo, tag, urls, checkout, commit = _cached(name, version, options)
    else:
        repo, tag, urls, checkout, commit = _found(name, version, options)
    spec = f"git+{repo}@refs/tags/{tag}"
    docs = os.path.relpath(git.docs_folder(checkout, "", spec), checkout).replace(os.sep, "/")
    modules = sdist_modules(Path(checkout))
    # An MkDocs site publishes `page/` where this reads `page.html`: its units link to their
    # files at the tag instead (a Sphinx docs folder is published as the package format says).
    mkdocs = os.path.isfile(os.path.join(checkout, CONFIG))
    site = docs_site(Path(checkout), docs, [] if mkdocs else urls, version,
                     options.base_urls.get(label), label, options.max_file_bytes)
    host = urllib.parse.urlsplit(repo).hostname or ""
    source_url = FORGES[host].format(repo=repo, tag=urllib.parse.quote(tag))
    build_note(f"{label}: {repo} at tag {tag} ({commit[:12]}): {docs}/ with autodoc",
               options.stream)
    return SourceTree(version_label, checkout, site.url or source_url, collection,
                      PACKAGE_FORMAT, options.max_file_bytes,
                      package=PackageLayout(modules, docs, site.url, source_url, site.dirhtml),
                      provenance={"kind": "git", "url": repo, "ref": f"refs/tags/{tag}",
                                  "commit": commit, "path": docs})

