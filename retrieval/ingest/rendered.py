"""The rendered site: which pages a documentation build published, their ids, sections and objects.

A passage URL is a promise that the page exists and that its `#fragment` is an element id there.
The builder takes ids from here instead of predicting them (Sphinx numbers duplicates, gives each
signature of a multi-signature object its own id, names members of same-named module and class
differently), and `retrieval verify --rendered` checks every URL against the same pages.
"""

import html
import os
import posixpath
import re
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class RenderedSection:
    """A `<section>` of a page: its id, heading text and the headings of its enclosing sections."""

    section_id: str
    title: str = ""
    path: tuple = ()


@dataclass
class RenderedObject:
    """A documented object (`<dl class="py KIND">`): its kind and each signature's (id, name)."""

    kind: str
    signatures: list = field(default_factory=list)

    @property
    def ids(self) -> list:
        """Return the ids its signatures carry, in order (none for a `:noindex:` object)."""
        return [sig_id for sig_id, _ in self.signatures if sig_id]

    @property
    def name(self) -> str:
        """Return the bare name of its first signature."""
        return self.signatures[0][1] if self.signatures else ""


@dataclass
class RenderedPage:
    """What the builder needs of one rendered page."""

    ids: frozenset
    sections: list
    objects: list
    # (page path below the site root, fragment) of each internal link with a fragment, found in
    # the page's main content (navigation and sidebars are the same on every page: no signal).
    links: list


def _classes(attrs: dict) -> list:
    return (attrs.get("class") or "").split()


_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>|<!--.*?-->", re.S)
# A name, then an optional value: double-quoted, single-quoted or bare.
_ATTRIBUTE = re.compile(r"""([a-zA-Z_:][-a-zA-Z0-9_:.]*)"""
                        r"""(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?""")
_HEADINGS = frozenset(("h1", "h2", "h3", "h4", "h5", "h6"))


def scan(text: str):
    """Yield (data start, start, closing, tag, raw attributes) for each tag of a page, in order.

    The text between one tag's end and the next tag's start (text[data start:start]) is data. A
    comment comes as tag None: it ends the data before it, and its own text is no data.
    """
    position = 0
    for match in _TAG.finditer(text):
        tag = match.group(2)
        yield (position, match.start(), bool(match.group(1)),
               None if tag is None else tag.lower(), match.group(3))
        position = match.end()


def _attributes(text: str) -> dict:
    attrs = {}
    for match in _ATTRIBUTE.finditer(text):
        value = match.group(2)
        if value is None:
            value = match.group(3) if match.group(3) is not None else (match.group(4) or "")
        attrs.setdefault(match.group(1).lower(), html.unescape(value))
    return attrs


# Element ids that themes without a `role="main"` give their main content (Django's docs).
_MAIN_IDS = frozenset(("yui-main",))


def main_start(tag: str, attrs: dict) -> bool:
    """Tell whether an element is a page's main content (Sphinx themes, MkDocs, plain HTML5)."""
    return (tag == "main" or attrs.get("role") == "main" or attrs.get("id") in _MAIN_IDS
            or (tag == "article" and "md-content__inner" in _classes(attrs)))


