"""Where a release describes itself: the long description the index shows as the project's page
for that version (its README), found without running anything.

An sdist's is, in this order: the file its build configuration names as the readme
(`pyproject.toml` `[project] readme` or Poetry's `readme`, setup.cfg's
`long_description = file: ...`), else the README at its top, else the body of its PKG-INFO. A
wheel's and an installed distribution's is the body of its METADATA, which the build tools
write after the headers (the metadata file is then read with its header lines blank, so a unit
quotes the file's own lines). The markup is the one the metadata declares
(`Description-Content-Type`), else the file name's, else reStructuredText, as the index renders
a description without a declared type.
"""

import email.parser
from pathlib import Path

from ..tree import Description, Unreadable, read_tree_file
from .layout import pyproject_data, setup_cfg_parser

# The markup of each content type the core metadata specification allows.
_MARKUPS = {"text/markdown": "markdown", "text/x-rst": "rst", "text/plain": "text"}
# A README's markup by its suffix; a suffix not here says nothing (README.txt, README).
_SUFFIXES = {".md": "markdown", ".markdown": "markdown", ".rst": "rst", ".rest": "rst"}
# The README names looked for at an sdist's top, in the order taken when several are there.
_README_NAMES = ("readme.rst", "readme.md", "readme.markdown", "readme.rest", "readme.txt",
                 "readme")


def _content_markup(content_type: object) -> str | None:
    """Return the markup a Description-Content-Type names (parameters aside), or None."""
    if not isinstance(content_type, str):
        return None
    return _MARKUPS.get(content_type.partition(";")[0].strip().lower())


def _declared_type(metadata) -> str | None:
    return _content_markup(metadata.get("Description-Content-Type")) \
        if metadata is not None else None


def _file_markup(name: str, declared: str | None) -> str:
    suffix = Path(name).suffix.lower()
    return _SUFFIXES.get(suffix) or declared or "rst"


def _declared_readme(top: Path) -> tuple | None:
    """Return (file name below top, content type or None) of the readme the build
    configuration names, or None."""
    pyproject = pyproject_data(top)
    project = pyproject.get("project")
    tool = pyproject.get("tool")
    poetry = tool.get("poetry") if isinstance(tool, dict) else None
    for readme in (project.get("readme") if isinstance(project, dict) else None,
                   poetry.get("readme") if isinstance(poetry, dict) else None):
        if isinstance(readme, list) and readme:  # Poetry joins several: the first leads
            readme = readme[0]
        if isinstance(readme, str):
            return readme, None
        if isinstance(readme, dict) and isinstance(readme.get("file"), str):
            return readme["file"], readme.get("content-type")
    parser = setup_cfg_parser(top)
    if parser is not None and parser.has_option("metadata", "long_description"):
        value = parser.get("metadata", "long_description").strip()
        if value.startswith("file:"):
            files = [name.strip() for name in value[len("file:"):].split(",") if name.strip()]
            if files:
                return files[0], parser.get("metadata", "long_description_content_type",
                                            fallback=None)
    return None


def _inside(top: Path, name: str) -> bool:
    path = (top / name).resolve()
    return top.resolve() in path.parents and path.is_file()


def sdist_description(top: Path, metadata, max_bytes: int) -> Description | None:
    """Return an unpacked sdist's description (the module docstring says which), or None.
    metadata: its PKG-INFO parsed (packages.release_metadata), or None."""
    declared = _declared_type(metadata)
    named = _declared_readme(top)
    if named is not None and _inside(top, named[0]):
        return Description(Path(named[0]).as_posix(),
                           _content_markup(named[1]) or _file_markup(named[0], declared))
    at_top = {path.name.lower(): path.name for path in top.iterdir() if path.is_file()}
    for lowered in _README_NAMES:
        if lowered in at_top:
            return Description(at_top[lowered], _file_markup(lowered, declared))
    return metadata_description(top, "PKG-INFO", max_bytes)


def metadata_description(root: Path, relative: str, max_bytes: int) -> Description | None:
    """Return the description in the body of a metadata file (relative: below root), or None
    where it has none there (an old one's `Description:` header is not read: its lines are
    indented, no quote of the file)."""
    try:
        text = read_tree_file(str(root), relative, max_bytes).decode("utf-8")
    except (Unreadable, OSError, UnicodeDecodeError):
        return None
    lines = text.split("\n")
    # The headers end at the first empty line (one of spaces continues a folded header).
    blank = next((index for index, line in enumerate(lines) if line in ("", "\r")), None)
    if blank is None or not any(line.strip() for line in lines[blank + 1:]):
        return None
    headers = email.parser.HeaderParser().parsestr("\n".join(lines[:blank]))
    return Description(relative, _declared_type(headers) or "rst", header_lines=blank + 1)
