"""Any other tree of reST, Markdown and plain text: the last format, which reads every tree.

A Markdown page gives one unit per section (markdown.py), anchored as GitHub renders it; every
other file one unit per paragraph (parse.py), ranked by its text alone.
"""

from collections import Counter

from ..readers import markdown
from ..readers.hidden import hidden_in_markup
from ..readers.rst import plain_text
from ..readers.text import page_url, parse_source
from ..tree import Progress, SourceTree, read_sources, source_kind
from ..unit import UnitDraft, unit_drafts


def is_plain_tree(root: str) -> bool:
    """Tell whether a tree is one to read file by file: any tree is."""
    return True


def read_paragraph_contents(tree: SourceTree, progress: Progress) -> list:
    """Parse every supported file of a plain tree, in path order: a Markdown page into one unit
    per section, other files into one passage per paragraph."""
    return read_files(tree, progress)


def read_files(tree: SourceTree, progress: Progress, site: markdown.MkDocsSite | None = None,
               below: str = "") -> list:
    """Read every supported file below a tree's directory `below`, in path order.

    With an MkDocs site, only its Markdown is read into units, anchored and published as MkDocs
    renders it; every other file is still read (and reported if it cannot be).
    """
    contents = []
    for relative_path, text, source_sha256 in read_sources(tree, below, progress):
        if source_kind(relative_path) == "markdown":
            found = markdown_drafts(tree, relative_path,
                                    markdown.page_path(relative_path, site), source_sha256,
                                    text, site.flavour if site else "github")
        elif site:
            continue  # MkDocs publishes only its Markdown as pages
        else:
            found = _paragraph_drafts(
                tree, relative_path, source_sha256, page_url(tree.base_url, relative_path),
                parse_source(relative_path, text), source_kind(relative_path) == "rst")
        contents.extend(found)
        progress.passages += len(found)
    return contents


def markdown_drafts(tree: SourceTree, relative_path: str, page: str, source_sha256: str,
                    text: str, flavour: str) -> list:
    """Return the drafts of one Markdown file's section units, published as page."""
    units = markdown.page_units(text, flavour, relative_path)
    return unit_drafts(tree, page, relative_path, source_sha256, units, {page}, Counter())


def _paragraph_drafts(tree, relative_path, source_sha256, page, paragraphs, prose) -> list:
    """Return the drafts of one file's paragraphs, each under the page URL + its anchor."""
    return [UnitDraft.of_paragraph(
        tree, relative_path, source_sha256,
        page + ("#" + paragraph.anchor if paragraph.anchor else ""), paragraph, True,
        body=plain_text(paragraph.text) if prose else None,
        hidden=prose and hidden_in_markup(paragraph.text))
        for paragraph in paragraphs]
