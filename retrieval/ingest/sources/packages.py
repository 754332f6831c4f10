"""`--source` forms that name a package, not a tree: fetched (or found) and read as packages.

`[COLLECTION/VERSION=]pypi:DIST==VERSION` fetches that release from the index pip is configured
for (index_fetch.py: its sdist if it has one, else its pure wheel, else a platform wheel's Python
files; nothing of it runs) and unpacks it safely (unpack.py), and, where its docs document
members its classes inherit from another distribution's, that release too (dependencies.py).
`[DIST[,DIST...]=]env:PATH` reads the distributions installed in a virtual environment or
site-packages directory, one collection each at its installed version (with the distributions
each requires, whose classes its own may derive from).
Each gives SourceTrees of the package format (formats/package.py), with the PackageLayout found
here; nothing fetched is imported or run.

Their schemes are rows of sources.FORMS, the one registry of --source forms.
"""

import email.parser
import hashlib
import importlib.metadata
import os
import re
import sys
import tempfile
import urllib.parse
from pathlib import Path, PurePosixPath

from ...core.model import VERSION_PATTERN, VERSION_SHAPE
from ...core.names import normal_version
from ...core.names import normalized_name as normalized
from ..formats.package import PACKAGE_FORMAT, docs_folder
from ..formats.sphinx_docs import published_site, sphinx_project, versioned_url
from ..readers.inventory import INVENTORY
from ..readers.markdown import translated_site
from ..tree import (
    Dependency,
    Description,
    PackageLayout,
    SourceTree,
    Unreadable,
    check_tree_file,
    not_read,
    shown,
)
from .description import metadata_description, sdist_description
from .form import Requested, SourceError, SourceOptions, collection_version
from .layout import (
    in_packages,
    is_api_path,
    other_docs_folder,
    sdist_modules,
    source_module_name,
    test_suites,
    wheel_modules,
)
from .site_inventory import site_inventory
from .unpack import unpack

_DIST = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")
_RELEASE = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+!_-]*")


class FetchError(SourceError):
    """A --source that cannot be fetched or read: the whole build cannot go on."""


class NotOnIndex(FetchError):
    """The index has no usable file of a release: every step that reads it fails alike."""


def _tree(version: str, root: Path, collection: str, package: PackageLayout,
          options: SourceOptions, provenance: dict) -> SourceTree:
    """Return the SourceTree of one package collection, published where its units link."""
    return SourceTree(version, str(root), package.docs_url or package.source_url, collection,
                      PACKAGE_FORMAT, options.max_file_bytes, package=package,
                      provenance=provenance)


def build_note(message: str, stream=None) -> None:
    """Say one line of a build's progress on stream (stderr unless given)."""
    print(f"build: {message}", file=stream or sys.stderr, flush=True)


# --- pypi: -----------------------------------------------------------------------------------

def download_release(dist: str, version: str, dest: Path, stream=None) -> Path:
    """Return the sdist (else the pure wheel, else a platform wheel) of dist==version, fetched
    into dest.

    From the index pip is configured for, checked against its digest; nothing of the release
    runs (index_fetch.py).
    """
    from .index_fetch import ReleaseNotFetched, ReleaseNotOnIndex, fetch_release

    try:
        return fetch_release(dist, version, dest,
                             note=lambda line: build_note(line, stream))
    except ReleaseNotOnIndex as error:
        raise NotOnIndex(str(error)) from None
    except ReleaseNotFetched as error:
        raise FetchError(str(error)) from None


def release_archive(dist: str, version: str, dest: Path, options: SourceOptions) -> Path:
    """Return dist==version's archive: kept in options.releases, else fetched (into there)."""
    if options.releases is None:
        if options.offline:
            raise FetchError(f"pypi:{dist}=={version}: offline, and no release archive is kept")
        return download_release(dist, version, dest, options.stream)
    # One folder per release: the version's normal form, so 2.0 and 2.0.0 are one release.
    folder = Path(options.releases, normalized(dist), normal_version(version) or version)
    kept = sorted(path for path in folder.glob("*") if path.is_file()) \
        if folder.is_dir() else []
    if kept:
        return kept[0]
    if options.offline:
        raise FetchError(f"pypi:{dist}=={version}: offline, and no archive of it is kept in "
                         f"{options.releases}")
    Path(options.releases).mkdir(parents=True, exist_ok=True)
    # Fetched beside the kept releases, then moved in whole: a build running at the same time
    # reads no part, and a release that cannot be fetched (no file for Python 3) leaves no
    # folder of its own.
    with tempfile.TemporaryDirectory(prefix=".fetch-", dir=options.releases) as fetching:
        fetched = download_release(dist, version, Path(fetching), options.stream)
        folder.mkdir(parents=True, exist_ok=True)
        os.replace(fetched, folder / fetched.name)
    return folder / fetched.name


