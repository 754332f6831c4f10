"""A rendered site read page by page (MkDocs, Sphinx without `_sources`, `--format html`).

Every rendered page but the ones a generator writes about the site itself gives one unit per
documented object and per section's own text, read from its main content (html_units.py), ranked
with the site's own cross-references and, from objects.inv, which pages describe Python objects.
"""

import os
import re
from collections import Counter

from ...core.ranking import SECTION
from ..readers.inventory import INVENTORY
from ..readers.rendered import RenderedSite
from ..tree import Progress, SourceTree, Unreadable, open_tree_file
from ..unit import unit_drafts
from .site import html_units, published, published_page, reference_pages

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


