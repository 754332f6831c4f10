"""A rendered site read page by page (MkDocs, Sphinx without `_sources`, `--format html`).

Every rendered page but the ones a generator writes about the site itself gives one unit per
documented object and per section's own text, read from its main content (html_units.py), ranked
with the site's own cross-references and, from objects.inv, which pages describe Python objects.
"""

import os
import re
from collections import Counter

from ...core.ranking import SECTION
from ..html_units import page_units
from ..inventory import INVENTORY, InventoryError, read_inventory
from ..rendered import RenderedPage, RenderedSite
from ..tree import Progress, SourceTree, Unreadable, open_tree_file, read_file, unit_drafts

MKDOCS_SEARCH_INDEX = ("search", "search_index.json")
_GENERATOR = re.compile(r"<meta\s+name=[\"']generator[\"']\s+content=[\"'](?:mkdocs|sphinx)",
                        re.I)
# Pages a documentation generator writes about the site itself, not documentation: at the root
# only (Django's ref/contrib/postgres/search.html is a page of its own).
_GENERATED_PAGES = frozenset(("404.html", "search.html", "genindex.html", "py-modindex.html"))


def is_rendered_site(root: str) -> bool:
    """Tell whether a tree is a published site to read page by page: MkDocs, or Sphinx without
    its `_sources` (Django's docs), as its index page's generator tag, objects.inv or MkDocs's
    search index say (a custom MkDocs theme, as Django REST framework's, writes no generator
    tag)."""
    if os.path.isfile(os.path.join(root, INVENTORY)) or os.path.isfile(
            os.path.join(root, *MKDOCS_SEARCH_INDEX)):
        return True
    try:
        with open_tree_file(root, "index.html") as handle:
            head = handle.read(65536).decode("utf-8", "replace")
    except (OSError, Unreadable):
        return False  # the build, if it reads the page, reports why it is refused
    return _GENERATOR.search(head) is not None


def read_html_contents(tree: SourceTree, progress: Progress) -> list:
    """Read every rendered page of an HTML tree (MkDocs, or any site) as the document itself."""
    site = RenderedSite(tree.root, tree.base_url, tree.max_file_bytes)
    pages = published(tree, site, [page for page in site.pages()
                                   if page not in _GENERATED_PAGES], progress)
    in_links = Counter(target for page in pages for target in published_page(site, page).links)
    read = [found for found in (html_units(tree, page, progress) for page in pages) if found]
    progress.tick(tree.label, force=True)
    reference = reference_pages(tree, site, {page for page, _, units in read
                                             if any(unit.kind != SECTION for unit in units)},
                                progress)
    contents = []
    for page, sha256, units in read:
        contents.extend(unit_drafts(tree, page, page, sha256, units, reference, in_links))
        progress.passages += len(units)
    return contents


def published(tree: SourceTree, site: RenderedSite, pages, progress: Progress) -> list:
    """Return the pages of a site that are read (reporting each one refused: tree.py)."""
    found = []
    for page in pages:
        if site.page(page) is not None:
            found.append(page)
        elif page in site.refused:
            progress.skip(f"{tree.label}/{page}", site.refused[page])
    return found


def published_page(site: RenderedSite, page: str) -> RenderedPage:
    """Return a page that published() returned: one the site has."""
    rendered = site.page(page)
    assert rendered is not None, f"{page} is not a published page"
    return rendered


def html_units(tree: SourceTree, page: str, progress: Progress):
    """Return (source_id, sha256, units) of a rendered page read as the document itself, or
    None (reported) if it is not UTF-8, as for every source file."""
    read = read_file(tree, page, progress)
    if read is None:
        return None
    text, sha256 = read
    return page, sha256, page_units(text)


def reference_pages(tree: SourceTree, site: RenderedSite, documenting: set,
                    progress: Progress) -> set:
    """Return the pages that describe Python objects: the documentation's reference pages.

    From objects.inv when there is one: pages where Python objects are at least as many as the
    objects of other domains (a C API page documents C functions, whatever Python it mentions).
    Without it (or with one that is refused, reported), `documenting`: the pages whose rendered
    HTML describes a Python object.
    """
    try:
        entries = read_inventory(site.read(INVENTORY), tree.max_file_bytes)
    except FileNotFoundError:
        return documenting
    except (OSError, Unreadable, InventoryError) as exc:
        reason = f"cannot read: {exc.strerror or exc}" if isinstance(exc, OSError) else str(exc)
        progress.skip(f"{tree.label}/{INVENTORY}", reason)
        return documenting
    python: Counter[str] = Counter()
    other: Counter[str] = Counter()
    for entry in entries:
        if entry.domain == "py" and entry.role != "module":
            python[entry.page] += 1
        elif entry.domain not in ("py", "std"):
            other[entry.page] += 1
    return {page for page in python if python[page] >= other[page]}
