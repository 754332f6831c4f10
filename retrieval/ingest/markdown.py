"""Markdown pages (MkDocs sources, GitHub trees, llms.txt pages) -> one unit per section's own text.

A unit is a heading and its content up to the next heading of any level (`parse.markdown_sections`),
never a heading alone; fenced code stays whole inside it; front matter is not text. Its anchor is
the id the publishing site gives the heading: MkDocs' (Python-Markdown's toc) for a tree published
by MkDocs, GitHub's otherwise. A tree is published by MkDocs when an `mkdocs.yml` beside it names
it as its `docs_dir` (or it holds one): its pages are then `page/` (`use_directory_urls`, MkDocs'
default) or `page.html`, and `index.md` / `README.md` the directory itself.
"""

import os
import posixpath
import re
from dataclasses import dataclass

from ..core.ranking import SECTION
from .parse import MARKDOWN_LINK, markdown_sections
from .units import Unit

CONFIG = "mkdocs.yml"
_HEADING_MARKS = re.compile(r"^ {0,3}#{1,6}[ \t]*|[ \t]+#+[ \t]*$", re.M)
# Top-level keys of mkdocs.yml: the two that decide where pages are published. A YAML reader is
# not needed for them (and mkdocs.yml often holds !!python tags a safe loader refuses).
_TOP_LEVEL = re.compile(
    r"^(docs_dir|use_directory_urls)[ \t]*:[ \t]*(['\"]?)(.*?)\2[ \t]*(?:#.*)?$", re.M)


@dataclass(frozen=True)
class MkDocsSite:
    """Where an MkDocs project keeps its Markdown and how it publishes each page."""

    docs_dir: str  # absolute
    directory_urls: bool
    attr_list: bool = False  # markdown_extensions has attr_list: "{#id}" names a heading's id

    @property
    def flavour(self) -> str:
        """Return how its pages' heading ids are made (a parse.SLUGGERS key)."""
        return "mkdocs+attr_list" if self.attr_list else "mkdocs"


def _read_config(config_path: str) -> MkDocsSite | None:
    try:
        with open(config_path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return None
    keys = {match.group(1): match.group(3) for match in _TOP_LEVEL.finditer(text)}
    docs_dir = os.path.join(os.path.dirname(config_path), keys.get("docs_dir") or "docs")
    directory_urls = keys.get("use_directory_urls", "true").lower() not in ("false", "no", "off")
    # Listed as "- attr_list" or "- attr_list:" (with options) under markdown_extensions.
    attr_list = re.search(r"^[ \t]*-?[ \t]*attr_list\b", text, re.M) is not None
    return MkDocsSite(os.path.abspath(docs_dir), directory_urls, attr_list)


def mkdocs_site(root: str) -> MkDocsSite | None:
    """Return the MkDocs project a tree is the docs of (its own or its parent's mkdocs.yml)."""
    root = os.path.abspath(root)
    for config in (os.path.join(root, CONFIG), os.path.join(os.path.dirname(root), CONFIG)):
        site = _read_config(config) if os.path.isfile(config) else None
        if site is not None and (site.docs_dir == root or config.startswith(root + os.sep)) \
                and os.path.isdir(site.docs_dir):
            return site
    return None


def page_path(relative_path: str, site: MkDocsSite | None) -> str:
    """Return the path below the base URL of the page built from a Markdown file."""
    stem = relative_path[:-len(".md")]
    if site is None:
        return stem + ".html"
    directory, name = posixpath.split(stem)
    if name in ("index", "README"):
        return directory + "/" if directory else ""
    return stem + "/" if site.directory_urls else stem + ".html"


def _plain(text: str) -> str:
    """Return Markdown prose as a reader reads it: heading marks out, links as their text."""
    return MARKDOWN_LINK.sub(r"\1", _HEADING_MARKS.sub("", text))


def page_units(text: str, flavour: str, fallback_title: str) -> list:
    """Split one Markdown page into section units, anchored as `flavour` ("github", "mkdocs")."""
    lines = text.split("\n")
    sections = markdown_sections(lines, flavour)
    page_title = next((section.path[0] for section in sections if section.path), fallback_title)
    units = []
    for section in sections:
        code_lines = {i for span, code in section.blocks if code for i in span}
        title = section.heading or page_title
        context = section.path if section.path and section.path[0] == page_title \
            else (page_title, *section.path)
        for piece in section.pieces:
            prose = [lines[i] for i in piece if i not in code_lines]
            code = [lines[i] for i in piece if i in code_lines]
            units.append(Unit(
                start_line=piece.start + 1, end_line=piece.stop,
                text="\n".join(lines[piece.start:piece.stop]), anchor=section.anchor,
                title=title, heading=section.heading or "", kind=SECTION,
                anchors=(section.anchor,) if section.anchor else (), noindex=False,
                names="", name="", signature="", body=_plain("\n".join(prose)).strip(),
                code="\n".join(code), context=" ".join(context)))
    return units
