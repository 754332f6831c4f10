"""CommonMark's fenced code blocks: the line that opens one, and the line past its end."""

import re

from .blocks import is_blank

# CommonMark: up to 3 spaces of indentation (4 would be an indented code block); a backtick
# fence's info string may not contain a backtick (that is inline code, not a fence).
_FENCE = re.compile(r" {0,3}(?:(`{3,})[^`]*|(~{3,}).*)")


def fence_marker(line: str) -> str | None:
    """Return the fence a line opens (its backticks or tildes), or None if it opens none."""
    match = _FENCE.fullmatch(line.rstrip())
    return (match.group(1) or match.group(2)) if match else None


def closes_fence(line: str, marker: str) -> bool:
    """Tell whether a line closes the fence `marker` opened: as long or longer, alone."""
    stripped = line.rstrip()
    body = stripped.lstrip(" ")
    return (len(stripped) - len(body) <= 3 and len(body) >= len(marker)
            and body == marker[0] * len(body))


def fence_end(lines: list, opening: int, marker: str) -> int:
    """Return the index just past the fence opened at line `opening`."""
    # Blank lines inside a fence are code, not paragraph breaks.
    stop = opening + 1
    while stop < len(lines) and not closes_fence(lines[stop], marker):
        stop += 1
    if stop < len(lines):
        return stop + 1  # the closing fence belongs to the block
    # An unclosed fence runs to the end of the file (CommonMark); its trailing blank lines (at
    # least the empty "line" after the final newline) are not content.
    while is_blank(lines[stop - 1]):
        stop -= 1
    return stop
