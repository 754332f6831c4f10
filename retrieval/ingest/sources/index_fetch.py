"""Fetch one release's archive from the package index pip is configured for, running none of it.

`pypi:DIST==VERSION` needs one file: the release's sdist, else its pure-Python wheel, else the
smallest of its wheels for Python 3 (only its Python files are read). This finds it
the way pip would find it, with none of what `pip download` does after that (preparing an sdist's
metadata runs its build backend, and pip unpacks the archive by its own rules):

- **Where to look.** pip's own settings, read by `python -m pip config list` (pip's files in its
  documented order, `PIP_CONFIG_FILE`, and the `PIP_*` variables, as this Python's pip reads
  them; that runs pip, never the release), merged as `pip download` merges them: `[global]`, then
  `[download]`, then the environment. Without pip, the `PIP_*` variables and `PIP_CONFIG_FILE`
  alone. The options used: `index-url` (default https://pypi.org/simple/), `extra-index-url`,
  `no-index`, `find-links` (a directory, an archive, or a page of links), `cert`, `client-cert`,
  `trusted-host`, `proxy`, `timeout`. Credentials come from an index URL's `user:password@` (and
  go to that origin only, across redirects too) or from `~/.netrc` (`NETRC`). An `http://` index
  that is not loopback or a trusted host is skipped, as pip skips it.
- **Which file.** Each index's project page (PEP 503 name, PEP 691 JSON, else the PEP 503 HTML
  page), and every find-links entry, give files; the one chosen is of exactly that version
  (PEP 440's equality, as pip's `==`: `2.0-rc.1` is `2.0rc1`, `1.1` is `1.1.0`), an sdist
  (`.tar.gz` first) else a `py3-none-any` wheel, not yanked unless the version has only yanked
  files (PEP 592, as pip does for an `==` pin; said on stderr). A release published only as
  platform wheels (torch) is read from the smallest wheel for Python 3 that the index gives a
  size for (PEP 700; a find-links file's own size), else the first by name: every platform's
  wheel holds the same Python sources, and its compiled libraries are never loaded (said on
  stderr).
- **The download.** urllib, at most MAX_ARCHIVE_BYTES within ARCHIVE_DEADLINE_S, checked against
  the index's digest (sha256 from the JSON `hashes` or the URL's `#sha256=`); a mismatch is
  refused; a file an index gives no digest for is taken and its sha256 said on stderr (local
  find-links files, the user's own, silently).

Every failure is one ReleaseNotFetched line naming the release and the reason. Like all of
ingest/, this is the standard library alone: PEP 440's normal form and order are read by
core/names.py, which the service reads requests with too (the tests hold them to `packaging`'s
answers).
"""

import ast
import base64
import configparser
import hashlib
import html.parser
import json
import netrc
import os
import re
import secrets
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ... import __version__
from ...core.names import normal_version, normalized_name, version_key
from ...hosts import is_loopback

DEFAULT_INDEX = "https://pypi.org/simple/"
# No release's sources come near these (the unpacked tree is capped at 512 MiB too).
MAX_ARCHIVE_BYTES = 512 * 1024 * 1024
MAX_PAGE_BYTES = 64 * 1024 * 1024
ARCHIVE_DEADLINE_S = 900.0
PAGE_DEADLINE_S = 120.0
DEFAULT_TIMEOUT_S = 15.0  # pip's: the longest wait for one read
RETRIES = 2  # after a failed connection or a 5xx
_CHUNK = 1024 * 1024
_USER_AGENT = f"retrieval/{__version__} (documentation snapshot builder: pypi: source)"
_ACCEPT = ("application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, "
           "text/html;q=0.01")
_JSON = "application/vnd.pypi.simple.v1+json"
_HTML = ("text/html", "application/vnd.pypi.simple.v1+html", "application/xhtml+xml")
_SDIST_SUFFIXES = (".tar.gz", ".zip", ".tar.bz2", ".tgz", ".tar.xz", ".tar")
_HASHES = ("sha256", "sha512", "sha384", "sha224", "sha1", "md5")  # strongest first
_TRUE = ("1", "true", "yes", "on", "y", "t")


