"""Sphinx's SmartQuotes transform of rendered text, replicated for a title read from source.

Sphinx educates the text of what it renders (`smartquotes = True`, its default) as
docutils.utils.smartquotes does for English with Sphinx's default action "qDe": straight quotes
curled by their context, "---" an em dash and "--" an en dash, "..." an ellipsis; literal text
(``code``, a role's target) is left as written but is context for what follows. The build
imports no third-party library (tests/test_layout.py): these are its rules, rewritten.
"""

import re

_OPEN = "[([{]"  # opening brackets
_PUNCT = r"""[-!"#$%'()*+,./:;<=>?@\[\\\]^_`{|}~]"""
_DASH = "[-\u2013\u2014]"  # hyphen, en and em dash
_SEP = "[\\s\u200b\u200c]"  # whitespace, zero-width space and non-joiner
# English quotes: primary opening and closing, secondary opening and closing (the apostrophe).
_OP, _CP, _OS, _CS = "\u201c", "\u201d", "\u2018", "\u2019"
_RULES = (
    # A quote first, before punctuation at no word boundary: a closing one.
    (re.compile(rf"^'(?={_PUNCT}\B)"), _CS),
    (re.compile(rf'^"(?={_PUNCT}\B)'), _CP),
    # Adjacent quotes opening a word: "'Quoted' words".
    (re.compile("\"'(?=\\w)"), _OP + _OS),
    (re.compile("'\"(?=\\w)"), _OS + _OP),
    # After an opening bracket or a dash, before optional punctuation and a space: closing.
    (re.compile(rf"({_OPEN}|{_DASH})'(?={_PUNCT}? )"), rf"\1{_CS}"),
    (re.compile(rf'({_OPEN}|{_DASH})"(?={_PUNCT}? )'), rf"\1{_CP}"),
    (re.compile(r"'(?=\d{2}s)"), _CS),  # a decade: the '80s
    # Secondary quotes: opening after a separator, bracket or dash before a word or
    # punctuation; else closing (an apostrophe) after anything but whitespace; else opening.
    (re.compile(rf"({_SEP}|{_OPEN}|{_DASH})'(?=\w|{_PUNCT})"), rf"\1{_OS}"),
    (re.compile(r"(?<!\s)'"), _CS),
    (re.compile("'"), _OS),
    # Primary quotes, likewise.
    (re.compile(rf'({_SEP}|{_OPEN}|{_DASH})"(?=\w|{_PUNCT})'), rf"\1{_OP}"),
    (re.compile(r'(?<!\s)"|"(?=\s)'), _CP),
    (re.compile('"'), _OP),
)


def educate(text: str, before: str = " ") -> str:
    """Return text as SmartQuotes renders it; before: the character rendered before it."""
    text = text.replace("---", "\u2014").replace("--", "\u2013")
    text = text.replace("...", "\u2026").replace(". . .", "\u2026")
    return educate_quotes(text, before)


def educate_quotes(text: str, before: str = " ") -> str:
    """Return text with its straight quotes curled as SmartQuotes curls them (no dashes or
    ellipses); before: the character rendered before it."""
    # The context character is only context: a quote there counts as punctuation.
    text = before.replace('"', ";").replace("'", ";") + text
    for pattern, replacement in _RULES:
        text = pattern.sub(replacement, text)
    return text[1:]
