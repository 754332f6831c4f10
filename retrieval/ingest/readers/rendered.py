"""The rendered site: which pages a documentation build published, their ids, sections and objects.

A passage URL is a promise that the page exists and that its `#fragment` is an element id there.
The builder takes ids from here instead of predicting them (Sphinx numbers duplicates, gives each
signature of a multi-signature object its own id, names members of same-named module and class
differently), and `retrieval verify --rendered` checks every URL against the same pages.
"""

import gzip
import html
import os
import posixpath
import re
import urllib.parse
import zlib
from dataclasses import dataclass, field

from ..tree import DEFAULT_MAX_FILE_BYTES, Unreadable, open_tree_file, read_tree_file
from .rst import OBJECT_DIRECTIVES


@dataclass
class RenderedSection:
    """A `<section>` of a page: its id, heading text and the headings of its enclosing sections."""

    section_id: str
    title: str = ""
    path: tuple = ()
    # A page predicted from source (sphinx_source.py): the title as parsed, before Sphinx
    # shows it (`_orm.relationship` shown "relationship()"), which its source title is matched
    # by; empty: the title.
    parsed: str = ""


# The Sphinx domains whose object descriptions (`<dl class="DOMAIN KIND">`) are units: Python's,
# and the standard domain's (environment variables, command-line options, and the object types
# a project declares, pytest's `confval`), which name what a reader looks up just as often.
PYTHON_DOMAIN, STANDARD_DOMAIN = "py", "std"
OBJECT_DOMAINS = (PYTHON_DOMAIN, STANDARD_DOMAIN)


# The elements of a signature that hold its name's parts, and their classes: a module or
# class prefix (`sig-prename`, before Sphinx 3 `descclassname`) and the name (`sig-name`,
# `descname`): Sphinx 4's spans, Sphinx 3's and 2's <code> elements.
SIGNATURE_PARTS = frozenset(("span", "code"))
PRENAME_CLASSES = frozenset(("sig-prename", "descclassname"))
NAME_CLASSES = frozenset(("sig-name", "descname"))


def described_object(classes: list) -> tuple | None:
    """Return (domain, directive) of a `<dl>` describing an object, by its classes, or None:
    `py function` (Sphinx 3 on), or, as Sphinx 2 and before wrote a Python description's,
    its directive's name alone (`<dl class="function">`)."""
    if len(classes) >= 2 and classes[0] in OBJECT_DOMAINS:
        return classes[0], classes[1]
    if len(classes) == 1 and classes[0] in OBJECT_DIRECTIVES:
        return PYTHON_DOMAIN, classes[0]
    return None
# A glossary (`<dl class="glossary">`) describes terms, standard-domain objects too (Sphinx's
# `std:term`): each entry's `<dt id>`s (a term and its synonyms) before its `<dd>` are one object
# of this kind, named by nothing a source directive gives.
GLOSSARY, GLOSSARY_TERM = "glossary", "term"


@dataclass
class RenderedObject:
    """A documented object (`<dl class="DOMAIN KIND">`, DOMAIN one of OBJECT_DOMAINS, or a
    glossary entry): its domain, its kind and each signature's (id, name; "" for a term)."""

    kind: str
    signatures: list = field(default_factory=list)
    domain: str = PYTHON_DOMAIN

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
    # Whether its main content shows text above its first section (True where not known: a
    # page predicted from its source). False: what a source has there renders nothing seen
    # (Debian's _sources keep pandas' `{{ header }}`, which conf.py's Jinja rendered away).
    text_above_title: bool = True

    def python_objects(self) -> list:
        """Return its Python objects, in document order (what a reST source's directives are
        matched with)."""
        return [obj for obj in self.objects if obj.domain == PYTHON_DOMAIN]


# Most enclosing sections whose headings a section's path (and a unit's context) holds. Real
# documentation nests a few levels; a hostile page nests thousands, and each level copying its
# ancestors' path took quadratic memory (8,000 levels of a 400 KB page: 520 MB). Deeper sections
# share their ancestors' path.
MAX_SECTION_DEPTH = 32


