"""A published documentation site -> a local mirror the builder reads like any rendered tree.

Everything under one URL prefix of one origin is in bounds; nothing else is fetched. Pages are
found from the site's own maps (`objects.inv`, `searchindex.js`, `sitemap.xml`, `llms.txt`), then
from the links of every page fetched. Only documentation is kept: HTML pages (a URL ending in
`/`, `.html` or `.htm`, served as HTML), the Markdown an `llms.txt` names, a Sphinx site's
`_sources` copies, and the maps themselves; assets, downloads, queries and off-prefix links are
counted and skipped. robots.txt is honoured (its Crawl-delay too), and a page the site serves with
status 200 but which is its own "not found" page is recognised by a probe and skipped.

The mirror keeps each page at its path below the prefix (a directory URL at `index.html`), so the
builder's readers see the tree a local build would and the passage URLs are the site's own. The
fetch cache directory keeps the mirror and, per URL, its validators (ETag, Last-Modified) and
provenance (final URL, fetch time, sha256): a second crawl asks only for what changed, and an
interrupted one resumes from what it had.
"""

import concurrent.futures
import contextlib
import errno
import hashlib
import html
import json
import os
import posixpath
import re
import sys
import threading
import time
import urllib.parse
import urllib.robotparser
import xml.etree.ElementTree as ElementTree
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field

from ...core.errors import UserError
from ..readers import llms_index
from ..readers.inventory import InventoryError, read_inventory
from .http_get import REDIRECTS, USER_AGENT, FetchFailure, Limits, Reply, get

