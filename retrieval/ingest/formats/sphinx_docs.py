"""A package's Sphinx docs folder: its project root, its pages, and where its site is published.

Beside the folder's own reST and Markdown pages, the pages two extensions generate from files
of the release at build time are written here as Sphinx would read them: Sphinx-Gallery's
example pages from its scripts (`gallery_pages`) and nbsphinx's or MyST-NB's notebooks
(`notebook_pages`), each line with the line of the file it comes from.

The Sphinx root is the directory of the docs folder's conf.py (`docs/`, `doc/build/`,
`docs/source/`), read statically (readers/sphinx_conf.py); its pages are the files of its
`source_suffix` not in `exclude_patterns` (Django's `.txt`), published at their document name +
`.html` (or `/` on a dirhtml site), relative to that root.

Where the pages are published (`published_site`), never invented: `--base-url` if given; else
conf.py's `html_baseurl`; else the release's `Project-URL: Documentation` (or `Home-page`) where
its host is one whose versioned layout is known (`VERSIONED_HOSTS`), with this release's version
where that host puts it; else none (the caller links each unit to its file and lines, and the
build says why in a progress line).
"""

import os
import posixpath
import re
import urllib.parse
from dataclasses import dataclass

from ..readers import apidoc, notebooks, sphinx_gallery
from ..readers.sphinx_conf import CONF, SphinxConf, read_conf
from ..tree import (
    DEFAULT_MAX_FILE_BYTES,
    Progress,
    SourceTree,
    Unreadable,
    module_cap,
    read_file,
    read_tree_file,
)
from .sphinx_include import ExpandedPage, Origin


@dataclass(frozen=True)
class SphinxProject:
    """A docs folder's Sphinx project: its root below the tree's root ('/'), its conf.py."""

    root: str
    conf: SphinxConf


# How deep below the docs folder a conf.py is looked for (`doc/build/conf.py` is one level).
_CONF_DEPTH = 2


def _read(top: str, relative: str, max_bytes: int) -> str | None:
    try:
        return read_tree_file(top, relative, max_bytes).decode("utf-8")
    except (OSError, Unreadable, UnicodeDecodeError):
        return None


# What a page of any Sphinx project is written in, for telling the main project from a side one.
_PAGE_SUFFIXES = (".rst", ".txt", ".md")


def python_files(top: str, below: str) -> list:
    """Return the .py files below a folder ('/'-separated, below top), shallowest first."""
    found = []
    for directory, subdirectories, names in os.walk(os.path.join(top, below)):
        subdirectories[:] = sorted(name for name in subdirectories if not name.startswith("."))
        for name in names:
            if name.endswith(".py"):
                found.append(os.path.relpath(os.path.join(directory, name), top)
                             .replace(os.sep, "/"))
    return sorted(found, key=lambda path: (path.count("/"), path))


def pages_below(top: str, directory: str) -> int:
    """Return how many reST, Markdown and text files a directory (below top) holds, at any depth."""
    walk = os.walk(os.path.join(top, directory))
    return sum(name.endswith(_PAGE_SUFFIXES) for _, _, names in walk for name in names)


def sphinx_project(top: str, docs: str,
                   max_bytes: int = DEFAULT_MAX_FILE_BYTES) -> SphinxProject | None:
    """Return the Sphinx project of a docs folder (below top), or None if it has no conf.py.

    conf.py and the local extension modules it names are parsed with `ast`, so each is read up
    to the cap on a Python module (tree.module_cap); one over it is read as absent."""
    max_bytes = module_cap(max_bytes)[0]
    python = python_files(top, docs)
    depth = docs.count("/") + 1
    confs = [path for path in python
             if path.endswith("/" + CONF) and path.count("/") - depth <= _CONF_DEPTH - 1]
    if not confs:
        return None
    # Of several projects (numpy's doc/source beside doc/neps, sympy's doc/src beside doc/api),
    # the documentation is the one with the most pages; the shallowest of equals.
    conf = max(confs, key=lambda path: (pages_below(top, path.rpartition("/")[0]),
                                        -path.count("/")))
    root = conf.rpartition("/")[0]

    def local_module(dotted: str) -> str | None:
        tail = dotted.replace(".", "/")
        for path in python:
            if path.endswith((f"/{tail}.py", f"/{tail}/__init__.py")):
                return _read(top, path, max_bytes)
        return None

    text = _read(top, conf, max_bytes)
    return SphinxProject(root, read_conf(text, local_module) if text is not None
                         else SphinxConf())