def class_names(attrs: dict) -> list:
    """Return the classes of a tag's parsed attributes, in order."""
    return (attrs.get("class") or "").split()


# A fragment naming lines of a file, not an id of a page: "L12-L30" (what GitHub's pages use).
_LINES = re.compile(r"L([0-9]+)-L([0-9]+)")
# A page a tree holds compressed (Debian's dh_compress gzips large pages: pytest's changelog).
GZIP_SUFFIX = ".gz"
# A tag is `<`, an optional `/`, a name, then attributes: anything up to the first `>` outside
# quotes. One regex for that rescanned to the end of the page from every `<` of an unterminated
# `<a` or `<!--` (16 KB of them took 20 s); scan() reads the same tags in linear time.
# A tag with no `<` inside it: where it fails to match, it stops at the next `<`, so the matches
# tried from successive `<`s look at disjoint text. Generators write `&lt;` in attribute values;
# the rare tag that holds a raw `<`, comments, and `<` as data are read one by one.
_PLAIN_TAG = re.compile(r"""<(/?)([a-zA-Z][a-zA-Z0-9]*)((?:[^<>"']|"[^"<]*"|'[^'<]*')*)>""")
# Elements that have no end tag.
VOID = frozenset(("br", "hr", "img", "input", "meta", "link", "wbr", "col", "area", "base",
                  "source", "track", "embed", "param"))
_TAG_START = re.compile(r"<(?:(/?)([a-zA-Z][a-zA-Z0-9]*)|!--)")
_ATTRIBUTE_EVENT = re.compile(r"""[>"']""")
# A name, then an optional value: double-quoted, single-quoted or bare.
_ATTRIBUTE = re.compile(r"""([a-zA-Z_:][-a-zA-Z0-9_:.]*)"""
                        r"""(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?""")
HEADINGS = frozenset(("h1", "h2", "h3", "h4", "h5", "h6"))


class _TagEnds:
    """Find the `>` that ends a tag whose attributes start at a given place, in linear time.

    Outside quotes, the next `>` ends the tag and a quote jumps to its closing quote; a quote
    never closed means no tag (its `<` is data). From a given quote, where this leads does not
    depend on where the tag began, so a quote already passed by an earlier, failed tag fails
    again at once (`_seen`). Quotes passed by a tag that was found lie before its end, where no
    later tag starts. So each quote is followed once, each stretch between quotes scanned once.
    """

    def __init__(self, text: str):
        self._text = text
        self._seen = bytearray(len(text))  # 1 at each opening quote already followed
        # The stretch from a tag's start to its first `>` or quote, of the latest tag asked for:
        # tags are asked for in page order, so those that start inside it share its end.
        self._stretch = (-1, -1)

    def _event(self, position: int) -> int:
        found = _ATTRIBUTE_EVENT.search(self._text, position)
        return found.start() if found else len(self._text)

    def end(self, start: int) -> int | None:
        """Return the index of the `>` ending the tag whose attributes start at start, or None."""
        text = self._text
        low, high = self._stretch
        event = high if low <= start <= high else self._event(start)
        self._stretch = (start, event)
        while event < len(text):
            quote = text[event]
            if quote == ">":
                return event
            if self._seen[event]:
                return None
            self._seen[event] = 1
            close = text.find(quote, event + 1)
            if close < 0:
                return None
            event = self._event(close + 1)
        return None


def scan(text: str):
    """Yield (data start, start, closing, tag, raw attributes) for each tag of a page, in order.

    The text between one tag's end and the next tag's start (text[data start:start]) is data. A
    comment comes as tag None, its text as the raw attributes: it ends the data before it, and
    its own text is no data. A `<` that starts no complete tag or comment is data. Linear in the
    page's size.
    """
    position = at = 0
    limit = text.rfind(">") + 1  # past the last ">", no tag or comment can end
    irregular = _Irregular(text)
    while at < limit:
        for plain in _PLAIN_TAG.finditer(text, at, limit):
            start = plain.start()
            if text.find("<", at, start) >= 0:
                # A "<" before this tag that starts no plain tag: read them one by one.
                for found in irregular.read(at, start):
                    yield position, *found
                    position = irregular.at
                at = irregular.at
                if at > start:
                    break  # what was read ends past this tag: look again from there
            yield position, start, bool(plain.group(1)), plain.group(2).lower(), plain.group(3)
            position = at = plain.end()
        else:
            for found in irregular.read(at, limit):
                yield position, *found
                position = irregular.at
            return


