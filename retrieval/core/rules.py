"""A snapshot policy's rules: the scripted query plans (a question's words are query.py's).

This module imports only the search value (searches.py) and the question's words (query.py) from
the package, so every other module of core can build on it.
"""

from collections.abc import Callable
from dataclasses import dataclass, replace
from itertools import islice

from .query import (
    MAX_QUESTION_TERMS,
    api_name,
    has_literals,
    mentioned_name,
    question_sentence,
    question_terms,
)
from .searches import MATCH_ALL, MATCH_ANY, SearchCall

FIXED = "fixed"
QUESTION_TERMS = "question_terms"
READ_FIRST = "first"  # one read per round: the first hit not read yet
READ_BEST = "best"  # after a search, its distinct hits in rank order while the allowances permit
DEFAULT_SEARCH_K = 2
# The most hits a rule's search may ask for.
MAX_SEARCH_K = 50


@dataclass(frozen=True)
class Rule:
    """A scripted query plan chosen by phrases in the question.

    A `question_terms` rule (only as the fallback) has no fixed initial query: it searches for
    any of the question's own words; refinement and marker are fixed data as for every rule.
    """

    name: str
    phrases: tuple
    initial_query: str | None
    refinement_query: str | None
    required_marker: str | None
    max_rounds: int
    kind: str = FIXED
    stop_words: frozenset = frozenset()
    search_k: int = DEFAULT_SEARCH_K
    reads: str = READ_FIRST
    drop_literals: bool = False
    # A question_terms query leaves out the words more than this share of the searched version's
    # units hold (Collection.ubiquitous_terms, derived by the builder); None: it keeps them.
    ubiquitous_share: float | None = None
    # Whether the question (a question_terms rule's, once for_question) quotes literal values:
    # its first search says so, and a ranking model may weigh its features otherwise then.
    literals: bool = False
    # What the first search's embedding compares units with (once for_question, when the
    # snapshot's semantic policy embeds the question: its `semantic_query`); None: its query.
    semantic_query: str | None = None
    # The question as a dotted or bare API name (once for_question, when it is one as a whole),
    # else the first dotted name it mentions (query.mentioned_name): the first search carries
    # it, and the units documenting it rank first.
    question_name: str | None = None

    @property
    def first_query(self) -> str:
        """Return the first search's query (a question_terms rule has one once for_question)."""
        if self.initial_query is None:
            raise ValueError(f"rule {self.name!r}: no initial query before for_question")
        return self.initial_query

    @property
    def initial_match(self) -> str:
        """Return whether the first search needs all its terms or any of them."""
        return MATCH_ANY if self.kind == QUESTION_TERMS else MATCH_ALL

    def first_search(self, version: str) -> SearchCall:
        """Return the first search: the only one that comes from the question, so the only one
        that carries its literals, its sentence and its API name."""
        return SearchCall(self.first_query, version, self.search_k, self.initial_match,
                          self.literals, self.semantic_query, self.question_name)

    def refinement_search(self, version: str) -> SearchCall | None:
        """Return the search of every later round, all its terms matching (None: there is none)."""
        if self.refinement_query is None:
            return None
        return SearchCall(self.refinement_query, version, self.search_k, MATCH_ALL)

    def matches(self, folded_question: str) -> bool:
        """Tell whether the case-folded question contains any of this rule's phrases."""
        return any(phrase in folded_question for phrase in self.phrases)

    def for_question(self, question: str, ubiquitous: frozenset = frozenset(),
                     embeds_question: bool = False,
                     holds: Callable[[str], bool] | None = None) -> "Rule":
        """Return the rule with its initial query settled for this question.

        Words nearly every unit of the collection holds (`ubiquitous`: `django` in Django's
        docs) tell its units apart no better than stop words, and matching them makes FTS5
        score almost every unit; they are left out unless nothing else would remain. A query
        keeps at most MAX_QUESTION_TERMS words, the first ones: of a longer question, the words
        left out (ubiquitous ones, and with `holds`, which tells whether some unit of the
        searched version holds a word, the words no unit holds: the asker's own names,
        `custom_trace`) take none of those places, since they match nothing a search could rank
        (asked in order, only until the places are filled: each is an index probe).
        embeds_question: the snapshot's embedding reads the question's own sentence
        (question_sentence) rather than the search's words; a sentence encoder was trained on
        sentences, not on keyword lists. A question that is an API name as a whole
        (`pytest.approx`, `markers`), else the first dotted name it mentions outside its quoted
        spans ("a custom subclass of pytest.Item"), is kept as written beside its words
        (`question_name`): the words alone lose its dots, its case and its ubiquitous parts
        (`pytest`), and a name the asker wrote as code names the API more surely than words.
        """
        if self.kind != QUESTION_TERMS:
            return self
        words = question_terms(question, self.stop_words, self.drop_literals, None).split()
        telling = [word for word in words if word not in ubiquitous]
        if len(telling) > MAX_QUESTION_TERMS and holds is not None:
            telling = list(islice(filter(holds, telling), MAX_QUESTION_TERMS)) or telling
        terms = " ".join(telling[:MAX_QUESTION_TERMS] or words[:MAX_QUESTION_TERMS])
        sentence = question_sentence(question, self.drop_literals) if embeds_question else ""
        return replace(self, initial_query=terms, literals=has_literals(question),
                       semantic_query=sentence or None,
                       question_name=api_name(question) or mentioned_name(question))

    def describe(self) -> dict:
        """Return the rule as the response's `policy` section shows it."""
        described: dict[str, object] = {
            "name": self.name,
            "initial_query": self.initial_query,
            "refinement_query": self.refinement_query,
            "required_marker": self.required_marker,
            "max_rounds": self.max_rounds,
        }
        if self.kind != FIXED:
            described["kind"] = self.kind
        # Shown only where they differ from the defaults, so the seed rules read as they did.
        if self.search_k != DEFAULT_SEARCH_K:
            described["search_k"] = self.search_k
        if self.reads != READ_FIRST:
            described["reads"] = self.reads
        if self.ubiquitous_share is not None:
            described["ubiquitous_share"] = self.ubiquitous_share
        return described