def default_project(top: str, docs: str) -> SphinxProject | None:
    """Return the Sphinx project of a docs folder (below top) whose release left its conf.py
    out, read with Sphinx's defaults: its root the folder of the root document (`index.rst`,
    where conf.py would be looked for); None if there is none, or a conf.py at any depth.

    shapely 2.0.1's sdist has `docs/index.rst` and the pages it lists, but no `docs/conf.py`;
    its site is those pages as Sphinx renders them, sections and object descriptions with
    their ids, not paragraphs."""
    default = SphinxConf()
    root_page = default.root_doc + next(iter(default.source_suffix))
    if any(path.endswith("/" + CONF) for path in python_files(top, docs)):
        return None  # a project with its conf.py deeper down (mpi4py's docs/source/usrman/)
    found = []
    for directory, subdirectories, names in os.walk(os.path.join(top, docs)):
        below = os.path.relpath(directory, top).replace(os.sep, "/")
        # As deep as a conf.py is looked for (sphinx_project): the folder and one level down.
        if below.count("/") - docs.count("/") >= _CONF_DEPTH - 1:
            subdirectories[:] = []
        subdirectories[:] = sorted(name for name in subdirectories if not name.startswith("."))
        if root_page in names:
            found.append(below)
    if not found:
        return None
    root = max(found, key=lambda path: (pages_below(top, path), -path.count("/")))
    return SphinxProject(root, default)


def page_path(conf: SphinxConf, relative: str, dirhtml: bool) -> str:
    """Return the published path of the page built from a source file below the root."""
    return docname_path(conf.docname(relative), dirhtml)


def docname_path(docname: str, dirhtml: bool) -> str:
    """Return the published path of a document (its path below the root, without suffix)."""
    if not dirhtml:
        return docname + ".html"
    if docname == "index" or docname.endswith("/index"):
        return docname[: -len("index")]
    return docname + "/"


def _below(root: str, path: str) -> str | None:
    """Return a conf.py-relative folder as a path below the tree's root, or None outside it."""
    joined = posixpath.normpath(posixpath.join(root, path))
    return None if joined.startswith("../") or joined in ("..", ".") or posixpath.isabs(joined) \
        else joined


def _header(directory: str) -> str | None:
    """Return the name of a gallery folder's header file (its README), or None."""
    return next((name for name in sphinx_gallery.HEADERS
                 if os.path.isfile(os.path.join(directory, name))), None)


def _sections(top: str, folder: str) -> list:
    """Return the sections of an examples folder (below top) as Sphinx-Gallery finds them:
    ("" for the folder itself, then each subfolder with a header file, one level down, as its
    get_subsections does, by name)."""
    directory = os.path.join(top, *folder.split("/"))
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return []
    return ["", *(name for name in names if not name.startswith(".")
                  and os.path.isdir(os.path.join(directory, name))
                  and _header(os.path.join(directory, name)) is not None)]


def _scripts(top: str, folder: str, sections: list, ignore) -> list:
    """Return the example scripts Sphinx-Gallery publishes from an examples folder (below top):
    (path below the folder, path below top) of the `.py` files of each of its sections
    (_sections), sorted by path, but those whose path matches ignore."""
    found = []
    directory = os.path.join(top, *folder.split("/"))
    for sub in sections:
        below = os.path.join(directory, sub) if sub else directory
        try:
            names = sorted(os.listdir(below))
        except OSError:
            continue  # unreadable: no page of it, as Sphinx-Gallery could list none
        for name in names:
            relative = f"{sub}/{name}" if sub else name
            path = f"{folder}/{relative}"
            if name.endswith(".py") and not name.startswith(".") \
                    and os.path.isfile(os.path.join(below, name)) and not ignore.search(path):
                found.append((relative, path))
    return found