class _Irregular:
    """The `<`s of a page that start no plain tag: comments, tags holding a `<`, or data."""

    def __init__(self, text: str):
        self._text = text
        self._ends: _TagEnds | None = None  # made for the first tag that needs one
        self._comment_end_ahead = True  # False once a comment found no "-->": none after can
        self.at = 0  # where the text after the last one read starts

    def read(self, at: int, stop: int):
        """Yield (start, closing, tag, raw attributes) of each tag or comment that starts
        before stop, from at; self.at is then past it (and past stop once done)."""
        text = self._text
        self.at = at
        while (other := text.find("<", self.at, stop)) >= 0:
            self.at = other + 1
            start = _TAG_START.match(text, other)
            if start is None:
                continue
            if start.group(2) is None:  # "<!--"
                end = text.find("-->", start.end()) if self._comment_end_ahead else -1
                if end < 0:
                    self._comment_end_ahead = False
                    continue
                self.at = end + 3
                yield other, False, None, text[start.end():end]
                continue
            self._ends = self._ends or _TagEnds(text)
            tag_end = self._ends.end(start.end())
            if tag_end is not None:
                self.at = tag_end + 1
                yield (other, bool(start.group(1)), start.group(2).lower(),
                       text[start.end():tag_end])
            if self.at > stop:
                return
        self.at = max(self.at, stop)


def tag_attributes(text: str) -> dict:
    """Return a tag's raw attribute text as a dict of names (lowercased) to unescaped values."""
    attrs: dict[str, str] = {}
    for match in _ATTRIBUTE.finditer(text):
        value = match.group(2)
        if value is None:
            value = match.group(3) if match.group(3) is not None else (match.group(4) or "")
        attrs.setdefault(match.group(1).lower(), html.unescape(value))
    return attrs


# Element ids that themes without a `role="main"` give their main content (Django's docs;
# Django REST framework's MkDocs theme).
_MAIN_IDS = frozenset(("yui-main", "main-content"))
# The classes of the <div> a theme without a `role="main"` puts a page's body in:
# openstackdocstheme's (every OpenStack project's site), and the basic theme's own `body`,
# which a theme overriding its layout keeps without the role (gevent's).
MAIN_DIV_CLASSES = frozenset(("docs-body", "body"))


def main_start(tag: str, attrs: dict) -> bool:
    """Tell whether an element is a page's main content (Sphinx themes, MkDocs, plain HTML5)."""
    return (tag == "main" or attrs.get("role") == "main" or attrs.get("id") in _MAIN_IDS
            or (tag == "article" and "md-content__inner" in class_names(attrs))
            or (tag == "div" and not MAIN_DIV_CLASSES.isdisjoint(class_names(attrs))))


