"""What the rendered-site formats share: the published pages, reference pages and page units.

Both the Sphinx format (pages beside their `_sources`) and the HTML format (pages alone) read a
rendered site's pages through these: which pages the generator published, which are reference
pages, and each page's units read from its HTML (readers/html_page.py).
"""

from collections import Counter

from ..readers.html_page import page_units
from ..readers.inventory import INVENTORY, InventoryError, read_inventory
from ..readers.rendered import RenderedPage, RenderedSite
from ..tree import Progress, SourceTree, Unreadable, read_file


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
