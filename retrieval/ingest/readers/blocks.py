"""Source lines -> blocks and pieces: what every kind of source is cut into before it is read.

Lines are split on "\\n" only and quoted as they are; a block is a run of non-blank lines, a piece
a run of whole lines of at most MAX_PASSAGE_BYTES, and a Paragraph a piece with its anchor.
"""

from dataclasses import dataclass

# A passage is read into a bounded budget (max_source_bytes) and indexed as one FTS5 row; a whole
# chapter in one passage would be unaffordable to read and would dilute BM25's length
# normalization, so long blocks are cut on line boundaries into pieces of at most this many bytes.
MAX_PASSAGE_BYTES = 2048


@dataclass(frozen=True)
class Paragraph:
    """One passage of a source file: a run of whole lines, quoted exactly."""

    start_line: int  # 1-based, in the source file
    end_line: int  # inclusive
    text: str  # the source lines start_line..end_line joined with "\n" (no trailing newline)
    anchor: str | None  # the most specific anchor in force here, without '#', or None


def is_blank(line: str) -> bool:
    # Whitespace-only lines separate paragraphs too: invisible trailing spaces (or the "\r" of a
    # CRLF file) must not glue two paragraphs together.
    return not line.strip()


def indentation(line: str) -> int:
    # reST expands tabs to 8-column stops before it compares indentation.
    expanded = line.expandtabs(8)
    return len(expanded) - len(expanded.lstrip())


def blank_separated(lines: list) -> list:
    """Return the runs of non-blank lines, as ranges of line indexes."""
    blocks, start = [], None
    for i in range(len(lines)):
        if is_blank(lines[i]):
            if start is not None:
                blocks.append(range(start, i))
                start = None
        elif start is None:
            start = i
    if start is not None:
        blocks.append(range(start, len(lines)))
    return blocks


def size_pieces(lines: list, span: range) -> list:
    """Cut span into consecutive runs of whole lines of at most MAX_PASSAGE_BYTES each (greedy)."""
    # Never inside a line: a passage must stay a range of whole lines to be checkable against its
    # line numbers, so one over-long line is a piece of its own.
    pieces, start, size = [], span.start, 0
    for i in span:
        line_size = len(lines[i].encode("utf-8"))
        if i == start:
            size = line_size
        elif size + 1 + line_size > MAX_PASSAGE_BYTES:  # + 1 for the joining "\n"
            pieces.append(range(start, i))
            start, size = i, line_size
        else:
            size += 1 + line_size
    pieces.append(range(start, span.stop))
    return pieces


def paragraphs(lines: list, span: range, anchor: str | None) -> list:
    """Return span as paragraphs, split by size, all under one anchor."""
    return [
        Paragraph(piece.start + 1, piece.stop, "\n".join(lines[piece.start:piece.stop]), anchor)
        for piece in size_pieces(lines, span)
    ]