class _PageParser:
    """One pass over a page: ids, sections with their headings, objects, internal links.

    A tag scanner, not html.parser: Sphinx writes well-formed HTML, and the full CPython docs
    (47 MB) parse ten times faster this way, which keeps a build well under a minute.
    """

    def __init__(self, page: str):
        self.page = page
        self.ids: set[str] = set()
        self.sections: list[RenderedSection] = []
        self.objects: list[RenderedObject] = []
        self.links: list[tuple[str, str]] = []  # (page, fragment)
        self.text_above_title = False  # text in the main content before its first <section>
        # Per open <section>: (it, or None without an id; the innermost open one with an id).
        self._open_sections: list = []
        self._heading = None  # the section whose heading text is being read
        self._headerlink_depth = 0
        # The span depth of a heading's section number ("9.1. ", a `:numbered:` toctree's), 0
        # outside one: not the title's words, which the source's title is matched by.
        self._number_depth = 0
        # RenderedObject for a Python object's <dl>, else None
        self._dl_stack: list[RenderedObject | None] = []
        # How many <dl>s are open down to the glossary being read (0: none), and the term its
        # open entry describes (None once that entry's <dd> has begun).
        self._glossary_depth = 0
        self._term: RenderedObject | None = None
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
            if start > data_start and (self._heading is not None or self._name_depth
                                       or self._above_title()):
                self.handle_data(html.unescape(text[data_start:start]))
            if tag is None:
                continue  # a comment
            if closing:
                self.handle_endtag(tag)
            else:
                self.handle_starttag(tag, tag_attributes(raw) if "=" in raw else {})

    def handle_starttag(self, tag, attrs):
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        classes = class_names(attrs)
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
            enclosing = self._open_sections[-1][1] if self._open_sections else None
            if attrs.get("id"):
                path = () if enclosing is None else enclosing.path if len(
                    enclosing.path) >= MAX_SECTION_DEPTH else enclosing.path + (enclosing.title,)
                section = RenderedSection(attrs["id"], path=path)
                self.sections.append(section)
            self._open_sections.append((section, section or enclosing))
        elif tag in HEADINGS and self._open_sections:
            current = self._open_sections[-1][0]
            if current is not None and not current.title:
                self._heading = current
        elif tag == "a":
            if "headerlink" in classes:
                self._headerlink_depth += 1
            elif (self._main is not None and not self._toctree_at and "internal" in classes
                  and attrs.get("href")):
                self._link(attrs["href"])
        elif tag == "dl":
            described = described_object(classes)
            obj = RenderedObject(described[1], domain=described[0]) if described else None
            if obj is not None:
                self.objects.append(obj)
            self._dl_stack.append(obj)
            if GLOSSARY in classes:
                self._glossary_depth, self._term = len(self._dl_stack), None
        elif tag in ("dt", "dd") and self._glossary_depth == len(self._dl_stack) > 0:
            if tag == "dd":
                self._term = None
            elif attrs.get("id"):
                if self._term is None:
                    self._term = RenderedObject(GLOSSARY_TERM, domain=STANDARD_DOMAIN)
                    self.objects.append(self._term)
                self._term.signatures.append([attrs["id"], ""])
        elif tag == "dt" and self._dl_stack and self._dl_stack[-1]:
            # A description's signature: `dt.sig-object` (Sphinx 4 on), any <dt> of its <dl>
            # before (`<dt id="mptt.admin.DraggableMPTTAdmin">`).
            self._signature = [attrs.get("id") or None, ""]
            self._dl_stack[-1].signatures.append(self._signature)
        elif tag in SIGNATURE_PARTS:
            self._span_depth += 1
            if self._signature is not None and not NAME_CLASSES.isdisjoint(classes) \
                    and not self._name_depth:
                self._name_depth = self._span_depth
            if self._heading is not None and "section-number" in classes:
                self._number_depth = self._span_depth

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
        elif tag in HEADINGS:
            if self._heading is not None:
                self._heading.title = " ".join(self._heading.title.split())
            self._heading = None
        elif tag == "a" and self._headerlink_depth:
            self._headerlink_depth -= 1
        elif tag == "dl" and self._dl_stack:
            if self._glossary_depth == len(self._dl_stack):
                self._glossary_depth, self._term = 0, None
            self._dl_stack.pop()
        elif tag == "dt" and self._signature is not None:
            self._signature[1] = self._signature[1].strip()
            self._signature = None
        elif tag in SIGNATURE_PARTS:
            if self._name_depth == self._span_depth:
                self._name_depth = 0
            if self._number_depth == self._span_depth:
                self._number_depth = 0
            self._span_depth -= 1

    def _above_title(self) -> bool:
        """Tell whether what is read is main content above the first section, before any
        text there was seen."""
        return self._main is not None and not self.sections and not self.text_above_title

    def handle_data(self, data):
        if self._above_title() and data.strip():
            self.text_above_title = True
        if self._heading is not None and not self._headerlink_depth and not self._number_depth:
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


