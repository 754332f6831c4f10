"""The rendered site: which pages a documentation build published and which ids each page has.

A passage URL is a promise that the page exists and that its `#fragment` is an element id there;
this module is how the builder and `retrieval verify --rendered` keep that promise checkable.
"""

import functools
import os
import urllib.parse
from html.parser import HTMLParser
from typing import Optional


class _IdCollector(HTMLParser):
    """Collect every `id` attribute of a page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids = set()

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name == "id" and value:
                self.ids.add(value)

    handle_startendtag = handle_starttag


def page_ids(path: str) -> frozenset:
    """Return the element ids of one HTML page."""
    with open(path, encoding="utf-8", errors="replace") as page:
        collector = _IdCollector()
        collector.feed(page.read())
        collector.close()
    return frozenset(collector.ids)


class RenderedSite:
    """A rendered HTML tree published under one base URL; page ids are read once, on demand."""

    def __init__(self, root: str, base_url: str):
        if not base_url.endswith("/"):
            raise ValueError(f"base_url must end with '/': {base_url!r}")
        self.root = os.path.abspath(root)
        self.base_url = base_url

    @functools.lru_cache(maxsize=None)
    def ids(self, page: str) -> Optional[frozenset]:
        """Return the ids of a page given by its path below the root, or None if it is absent."""
        path = os.path.join(self.root, *page.split("/"))
        if not os.path.isfile(path):
            return None
        return page_ids(path)

    def page_of(self, url: str) -> Optional[str]:
        """Return the page path below the root that a URL names, or None if it is elsewhere."""
        address = url.partition("#")[0]
        if not address.startswith(self.base_url):
            return None
        return urllib.parse.unquote(address[len(self.base_url):])

    def lands(self, url: str) -> bool:
        """Tell whether a URL names a published page and, if it has a fragment, an id on it."""
        page = self.page_of(url)
        ids = self.ids(page) if page is not None else None
        if ids is None:
            return False
        _, hashed, fragment = url.partition("#")
        return not hashed or urllib.parse.unquote(fragment) in ids