class ReleaseNotFetched(ValueError):
    """One line naming the release and why its archive could not be fetched."""


class ReleaseNotOnIndex(ReleaseNotFetched):
    """The indexes pip is configured for give no usable file of the release (or cannot be
    read): asking them again in the same build gets the same answer."""


# --- pip's configuration ---------------------------------------------------------------------

@dataclass(frozen=True)
class PipSettings:
    """Where pip would look for a release, and how it would connect there."""

    index_urls: tuple = (DEFAULT_INDEX,)  # index-url, then extra-index-url; () with no-index
    find_links: tuple = ()
    cert: str | None = None
    client_cert: str | None = None
    trusted_hosts: tuple = ()
    proxy: str | None = None
    timeout_s: float = DEFAULT_TIMEOUT_S
    notes: tuple = ()


def _pip_config_list(environ: Mapping) -> dict:
    """Return pip's configuration as `pip config list` prints it: {"section.key": value}."""
    try:
        done = subprocess.run([sys.executable, "-P", "-m", "pip", "config", "list"],
                              capture_output=True, text=True, stdin=subprocess.DEVNULL,
                              env=dict(environ), timeout=120, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise ReleaseNotFetched(f"`pip config list` failed: {error}") from None
    if done.returncode != 0:
        lines = [line.strip() for line in done.stderr.splitlines() if line.strip()]
        raise ReleaseNotFetched("pip's configuration cannot be read (`pip config list`: "
                                f"{lines[-1] if lines else f'exit {done.returncode}'})")
    items = {}
    for line in done.stdout.splitlines():
        key, sep, value = line.partition("=")
        if not sep:
            continue
        try:
            items[key] = str(ast.literal_eval(value))
        except (ValueError, SyntaxError):
            items[key] = value
    return items


def _without_pip(environ: Mapping) -> dict:
    """Return {"section.key": value} of PIP_CONFIG_FILE and the PIP_* variables (no pip here)."""
    items = {}
    path = environ.get("PIP_CONFIG_FILE")
    if path and path != os.devnull:
        parser = configparser.RawConfigParser()
        try:
            parser.read(path, encoding="utf-8")
        except (configparser.Error, UnicodeDecodeError) as error:
            raise ReleaseNotFetched(f"PIP_CONFIG_FILE {path}: cannot be read: "
                                    f"{str(error).splitlines()[0]}") from None
        for section in parser.sections():
            for key, value in parser.items(section):
                items[f"{section}.{key}"] = value
    for name, value in environ.items():
        if name.startswith("PIP_") and len(name) > 4:
            items[f":env:.{name[4:].lower().replace('_', '-')}"] = value
    return items


_settings_cache: dict = {}


def pip_settings(environ: Mapping | None = None) -> PipSettings:
    """Return the settings `pip download` would use under environ (default: this process's)."""
    environ = os.environ if environ is None else environ
    key = tuple(sorted(environ.items()))
    if key not in _settings_cache:
        _settings_cache[key] = _settings(environ)
    return _settings_cache[key]


def _settings(environ: Mapping) -> PipSettings:
    notes = []
    if _has_pip():
        items = _pip_config_list(environ)
    else:
        items = _without_pip(environ)
        notes.append("this Python has no pip: only the PIP_* variables and PIP_CONFIG_FILE "
                     "say where releases are")
    merged: dict = {}
    for section in ("global", "download", ":env:"):  # pip's order for `pip download`
        for key, value in items.items():
            where, _, name = key.partition(".")
            if where == section:
                merged[name.lower().replace("_", "-")] = value
    no_index = merged.get("no-index", "").strip().lower() in _TRUE
    index = merged.get("index-url", "").strip() or DEFAULT_INDEX
    extra = merged.get("extra-index-url", "").split()
    timeout = merged.get("timeout") or merged.get("default-timeout")
    try:
        timeout_s = float(timeout) if timeout else DEFAULT_TIMEOUT_S
    except ValueError:
        timeout_s = DEFAULT_TIMEOUT_S
    return PipSettings(
        index_urls=() if no_index else tuple(dict.fromkeys([index, *extra])),
        find_links=tuple(merged.get("find-links", "").split()),
        cert=merged.get("cert") or None, client_cert=merged.get("client-cert") or None,
        trusted_hosts=tuple(merged.get("trusted-host", "").split()),
        proxy=merged.get("proxy") or None,
        timeout_s=timeout_s if timeout_s > 0 else DEFAULT_TIMEOUT_S, notes=tuple(notes))


def _has_pip() -> bool:
    import importlib.util

    return importlib.util.find_spec("pip") is not None


# --- names, versions, files ------------------------------------------------------------------

def _same_version(text: str) -> str:
    """The form two versions are compared in: PEP 440's equality, as pip's `==` (the shorter
    release padded with zeros: `1.1` is `1.1.0`), else the text lowercased.

    A fetch's contract, not the service's: serving a held version (names.serve_version) pads
    nothing, so that `2.2.2.0` is not `2.2.2` there."""
    key = version_key(text)
    return repr(key) if key[0] == 1 else text.strip().lower()


@dataclass(frozen=True)
class Candidate:
    """One file an index or find-links entry offers."""

    filename: str
    url: str  # without the hash fragment
    kind: str  # "sdist" or "wheel"
    version: str  # as the filename spells it
    pure: bool  # an sdist, or a wheel for any Python 3 platform
    hashes: dict = field(default_factory=dict, compare=False)
    yanked: str | None = None  # the reason ("" when none is given); None when not yanked
    size: int | None = field(default=None, compare=False)  # bytes, where the index says

    @property
    def preference(self) -> tuple:
        """Lower is better: not yanked, sdist (.tar.gz first), then wheel, then the name."""
        suffix = next((i for i, s in enumerate(_SDIST_SUFFIXES) if self.filename.endswith(s)),
                      len(_SDIST_SUFFIXES))
        return (self.yanked is not None, self.kind != "sdist", suffix, self.filename)

    @property
    def python3(self) -> bool:
        """Tell whether a wheel is for Python 3 (`cp311`, `py3`, `pp39`): its sources parse."""
        if self.kind != "wheel":
            return False
        python = self.filename[:-len(".whl")].split("-")[-3]
        return any(tag[:2] in ("py", "cp", "pp") and tag[2:3] == "3"
                   for tag in python.split("."))

    @property
    def platform_preference(self) -> tuple:
        """Lower is better among platform wheels: not yanked, the smallest known, the name."""
        return (self.yanked is not None, self.size is None, self.size or 0, self.filename)


def parse_filename(filename: str, project: str) -> tuple | None:
    """Return (kind, version, pure) of a release file of project (normalized), or None."""
    if filename != os.path.basename(filename) or filename.startswith(".") or "\\" in filename \
            or "\0" in filename:
        return None
    if filename.endswith(".whl"):
        parts = filename[:-4].split("-")
        if len(parts) not in (5, 6) or normalized_name(parts[0]) != project:
            return None
        python, abi, platform = parts[-3:]
        pure = abi == "none" and platform == "any" \
            and any(tag.startswith("py3") for tag in python.split("."))
        return "wheel", parts[1], pure
    suffix = next((s for s in _SDIST_SUFFIXES if filename.lower().endswith(s)), None)
    if suffix is None:
        return None
    stem = filename[:-len(suffix)]
    # Where the name ends is where what precedes a '-' is the project's name (pip's reading:
    # `python-dateutil-2.8.2`).
    for at, char in enumerate(stem):
        if char == "-" and normalized_name(stem[:at]) == project and stem[at + 1:]:
            return "sdist", stem[at + 1:], True
    return None


# --- reading the index -----------------------------------------------------------------------

class _Links(html.parser.HTMLParser):
    """The anchors of a PEP 503 page: (href, data-yanked or None), and its <base href>."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.anchors: list = []
        self.base: str | None = None

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        if tag == "a" and values.get("href"):
            yanked = (values["data-yanked"] or "") if "data-yanked" in values else None
            self.anchors.append((values["href"], yanked))
        elif tag == "base" and values.get("href") and self.base is None:
            self.base = values["href"]


def _hashes_of(url: str) -> tuple:
    """Return (url without its fragment, {name: hex digest} from `#name=digest`)."""
    bare, _, fragment = url.partition("#")
    name, sep, digest = fragment.partition("=")
    name = name.lower()
    if sep and name in _HASHES and re.fullmatch(r"[0-9a-fA-F]+", digest):
        return bare, {name: digest.lower()}
    return bare, {}


def _candidates_html(body: bytes, page_url: str, project: str) -> list:
    parser = _Links()
    parser.feed(body.decode("utf-8", errors="replace"))
    parser.close()
    base = urllib.parse.urljoin(page_url, parser.base) if parser.base else page_url
    found = []
    for href, yanked in parser.anchors:
        url, hashes = _hashes_of(urllib.parse.urljoin(base, href))
        candidate = _candidate(url, hashes, yanked, project)
        if candidate is not None:
            found.append(candidate)
    return found


def _candidates_json(body: bytes, page_url: str, project: str) -> list:
    data = json.loads(body)
    if not isinstance(data, dict) or not isinstance(data.get("files"), list):
        raise ValueError("not a PEP 691 project page (no files list)")
    version = str((data.get("meta") or {}).get("api-version", "1.0"))
    if version.split(".")[0] != "1":
        raise ValueError(f"PEP 691 api-version {version}, not 1.x")
    found = []
    for entry in data["files"]:
        if not isinstance(entry, dict) or not isinstance(entry.get("url"), str) \
                or not isinstance(entry.get("filename"), str):
            continue
        url, hashes = _hashes_of(urllib.parse.urljoin(page_url, entry["url"]))
        given = entry.get("hashes")
        if isinstance(given, dict):
            hashes = {k.lower(): str(v).lower() for k, v in given.items()
                      if isinstance(k, str) and k.lower() in _HASHES} or hashes
        yanked = entry.get("yanked", False)
        reason = (yanked if isinstance(yanked, str) else "") if yanked else None
        size = entry.get("size")
        candidate = _candidate(url, hashes, reason, project, entry["filename"],
                               size if type(size) is int and size >= 0 else None)
        if candidate is not None:
            found.append(candidate)
    return found


def _candidate(url: str, hashes: dict, yanked, project: str,
               filename: str | None = None, size: int | None = None) -> Candidate | None:
    path = urllib.parse.urlsplit(url).path
    name = filename or urllib.parse.unquote(path.rsplit("/", 1)[-1])
    parsed = parse_filename(name, project)
    if parsed is None:
        return None
    kind, version, pure = parsed
    return Candidate(name, url, kind, version, pure, hashes, yanked, size)


def redacted(url: str) -> str:
    """Return url without the credentials it may carry (what errors and notes show)."""
    return re.sub(r"^([A-Za-z][A-Za-z0-9+.-]*://)[^/?#]*@", r"\1***@", url)


class _Failure(Exception):
    """A request that got no usable reply; str() is a short reason."""


class _Client:
    """GETs under pip's settings: credentials per origin, certificates, proxy, trusted hosts."""

    def __init__(self, settings: PipSettings, environ: Mapping):
        self.settings = settings
        self.environ = environ
        self.credentials: dict = {}
        self._netrc: netrc.netrc | None | bool = False  # False: not read yet

    def strip_credentials(self, url: str) -> str:
        """Remember url's user:password for its origin; return url without them."""
        parts = urllib.parse.urlsplit(url)
        if parts.username is None:
            return url
        self.credentials[_origin(url)] = (urllib.parse.unquote(parts.username),
                                          urllib.parse.unquote(parts.password or ""))
        host = parts.hostname or ""
        netloc = (f"[{host}]" if ":" in host else host) + (f":{parts.port}" if parts.port else "")
        return urllib.parse.urlunsplit(parts._replace(netloc=netloc))

    def authorization(self, url: str) -> str | None:
        found = self.credentials.get(_origin(url))
        if found is None:
            found = self._from_netrc(urllib.parse.urlsplit(url).hostname or "")
        if found is None:
            return None
        token = base64.b64encode(f"{found[0]}:{found[1]}".encode()).decode("ascii")
        return f"Basic {token}"

    def _from_netrc(self, host: str):
        if self._netrc is False:
            path = self.environ.get("NETRC") or os.path.join(
                self.environ.get("HOME") or os.path.expanduser("~"), ".netrc")
            try:
                self._netrc = netrc.netrc(path) if os.path.isfile(path) else None
            except (netrc.NetrcParseError, OSError):
                self._netrc = None
        if not isinstance(self._netrc, netrc.netrc) or not host:
            return None
        entry = self._netrc.authenticators(host)
        return (entry[0], entry[2] or "") if entry and entry[0] else None

    def trusted(self, url: str) -> bool:
        parts = urllib.parse.urlsplit(url)
        return any(host in (parts.hostname, parts.netloc.rpartition("@")[2])
                   for host in self.settings.trusted_hosts)

    def secure(self, url: str) -> bool:
        """pip's secure origins: https, file, loopback, and the trusted hosts."""
        parts = urllib.parse.urlsplit(url)
        if parts.scheme in ("https", "file") or self.trusted(url):
            return True
        return is_loopback(parts.hostname or "")

    def _context(self, url: str) -> ssl.SSLContext:
        if self.trusted(url):
            context = ssl.create_default_context()
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        else:
            try:
                context = ssl.create_default_context(cafile=self.settings.cert)
            except (OSError, ssl.SSLError) as error:
                raise _Failure(f"pip's cert {self.settings.cert}: {error}") from None
        if self.settings.client_cert:
            try:
                context.load_cert_chain(self.settings.client_cert)
            except (OSError, ssl.SSLError) as error:
                raise _Failure(f"pip's client-cert {self.settings.client_cert}: "
                               f"{error}") from None
        return context

    def open(self, url: str, accept: str, deadline: float):
        """Return the response to a GET of an http(s) URL (HTTPError for a status >= 400)."""
        proxies = ({"http": self.settings.proxy, "https": self.settings.proxy}
                   if self.settings.proxy else None)  # else the *_proxy variables
        opener = urllib.request.build_opener(
            urllib.request.ProxyHandler(proxies),
            urllib.request.HTTPSHandler(context=self._context(url)), _Redirects(self))
        request = urllib.request.Request(url, headers={"User-Agent": _USER_AGENT,
                                                       "Accept": accept})
        authorization = self.authorization(url)
        if authorization:
            request.add_unredirected_header("Authorization", authorization)
        timeout = max(0.1, min(self.settings.timeout_s, deadline - time.monotonic()))
        return opener.open(request, timeout=timeout)

    def fetch(self, url: str, accept: str, limit: int, deadline_s: float, sink=None):
        """GET url (http, https or file) into sink (or memory, returned) within limit bytes.

        Returns (final url, content type, body; None when written to sink). Raises _NotThere
        for a 404 or no such local file, _Failure otherwise; a failed connection or a 5xx is
        tried RETRIES times more.
        """
        for attempt in range(RETRIES + 1):
            try:
                return self._fetch_once(url, accept, limit, deadline_s, sink)
            except _Retry as retry:
                if attempt == RETRIES:
                    raise _Failure(str(retry)) from None
                if sink is not None:
                    sink.seek(0)
                    sink.truncate()
                time.sleep(0.5 * 2 ** attempt)
        raise AssertionError("unreachable")

    def _fetch_once(self, url, accept, limit, deadline_s, sink):
        deadline = time.monotonic() + deadline_s
        if url.startswith("file:"):
            path = urllib.request.url2pathname(urllib.parse.urlsplit(url).path)
            if os.path.isdir(path):
                path, url = os.path.join(path, "index.html"), urllib.parse.urljoin(
                    url if url.endswith("/") else url + "/", "index.html")
            if not os.path.isfile(path):
                raise _NotThere("not there")
            kind = "text/html" if path.endswith((".html", ".htm")) else ""
            try:
                with open(path, "rb") as source:
                    return url, kind, _read(source, limit, deadline, deadline_s, sink)
            except OSError as error:
                raise _Failure(f"cannot read {path}: {error.strerror or error}") from None
        try:
            with self.open(url, accept, deadline) as response:
                length = response.headers.get("Content-Length", "")
                if length.isdigit() and int(length) > limit:
                    raise _Failure(f"{length} bytes, over the {limit}-byte cap")
                kind = response.headers.get("Content-Type", "").split(";")[0].strip().lower()
                return response.geturl(), kind, _read(response, limit, deadline, deadline_s,
                                                      sink)
        except urllib.error.HTTPError as error:
            with error:
                if error.code == 404:
                    raise _NotThere("not found (HTTP 404)") from None
                if error.code >= 500:
                    raise _Retry(f"HTTP {error.code}") from None
                hint = " (credentials missing or refused)" if error.code in (401, 403) else ""
                raise _Failure(f"HTTP {error.code}{hint}") from None
        except urllib.error.URLError as error:
            raise _Retry(f"unreachable: {error.reason}") from None
        except (TimeoutError, ConnectionError) as error:
            raise _Retry(f"unreachable: {error or type(error).__name__}") from None
        except (OSError, ValueError) as error:  # http.client's errors are OSError or ValueError
            raise _Failure(f"unreachable: {error or type(error).__name__}") from None


class _Retry(_Failure):
    """A failure worth another try (a failed connection, a 5xx)."""


class _NotThere(_Failure):
    """A 404, or no such local file."""


def _read(source, limit: int, deadline: float, deadline_s: float, sink):
    chunks: list[bytes] = []
    size = 0
    read = getattr(source, "read1", source.read)  # what has come: a slow drip meets the deadline
    while True:
        if time.monotonic() > deadline:
            raise _Failure(f"not complete in {deadline_s:g}s")
        chunk = read(_CHUNK)
        if not chunk:
            return b"".join(chunks) if sink is None else None
        size += len(chunk)
        if size > limit:
            raise _Failure(f"more than {limit} bytes")
        if sink is None:
            chunks.append(chunk)
        else:
            sink.write(chunk)


def _origin(url: str) -> tuple:
    parts = urllib.parse.urlsplit(url)
    default = {"http": 80, "https": 443}.get(parts.scheme)
    try:
        port = parts.port or default
    except ValueError:
        port = None
    return parts.scheme, (parts.hostname or "").lower(), port


class _Redirects(urllib.request.HTTPRedirectHandler):
    """Follow http(s) redirects only; credentials go only where their origin is."""

    max_redirections = 5

    def __init__(self, client: _Client):
        super().__init__()
        self.client = client

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        if urllib.parse.urlsplit(newurl).scheme not in ("http", "https"):
            return None
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None:
            authorization = self.client.authorization(newurl)
            if authorization:
                new.add_unredirected_header("Authorization", authorization)
        return new


# --- choosing and fetching -------------------------------------------------------------------

@dataclass
class _Search:
    """What the sources said about one project."""

    candidates: list = field(default_factory=list)
    searched: list = field(default_factory=list)  # redacted index URLs and find-links entries
    failures: list = field(default_factory=list)  # (where, reason)
    found: bool = False  # a page or a file of the project was there
    notes: list = field(default_factory=list)


def _search(project: str, settings: PipSettings, client: _Client) -> _Search:
    search = _Search(notes=list(settings.notes))
    for entry in settings.find_links:
        search.searched.append(redacted(entry))
        try:
            found = _find_links(entry, project, client)
        except (_Failure, OSError, ValueError) as failure:  # ValueError: not a URL, or JSON
            search.failures.append((redacted(entry), str(failure)))
            continue
        search.found = search.found or bool(found)
        search.candidates.extend(found)
    for index in settings.index_urls:
        try:
            index = client.strip_credentials(index)
        except ValueError as error:  # a port that is no number
            search.searched.append(redacted(index))
            search.failures.append((redacted(index), f"not a URL: {error}"))
            continue
        index = index if index.endswith("/") else index + "/"
        search.searched.append(index)
        if not client.secure(index):
            search.failures.append((index, "not https, loopback or a trusted-host (pip skips "
                                           "it too)"))
            search.notes.append(f"skipped the index {index}: not https, loopback or a "
                                "trusted-host")
            continue
        page = urllib.parse.urljoin(index, urllib.parse.quote(project) + "/")
        try:
            url, kind, body = client.fetch(page, _ACCEPT, MAX_PAGE_BYTES, PAGE_DEADLINE_S)
        except _NotThere:
            continue  # no such project on this index
        except _Failure as failure:
            search.failures.append((page, str(failure)))
            continue
        try:
            if kind == _JSON:
                search.candidates.extend(_candidates_json(body, url, project))
            elif kind in _HTML or (kind == "" and url.startswith("file:")):
                search.candidates.extend(_candidates_html(body, url, project))
            else:
                raise ValueError(f"content type {kind or 'none'}, not a PEP 503/691 page")
        except ValueError as error:  # json.JSONDecodeError too
            search.failures.append((page, f"unreadable: {error}"))
            continue
        search.found = True
    return search


def _find_links(entry: str, project: str, client: _Client) -> list:
    """Return the candidates of project in one find-links entry: a directory, file or page."""
    if re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", entry) and not entry.startswith("file:"):
        if not client.secure(entry):
            raise _Failure("not https, loopback or a trusted-host (pip skips it too)")
        url, _, body = client.fetch(client.strip_credentials(entry), "text/html",
                                    MAX_PAGE_BYTES, PAGE_DEADLINE_S)
        return _candidates_html(body, url, project)
    path = (urllib.request.url2pathname(urllib.parse.urlsplit(entry).path)
            if entry.startswith("file:") else os.path.abspath(entry))
    if os.path.isdir(path):
        with os.scandir(path) as entries:
            names = sorted(e.name for e in entries if e.is_file())
        return [c for c in (_candidate(Path(path, name).as_uri(), {}, None, project, None,
                                       os.path.getsize(os.path.join(path, name)))
                            for name in names) if c is not None]
    if os.path.isfile(path) and path.endswith((".html", ".htm")):
        with open(path, "rb") as page:
            return _candidates_html(page.read(MAX_PAGE_BYTES), Path(path).as_uri(), project)
    if os.path.isfile(path):
        found = _candidate(Path(path).as_uri(), {}, None, project, None, os.path.getsize(path))
        return [found] if found is not None else []
    return []  # pip ignores a find-links path that is not there too


def _nearby(versions: list, wanted: str) -> str:
    """The releases around wanted in PEP 440's order (the newest, if wanted is no version)."""
    ordered = sorted(set(versions), key=version_key)
    count = f"of {len(ordered)} release{'s' if len(ordered) != 1 else ''}"
    if normal_version(wanted) is None:
        return f"{wanted} is not a PEP 440 version; the newest: {', '.join(ordered[-3:])} ({count})"
    at = sum(1 for v in ordered if version_key(v) < version_key(wanted))
    return f"releases near it: {', '.join(ordered[max(0, at - 3):at + 3])} ({count})"


def choose(candidates: list, version: str) -> tuple:
    """Return (the candidate to fetch or None, the candidates of that version)."""
    wanted = _same_version(version)
    of_version = [c for c in candidates if _same_version(c.version) == wanted]
    usable = sorted((c for c in of_version if c.pure), key=lambda c: c.preference)
    if usable:
        return usable[0], of_version
    # Platform wheels only: whichever platform's, the Python files are the same.
    platform = sorted((c for c in of_version if c.python3), key=lambda c: c.platform_preference)
    return (platform[0] if platform else None), of_version


def fetch_release(dist: str, version: str, dest: Path, environ: Mapping | None = None,
                  note: Callable[[str], None] | None = None) -> Path:
    """Download the sdist (else the pure wheel, else a platform wheel's smallest) of
    dist==version into dest; return its path.

    Raises ReleaseNotFetched, one line naming the release. Notes (a yanked file, a digest the
    index does not give, an index skipped) go to note once the file is there.
    """
    release = f"pypi:{dist}=={version}"
    environ = os.environ if environ is None else environ
    project = normalized_name(dist)
    try:
        settings = pip_settings(environ)
    except ReleaseNotFetched as error:
        raise ReleaseNotFetched(f"{release}: {error}") from None
    client = _Client(settings, environ)
    search = _search(project, settings, client)
    chosen, of_version = choose(search.candidates, version)
    if chosen is None:
        raise ReleaseNotOnIndex(f"{release}: {_why_none(search, project, version, of_version)}")
    if chosen.yanked is not None:
        search.notes.append(f"{release}: {chosen.filename} is yanked"
                            + (f" ({chosen.yanked})" if chosen.yanked else "")
                            + "; no file of that release is not, so it is used (as pip does "
                              "for an == pin)")
    if not chosen.pure:
        wheels = sum(1 for c in of_version if c.python3)
        which = (f"the smallest ({chosen.size / 1e6:.1f} MB)" if chosen.size is not None
                 else "the first by name (the index gives no sizes)")
        search.notes.append(
            f"{release}: no sdist and no pure-Python wheel; its Python files are read from "
            f"{chosen.filename}, {which} of its {wheels} wheel{'s' if wheels != 1 else ''} "
            "for Python 3; nothing of it is loaded or run")
    path = _download(release, chosen, dest, client, search.notes)
    if note is not None:
        for line in search.notes:
            note(line)
    return path


def _why_none(search: _Search, project: str, version: str, of_version: list) -> str:
    """The reason no file was chosen, the sources searched and those that failed."""
    if not search.searched:
        return "nowhere to look for it: pip's no-index is set and find-links is empty"
    searched = ", ".join(search.searched)
    failed = "".join(f"; {where} failed: {reason}" for where, reason in search.failures)
    if of_version:
        names = sorted({c.filename for c in of_version})
        more = f" and {len(names) - 3} more" if len(names) > 3 else ""
        return (f"no sdist and no wheel for Python 3 of it, only "
                f"{', '.join(names[:3])}{more}")
    if not search.found:
        return f"no project {project} in {searched}{failed}"
    return (f"{project} has no release {version}; "
            f"{_nearby([c.version for c in search.candidates], version)} in {searched}{failed}")


def _download(release: str, chosen: Candidate, dest: Path, client: _Client,
              notes: list) -> Path:
    """Fetch chosen into dest, check its digest, and return its path (nothing left on failure)."""
    target = dest / chosen.filename
    # A name of its own, so that two builds fetching the same release into one cache never
    # write the same partial file (the last os.replace wins, and both files are the same bytes).
    partial = dest / f"{chosen.filename}.{os.getpid()}-{secrets.token_hex(4)}.part"
    algorithm = next((name for name in _HASHES if name in chosen.hashes), None)
    where = redacted(chosen.url)
    try:
        with open(partial, "xb") as sink:
            try:
                client.fetch(chosen.url, "*/*", MAX_ARCHIVE_BYTES, ARCHIVE_DEADLINE_S, sink)
            except _NotThere:
                raise ReleaseNotFetched(f"{release}: {chosen.filename} from {where}: not "
                                        "there (the index lists it)") from None
            except _Failure as failure:
                raise ReleaseNotFetched(f"{release}: {chosen.filename} from {where}: "
                                        f"{failure}") from None
        digests = _digests(partial, algorithm)
        if algorithm is not None and digests[algorithm] != chosen.hashes[algorithm]:
            raise ReleaseNotFetched(
                f"{release}: {chosen.filename} from {where} does not match the {algorithm} "
                f"the index gives (index {chosen.hashes[algorithm][:16]}..., file "
                f"{digests[algorithm][:16]}...): refused")
        if algorithm is None and not chosen.url.startswith("file:"):
            notes.append(f"{release}: {where} comes with no digest: not checked (its sha256 "
                         f"is {digests['sha256']})")
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return target


def _digests(path: Path, algorithm: str | None) -> dict:
    names = {"sha256", *([algorithm] if algorithm else [])}
    digests = {name: hashlib.new(name) for name in names}
    with open(path, "rb") as source:
        while chunk := source.read(_CHUNK):
            for digest in digests.values():
                digest.update(chunk)
    return {name: digest.hexdigest() for name, digest in digests.items()}
