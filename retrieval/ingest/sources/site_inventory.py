"""Where a published site documents each object: its objects.inv, for a release with no docs.

A release whose sdist (or wheel) holds no docs folder is read from its docstrings; with
`--base-url` naming its published site, no page of that site is known to the builder, so its
objects linked to their files and lines. A Sphinx site publishes `objects.inv` at its root, the
index intersphinx reads: each object's name and its page and id there. Read from the URL the
user named (a `file://` root or an http(s) site, one bounded GET), it places each docstring
object the site documents at its own page and id, as the site has them, never invented; the
text is still the release's own. Nothing of the site but that file is read.
"""

import hashlib
import os
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..readers.inventory import INVENTORY, InventoryError, read_inventory
from ..readers.rendered import PYTHON_DOMAIN
from ..tree import Unreadable, read_tree_file
from .http_get import REDIRECTS, FetchFailure, Limits, get


@dataclass(frozen=True)
class SiteInventory:
    """A published site's objects: a Python name -> its URL there, and what was read."""

    url: str  # the objects.inv read
    sha256: str  # of its bytes
    places: Mapping[str, str] = field(default_factory=dict)


def _read_file(url: str, max_bytes: int) -> bytes:
    """Read the file a file:// URL names as a file of the site's tree (a regular file, not a
    link out of its folder, refused past max_bytes)."""
    path = urllib.request.url2pathname(urllib.parse.urlsplit(url).path)
    return read_tree_file(os.path.dirname(path), os.path.basename(path), max_bytes)


def _read_http(url: str, max_bytes: int, limits: Limits) -> bytes:
    """GET url within the crawl's bounds, following redirects (Read the Docs' /en/latest/)
    only on the host the user named."""
    host = urllib.parse.urlsplit(url).netloc
    bounded = Limits(max_pages=1, max_page_bytes=max_bytes, max_total_bytes=max_bytes,
                     timeout_s=limits.timeout_s, retries=limits.retries,
                     max_retry_after_s=limits.max_retry_after_s,
                     max_redirects=limits.max_redirects)
    for _ in range(bounded.max_redirects + 1):
        reply = get(url, bounded)
        location = reply.headers.get("location")
        if reply.status in REDIRECTS and location:
            url = urllib.parse.urljoin(url, location)
            if urllib.parse.urlsplit(url).netloc != host:
                raise InventoryError(f"redirected off {host}, to {url}")
            continue
        if reply.status != 200:
            raise InventoryError(f"HTTP {reply.status}")
        return reply.body
    raise InventoryError(f"more than {bounded.max_redirects} redirects")


def site_inventory(base_url: str, max_bytes: int, limits: Limits,
                   offline: bool) -> SiteInventory | str:
    """Return the objects.inv of the site at base_url (ending with '/'), or why there is none
    (a phrase): not a file:// or http(s) URL, offline, unreadable, not an inventory."""
    url = base_url + INVENTORY
    scheme = urllib.parse.urlsplit(url).scheme
    try:
        if scheme == "file":
            data = _read_file(url, max_bytes)
        elif scheme in ("http", "https"):
            if offline:
                return "not read offline"
            data = _read_http(url, max_bytes, limits)
        else:
            return f"a {scheme or 'relative'} URL is not read"
        entries = read_inventory(data, max_bytes)
    except OSError as error:
        return error.strerror or str(error)
    except (InventoryError, FetchFailure, Unreadable) as error:
        return str(error)
    places: dict = {}
    for entry in entries:
        if entry.domain == PYTHON_DOMAIN:
            anchor = f"#{entry.anchor}" if entry.anchor else ""
            places.setdefault(entry.name, base_url + entry.page + anchor)
    return SiteInventory(url, hashlib.sha256(data).hexdigest(), places)