class _PageParser:
    """One pass over a page: ids, sections with their headings, Python objects, internal links.

    A tag scanner, not html.parser: Sphinx writes well-formed HTML, and the full CPython docs
    (47 MB) parse ten times faster this way, which keeps a build well under a minute.
    """

    def __init__(self, page: str):
        self.page = page
        self.ids = set()
        self.sections, self.objects, self.links = [], [], []
        self._open_sections = []  # stack of RenderedSection or None (a section without an id)
        self._heading = None  # the section whose heading text is being read
        self._headerlink_depth = 0
        self._dl_stack = []  # RenderedObject for a Python object's <dl>, else None
        self._signature = None  # [id, name] of the <dt> being read
        self._name_depth = 0  # >0 inside a signature's sig-name span
        self._span_depth = 0
        self._main: list | None = None  # [tag, nesting] of the main content element
        self._div_depth = 0  # <div> nesting inside the main content
        # The div depth of the table of contents being read (0: none). A toctree links every
        # section it lists: navigation, like the sidebars, not a cross-reference.
        self._toctree_at = 0

    def feed(self, text: str):
        """Scan a whole page."""
        for data_start, start, closing, tag, raw in scan(text):
            if start > data_start and (self._heading is not None or self._name_depth):
                self.handle_data(html.unescape(text[data_start:start]))
            if tag is None:
                continue  # a comment
            if closing:
                self.handle_endtag(tag)
            else:
                self.handle_starttag(tag, _attributes(raw) if "=" in raw else {})

    def handle_starttag(self, tag, attrs):
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        classes = _classes(attrs)
        if self._main is not None:
            if tag == self._main[0]:
                self._main[1] += 1
        elif main_start(tag, attrs):
            self._main = [tag, 1]
        if tag == "div":
            if self._main is not None:
                self._div_depth += 1
                if "toctree-wrapper" in classes and not self._toctree_at:
                    self._toctree_at = self._div_depth
        elif tag == "section":
            section = None
            if attrs.get("id"):
                enclosing = next((s for s in reversed(self._open_sections) if s), None)
                path = (enclosing.path + (enclosing.title,)) if enclosing else ()
                section = RenderedSection(attrs["id"], path=path)
                self.sections.append(section)
            self._open_sections.append(section)
        elif tag in _HEADINGS and self._open_sections:
            current = self._open_sections[-1]
            if current is not None and not current.title:
                self._heading = current
        elif tag == "a":
            if "headerlink" in classes:
                self._headerlink_depth += 1
            elif (self._main is not None and not self._toctree_at and "internal" in classes
                  and attrs.get("href")):
                self._link(attrs["href"])
        elif tag == "dl":
            kind = classes[1] if len(classes) >= 2 and classes[0] == "py" else None
            obj = RenderedObject(kind) if kind else None
            if obj is not None:
                self.objects.append(obj)
            self._dl_stack.append(obj)
        elif tag == "dt" and "sig-object" in classes and self._dl_stack and self._dl_stack[-1]:
            self._signature = [attrs.get("id") or None, ""]
            self._dl_stack[-1].signatures.append(self._signature)
        elif tag == "span":
            self._span_depth += 1
            if self._signature is not None and "sig-name" in classes and not self._name_depth:
                self._name_depth = self._span_depth

    def handle_endtag(self, tag):
        if self._main is not None and tag == self._main[0]:
            self._main[1] -= 1
            if not self._main[1]:
                self._main, self._div_depth, self._toctree_at = None, 0, 0
        if tag == "div":
            if self._div_depth:
                if self._toctree_at == self._div_depth:
                    self._toctree_at = 0
                self._div_depth -= 1
        elif tag == "section" and self._open_sections:
            self._open_sections.pop()
        elif tag in _HEADINGS:
            if self._heading is not None:
                self._heading.title = " ".join(self._heading.title.split())
            self._heading = None
        elif tag == "a" and self._headerlink_depth:
            self._headerlink_depth -= 1
        elif tag == "dl" and self._dl_stack:
            self._dl_stack.pop()
        elif tag == "dt" and self._signature is not None:
            self._signature[1] = self._signature[1].strip()
            self._signature = None
        elif tag == "span":
            if self._name_depth == self._span_depth:
                self._name_depth = 0
            self._span_depth -= 1

    def handle_data(self, data):
        if self._heading is not None and not self._headerlink_depth:
            self._heading.title += data
        if self._name_depth and self._signature is not None:
            self._signature[1] += data

    def _link(self, href: str):
        address, hashed, fragment = href.partition("#")
        if not hashed or not fragment or "://" in address or address.startswith(("/", "mailto:")):
            return
        target = posixpath.normpath(posixpath.join(posixpath.dirname(self.page),
                                                   urllib.parse.unquote(address)))
        self.links.append((target if address else self.page, urllib.parse.unquote(fragment)))


def parse_page(root: str, page: str) -> RenderedPage:
    """Read one page (a path below the root, with '/') into its ids, sections, objects, links."""
    with open(os.path.join(root, *page.split("/")), encoding="utf-8", errors="replace") as f:
        parser = _PageParser(page)
        parser.feed(f.read())
    for obj in parser.objects:
        obj.signatures = [tuple(signature) for signature in obj.signatures]
    return RenderedPage(frozenset(parser.ids), parser.sections, parser.objects, parser.links)


class RenderedSite:
    """A rendered HTML tree published under one base URL; each page is read once, on demand."""

    def __init__(self, root: str, base_url: str):
        if not base_url.endswith("/"):
            raise ValueError(f"base_url must end with '/': {base_url!r}")
        self.root = os.path.abspath(root)
        self.base_url = base_url
        # One parse per page for this site's lifetime; a dict on the instance, unlike
        # functools.cache on the method, is freed with the site.
        self._pages: dict[str, RenderedPage | None] = {}

    def page(self, page: str) -> RenderedPage | None:
        """Return one page given by its path below the root, or None if it is not published."""
        if page not in self._pages:
            if not os.path.isfile(os.path.join(self.root, *page.split("/"))):
                self._pages[page] = None
            else:
                self._pages[page] = parse_page(self.root, page)
        return self._pages[page]

    def ids(self, page: str) -> frozenset | None:
        """Return the ids of a page, or None if it is not published."""
        rendered = self.page(page)
        return rendered.ids if rendered is not None else None

    def page_of(self, url: str) -> str | None:
        """Return the page path below the root that a URL names, or None if it is elsewhere."""
        address = url.partition("#")[0]
        if not address.startswith(self.base_url):
            return None
        page = urllib.parse.unquote(address[len(self.base_url):])
        # A directory's URL is its index page, as every web server (and MkDocs' URLs) has it.
        return page + "index.html" if page == "" or page.endswith("/") else page

    def lands(self, url: str) -> bool:
        """Tell whether a URL names a published page and, if it has a fragment, an id on it."""
        page = self.page_of(url)
        ids = self.ids(page) if page is not None else None
        if ids is None:
            return False
        _, hashed, fragment = url.partition("#")
        return not hashed or urllib.parse.unquote(fragment) in ids

    def pages(self) -> list:
        """Return every published page's path below the root, sorted."""
        found = []
        for directory, subdirectories, names in os.walk(self.root):
            subdirectories[:] = sorted(d for d in subdirectories if not d.startswith(("_", ".")))
            for name in names:
                if name.endswith(".html"):
                    relative = os.path.relpath(os.path.join(directory, name), self.root)
                    found.append(relative.replace(os.sep, "/"))
        return sorted(found)


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
                sites[key] = RenderedSite(root, version["base_url"])
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
