"""A question or a search's text -> words -> a bounded, quoted FTS5 query, in one place.

A question becomes words (folded_words: case-folded runs of word characters, its quoted literal
values left out where a policy says so), and its words a search query (question_terms: stop words
out, each word once, at most MAX_QUESTION_TERMS); a question that is a dotted or bare API name as
a whole is recognised as one too (api_name), and else the first dotted name it mentions
(mentioned_name), before its words lose the dots and the case. A
search's query is searched with each of its terms once (bounded_query), and one with more
distinct terms than MAX_QUERY_TERMS is refused by the caller's validation (too_many_terms).
Last, the index quotes every term, so that no query text is ever read as FTS5 syntax
(quote_fts_terms).

Why the bound: a search's cost grows with its number of terms (each quoted term is one FTS5
phrase that walks its own posting list), not with the rows it returns: 500 copies of "a" in one
kilobyte of query text ran 2 s on a 2,000-passage snapshot, the whole deadline, while the same
query with each term once ran 5 ms. So a term given twice is searched once (ANDed or ORed, `x x`
finds exactly what `x` finds), and a query with too many distinct terms is refused, never cut
short silently.

This module imports only the search's match modes (searches.py) from the package, so every other
module of core can build on it.
"""

import re

from .searches import MATCH_ALL, MATCH_ANY

MAX_QUESTION_TERMS = 16
# A dotted or bare API name, as code writes it (os.path.join, removeprefix, np.float).
API_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
MAX_NAME_CHARS = 200
# A dotted name as prose mentions it (pytest.Item, itertools.product): every part two characters
# or more (not "e.g", "i.e"), and not part of a path, an address or a longer dotted run.
_MENTIONED_NAME = re.compile(r"(?<![\w./:@-])[A-Za-z_][A-Za-z0-9_]+(?:\.[A-Za-z_][A-Za-z0-9_]+)+"
                             r"(?![\w/@-]|\.\w)")
# Far more distinct words than a question or a search phrase has; few enough that a query's
# cost stays a small fraction of the deadline on a corpus-sized snapshot.
MAX_QUERY_TERMS = 32
_WORD = re.compile(r"\w+")
# Literal values a question quotes (`d1`, 'abc', "[1, 2]"): they name the asker's data, not the
# documentation's words, and match unrelated code examples. A quote must stand at a word edge so
# that apostrophes ("don't", "it's") are not taken for one.
_LITERAL_SPAN = re.compile(r"`[^`]*`|(?<!\w)'[^'\n]*'(?!\w)|(?<!\w)\"[^\"\n]*\"(?!\w)"
                           r"|[\u2018\u201c][^\u2019\u201d\n]*[\u2019\u201d]")


def folded_words(text: str) -> list:
    """Return the text's words as question_terms reads them: case-folded runs of word characters."""
    return _WORD.findall(text.casefold())


def api_name(query: str) -> str | None:
    """Return the query as an API name if it is one (surrounding blanks aside), else None."""
    name = query.strip()
    return name if len(name) <= MAX_NAME_CHARS and API_NAME.fullmatch(name) else None


def mentioned_name(question: str) -> str | None:
    """Return the first dotted API name the question mentions outside its quoted spans (those
    are the asker's data: `df.col`, 'file.txt'), else None."""
    found = _MENTIONED_NAME.search(without_literals(question))
    return found.group(0) if found and len(found.group(0)) <= MAX_NAME_CHARS else None


def has_literals(question: str) -> bool:
    """Tell whether the question quotes a literal value: a coding intent names its data so."""
    return _LITERAL_SPAN.search(question) is not None


def without_literals(question: str) -> str:
    """Return the question with its quoted and backticked spans blanked out."""
    return _LITERAL_SPAN.sub(" ", question)


def question_sentence(question: str, drop_literals: bool = False) -> str:
    """Return the question as an embedding model reads it: its text, spaces collapsed, and with
    drop_literals its quoted and backticked spans left out."""
    return " ".join((without_literals(question) if drop_literals else question).split())


def question_terms(question: str, stop_words, drop_literals: bool = False,
                   limit: int | None = MAX_QUESTION_TERMS) -> str:
    """Derive a query from the question's own words: case-folded, stop words out, first use kept,
    at most limit of them (None: all).

    Words are runs of letters, digits and underscores, so no punctuation (quotes, `*`, `-`, `:`,
    parentheses) survives, and case-folding means no word can be an FTS5 operator. With
    drop_literals, quoted and backticked spans and words that are only digits are left out too.
    """
    if drop_literals:
        question = without_literals(question)
    terms = []
    for word in folded_words(question):
        if word in stop_words or word in terms or (drop_literals and word.isdigit()):
            continue
        terms.append(word)
    return " ".join(terms[:limit])


def distinct_terms(query: str) -> list[str]:
    """Return the query's whitespace-separated terms, each once, in first-seen order."""
    return list(dict.fromkeys(query.split()))


def bounded_query(query: str) -> str:
    """Return the query with every repeated term removed (what the index is asked)."""
    return " ".join(distinct_terms(query))


def too_many_terms(query: str) -> bool:
    """Tell whether the query has more distinct terms than a search may have."""
    return len(distinct_terms(query)) > MAX_QUERY_TERMS


def quote_fts_terms(query: str, match: str = MATCH_ALL, common: frozenset = frozenset(),
                    common_fields: tuple = ()):
    """Turn a search query into an FTS5 query of quoted terms, or None when it has no terms.

    Every whitespace-separated term becomes one FTS5 string (inner quotes doubled), so operators
    such as NEAR, OR, *, -, : or parentheses in caller or rule text are searched as text, never
    interpreted. Terms are ANDed (FTS5's default), or ORed when match is "any": the choice is an
    argument of the search, never something the query text can say. A term whose case-folded
    form is in `common` matches only in `common_fields` (column names, from the policy's ranking
    section, validated against FIELDS).
    """
    terms = query.split()
    if not terms:
        return None
    joiner = " OR " if match == MATCH_ANY else " "
    restrict = "{" + " ".join(common_fields) + "} : " if common_fields else ""
    return joiner.join((restrict if term.casefold() in common else "")
                       + '"' + term.replace('"', '""') + '"' for term in terms)
