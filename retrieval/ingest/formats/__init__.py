"""The kinds of documentation tree `retrieval build` reads: an ordered registry of formats.

Each format is a module here with a `detect` (root -> whether the tree is of its kind) and a
`read` ((tree, progress) -> its units' drafts, in path order). A tree is read by the first format
in REGISTRY whose detect holds, the last one holding for any tree; `--format NAME` chooses a
format that may be named (`named`) whatever the tree holds. A new format is one module and one
line of REGISTRY.
"""

from collections.abc import Callable
from dataclasses import dataclass

from ..tree import Progress, SourceTree
from . import html, llms, mkdocs, plain, sphinx

# `--format`'s default: read each tree by the first format whose detect holds.
AUTO = "auto"


@dataclass(frozen=True)
class Format:
    """One kind of tree: its name, how it is recognised, and how it is read."""

    name: str
    detect: Callable[[str], bool]  # (the tree's root) -> whether it is a tree of this kind
    read: Callable[[SourceTree, Progress], list]  # -> the tree's UnitDrafts
    named: bool = False  # `--format NAME` reads any tree this way


# In the order tried: a Sphinx site is also a rendered site, and any tree is a plain one.
REGISTRY = (
    Format("sphinx", sphinx.is_sphinx_site, sphinx.read_sphinx_contents),
    Format("html", html.is_rendered_site, html.read_html_contents, named=True),
    Format("llms", llms.is_llms_tree, llms.read_llms_contents),
    Format("mkdocs", mkdocs.is_mkdocs_project, mkdocs.read_mkdocs_contents),
    Format("plain", plain.is_plain_tree, plain.read_paragraph_contents),
)
# `--format`'s choices: AUTO, then each format that may be named.
CHOICES = (AUTO, *(entry.name for entry in REGISTRY if entry.named))


def format_of(tree: SourceTree) -> Format:
    """Return the format a tree is read with: the one it names, else the first that detects it."""
    for entry in REGISTRY:
        if entry.named and entry.name == tree.format:
            return entry
    return next(entry for entry in REGISTRY if entry.detect(tree.root))


def read_passage_contents(tree: SourceTree, progress: Progress) -> list:
    """Read one tree into its units' drafts (UnitDraft), in path order, by its kind of tree."""
    if tree.reader is not None:  # a fetched package says how it is read (package_docs.py)
        return tree.reader(tree, progress)
    return format_of(tree).read(tree, progress)