def release_metadata(path: Path):
    """Return a release's metadata file (PKG-INFO, METADATA) parsed as email headers."""
    return email.parser.Parser().parsestr(path.read_text(encoding="utf-8", errors="replace"))


def _name(metadata) -> str | None:
    """Return the Name a release's metadata (release_metadata) gives, or None."""
    name = metadata.get("Name") if metadata is not None else None
    return name if isinstance(name, str) and name.strip() else None


def documentation_url(metadata) -> str | None:
    """Return the Documentation Project-URL of a distribution's metadata, ending with '/': the
    folder of a page it names (statsmodels' `https://www.statsmodels.org/stable/index.html`
    is the site `https://www.statsmodels.org/stable/`), else it with '/' added."""
    for entry in metadata.get_all("Project-URL") or ():
        label, _, url = entry.partition(",")
        url = url.strip()
        if label.strip().casefold() in ("documentation", "docs") \
                and url.startswith(("https://", "http://")):
            parts = urllib.parse.urlsplit(url)
            path = parts.path if parts.path.endswith("/") else (
                parts.path.rpartition("/")[0] + "/" if parts.path.endswith(_PAGE_SUFFIXES)
                else parts.path + "/")
            return urllib.parse.urlunsplit((parts.scheme, parts.netloc, path, "", ""))
    return None


# What the last segment of a URL naming a page, not a folder, ends with.
_PAGE_SUFFIXES = (".html", ".htm")


def docs_urls(metadata) -> list:
    """Return where a release's metadata says its docs are: its Documentation URL, Home-page."""
    return [url for url in (documentation_url(metadata), metadata.get("Home-page")) if url]


def docs_site(top: Path, docs: str, urls: list, version: str, base_url: str | None,
              label: str, max_file_bytes: int):
    """Return where a release's docs folder is published (sphinx_docs.published_site), from
    --base-url, its conf.py (read within the cap its pages are read with), else urls
    (docs_urls); say its note."""
    site = published_site(sphinx_project(str(top), docs, max_file_bytes), urls, version,
                          base_url, label)
    if site.note:
        build_note(f"{label}: {site.note}")
    return site


def original_language_docs(top: Path, docs: str, label: str, stream=None) -> str:
    """Return the docs folder to read: the original's docs_dir where docs holds an MkDocs site
    per language (markdown.translated_site), said in one line; else docs."""
    translated = translated_site(str(top / docs))
    if translated is None:
        return docs
    site, translations = translated
    original = os.path.relpath(site.docs_dir, top).replace(os.sep, "/")
    build_note(f"{label}: {docs}/ holds an MkDocs site per language: {original}/ read, its "
               f"translations not ({', '.join(translations)})", stream)
    return original


def release_tree(archive: Path, root: Path) -> tuple:
    """Unpack a release; return (its top directory, its metadata file, whether a wheel)."""
    left_out = unpack(str(archive), str(root))
    for name in left_out:
        build_note(f"{archive.name}: left out {name} (not a regular file)")
    if archive.name.endswith(".whl"):
        infos = sorted(root.glob("*.dist-info/METADATA"))
        return root, (infos[0] if infos else None), True
    entries = [entry for entry in root.iterdir() if entry.is_dir()]
    top = entries[0] if len(entries) == 1 and not any(root.glob("*.py")) else root
    info = top / "PKG-INFO"
    return top, (info if info.is_file() else None), False


def read_release_metadata(dist: str, version: str, options: SourceOptions) -> tuple:
    """Return (the archive's name, the metadata) of dist==version, its archive kept or fetched
    as pypi: fetches it (release_archive); raise FetchError saying why there is none."""
    with tempfile.TemporaryDirectory(prefix=f"{normalized(dist)}-",
                                     dir=options.workdir or None) as where:
        Path(where, "download").mkdir()
        try:
            archive = release_archive(dist, version, Path(where, "download"), options)
        except FetchError as error:
            reason = str(error).removeprefix(f"pypi:{dist}=={version}: ")
            raise type(error)(f"no release metadata: {reason}") from None
        _, info, _ = release_tree(archive, Path(where, "tree"))
        if info is None:
            raise FetchError(f"no release metadata: {archive.name} holds no PKG-INFO or METADATA")
        return archive.name, release_metadata(info)


