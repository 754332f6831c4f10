"""A published Sphinx HTML root: rendered pages beside their reST sources (`_sources/`).

Debian's python3.11-doc is one. Each page gives one unit per documented object and per section's
own text, quoted from its reST source (units.py), or from the rendered page where the source is
autodoc stubs (the text exists only in the HTML) or is not reST (MyST Markdown, a notebook),
anchored with the rendered pages' own ids and ranked with priors read off the documentation's
structure (its cross-references, its object kinds, which pages describe objects). Objects a
directive of the project's own generated (Jinja's `jinja:filters`) or an `.. include::` brought
in have no lines in the page's source, and a glossary's entries no ids there: they are quoted
from the rendered page, beside the source's units; so are the sections an include brought in
(Sphinx copies a document's own source to _sources, not the files it includes: werkzeug's
`.. include:: ../CHANGES.rst`).
"""

import os
import posixpath
import re
from collections import Counter

from ..readers.inventory import INVENTORY
from ..readers.rendered import RenderedPage, RenderedSite
from ..readers.rst import DELIMITER
from ..readers.sphinx_page import generates_text, page_units, renders_nothing
from ..tree import Progress, SourceTree, read_sources
from ..unit import unit_drafts
from .site import html_units, published, published_page, reference_pages

SOURCES = "_sources"
# Sphinx copies each source to _sources/DOCNAME + its suffix + this (html_sourcelink_suffix's
# default; not doubled on a source that already ends so).
_SOURCE_LINK_SUFFIX = ".txt"
# An include directive in a page's source, and the file it names: Sphinx copies each
# document's own source to _sources, not the files it includes (`.. include:: ../CHANGES.rst`),
# whose text and sections exist only in the HTML.
_INCLUDE = re.compile(r"^[ \t]*\.\.[ \t]+include" + DELIMITER + r"[ \t]*(\S+)", re.M)


def is_sphinx_site(root: str) -> bool:
    """Tell whether a tree is a published Sphinx HTML root (rendered pages beside _sources)."""
    return os.path.isdir(os.path.join(root, SOURCES)) and (
        os.path.isfile(os.path.join(root, INVENTORY))
        or os.path.isfile(os.path.join(root, "index.html")))


def read_sphinx_contents(tree: SourceTree, progress: Progress) -> list:
    """Parse a published Sphinx site into one passage per documented object and section text.

    A page's units come from its reST source, or from the rendered page where the source is
    autodoc stubs (the text exists only in the HTML) or not reST; so do the objects of a page
    the source has no lines for.
    """
    site = RenderedSite(tree.root, tree.base_url, tree.max_file_bytes)
    pages = published(tree, site, site.pages(), progress)
    # The documentation's own cross-references: how often each (page, id) is linked to.
    in_links = Counter(target for page in pages for target in published_page(site, page).links)
    reference = reference_pages(tree, site, {page for page in pages if any(
        obj.ids for obj in published_page(site, page).python_objects())}, progress)
    contents = []
    for relative_source, text, source_sha256 in read_sources(tree, SOURCES, progress):
        source = relative_source.removesuffix(_SOURCE_LINK_SUFFIX)
        page = posixpath.splitext(source)[0] + ".html"
        rendered = site.page(page)
        if rendered is None:
            if page not in site.refused:  # a refused page was reported with its reason
                progress.skip(f"{tree.label}/{relative_source}", "no rendered page")
            continue
        # A source the reST reader cannot read (MyST Markdown, a notebook) says no more than
        # its page: the page is read as the document.
        if not source.endswith(".rst") or generates_text(text):
            read = html_units(tree, page, progress)
            if read is None:
                continue
            source_id, sha256, units = read
        else:
            source_id, sha256 = f"{SOURCES}/{relative_source}", source_sha256
            units = page_units(text, rendered)
        includes = source_id != page and _includes_no_page(site, source, text)
        if includes:
            # Above its first title, a source of nothing but such an include (and what renders
            # nothing: Sphinx's examples.rst, `:tocdepth:`, a label, `.. include:: ../EXAMPLES`)
            # renders no text of its own there: what the include brings is read from the HTML.
            units = [unit for unit in units if unit.title or not all(
                renders_nothing(line) or _INCLUDE.match(line) for line in unit.text.split("\n"))]
        contents.extend(unit_drafts(tree, page, source_id, sha256, units, reference, in_links))
        progress.passages += len(units)
        if source_id != page:  # read from its source: objects it has no lines for, after them
            contents.extend(_rendered_only_objects(tree, page, rendered, units, reference,
                                                   in_links, progress, sections=includes))
    return contents


def _includes_no_page(site: RenderedSite, source: str, text: str) -> bool:
    """Tell whether a page's source includes a file that is no page of the site (a page's
    own units hold the lines of one that is, as a `pypi:` build places them: pydicom's
    release notes index includes each release's page)."""
    for target in _INCLUDE.findall(text):
        name = target.lstrip("/") if target.startswith("/") else posixpath.normpath(
            posixpath.join(posixpath.dirname(source), target))
        if name.startswith("../") or site.page(posixpath.splitext(name)[0] + ".html") is None:
            return True  # outside the docs folder, or no page: no _sources copy holds it
    return False


def _rendered_only_objects(tree: SourceTree, page: str, rendered: RenderedPage, units: list,
                           reference: set, in_links: Counter, progress: Progress,
                           sections: bool = False) -> list:
    """Return the drafts of the rendered page's objects that no unit of its source anchors,
    read from the rendered page (none if every object has its source lines); sections: its
    sections too (a source that includes a file _sources lacks)."""
    anchored = {anchor for unit in units for anchor in unit.anchors}
    missing = {obj_id for obj in rendered.objects for obj_id in obj.ids} - anchored
    if sections:
        missing |= {section.section_id for section in rendered.sections} - anchored
    if not missing:
        return []
    read = html_units(tree, page, progress)
    if read is None:
        return []
    source_id, sha256, rendered_units = read
    # An object's own ids, all of them missing (a glossary entry's too, read as a section of
    # its own): the section units around them are the source's.
    found = [unit for unit in rendered_units if unit.anchors and set(unit.anchors) <= missing]
    progress.passages += len(found)
    return unit_drafts(tree, page, source_id, sha256, found, reference, in_links)
