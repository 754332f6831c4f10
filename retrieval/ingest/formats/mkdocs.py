"""The Markdown sources of an MkDocs project: its docs_dir, named by an mkdocs.yml.

Only the Markdown is published as pages, anchored and addressed as MkDocs renders it
(markdown.py: its heading ids, `page/` or `page.html`); the docs_dir is read alone.
"""

import os

from ..readers import markdown
from ..tree import Progress, SourceTree
from .plain import read_files


def docs_dir(root: str) -> tuple:
    """Return (the MkDocs project a tree is the docs of, or None; its docs_dir below the root).

    Files are read through the tree's reader (tree.py), relative to its root: a docs_dir that
    names a place outside the tree (`docs_dir: ../..`) is not an MkDocs project to read.
    """
    site = markdown.mkdocs_site(root)
    if site is None:
        return None, ""
    below = os.path.relpath(site.docs_dir, os.path.abspath(root))
    if below == os.curdir:
        return site, ""
    if below == os.pardir or below.startswith(os.pardir + os.sep):
        return None, ""
    return site, below.replace(os.sep, "/")


def is_mkdocs_project(root: str) -> bool:
    """Tell whether a tree is an MkDocs project's docs_dir, or holds it with its mkdocs.yml."""
    return docs_dir(root)[0] is not None


def read_mkdocs_contents(tree: SourceTree, progress: Progress) -> list:
    """Read an MkDocs project's Markdown pages, one unit per section, as MkDocs publishes them."""
    return read_files(tree, progress, *docs_dir(tree.root))