def release_site(metadata, version: str) -> tuple:
    """Return (the URL of this version's published docs, None) or (None, why there is none).

    Only an https site of exactly this version: the Documentation URL when a segment of its
    path is the version (`/1.2.0/`, `/en/v1.2.0/`), else where its host puts the release (Read
    the Docs' `/en/1.2.0/` for `/en/latest/`); a host that publishes release lines (`2.2.x`) or
    only the latest is not this version's site.
    """
    url = documentation_url(metadata)
    if url is None:
        return None, "the release's metadata names no Documentation URL"
    if not url.startswith("https://"):
        # A package's metadata names no http:// service on this machine's loopback to crawl.
        return None, f"{url} is not https (a release's own site is crawled over https only)"
    site = versioned_url(url, version)
    for candidate in (url, site.url if site is not None else None):
        if candidate is not None and _names_version(candidate, version):
            return candidate, None
    return None, f"{url} is not the site of {version} alone (no version in its path, and its " \
                 "host's versions are not known or are release lines)"


def _release_description(top: Path, info: Path | None, metadata, is_wheel: bool,
                         max_bytes: int) -> Description | None:
    """Return where an unpacked release's description is (description.py), or None."""
    if not is_wheel:
        return sdist_description(top, metadata, max_bytes)
    return metadata_description(top, info.relative_to(top).as_posix(), max_bytes) \
        if info is not None else None


def _names_version(url: str, version: str) -> bool:
    wanted = normal_version(version) or version
    return any(segment == version or normal_version(segment) == wanted
               for segment in urllib.parse.urlsplit(url).path.split("/") if segment)


def fetch_pypi(requested: Requested, options: SourceOptions) -> list:
    """Download, unpack and describe one release: docs folder and autodoc, else docstrings."""
    label, spec = requested.label, requested.spec.removeprefix("pypi:")
    base_urls, workdir = options.base_urls, options.workdir
    dist, sep, version = spec.partition("==")
    if not sep or not _DIST.fullmatch(dist) or not _RELEASE.fullmatch(version):
        raise FetchError(f"--source pypi:{spec}: give pypi:DIST==VERSION, an exact release")
    label = label or f"{normalized(dist)}/{version}"
    collection, version_label = collection_version(label)
    where = Path(tempfile.mkdtemp(prefix=f"{normalized(dist)}-", dir=workdir))
    (where / "download").mkdir()
    archive = release_archive(dist, version, where / "download", options)
    top, info, is_wheel = release_tree(archive, where / "tree")
    metadata = release_metadata(info) if info else None
    modules = wheel_modules(top) if is_wheel else sdist_modules(top, _name(metadata))
    docs = None if is_wheel else \
        docs_folder(str(top)) or other_docs_folder(top, options.max_file_bytes)
    if docs is not None:
        docs = original_language_docs(top, docs, label)
    description = None if docs is not None else \
        _release_description(top, info, metadata, is_wheel, options.max_file_bytes)
    if not modules and docs is None and description is None:
        raise FetchError(f"pypi:{spec}: {archive.name} holds no Python package, no docs "
                         "folder and no description")
    # `--base-url` names where this release's docs are published, with a docs folder or
    # without: an object no page documents links to its file and lines in the release, never
    # under the site (requests' site has no `requests/api.py`).
    base_url = base_urls.get(label)
    docs_url, dirhtml = None, False
    fetched = {"kind": "pypi", "dist": dist, "version": version, "file": archive.name,
               "sha256": _sha256(archive)}
    published: dict = {}
    if docs is not None:
        site = docs_site(top, docs, docs_urls(metadata) if metadata else [], version,
                         base_url, label, options.max_file_bytes)
        docs_url, dirhtml = site.url, site.dirhtml
    elif base_url is not None:
        published = _published_places(label, archive.name, base_url, options, fetched)
        # The site its objects link to, as a docs folder's is (the snapshot's base URL).
        docs_url = base_url if published else None
    source_url = f"pypi:{dist}=={version}/"
    what = f"{docs}/ with autodoc" if docs else f"docstrings of {len(modules)} modules" + (
        f" and the description in {description.path}" if description else "")
    build_note(f"{label}: {archive.name}: {what}")
    dependencies = () if docs is None else _dependencies(
        label, top, docs, modules, metadata, where, options, fetched)
    return [_tree(version_label, top, collection,
                  PackageLayout(modules, docs, docs_url, source_url, dirhtml, dependencies,
                                published, description),
                  options, fetched)]