@dataclass(frozen=True)
class GalleryPages:
    """What a project's Sphinx-Gallery writes: its pages, and the scripts it copies."""

    # page's path below the Sphinx root -> ExpandedPage, each line's origin the line of the
    # script (or header file) it comes from
    pages: dict
    # path below the tree's root of the copy gen_rst writes of a script beside its page ->
    # the script's path, which a page may include (`.. literalinclude::
    # ../auto_examples/plot_x.py`)
    copies: dict


def apidoc_pages(tree: SourceTree, project: SphinxProject, progress: Progress) -> dict:
    """Return {page below the project's root: its text} of the pages sphinx-apidoc writes
    (readers/apidoc.py) on each build, where conf.py enables sphinxcontrib-apidoc, or before
    it, where a Makefile's recipe runs it into the project (makefile_apidoc); said in one
    line; {} without either."""
    found, by = project.conf.apidoc, "sphinxcontrib.apidoc"
    if found is None:
        makefile = makefile_apidoc(tree, project.root)
        if makefile is None:
            return {}
        by, found = f"{makefile[0]}'s sphinx-apidoc", makefile[1]
    written = apidoc.pages(tree.root, project.root, found)
    # Its output is the site's, whatever the folder held (nltk's committed copy of it); the
    # templates a project gives apidoc are not rendered: the defaults stand in.
    templates = posixpath.join(project.root, found.template_dir)
    own = [name for name in apidoc.TEMPLATES
           if os.path.isfile(os.path.join(tree.root, templates, name))]
    progress.note(f"{tree.label}: {by}: {len(written)} pages written below "
                  f"{posixpath.normpath(posixpath.join(project.root, found.output_dir))}/ from "
                  f"{posixpath.normpath(posixpath.join(project.root, found.module_dir))}/"
                  + (f" (its templates {', '.join(own)} not rendered: the defaults stand in)"
                     if own else ""))
    return written


# A Makefile read for a sphinx-apidoc recipe is a build script: far below the file cap.
_MAX_MAKEFILE_BYTES = 256 * 1024


def makefile_apidoc(tree: SourceTree, conf_root: str) -> tuple | None:
    """Return (the Makefile, ApidocSettings) of the first `sphinx-apidoc` recipe line of the
    Makefile at the tree's top or in a folder holding the project's (lxml's top-level
    `apidoc:` target writes doc/api/ from src/lxml), that writes into the project; None if
    there is none."""
    parts = conf_root.split("/") if conf_root else []
    for depth in range(len(parts) + 1):
        folder = "/".join(parts[:depth])
        makefile = posixpath.join(folder, "Makefile")
        try:
            text = read_tree_file(tree.root, makefile, _MAX_MAKEFILE_BYTES).decode(
                "utf-8", "replace")
        except (OSError, Unreadable):
            continue
        for line in text.replace("\\\n", " ").split("\n"):
            found = apidoc.command_settings(line, folder, conf_root)
            if found is not None:
                return makefile, found
    return None


def gallery_pages(tree: SourceTree, project: SphinxProject, progress: Progress) -> GalleryPages:
    """Return the example pages Sphinx-Gallery writes from the project's examples scripts
    (readers/sphinx_gallery.py) and the copies it writes of them, each examples folder
    listed once; a script without a module docstring is reported and skipped, as
    Sphinx-Gallery refuses it."""
    try:
        ignore = re.compile(project.conf.gallery_ignore)
    except re.error:
        ignore = re.compile(sphinx_gallery.DEFAULT_IGNORE)
    pages: dict = {}
    copies: dict = {}
    for examples, gallery in project.conf.galleries:
        folder = _below(project.root, examples)
        if folder is None or gallery.startswith("../") or posixpath.isabs(gallery):
            continue
        sections = _sections(tree.root, folder)
        for relative, path in _scripts(tree.root, folder, sections, ignore):
            copies[posixpath.normpath(posixpath.join(project.root, gallery, relative))] = path
            read = read_file(tree, path, progress)
            if read is None:
                continue
            text, sha256 = read
            try:
                page = sphinx_gallery.gallery_page(
                    text, sphinx_gallery.reference_name(gallery, relative),
                    project.conf.gallery_remove_config_comments)
            except (SyntaxError, ValueError, MemoryError, RecursionError) as error:
                where = f" at line {error.lineno}" if isinstance(error, SyntaxError) else ""
                progress.skip(f"{tree.label}/{path}", f"does not parse{where}: Sphinx-Gallery "
                                                      "publishes no text of it")
                continue
            if page is None:
                progress.skip(f"{tree.label}/{path}", "no module docstring: Sphinx-Gallery "
                                                      "publishes no page of it")
                continue
            pages[posixpath.normpath(f"{gallery}/{relative[:-3]}.rst")] = ExpandedPage(
                "\n".join(page.lines), [Origin(path, sha256, line) for line in page.script_lines])
        index = _gallery_index(tree, folder, sections, progress)
        if index is not None:
            pages[posixpath.normpath(f"{gallery}/index.rst")] = index
    return GalleryPages(pages, copies)