STATE = "state.json"
MIRROR = "site"
_PAGE, _DOCUMENT, _MAP = "page", "document", "map"
_SOURCE_PROBE = "source-probe"  # the first _sources copy: are the others worth asking for?
_HTML_TYPES = frozenset(("text/html", "application/xhtml+xml"))
_PAGE_SUFFIXES = (".html", ".htm")
# The site's own maps, at the top of the prefix.
_MAPS = ("objects.inv", "searchindex.js", "sitemap.xml", "llms.txt")
# A fetched file is untrusted input, read after the fetch and outside the crawl's bounds: each
# scan below is one linear pass that reads what a pattern did (named beside it), where the
# pattern backtracked (a 90-220 KB file took 14 s).
_BLANKS = re.compile(rb"\s*")
_UNQUOTED = re.compile(rb"[^\s>\"']+")
_STRING_BODY = re.compile(rb'(?:[^"\\]|\\.)*')
_TAG = re.compile(rb"<(?:a|area)\s", re.I)
_WORD_BYTES = frozenset(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz")
# How often (files kept) the cache's state is saved, so that a killed crawl resumes from it.
_SAVE_EVERY = 100
# What a crawl remembers of the links it does not follow (to count each once): at most this many
# per page it may ask for, each of at most _MAX_URL_CHARS (a longer link is skipped). Past that,
# a link is counted each time it is seen. The links it follows are at most --crawl-max-pages.
REMEMBERED_PER_PAGE = 20
MAX_URL_CHARS = 2048
# A path the disk cannot hold beside another (a.html and a.html/index.html) or at all (a name
# too long): that page is skipped, the crawl goes on.
_UNKEEPABLE = frozenset((errno.EEXIST, errno.ENOTDIR, errno.EISDIR, errno.ENAMETOOLONG))


# Why a crawl stops where its site's robots.txt cannot be read (RFC 9309 2.3.1.4, "unreachable").
_UNREACHABLE = ("a robots.txt that cannot be read disallows the whole site (RFC 9309): "
                "not crawling")


class CrawlError(UserError):
    """A crawl cannot start or found nothing to build from; the message is one line."""


@dataclass(frozen=True)
class Fetched:
    """One file of the mirror and where it came from."""

    path: str  # below the mirror root, with '/'
    url: str  # the URL asked for
    final_url: str  # after redirects within the prefix
    fetched_at: str  # ISO 8601 UTC, when the site last served or confirmed it
    sha256: str
    etag: str = ""
    last_modified: str = ""

    def provenance(self) -> dict:
        """Return what the snapshot records of it."""
        return {"path": self.path, "url": self.final_url, "fetched_at": self.fetched_at,
                "sha256": self.sha256}


@dataclass
class CrawlResult:
    """The mirror a crawl left and its account of what it did."""

    root: str
    files: list  # [Fetched], sorted by path
    pages: int
    unchanged: int
    bytes: int
    skipped: Counter = field(default_factory=Counter)


def _now_iso() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def split_prefix(url: str) -> tuple:
    """Return (prefix ending in '/', the URL to start from) of a --source URL."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise CrawlError(f"{url}: not an http(s) URL with a host")
    if parts.query or parts.fragment:
        raise CrawlError(f"{url}: give the documentation's URL prefix, without ? or #")
    path = parts.path or "/"
    if not path.endswith(("/", *_PAGE_SUFFIXES, ".txt", ".md")):
        path += "/"  # ".../en/2.2.x" names the directory, not a file in ".../en/"
    prefix_path = path if path.endswith("/") else path.rsplit("/", 1)[0] + "/"
    prefix = urllib.parse.urlunsplit((parts.scheme, parts.netloc, prefix_path, "", ""))
    return prefix, urllib.parse.urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def cache_key(prefix: str) -> str:
    """Return the name of a prefix's directory in the fetch cache: readable, and unique."""
    readable = re.sub(r"[^A-Za-z0-9.-]+", "-", prefix.split("://", 1)[1]).strip("-")[:80]
    return f"{readable}-{hashlib.sha256(prefix.encode()).hexdigest()[:12]}"


def mirror_path(url: str, prefix: str) -> str | None:
    """Return the mirror path of a URL in bounds, or None if it is outside or cannot be kept."""
    if not url.startswith(prefix):
        return None
    relative = urllib.parse.unquote(url[len(prefix):])
    if relative == "" or relative.endswith("/"):
        relative += "index.html"
    normal = posixpath.normpath(relative)
    if normal != relative or normal.startswith(("../", "/")) or "\x00" in normal \
            or any(part.startswith(".") for part in normal.split("/")):
        return None  # "a/../b", "a//b", hidden names: not a path a mirror may write
    return normal


class _Next:
    """Where a byte string next occurs at or after a position that only moves forward: each
    search starts past the last one's answer, so all of them cost one pass."""

    def __init__(self, data: bytes, needle: bytes):
        self._data, self._needle = data, needle
        self._start, self._found = -1, -1

    def find(self, start: int) -> int:
        if not (0 <= self._start <= start and (self._found == -1 or self._found >= start)):
            self._start, self._found = start, self._data.find(self._needle, start)
        return self._found


class _Hrefs:
    """The href value of every <a> and <area> tag of a page, in one pass.

    What `<(?:a|area)\\s[^>]*?\\bhref\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>"']+))` (re.I) found:
    for each tag, the first `href=value` after its name and before its first ">", "href" at a
    word's start; a quoted value may hold ">". The first such attribute at or after a place is
    remembered, so that tags before one ">" do not each search the same text again.
    """

    def __init__(self, body: bytes):
        self.body, self.lower = body, body.lower()
        self.closing = _Next(body, b">")
        self.quotes = {ord('"'): _Next(body, b'"'), ord("'"): _Next(body, b"'")}
        self._from = -1  # the first href= at or after _from, once looked for
        self._found: tuple | None = None

    def values(self) -> list:
        found: list = []
        tag = _TAG.search(self.body)
        while tag is not None:
            start = tag.end()
            if not (0 <= self._from <= start
                    and (self._found is None or self._found[0] >= start)):
                self._from, self._found = start, self._attribute(start)
            if self._found is None:
                break  # no href= after this tag: none after a later one either
            limit = self.closing.find(start)
            if limit == -1 or self._found[0] < limit:
                found.append(self._found[1])
                tag = _TAG.search(self.body, self._found[2])
            else:
                tag = _TAG.search(self.body, tag.start() + 1)
        return found

    def _attribute(self, start: int) -> tuple | None:
        """Return (where, value, end) of the first well-formed href= at or after start."""
        body, at = self.body, start
        while (at := self.lower.find(b"href", at)) != -1:
            if at == 0 or body[at - 1] not in _WORD_BYTES:
                equals = _BLANKS.match(body, at + 4).end()  # type: ignore[union-attr]
                if body[equals:equals + 1] == b"=":
                    value = _BLANKS.match(body, equals + 1).end()  # type: ignore[union-attr]
                    quote = body[value] if value < len(body) else None
                    if quote in self.quotes:
                        close = self.quotes[quote].find(value + 1)
                        if close != -1:
                            return at, body[value + 1:close], close + 1
                    else:
                        bare = _UNQUOTED.match(body, value)
                        if bare is not None:
                            return at, bare.group(), bare.end()
            at += 1
        return None


def _page_links(body: bytes, base: str) -> list:
    """Return the absolute URL of every <a href> (and <area href>) of a page."""
    # A scan, not html.parser: on 300 pages of the 3.11 docs (30 MB) html.parser took 23.5 s
    # of this 2-core machine, a pattern 0.2 s; every page a crawl keeps is scanned.
    return [urllib.parse.urljoin(base, html.unescape(value.decode("utf-8", "replace")))
            for value in _Hrefs(body).values()]


def _filenames(body: bytes) -> list:
    """Return the quoted names of a searchindex.js's filenames list (bytes, still escaped).

    Sphinx's `Search.setIndex({"filenames": [...]})` (older Sphinx: unquoted keys): what
    `"?filenames"?\\s*:\\s*\\[([^\\]]*)\\]` found, then `"((?:[^"\\\\]|\\\\.)*)"` in it.
    """
    at = body.find(b"filenames")
    while at != -1:
        after = at + len(b"filenames")
        after += body[after:after + 1] == b'"'
        colon = _BLANKS.match(body, after).end()  # type: ignore[union-attr]
        if body[colon:colon + 1] == b":":
            opening = _BLANKS.match(body, colon + 1).end()  # type: ignore[union-attr]
            if body[opening:opening + 1] == b"[":
                closing = body.find(b"]", opening + 1)
                return [] if closing == -1 else _strings(body[opening + 1:closing])
        at = body.find(b"filenames", at + 1)
    return []


def _strings(data: bytes) -> list:
    """Return the body of each double-quoted string (backslash escapes kept) in data."""
    found, at = [], data.find(b'"')
    while at != -1:
        end = _STRING_BODY.match(data, at + 1).end()  # type: ignore[union-attr]
        if data[end:end + 1] == b'"':
            found.append(data[at + 1:end])
            at = data.find(b'"', end + 1)
        else:
            # A backslash before a line break, or the end: every quote before it is inside
            # this string's escapes, and would stop at the same place.
            at = data.find(b'"', end)
    return found


def _is_page_url(address: str) -> bool:
    return address.endswith("/") or address.endswith(_PAGE_SUFFIXES)


def _title(body: bytes) -> bytes:
    """Return the text of a page's <title>, in its first 64 KiB (`<title[^>]*>(.*?)</title>`)."""
    head = body[:65536]
    lower = head.lower()
    at = lower.find(b"<title")
    opened = head.find(b">", at + len(b"<title")) if at != -1 else -1
    closed = lower.find(b"</title>", opened + 1) if opened != -1 else -1
    return head[opened + 1:closed].strip() if closed != -1 else b""


class _Pace:
    """Space the starts of requests at least `delay` seconds apart, across threads."""

    def __init__(self, delay: float, sleep: Callable[[float], None]):
        self._delay, self._sleep = delay, sleep
        self._next = 0.0
        self._lock = threading.Lock()

    def wait(self):
        with self._lock:
            now = time.monotonic()
            start = max(now, self._next)
            self._next = start + self._delay
        if start > now:
            self._sleep(start - now)


@dataclass(frozen=True)
class _Outcome:
    url: str
    kind: str
    reply: Reply | None = None  # the final reply, after redirects in bounds
    failure: str = ""  # a skip reason when there is no reply


class Crawler:
    """One crawl of one prefix into its directory of the fetch cache."""

    def __init__(self, url: str, cache_dir: str, limits: Limits, label: str = "",
                 stream=None, sleep: Callable[[float], None] = time.sleep):
        self.prefix, self.start = split_prefix(url)
        self.directory = os.path.join(cache_dir, cache_key(self.prefix))
        self.root = os.path.join(self.directory, MIRROR)
        self.limits, self.sleep = limits, sleep
        self.label = label or self.prefix
        self.stream = stream or sys.stderr
        self.pace = _Pace(limits.delay_s, sleep)
        self.robots = urllib.robotparser.RobotFileParser()
        self.previous = self._load_state()
        self.kept: dict = {}  # path -> Fetched, this crawl
        self.queued: set = set()  # at most limits.max_pages
        self.rejected: set = set()  # links counted as skipped once, however often linked
        self.max_rejected = REMEMBERED_PER_PAGE * limits.max_pages
        self.queue: deque = deque()
        self.skipped: Counter = Counter()
        self.pages = self.unchanged = self.bytes = self.requests = 0
        self.not_found_title: bytes | None = None
        self.sources_probe: list | None = None  # the _sources copies still to ask for
        self._last_tick = 0.0
        self._started = time.monotonic()

    # -- the fetch cache --------------------------------------------------------------------

    def _load_state(self) -> dict:
        try:
            with open(os.path.join(self.directory, STATE), encoding="utf-8") as f:
                document = json.load(f)
            if document.get("prefix") != self.prefix:
                return {}
            return {entry["url"]: Fetched(**entry) for entry in document["files"]}
        except (OSError, ValueError, TypeError, KeyError):
            return {}  # no cache yet, or one this version cannot read: fetch everything

    def _save_state(self, complete: bool = False):
        # An unfinished crawl keeps what earlier ones knew, to ask for it conditionally next time.
        files = {} if complete else dict(self.previous)
        files.update((f.url, f) for f in self.kept.values())
        document = {"prefix": self.prefix, "files": [vars(f) for f in files.values()]}
        os.makedirs(self.directory, exist_ok=True)
        partial = os.path.join(self.directory, STATE + ".partial")
        with open(partial, "w", encoding="utf-8") as f:
            json.dump(document, f, indent=1, sort_keys=True)
        os.replace(partial, os.path.join(self.directory, STATE))

    def _cached_body(self, entry: Fetched) -> bytes | None:
        try:
            with open(os.path.join(self.root, *entry.path.split("/")), "rb") as f:
                body = f.read()
        except OSError:
            return None
        return body if hashlib.sha256(body).hexdigest() == entry.sha256 else None

    def _write(self, path: str, body: bytes) -> bool:
        """Write a file of the mirror; False if its path cannot be kept beside the others."""
        target = os.path.join(self.root, *path.split("/"))
        partial = target + ".partial"
        try:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(partial, "wb") as f:
                f.write(body)
            os.replace(partial, target)
        except OSError as error:
            if error.errno not in _UNKEEPABLE:
                raise
            with contextlib.suppress(OSError):
                os.remove(partial)
            return False
        return True

    # -- one URL ----------------------------------------------------------------------------

    def _fetch(self, url: str, kind: str) -> _Outcome:
        """Run in a worker: GET url (conditionally if cached), following redirects in bounds."""
        seen, current = {url}, url
        for _ in range(self.limits.max_redirects + 1):
            entry = self.previous.get(current)
            headers = {}
            if entry is not None and self._cached_body(entry) is not None:
                if entry.etag:
                    headers["If-None-Match"] = entry.etag
                if entry.last_modified:
                    headers["If-Modified-Since"] = entry.last_modified
            self.pace.wait()
            try:
                reply = get(current, self.limits, headers, self.sleep)
            except FetchFailure as failure:
                return _Outcome(url, kind, failure=failure.reason)
            if reply.status not in REDIRECTS:
                return _Outcome(url, kind, reply)
            target = urllib.parse.urljoin(current, reply.headers.get("location", ""))
            target = target.partition("#")[0]
            if mirror_path(target, self.prefix) is None:
                return _Outcome(url, kind, failure="redirect off the prefix")
            if not self.robots.can_fetch(USER_AGENT, target):
                return _Outcome(url, kind, failure="robots.txt")
            if target in seen:
                return _Outcome(url, kind, failure="redirect loop")
            seen.add(target)
            current = target
        return _Outcome(url, kind, failure="too many redirects")

    def _classify(self, url: str) -> str | None:
        """Return the kind of a linked URL worth fetching, or None (counted) if it is not."""
        parts = urllib.parse.urlsplit(url)
        if parts.query:
            self.skipped["query string"] += 1
            return None
        address = urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))
        if not address.startswith(self.prefix):
            self.skipped["off the prefix"] += 1
            return None
        if any(part.startswith("_") for part in address[len(self.prefix):].split("/")[:-1]):
            # A generator's own folders (Sphinx's _modules, _static, _images, _downloads): no
            # page of the documentation lives there, and the builder reads none from there.
            self.skipped["generator's own files"] += 1
            return None
        if _is_page_url(address):
            return _PAGE
        if "." not in address.rsplit("/", 1)[-1]:
            # "/docs/intro": a page, perhaps, but one the mirror could keep only under a name
            # the site does not serve (intro.html), so its passages' URLs would not land.
            self.skipped["no page suffix"] += 1
        else:
            self.skipped["asset or download"] += 1
        return None

    def _enqueue(self, url: str, kind: str):
        url = url.partition("#")[0]
        if url in self.queued or url in self.rejected:
            return
        reason = ("URL too long" if len(url) > MAX_URL_CHARS
                  else "not a path the mirror can hold" if mirror_path(url, self.prefix) is None
                  else "robots.txt" if not self.robots.can_fetch(USER_AGENT, url)
                  else "over the page cap" if len(self.queued) >= self.limits.max_pages
                  else None)
        if reason is not None:
            self.skipped[reason] += 1
            self._reject(url)
            return
        self.queued.add(url)
        self.queue.append((url, kind))

    def _reject(self, url: str):
        """Remember a link not followed, so that it is counted once, while there is room."""
        if len(self.rejected) < self.max_rejected and len(url) <= MAX_URL_CHARS:
            self.rejected.add(url)

    def _link(self, url: str):
        url = url.partition("#")[0]
        if url in self.queued or url in self.rejected:
            return
        if len(url) > MAX_URL_CHARS:
            self.skipped["URL too long"] += 1
            return
        kind = self._classify(url)
        if kind is None:
            self._reject(url)
        else:
            self._enqueue(url, kind)

    # -- what a reply says ------------------------------------------------------------------

    def _keep(self, outcome: _Outcome, reply: Reply, body: bytes, validated: Fetched | None):
        path = mirror_path(reply.url, self.prefix) or mirror_path(outcome.url, self.prefix)
        assert path is not None, "_enqueue queues only URLs with a mirror path"
        if path in self.kept:
            return False  # a redirect to a page already kept
        if validated is None:
            entry = Fetched(path, outcome.url, reply.url, _now_iso(),
                            hashlib.sha256(body).hexdigest(), reply.headers.get("etag", ""),
                            reply.headers.get("last-modified", ""))
            if not self._write(path, body):
                self.skipped["a path the disk cannot hold beside the others"] += 1
                return False
            self.bytes += len(body)
        else:
            entry = Fetched(validated.path, outcome.url, validated.final_url, _now_iso(),
                            validated.sha256, validated.etag, validated.last_modified)
            self.unchanged += 1
        self.kept[path] = entry
        if len(self.kept) % _SAVE_EVERY == 0:
            self._save_state()
        return True

    def _handle(self, outcome: _Outcome):
        if outcome.reply is None:
            if outcome.kind != _MAP:
                self.skipped[outcome.failure] += 1
            if outcome.url == self.start and outcome.failure in ("unreachable", "TLS error",
                                                                  "redirect off the prefix"):
                raise CrawlError(f"{self.start}: {outcome.failure}")
            return
        reply, validated, body = outcome.reply, None, outcome.reply.body
        if reply.status == 304:
            validated = self.previous.get(reply.url) or self.previous.get(outcome.url)
            cached = self._cached_body(validated) if validated else None
            if cached is None:
                self.skipped["304 without a cached copy"] += 1
                return
            body = cached
        elif reply.status != 200:
            if outcome.kind != _MAP:
                self.skipped[f"HTTP {reply.status}"] += 1
            return
        if self.bytes + (0 if validated else len(body)) > self.limits.max_total_bytes:
            self.skipped["over the total byte cap"] += 1
            return
        is_html = reply.content_type in _HTML_TYPES
        if validated is None and outcome.kind == _MAP and is_html:
            return  # no site map is HTML: a page served for one the site does not have
        if validated is None and ((outcome.kind == _PAGE and not is_html)
                                  or (outcome.kind == _DOCUMENT and is_html)):
            self.skipped["wrong content type"] += 1
            return
        if outcome.kind == _PAGE:
            if self.not_found_title is not None and _title(body) == self.not_found_title:
                self.skipped["error page served with 200"] += 1
                return
        if not self._keep(outcome, reply, body, validated):
            return
        if outcome.kind == _PAGE:
            self.pages += 1
            for link in _page_links(body, reply.url):
                self._link(link)
        elif outcome.kind == _DOCUMENT:
            self.pages += 1
        else:
            self._read_map(outcome.url[len(self.prefix):], body)

    def _read_map(self, name: str, body: bytes):
        """Queue the pages a site map lists."""
        if name == "objects.inv":
            try:
                entries = read_inventory(body, self.limits.max_page_bytes)
            except InventoryError:
                return
            for page in sorted({entry.page for entry in entries}):
                self._link(urllib.parse.urljoin(self.prefix, page))
        elif name == "searchindex.js":
            names = []
            for quoted in _filenames(body):
                try:
                    names.append(json.loads(b'"' + quoted + b'"'))
                except ValueError:
                    continue  # a name the index mangled: its page is still linked
            # A Sphinx site's reST copies, at _sources/<file name>.txt: asked for one first, and
            # the rest only if the site keeps them (html_copy_source).
            self.sources_probe = [urllib.parse.urljoin(self.prefix, "_sources/" + name + ".txt")
                                  for name in names if isinstance(name, str)
                                  ][:self.limits.max_pages]
            if self.sources_probe:
                self._enqueue(self.sources_probe.pop(0), _SOURCE_PROBE)
        elif name.endswith(".xml"):
            self._read_sitemap(body)
        elif name == llms_index.INDEX:
            for link in llms_index.read_index(body.decode("utf-8", "replace")):
                url = urllib.parse.urljoin(self.prefix, link.url).partition("#")[0]
                if url.startswith(self.prefix) and url.endswith((".md", ".txt")):
                    self._enqueue(url, _DOCUMENT)
                else:
                    self._link(url)

    def _read_sitemap(self, body: bytes):
        try:
            tree = ElementTree.fromstring(body)
        except ElementTree.ParseError:
            return
        for element in tree.iter():
            if element.tag.rsplit("}", 1)[-1] == "loc" and element.text:
                loc = element.text.strip()
                if tree.tag.endswith("sitemapindex"):  # nested maps: bounded by the page cap
                    if loc.startswith(self.prefix) and loc.endswith(".xml"):
                        self._enqueue(loc, _MAP)
                else:
                    self._link(loc)

    # -- the crawl --------------------------------------------------------------------------

    def _robots_reply(self, robots_url: str) -> Reply:
        """GET robots.txt, following redirects on its own host, up to --crawl-max-redirects
        (RFC 9309 2.3.1.2 asks for at least 5); raise CrawlError where it cannot be read."""
        host, url = urllib.parse.urlsplit(robots_url).hostname, robots_url
        for _ in range(self.limits.max_redirects + 1):
            try:
                reply = get(url, self.limits, sleep=self.sleep)
            except FetchFailure as failure:
                raise CrawlError(f"{robots_url}: {failure}; {_UNREACHABLE}") from None
            if reply.status not in REDIRECTS:
                return reply
            url = urllib.parse.urljoin(url, reply.headers.get("location", ""))
            parts = urllib.parse.urlsplit(url)
            if parts.scheme not in ("http", "https") or parts.hostname != host:
                # RFC 9309 would follow it; a crawl asks nothing of a host but its site's, so
                # this robots.txt is one it cannot read.
                raise CrawlError(f"{robots_url}: redirects to another host ({url}), which a "
                                 f"crawl does not ask; {_UNREACHABLE}")
        raise CrawlError(f"{robots_url}: more than {self.limits.max_redirects} redirects; "
                         f"{_UNREACHABLE}")

    def _read_robots(self):
        """Read the site's robots.txt as RFC 9309 2.3.1 says: its rules where it is served; a
        4xx (unavailable) allows everything, but 401 and 403, which disallow everything (as
        Python's robotparser reads them: a site that refuses its rules is not crawled); one
        that cannot be read (unreachable: a 5xx, a network failure, a redirect off its host or
        too many) disallows everything, so the crawl stops."""
        parts = urllib.parse.urlsplit(self.prefix)
        robots_url = f"{parts.scheme}://{parts.netloc}/robots.txt"
        reply = self._robots_reply(robots_url)
        if reply.status in (401, 403):
            self.robots.disallow_all = True
        elif reply.status >= 500:
            raise CrawlError(f"{robots_url}: HTTP {reply.status}; {_UNREACHABLE}")
        elif reply.status == 200:
            self.robots.parse(reply.body.decode("utf-8", "replace").splitlines())
        else:
            self.robots.allow_all = True
        if not self.robots.can_fetch(USER_AGENT, self.start):
            raise CrawlError(f"{robots_url} forbids {USER_AGENT.split()[0]} to crawl "
                             f"{self.start}")
        delay = self.robots.crawl_delay(USER_AGENT)
        if delay:
            delay = float(delay)
            if delay > self.limits.max_retry_after_s:
                raise CrawlError(f"{robots_url}: Crawl-delay {delay:g}s is over "
                                 f"{self.limits.max_retry_after_s:g}s")
            self.pace = _Pace(max(self.limits.delay_s, delay), self.sleep)

    def _probe_not_found(self):
        """Learn the title of the page the site serves for a page it does not have."""
        probe = self.prefix + f"retrieval-probe-{os.urandom(6).hex()}.html"
        try:
            reply = get(probe, self.limits, sleep=self.sleep)
        except FetchFailure:
            return
        if reply.status == 200 and reply.content_type in _HTML_TYPES:
            self.not_found_title = _title(reply.body)

    def tick(self, force=False):
        now = time.monotonic()
        if force or now - self._last_tick >= 1.0:
            self._last_tick = now
            print(f"fetch: {self.label}: {len(self.kept)} files ({self.pages} pages, "
                  f"{self.unchanged} unchanged), "
                  f"{sum(self.skipped.values())} skipped, {self.bytes} bytes, "
                  f"{len(self.queue)} queued", file=self.stream, flush=True)

    def _after(self, outcome: _Outcome):
        if outcome.kind == _SOURCE_PROBE:
            ok = outcome.reply is not None and outcome.reply.status in (200, 304)
            outcome = _Outcome(outcome.url, _DOCUMENT, outcome.reply, outcome.failure)
            for url in (self.sources_probe or []) if ok else ():
                self._enqueue(url, _DOCUMENT)
            self.sources_probe = None
        self._handle(outcome)

    def run(self) -> CrawlResult:
        """Crawl the prefix; return the mirror, or raise CrawlError with one line."""
        self._read_robots()
        self._probe_not_found()
        self._enqueue(self.start, _PAGE if _is_page_url(self.start) else _DOCUMENT)
        for name in _MAPS:
            self._enqueue(self.prefix + name, _MAP)
        try:
            self._loop()
        except BaseException:
            self._save_state()
            raise
        return self._finish()

    def _loop(self) -> None:
        pool = concurrent.futures.ThreadPoolExecutor(self.limits.in_flight,
                                                     thread_name_prefix="crawl")
        pending: set = set()
        try:
            while self.queue or pending:
                while self.queue and len(pending) < self.limits.in_flight:
                    if self.requests >= self.limits.max_pages:
                        self.skipped["over the page cap"] += len(self.queue)
                        self.queue.clear()
                        break
                    url, kind = self.queue.popleft()
                    self.requests += 1
                    pending.add(pool.submit(self._fetch, url, kind))
                if not pending:
                    break
                done, pending = concurrent.futures.wait(
                    pending, return_when=concurrent.futures.FIRST_COMPLETED)
                for future in done:
                    self._after(future.result())
                self.tick()
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def _finish(self) -> CrawlResult:
        # Files an earlier crawl kept that this one did not find are not the site any more.
        kept = set(self.kept)
        for directory, _, names in os.walk(self.root):
            for name in names:
                path = os.path.relpath(os.path.join(directory, name), self.root)
                if path.replace(os.sep, "/") not in kept:
                    os.remove(os.path.join(directory, name))
        self._save_state(complete=True)
        self.tick(force=True)
        elapsed = time.monotonic() - self._started
        skipped = ", ".join(f"{reason} {count}" for reason, count in sorted(self.skipped.items()))
        print(f"fetch: {self.label}: done: {len(self.kept)} files ({self.pages} pages, "
              f"{self.unchanged} unchanged), "
              f"{self.bytes} bytes fetched in {elapsed:.1f}s; skipped: {skipped or 'none'}",
              file=self.stream, flush=True)
        if not self.pages:
            raise CrawlError(f"{self.start}: no documentation pages under {self.prefix} "
                             f"(skipped: {skipped or 'none'})")
        return CrawlResult(self.root, sorted(self.kept.values(), key=lambda f: f.path),
                           self.pages, self.unchanged, self.bytes, self.skipped)


def crawl(url: str, cache_dir: str, limits: Limits | None = None, label: str = "",
          stream=None, sleep: Callable[[float], None] = time.sleep) -> CrawlResult:
    """Crawl a documentation site under a URL prefix into the fetch cache; return the mirror."""
    return Crawler(url, cache_dir, limits or Limits(), label, stream, sleep).run()