def _published_places(label: str, archive: str, base_url: str, options: SourceOptions,
                      fetched: dict) -> dict:
    """Return where the site at base_url documents each Python name (its objects.inv), for a
    release with no docs folder, recorded in fetched; say in one line what links where."""
    found = site_inventory(base_url, options.max_file_bytes, options.limits, options.offline)
    if isinstance(found, str):
        build_note(f"{label}: {archive} has no docs folder, and {base_url}{INVENTORY} gave no "
                   f"places ({found}): its objects link to their files and lines in the release")
        return {}
    fetched["inventory"] = {"url": found.url, "sha256": found.sha256}
    build_note(f"{label}: {archive} has no docs folder: an object {found.url} names ("
               f"{len(found.places)} Python names) links to its place there, any other to its "
               "file and lines in the release")
    return dict(found.places)


def _sha256(path: Path) -> str:
    """Return a file's sha256, in hex."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _dependencies(label: str, top: Path, docs: str, modules: tuple, metadata, where: Path,
                  options: SourceOptions, fetched: dict) -> tuple:
    """Return a Dependency of each release the docs document inherited members of
    (dependencies.py), fetched as pypi: fetches a release and recorded in fetched; one that
    cannot be fetched is said in one line and left out."""
    from .dependencies import inherited_releases, release_requirements

    found = []
    for dist, version in inherited_releases(top, docs, modules,
                                            release_requirements(top, metadata),
                                            lambda line: build_note(f"{label}: {line}")):
        try:
            archive = release_archive(dist, version, where / "download", options)
        except FetchError as error:
            build_note(f"{label}: members inherited from {dist}=={version} left out: {error}")
            continue
        root, info, is_wheel = release_tree(archive, where / "inherited" / normalized(dist))
        found.append(Dependency(str(root), wheel_modules(root) if is_wheel else sdist_modules(
            root, _name(release_metadata(info)) if info else None), f"pypi:{dist}=={version}/"))
        fetched.setdefault("inherited_from", []).append(
            {"dist": dist, "version": version, "file": archive.name, "sha256": _sha256(archive)})
        build_note(f"{label}: {archive.name}: read for the members and docstrings its classes "
                   "give (:inherited-members:, an undocumented member's docstring)")
    return tuple(found)


# --- env: ------------------------------------------------------------------------------------

def site_packages(path: Path) -> Path | None:
    """Return the site-packages directory of a virtual environment or of itself, or None."""
    if path.is_dir() and any(path.glob("*.dist-info")):
        return path
    for pattern in ("lib/python*/site-packages", "Lib/site-packages",
                    "lib/pypy*/site-packages"):
        found = sorted(path.glob(pattern))
        if found:
            return found[-1]
    return None


# What importlib.metadata reads of an installed distribution: its metadata (for its name and
# version), and, asked for its files, the list of them.
_METADATA_FILES = ("METADATA", "PKG-INFO")
_FILE_LISTS = ("RECORD", "installed-files.txt", "SOURCES.txt")


def _refused(site: Path, info: Path, names: tuple, max_bytes: int) -> str | None:
    """Return why one of a distribution's metadata files of these names is not read, or None.

    Each is read as a tree's files are (tree.py: inside site's real path, a regular file, up
    to max_bytes): a METADATA linked to /dev/zero would fill the memory, a RECORD that is a FIFO
    hang the build, one linked out of the environment be read.
    """
    for name in names:
        if os.path.lexists(info / name):
            try:
                check_tree_file(str(site), f"{info.name}/{name}", max_bytes)
            except (Unreadable, OSError) as error:
                return f"{shown(info.name)}/{name}: {not_read(error)}"
    return None


def installed_distributions(site: Path, max_bytes: int) -> list:
    """Return (dist-info folder, Distribution) of each distribution installed in site whose
    metadata may be read (_refused); another is skipped with one line."""
    found = []
    for info in sorted(site.iterdir()):
        if not info.name.lower().endswith((".dist-info", ".egg-info")) or not info.is_dir():
            continue
        refused = _refused(site, info, _METADATA_FILES, max_bytes)
        if refused is not None:
            build_note(f"skipped {refused}")
        else:
            found.append((info, importlib.metadata.Distribution.at(info)))
    return found


def _installed_modules(site: Path, dist) -> tuple:
    """Return (modules, missing) of an installed distribution: (path below site, dotted name)
    of each API module its file list names and site holds, and the paths it does not hold."""
    modules, missing = [], []
    files = [PurePosixPath(str(file).replace(os.sep, "/")).as_posix()
             for file in dist.files or ()]
    suites = test_suites(files)
    beside: dict = {}  # directory -> the names of the files the list has there
    for posix in files:
        directory, _, name = posix.rpartition("/")
        beside.setdefault(directory, set()).add(name)
    for posix in files:
        # A compiled module's stub is its source, as in a release (layout.source_module_name).
        dotted = source_module_name(posix, beside[posix.rpartition("/")[0]],
                                    in_packages(posix, beside)) \
            if not posix.startswith("../") else None
        if dotted is None or not is_api_path(posix, suites):
            continue
        # Whatever is there is read as a tree's files are, which refuses (and reports by
        # name) a FIFO, a link out of the environment or an over-cap module.
        if os.path.lexists(site / posix):
            modules.append((posix, dotted))
        else:
            missing.append(posix)
    return modules, missing


def _installed_dependencies(site: Path, dist, installed: dict, max_bytes: int) -> tuple:
    """Return a Dependency of each distribution installed in site that dist requires (without
    extras): its classes may be the bases of dist's (the format reads those it needs).
    installed: {normalized name: (dist-info folder, Distribution)} of site's."""
    from .dependencies import requirement_names

    found = []
    for name in requirement_names(dist.requires or []):
        info, required = installed.get(name, (None, None))
        if required is None or _refused(site, info, _FILE_LISTS, max_bytes) is not None:
            continue  # not installed, or its own collection says why it is not read
        modules, _ = _installed_modules(site, required)
        if modules:
            found.append(Dependency(str(site), tuple(sorted(modules)), ""))
    return tuple(found)


