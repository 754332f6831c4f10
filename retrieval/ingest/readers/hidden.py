"""Prose a page hides by its markup: what a reader flags hidden_text (core/flags.py) at build time.

A rendered page shows nothing of an HTML comment, nor of an element styled invisible (display:
none, visibility: hidden, a zero font size or opacity, text pushed off-screen, white text,
text the colour of its background, the `hidden` attribute), yet its source holds the words, and
a unit quoting the source (Markdown, reST's raw HTML) or extracting the page's text (an element
styled invisible) hands them to whoever reads the passage. Only prose counts: a comment that
marks a template's parts (`<!-- end sidebar -->`, `<!-- 3.9.3 -->`) hides nothing anyone reads,
and empty hidden elements (icons, togglers) are everywhere. Styles set by class in a stylesheet
are not seen: only the element's own `style` and `hidden` attributes.
"""

import re

from ...core.flags import text_flags
from .rendered import VOID, scan, tag_attributes

# Words of two letters or more: a hidden run of at least MIN_WORDS of them is prose.
_WORD = re.compile(r"[^\W\d_]{2,}")
MIN_WORDS = 4
_WHITE = r"(?:#fff(?:fff)?\b|white\b|rgba?\(\s*255\s*,\s*255\s*,\s*255\s*(?:,\s*1(?:\.0*)?\s*)?\))"
_HIDING_STYLE = re.compile(
    r"display\s*:\s*none|visibility\s*:\s*(?:hidden|collapse)|font-size\s*:\s*0(?![.\d])"
    r"|opacity\s*:\s*0(?:\.0*)?(?![.\d])|(?:^|;)\s*color\s*:\s*" + _WHITE
    + r"|(?:text-indent|left|top)\s*:\s*-\d{3,}"
    r"|(?:height|width|max-height|max-width)\s*:\s*0(?:px)?\s*(?:;|$)[^\"]*overflow\s*:\s*hidden"
    r"|clip\s*:\s*rect\(\s*0", re.I)
_COLOR = re.compile(r"(?:^|;)\s*color\s*:\s*([^;]+)", re.I)
_BACKGROUND = re.compile(r"background(?:-color)?\s*:\s*([^;]+)", re.I)
# Inline code in Markdown and reST (`x`, ``x``): markup shown as an example, not markup.
_INLINE_CODE = re.compile(r"``[^`\n]*``|`[^`\n]*`")


def is_prose(text: str) -> bool:
    """Tell whether hidden text is prose someone would read: enough words, or flagged words."""
    return len(_WORD.findall(text)) >= MIN_WORDS or bool(text_flags(text))


def hides(attributes: dict) -> bool:
    """Tell whether an element's own attributes make its content invisible."""
    if "hidden" in attributes:
        return True
    style = attributes.get("style", "")
    if not style:
        return False
    if _HIDING_STYLE.search(style):
        return True
    color, background = _COLOR.search(style), _BACKGROUND.search(style)
    return bool(color and background and
                color.group(1).strip().lower() == background.group(1).strip().lower())


class HiddenElement:
    """An element styled invisible while its text is read: its tag, nesting and text."""

    def __init__(self, tag: str):
        self.tag = tag
        self.depth = 1
        self.text: list[str] = []

    def start(self, tag: str):
        """Count a start tag inside it."""
        if tag == self.tag:
            self.depth += 1

    def end(self, tag: str) -> bool:
        """Count an end tag inside it; tell whether it ends the element."""
        if tag == self.tag:
            self.depth -= 1
        return self.depth == 0

    def hides_prose(self) -> bool:
        """Tell whether the text it held is prose."""
        return is_prose(" ".join(self.text))


def hidden_in_markup(source: str) -> bool:
    """Tell whether a fragment of Markdown or reST prose hides prose in HTML markup: a comment
    or an element styled invisible (inline code is an example, not markup)."""
    source = _INLINE_CODE.sub("", source)
    if "<" not in source:
        return False
    hidden: HiddenElement | None = None
    for data_start, start, closing, tag, raw in scan(source):
        if hidden is not None and start > data_start:
            hidden.text.append(source[data_start:start])
        if tag is None:
            if is_prose(raw or ""):
                return True
        elif hidden is not None:
            if closing and hidden.end(tag):
                if hidden.hides_prose():
                    return True
                hidden = None
            elif not closing:
                hidden.start(tag)
        elif not closing and tag not in VOID and not (raw or "").rstrip().endswith("/") \
                and hides(tag_attributes(raw or "")):
            hidden = HiddenElement(tag)
    # An element the fragment does not close: the text read so far.
    return hidden is not None and hidden.hides_prose()