def _gallery_index(tree: SourceTree, folder: str, sections: list,
                   progress: Progress) -> ExpandedPage | None:
    """Return a gallery's index page as Sphinx-Gallery writes it, its header files' text: the
    examples folder's, then each section's (_sections; its thumbnails, which show the
    examples' titles, left out), each file's lines ended by a blank line from no file; None
    without a header."""
    lines: list[str] = []
    origins: list = []
    for sub in sections:
        directory = f"{folder}/{sub}" if sub else folder
        header = _header(os.path.join(tree.root, *directory.split("/")))
        read = read_file(tree, f"{directory}/{header}", progress) if header else None
        if read is None:
            continue
        text, sha256 = read
        file_lines = text.split("\n")
        if file_lines and file_lines[-1] == "":
            file_lines.pop()
        lines.extend([*file_lines, ""])
        origins.extend([*(Origin(f"{directory}/{header}", sha256, number)
                          for number in range(1, len(file_lines) + 1)), None])
    return ExpandedPage("\n".join(lines), origins) if lines else None


def notebook_pages(tree: SourceTree, project: SphinxProject, progress: Progress) -> dict:
    """Return {path below the Sphinx root: ExpandedPage} of each notebook an extension
    publishes as a page (SphinxConf.notebook_ids), as Markdown (readers/notebooks.py), each
    line's origin the notebook's line; a file that is no notebook is reported and skipped."""
    if not project.conf.notebook_ids:
        return {}
    top = os.path.join(tree.root, *project.root.split("/"))
    pages: dict = {}
    for directory, subdirectories, names in os.walk(top):
        # Hidden folders (.ipynb_checkpoints, nbsphinx's own exclusion) hold no pages.
        subdirectories[:] = sorted(name for name in subdirectories if not name.startswith("."))
        for name in sorted(names):
            relative = os.path.relpath(os.path.join(directory, name), top).replace(os.sep, "/")
            if not name.endswith(notebooks.NOTEBOOK_SUFFIX) or name.startswith(".") \
                    or project.conf.excluded(relative):
                continue
            path = f"{project.root}/{relative}"
            read = read_file(tree, path, progress)
            if read is None:
                continue
            text, sha256 = read
            page = notebooks.notebook_page(text)
            if page is None:
                progress.skip(f"{tree.label}/{path}",
                              "not a notebook of nbformat 4 (no JSON list of cells)")
                continue
            pages[relative] = ExpandedPage("\n".join(page.lines), [
                Origin(path, sha256, line) for line in page.file_lines])
    return pages


# --- where the pages are published ---------------------------------------------------------

@dataclass(frozen=True)
class VersionedHost:
    """A documentation host whose versions are laid out one way, checked on its site."""

    host: str  # the host, or ".suffix" for any host below it
    path: str  # the version's path, from {major} and {minor} of the release
    dirhtml: bool  # pages at DOCNAME/ (Sphinx's dirhtml builder), else DOCNAME.html


# Hosts that publish every release line at its own path, each as its site has it. Read the
# Docs' own domains are not among them (below).
VERSIONED_HOSTS = (
    # Pallets (Flask, Jinja, Click...): flask.palletsprojects.com/en/2.2.x/quickstart/
    VersionedHost(".palletsprojects.com", "en/{major}.{minor}.x/", True),
    # docs.pytest.org/en/7.2.x/how-to/fixtures.html
    VersionedHost("docs.pytest.org", "en/{major}.{minor}.x/", False),
    # docs.sqlalchemy.org/en/14/core/engines.html
    VersionedHost("docs.sqlalchemy.org", "en/{major}{minor}/", False),
    # docs.djangoproject.com/en/3.2/ref/settings/
    VersionedHost("docs.djangoproject.com", "en/{major}.{minor}/", True),
)
# A path segment naming a moving version, not a release (Read the Docs' and others').
_MOVING = frozenset({"latest", "stable", "master", "main", "dev", "devel", "current"})
_RELEASE = re.compile(r"([0-9]+)\.([0-9]+)")