def fetch_env(requested: Requested, options: SourceOptions) -> list:
    """Describe each installed distribution (or the ones named) as one docstring collection."""
    label, spec, base_urls = requested.label, requested.spec.removeprefix("env:"), options.base_urls
    path = Path(spec)
    site = site_packages(path) if path.is_dir() else None
    if site is None:
        raise FetchError(f"env:{spec}: not a virtual environment or site-packages directory "
                         "(no site-packages with *.dist-info in it)")
    wanted = [normalized(name) for name in label.split(",") if name] if label else None
    trees, seen = [], set()
    installed = sorted(installed_distributions(site, options.max_file_bytes),
                       key=lambda found: normalized(found[1].metadata["Name"] or ""))
    by_name: dict = {}
    for info, dist in installed:
        by_name.setdefault(normalized(dist.metadata["Name"] or ""), (info, dist))
    for info, dist in installed:
        name = normalized(dist.metadata["Name"] or "")
        if not name or name in seen or (wanted is not None and name not in wanted):
            continue
        seen.add(name)
        if not VERSION_PATTERN.fullmatch(dist.version or ""):  # None: METADATA has no Version
            build_note(f"skipped {name} {dist.version}: its version is not {VERSION_SHAPE}")
            continue
        try:  # a name no collection may have ("_private", over 64 characters): this one alone
            collection, version = collection_version(f"{name}/{dist.version}")
        except SourceError as error:
            build_note(f"skipped {name} {dist.version}: {error}")
            continue
        refused = _refused(site, info, _FILE_LISTS, options.max_file_bytes)
        if refused is not None:
            build_note(f"skipped {refused}")
            continue
        modules, missing = _installed_modules(site, dist)
        if missing:
            build_note(f"{name} {dist.version}: {len(missing)} module(s) its file list names "
                       f"are not installed, left out: "
                       f"{', '.join(shown(path) for path in missing[:3])}"
                       + (" ..." if len(missing) > 3 else ""))
        description = metadata_description(site, f"{info.name}/METADATA",
                                           options.max_file_bytes)
        if not modules and description is None:
            build_note(f"skipped {name} {dist.version}: no Python source installed and no "
                       "description")
            continue
        source_url = base_urls.get(f"{name}/{dist.version}") or site.resolve().as_uri() + "/"
        trees.append(_tree(version, site, collection,
                           PackageLayout(tuple(sorted(modules)), None, None, source_url,
                                         dependencies=_installed_dependencies(
                                             site, dist, by_name, options.max_file_bytes),
                                         description=description),
                           options, {"kind": "env", "dist": name, "version": dist.version,
                                     "path": str(site.resolve())}))
    missing = sorted(set(wanted or ()) - seen)
    if missing:
        raise FetchError(f"env:{spec}: no distribution {missing[0]} is installed there")
    if not trees:
        raise FetchError(f"env:{spec}: no installed distribution with Python sources")
    return trees

