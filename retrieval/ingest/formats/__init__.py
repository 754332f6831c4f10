"""The kinds of documentation tree `retrieval build` reads: an ordered registry of formats.

Each format is a module here with a `detect` (root -> whether the tree is of its kind) and a
`read` ((tree, progress) -> its units' drafts, in path order). A tree is read by the format it
names (`--format NAME`, or the one its source chose: a package source names `package`), else by
the first format in REGISTRY whose detect holds, the last one holding for any tree. A new format
is one module and one row of REGISTRY.
"""

from collections.abc import Callable
from dataclasses import dataclass

from ..registry import registry
from ..tree import AUTO_FORMAT, Progress, SourceTree
from . import html, llms, mkdocs, package, plain, sphinx

# `--format`'s default: read each tree by the first format whose detect holds.
AUTO = AUTO_FORMAT


@dataclass(frozen=True)
class Format:
    """One kind of tree: its name, how it is recognised, and how it is read."""

    name: str
    # (the tree's root) -> whether it is a tree of this kind; None: read only when named.
    detect: Callable[[str], bool] | None
    read: Callable[[SourceTree, Progress], list]  # -> the tree's UnitDrafts
    named: bool = False  # `--format NAME` reads any tree this way


# In the order tried: a Sphinx site is also a rendered site, and any tree is a plain one.
REGISTRY = tuple(registry((
    Format("sphinx", sphinx.is_sphinx_site, sphinx.read_sphinx_contents),
    Format("html", html.is_rendered_site, html.read_html_contents, named=True),
    Format("llms", llms.is_llms_tree, llms.read_llms_contents),
    Format("mkdocs", mkdocs.is_mkdocs_project, mkdocs.read_mkdocs_contents),
    Format(package.PACKAGE_FORMAT, None, package.read_package_contents),
    Format("plain", plain.is_plain_tree, plain.read_paragraph_contents),
), lambda entry: entry.name).values())
# `--format`'s choices: AUTO, then each format that may be named.
CHOICES = (AUTO, *(entry.name for entry in REGISTRY if entry.named))


def format_of(tree: SourceTree) -> Format:
    """Return the format a tree is read with: the one it names, else the first that detects it."""
    if tree.format != AUTO:
        return next(entry for entry in REGISTRY if entry.name == tree.format)
    return next(entry for entry in REGISTRY
                if entry.detect is not None and entry.detect(tree.root))


def read_passage_contents(tree: SourceTree, progress: Progress) -> list:
    """Read one tree into its units' drafts (UnitDraft), in path order, by its kind of tree."""
    return format_of(tree).read(tree, progress)
