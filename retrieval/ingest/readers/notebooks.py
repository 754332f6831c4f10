"""Jupyter notebooks a Sphinx project publishes as pages (nbsphinx, MyST-NB), read as Markdown.

With `nbsphinx` (or `myst_nb`) in conf.py's extensions, each `.ipynb` below the Sphinx root is a
page, `examples/weather-data.ipynb` at `examples/weather-data.html`: its Markdown cells are the
page's text, headings its sections; its code cells are shown as code. This module turns a
notebook into that Markdown (`notebook_page`): each Markdown cell's lines, each code cell's lines
in a fence, a blank line after each cell; a raw cell, and a cell nbsphinx hides (its metadata's
`"nbsphinx": "hidden"`), are left out, and so are the outputs stored with a cell (what a built
site shows of them depends on running the notebook, which is never done here).

Each line keeps the notebook file's line its text is written on, where the file is the
one-string-per-line JSON Jupyter writes (nbformat's), so a unit quotes the span of the file its
cells are on, as a rendered page's unit quotes the span of its HTML; a notebook written any
other way has each of a cell's lines at the line its `"source"` starts on.

nbsphinx gives a heading the id Jupyter gives it, its text with each space a hyphen
(`#Toy-weather-data`): `heading_id`.
"""

import json
import re
from dataclasses import dataclass

# The extensions that make a notebook a page, and the Markdown ids each gives its headings.
NBSPHINX, MYST_NB = "nbsphinx", "myst_nb"
NOTEBOOK_SUFFIX = ".ipynb"
_SOURCE_KEY = re.compile(r'\s*"source":\s*(\[)?')


@dataclass(frozen=True)
class NotebookPage:
    """A notebook as Markdown: each line, and the notebook file's line it is written on."""

    lines: tuple
    file_lines: tuple  # per line of lines: the 1-based line of the file


def heading_id(text: str) -> str:
    """Return the id nbsphinx gives a heading, as Jupyter does: its text, spaces as hyphens."""
    return "-".join(text.split(" "))


def _source_lines(file_lines: list, start: int, source: list) -> tuple:
    """Return (the file's line of each string of a cell's source, the index of the file's
    line to look for the next cell's from), its `"source"` key looked for from start (an
    index): each string's own line where each is on a line of its own after the key (as
    nbformat writes them), else the key's line for all."""
    at = start
    while at < len(file_lines) and not _SOURCE_KEY.match(file_lines[at]):
        at += 1
    if at == len(file_lines):
        return [min(start + 1, len(file_lines))] * len(source), start
    key = _SOURCE_KEY.match(file_lines[at])
    if key is not None and key.group(1):  # a list of strings, nbformat's way
        written = file_lines[at + 1:at + 1 + len(source)]
        try:
            same = [json.loads(line.strip().rstrip(",")) for line in written] == source
        except ValueError:
            same = False
        if same:
            return list(range(at + 2, at + 2 + len(source))), at + 1 + len(source)
    return [at + 1] * len(source), at + 1


_BACKTICKS = re.compile(r"`{3,}")


def notebook_page(text: str) -> NotebookPage | None:
    """Return a notebook file's text as the Markdown page a Sphinx extension renders of it, or
    None where it is no notebook (not JSON, no list of cells)."""
    try:
        notebook = json.loads(text)
    except (ValueError, RecursionError):
        return None
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list):
        return None
    file_lines = text.split("\n")
    lines: list[str] = []
    numbers: list[int] = []
    at = 0  # the file's line (0-based) the next cell's source is looked for from
    for cell in cells:
        if not isinstance(cell, dict):
            continue
        source = cell.get("source", [])
        source = [source] if isinstance(source, str) else source
        if not isinstance(source, list) or not all(isinstance(item, str) for item in source):
            continue
        where, at = _source_lines(file_lines, at, source)
        metadata = cell.get("metadata")
        hidden = isinstance(metadata, dict) and metadata.get("nbsphinx") == "hidden"
        kind = cell.get("cell_type")
        if hidden or kind not in ("markdown", "code") or not "".join(source).strip():
            continue
        # A cell's strings each end with their "\n" but the last; a string may hold several.
        cell_lines: list[tuple[str, int]] = []
        for item, number in zip(source, where, strict=False):
            cell_lines.extend((part, number) for part in item.rstrip("\n").split("\n"))
        first, last = cell_lines[0][1], cell_lines[-1][1]
        if kind == "code":
            # A fence longer than any run of backticks in the code (CommonMark's rule).
            fence = "`" * max([3, *(len(run) + 1 for part, _ in cell_lines
                                    for run in _BACKTICKS.findall(part))])
            cell_lines = [(fence + "python", first), *cell_lines, (fence, last)]
        for part, number in [*cell_lines, ("", last)]:
            lines.append(part)
            numbers.append(number)
    return NotebookPage(tuple(lines), tuple(numbers))
