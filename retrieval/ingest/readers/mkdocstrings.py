"""mkdocstrings' `::: identifier` in an MkDocs page: MkDocs' autodoc, read statically.

With the mkdocstrings plugin in mkdocs.yml, a line `::: package.module` (at a line's start, not
in fenced code, whose fences the Markdown reader's rules find: fences.py) renders the object's
docstring and those of its members in the page, each member under a heading whose id is its
dotted path (`humanize.filesize.naturalsize`), a class's members below it
(`fastapi.APIRouter.get`). Its Python handler's options, under the
line (`options:` and a YAML mapping, indented) or global in mkdocs.yml, decide which members:
`members` (a list of names, or false for none), `show_if_no_docstring` (those without a
docstring too; default false) and `inherited_members` (a class's bases' too; default false);
a name with a leading `_` is filtered out (its default `filters`). YAML is read line by line
for these keys only (no YAML reader is a dependency; mkdocs.yml often holds `!!python` tags).
"""

import re
from dataclasses import dataclass

from .fences import fence_end, fence_marker

# The injection line: `::: identifier`, at the line's start.
_INJECTION = re.compile(r":::[ \t]+([A-Za-z_][\w.]*)[ \t]*")
_KEY = re.compile(r"[ \t]*(members|show_if_no_docstring|inherited_members)[ \t]*:[ \t]*(.*?)"
                  r"[ \t]*(?:#.*)?")
_ITEM = re.compile(r"[ \t]*-[ \t]+([A-Za-z_]\w*)[ \t]*(?:#.*)?")
_PLUGIN = re.compile(r"[ \t]*(?:-[ \t]*)?mkdocstrings[ \t]*:?[ \t]*(?:#.*)?")
_TRUE = ("true", "yes", "on")
_FALSE = ("false", "no", "off")


@dataclass(frozen=True)
class Options:
    """The Python handler's options that decide which members an injection renders."""

    members: tuple | None = None  # the names listed, None: every member the filters keep
    show_if_no_docstring: bool = False
    inherited_members: bool = False


@dataclass(frozen=True)
class Injection:
    """One `::: identifier` of a page."""

    line: int  # 1-based
    identifier: str
    options: Options


# The handler's own defaults.
DEFAULTS = Options()


def _flag(value: str) -> bool | None:
    value = value.strip("'\"").lower()
    return True if value in _TRUE else False if value in _FALSE else None


def read_options(lines: list, defaults: Options = DEFAULTS) -> Options:
    """Return the options of a YAML block's lines (an injection's, or mkdocs.yml's), read for
    `members`, `show_if_no_docstring` and `inherited_members`, over defaults."""
    members, shown, inherited = defaults.members, defaults.show_if_no_docstring, \
        defaults.inherited_members
    listing = None  # the indentation of `members:` while its `- name` items follow
    for line in lines:
        key = _KEY.fullmatch(line)
        item = _ITEM.fullmatch(line)
        if listing is not None and item is not None \
                and len(line) - len(line.lstrip()) >= listing:
            members = (*(members or ()), item.group(1))
            continue
        listing = None
        if key is None:
            continue
        name, value = key.group(1), key.group(2)
        if name == "members":
            if value == "":
                listing, members = len(line) - len(line.lstrip()), ()
            elif _flag(value) is False:
                members = ()
            elif value.startswith("[") and value.endswith("]"):
                members = tuple(part.strip().strip("'\"") for part in value[1:-1].split(",")
                                if part.strip())
        elif _flag(value) is not None:
            if name == "show_if_no_docstring":
                shown = bool(_flag(value))
            else:
                inherited = bool(_flag(value))
    return Options(members, shown, inherited)


def config_options(text: str) -> Options | None:
    """Return the handler options an mkdocs.yml sets for every injection, or None where its
    plugins do not include mkdocstrings."""
    lines = text.split("\n")
    if not any(_PLUGIN.fullmatch(line) for line in lines):
        return None
    # A global `members:` list is no site's: only the flags are read there.
    found = read_options(lines)
    return Options(None, found.show_if_no_docstring, found.inherited_members)


def injections(text: str, defaults: Options = DEFAULTS) -> list:
    """Return the injections of a Markdown page, in order, each with its options over
    defaults (config_options)."""
    lines = text.split("\n")
    found, index = [], 0
    while index < len(lines):
        line = lines[index]
        fence = fence_marker(line)
        if fence is not None:
            index = fence_end(lines, index, fence)
            continue
        injection = _INJECTION.fullmatch(line)
        index += 1
        if injection is None:
            continue
        start = index
        while index < len(lines) and (not lines[index].strip()
                                      or lines[index][:1] in " \t"):
            if not lines[index].strip() and (index + 1 >= len(lines)
                                             or lines[index + 1][:1] not in " \t"):
                break
            index += 1
        found.append(Injection(start, injection.group(1),
                               read_options(lines[start:index], defaults)))
    return found