def parse_page(page: str, text: str) -> RenderedPage:
    """Parse one page (its path below the root, with '/') into its ids, sections, objects, links."""
    parser = _PageParser(page)
    parser.feed(text)
    for obj in parser.objects:
        obj.signatures = [tuple(signature) for signature in obj.signatures]
    return RenderedPage(frozenset(parser.ids), parser.sections, parser.objects, parser.links,
                        parser.text_above_title)


class RenderedSite:
    """A rendered HTML tree published under one base URL; each page is read once, on demand."""

    def __init__(self, root: str, base_url: str, max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
                 compressed: bool = False):
        if not base_url.endswith("/"):
            raise ValueError(f"base_url must end with '/': {base_url!r}")
        self.root = os.path.abspath(root)
        self.base_url = base_url
        self.max_file_bytes = max_file_bytes
        # Whether a page missing from the tree is read from its gzipped copy (PAGE.gz, as
        # Debian's packages install large pages): it is published, served compressed. Only
        # the dead-URL check says so; a build reads the pages the tree holds as they are.
        self.compressed = compressed
        # One parse per page for this site's lifetime; a dict on the instance, unlike
        # functools.cache on the method, is freed with the site.
        self._pages: dict[str, RenderedPage | None] = {}
        # Pages there but not read (a link out of the tree, ...: tree.py), with the reason.
        self.refused: dict[str, str] = {}

    def read(self, relative: str) -> bytes:
        """Return a file of the site (Unreadable if refused, OSError if it cannot be read);
        where compressed, a file the tree holds only gzipped (`PAGE.gz`) is read unzipped, up
        to the same cap."""
        try:
            return read_tree_file(self.root, relative, self.max_file_bytes)
        except FileNotFoundError:
            if not self.compressed:
                raise
        with open_tree_file(self.root, relative + GZIP_SUFFIX) as handle:
            try:
                with gzip.GzipFile(fileobj=handle) as unzipped:
                    data = unzipped.read(self.max_file_bytes + 1)
            except (OSError, EOFError, zlib.error) as exc:
                raise Unreadable(f"not a readable gzip file: {exc}") from None
        if len(data) > self.max_file_bytes:
            raise Unreadable(f"larger unzipped than the {self.max_file_bytes}-byte cap "
                             "(--max-file-bytes)")
        return data

    def page(self, page: str) -> RenderedPage | None:
        """Return one page given by its path below the root, or None if it is not published
        (or is refused: `refused` says why)."""
        if page not in self._pages:
            try:
                text = self.read(page).decode("utf-8", "replace")
            except Unreadable as exc:
                self.refused[page] = str(exc)
                self._pages[page] = None
            except (FileNotFoundError, NotADirectoryError):  # no such page
                self._pages[page] = None
            except OSError as exc:
                self.refused[page] = f"cannot read: {exc.strerror or exc}"
                self._pages[page] = None
            else:
                self._pages[page] = parse_page(page, text)
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
        """Tell whether a URL names a published page and, if it has a fragment, an id on it.

        A file that is not a page (a module's .py) lands with a fragment of its lines,
        `#L<first>-L<last>`, where it has that many lines.
        """
        page = self.page_of(url)
        lines = _LINES.fullmatch(url.partition("#")[2])
        if page is not None and lines and not page.endswith(".html"):
            return self._has_lines(page, int(lines.group(2)))
        ids = self.ids(page) if page is not None else None
        if ids is None:
            return False
        _, hashed, fragment = url.partition("#")
        return not hashed or urllib.parse.unquote(fragment) in ids

    def _has_lines(self, path: str, last: int) -> bool:
        # Read as the tree's files are (contained, a regular file): a URL's `..` never reaches
        # a file outside the site.
        lines = 1
        try:
            with open_tree_file(self.root, path) as handle:
                while chunk := handle.read(1 << 16):
                    lines += chunk.count(b"\n")
        except (OSError, Unreadable):
            return False
        return 0 < last <= lines

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