@dataclass(frozen=True)
class PublishedSite:
    """Where a docs folder's pages are published, or why that is not known (note)."""

    url: str | None
    dirhtml: bool = False
    note: str | None = None


def _known_host(host: str) -> VersionedHost | None:
    return next((known for known in VERSIONED_HOSTS if host == known.host or (
        known.host.startswith(".") and host.endswith(known.host))), None)


# Read the Docs serves a project at /LANGUAGE/VERSION/, a tag's version under the tag's name;
# a URL there naming a moving version (/en/latest/) gives this release's at /en/VERSION/,
# assuming the release is tagged as its version (said in the build's progress).
_READTHEDOCS = (".readthedocs.io", ".readthedocs.org")
_LANGUAGE = re.compile(r"[a-z]{2}(?:[-_][a-zA-Z]{2,4})?")


def versioned_url(url: str, version: str) -> PublishedSite | None:
    """Return the site of a release at a documentation URL whose host's layout is known."""
    parts = urllib.parse.urlsplit(url)
    host = (parts.hostname or "").lower()
    known = _known_host(host)
    release = _RELEASE.match(version)
    if known is None and host.endswith(_READTHEDOCS):
        segments = [segment for segment in parts.path.split("/") if segment]
        # The host's root (`/`) and a language's root (`/en/`) serve its default version, the
        # latest or the stable one, as `/en/latest/` does: each is the project's, not a page.
        if not segments:
            segments = ["en", "latest"]
        elif len(segments) == 1 and _LANGUAGE.fullmatch(segments[0]):
            segments.append("latest")
        if len(segments) == 2 and _LANGUAGE.fullmatch(segments[0]) \
                and segments[1] == version:
            # The URL names this very release's version (coverage's `/en/7.3.0/`).
            return PublishedSite(f"https://{parts.netloc}/{segments[0]}/{segments[1]}/")
        if len(segments) >= 2 and _LANGUAGE.fullmatch(segments[0]) \
                and segments[1] in _MOVING:
            return PublishedSite(
                f"https://{parts.netloc}/{segments[0]}/{urllib.parse.quote(version)}/",
                note=f"links at {segments[0]}/{version}/ of {host}: Read the Docs' version of "
                     "the tag named as the release")
        return None
    if known is None or release is None:
        return None
    path = known.path.format(major=release.group(1), minor=release.group(2))
    return PublishedSite(f"https://{parts.netloc}/{path}", known.dirhtml)


def _moving(url: str) -> bool:
    return any(segment in _MOVING for segment in urllib.parse.urlsplit(url).path.split("/"))


def published_site(project: SphinxProject | None, urls: list, version: str,
                   base_url: str | None, label: str = "COLLECTION/VERSION") -> PublishedSite:
    """Return where a release's docs folder is published: base_url (--base-url), else its
    conf.py's html_baseurl, else the first of urls (the release's Documentation Project-URL,
    then its Home-page) on a host whose versions are known, at this version; label names the
    release in the note's --base-url (both `build` and `project` take LABEL=URL)."""
    if base_url:
        return PublishedSite(base_url)
    baseurl = project.conf.html_baseurl if project is not None else None
    if baseurl and not _moving(baseurl):
        return PublishedSite(baseurl if baseurl.endswith("/") else baseurl + "/")
    candidates = [url for url in [baseurl, *urls]
                  if isinstance(url, str) and url.startswith(("https://", "http://"))]
    for url in candidates:
        site = versioned_url(url, version)
        if site is not None:
            return site
    if not candidates:
        return PublishedSite(None, note="no published docs site is known (no --base-url, "
                             "html_baseurl or Documentation URL): units link to their files")
    return PublishedSite(None, note=f"no versioned link for {candidates[0]} (its host's "
                         "versions are not known): units link to their files; give "
                         f"--base-url {label}=URL for the site of this release")
