"""What a reader finds (Unit) and that unit placed in its tree with its ranking facts (UnitDraft).

A Unit is one retrievable piece of one document: its lines, anchor, title and the facts the
ranking reads. A UnitDraft is the passage content a build writes for it (what corpus_id covers).
"""

import dataclasses
import sys
import urllib.parse
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from ..core.flags import flags_field, text_flags
from ..core.notes import notes_content
from ..core.ranking import SECTION, IndexFields
from ..core.snapshot import DEFAULT_COLLECTION
from .tree import SourceTree
from .version_notes import notes_in, unrendered_labels


@dataclass(frozen=True)
class Unit:
    """One retrievable unit of a page, with what the index and the priors need of it."""

    start_line: int  # 1-based, inclusive
    end_line: int
    text: str  # byte-exact source lines start_line..end_line
    anchor: str | None  # the URL fragment (an id of the rendered page), or None
    title: str
    heading: str  # the title of the section that owns it (a section's own title)
    kind: str  # an OBJECT_DIRECTIVES value or SECTION
    anchors: tuple  # every id of the unit on the rendered page (for in-link counts)
    noindex: bool
    names: str  # qualified names, space-separated
    name: str  # bare last components
    signature: str  # signatures without their names
    body: str
    code: str
    context: str  # page title and section path
    # Its version notes (core/notes.py), read off all its lines, those a unit capped at
    # MAX_PASSAGE_BYTES does not quote included; None: the reader leaves them to its text.
    notes: tuple | None = None
    # The page hides prose in it by markup the text does not show (a reader found an HTML
    # comment, or an element styled invisible): flagged hidden_text (core/flags.py).
    hidden: bool = False
    # A section whose prose renders its title alone: the rest of its lines are blank, labels,
    # or directives that render no text (`currentmodule`, `module`, `index`).
    title_only: bool = False


@dataclass(frozen=True)
class UnitDraft:
    """One unit a format reader found: its passage content and its section's heading.

    content is what corpus_id covers (built by `of`), its flags included; heading is the title of
    the section the unit belongs to, which a --semantic build embeds with its names and body.
    """

    content: dict
    heading: str = ""

    @classmethod
    def of(cls, tree: SourceTree, source_id: str, source_sha256: str, url: str, start_line: int,
           end_line: int, text: str, title: str, facts: IndexFields,
           heading: str = "", *, notes: tuple | None = None,
           hidden: bool = False) -> "UnitDraft":
        """Return the draft of one unit of a tree, quoting its source's lines exactly, with its
        version notes (those the reader found, else those its text holds: version_notes.py)
        and its flags (hidden: the page hides prose in it by markup)."""
        # The default collection is the absence of the field (one spelling per identity).
        collection = ({} if tree.collection == DEFAULT_COLLECTION
                      else {"collection": tree.collection})
        notes = notes_in(source_id, text) if notes is None else notes
        labels = unrendered_labels(source_id, notes)
        if labels:
            # The prose gains the labels as the page shows them, so "deprecated since 3.2"
            # finds the source's unit (its summary, the first sentence, stays the one written).
            facts = dataclasses.replace(facts, body=facts.body + "\n" + labels)
        # Interned: the passages of a build repeat texts and fields (plotly 5.16.1's 25,059
        # have 7,060 distinct texts), and every draft is held until the snapshot is written
        # (that build's peak RSS 226 -> 216 MB).
        content = facts.content()
        content["fields"] = {name: sys.intern(value) for name, value in content["fields"].items()}
        text = sys.intern(text)
        return cls(collection | {
            "source_id": source_id,
            "version": tree.version,
            "url": url,
            "start_line": start_line,
            "end_line": end_line,
            "text": text,
            "source_sha256": source_sha256,
            "title": title,
        } | flags_field(text_flags(text, hidden)) | content | notes_content(notes),
            heading)


    @classmethod
    def of_unit(cls, tree: SourceTree, source_id: str, source_sha256: str, url: str, unit,
                reference_page: bool, in_links: int, lines: tuple | None = None) -> "UnitDraft":
        """Return the draft of a reader's unit (units.Unit) at url, indexed by its own fields
        with its page's ranking facts, quoting its lines of source_id (or lines: where the
        unit's text is another file's, as an included file's is)."""
        start_line, end_line = lines or (unit.start_line, unit.end_line)
        return cls.of(tree, source_id, source_sha256, url, start_line, end_line, unit.text,
                      unit.title, IndexFields.of(
                          kind=unit.kind, noindex=unit.noindex, reference_page=reference_page,
                          in_links=in_links, names=unit.names, name=unit.name,
                          signature=unit.signature, body=unit.body, code=unit.code,
                          context=unit.context),
                      unit.heading, notes=unit.notes, hidden=unit.hidden)

    @classmethod
    def of_paragraph(cls, tree: SourceTree, source_id: str, source_sha256: str, url: str,
                     paragraph, reference_page: bool, body: str | None = None,
                     hidden: bool = False) -> "UnitDraft":
        """Return the draft of a paragraph (readers/text.Paragraph) at url: prose under a
        heading, with no names and no priors beyond its page's; body: its text as indexed
        (its markup out), else as written."""
        return cls.of(tree, source_id, source_sha256, url, paragraph.start_line,
                      paragraph.end_line, paragraph.text, source_id, IndexFields.of(
                          kind=SECTION, in_links=0, noindex=False,
                          reference_page=reference_page, names="", name="", signature="",
                          body=paragraph.text if body is None else body, code="",
                          context=source_id),
                      hidden=hidden)


def unit_drafts(tree: SourceTree, page: str, source_id: str, source_sha256: str, units,
                reference: set, in_links: Counter) -> list:
    """Return the drafts of one page's units (units.Unit), with their ranking facts."""
    page_address = tree.base_url + urllib.parse.quote(page, safe="/")
    return [UnitDraft.of_unit(
        tree, source_id, source_sha256, page_address + ("#" + unit.anchor if unit.anchor else ""),
        unit, page in reference, sum(in_links[page, anchor] for anchor in unit.anchors))
        for unit in units]


def passage_key(content: dict) -> tuple:
    """Return what a passage's id is computed from: the same key is the same passage."""
    return (content.get("collection"), content["version"], content["source_id"],
            content["start_line"], content["end_line"], content["text"])


def merge_same_passages(drafts, preference: Callable | None = None) -> list:
    """Return the drafts with those of the same passage merged into one, with all names.

    The same lines of the same source are one passage (core/identity.py: its id is computed from
    them), whatever the names they are documented under: two autodoc directives documenting one
    object, or a chained assignment `a = b = c = None` with its docstring. The passage keeps the
    first draft's place in the order; its title, URL and facts are those of the draft that
    preference (a draft -> a sort key) puts least, the first among equals (without one, the
    first); its names and bare names are all the drafts', its own first, then in order, each
    once, and its in-links are the most any of them has (each name it is exported or linked by
    counted once).
    """
    merged: list[UnitDraft] = []
    seen: dict[tuple, int] = {}  # a passage's key -> its place in merged
    # A merged draft's place -> its names and bare names (as dicts: in order, each once) and
    # in-links, written into it once at the end (not re-joined once per draft merged into it).
    gained: dict[int, tuple] = {}
    chosen_rank: dict = {}  # a merged draft's place -> preference() of the draft chosen
    for draft in drafts:
        key = passage_key(draft.content)
        if key not in seen:
            seen[key] = len(merged)
            merged.append(draft)
            continue
        place = seen[key]
        if place not in gained:
            fields = merged[place].content["fields"]
            gained[place] = (dict.fromkeys(fields["names"].split()),
                             dict.fromkeys(fields["name"].split()),
                             [merged[place].content["in_links"]])
        names, bare, in_links = gained[place]
        names.update(dict.fromkeys(draft.content["fields"]["names"].split()))
        bare.update(dict.fromkeys(draft.content["fields"]["name"].split()))
        in_links[0] = max(in_links[0], draft.content["in_links"])
        if preference is not None:
            if place not in chosen_rank:
                chosen_rank[place] = preference(merged[place])
            rank = preference(draft)
            if rank < chosen_rank[place]:
                merged[place], chosen_rank[place] = draft, rank
    for place, (names, bare, in_links) in gained.items():
        chosen = merged[place]
        # Its own names first: the first is the name the passage is known by (core/diff.py).
        own = chosen.content["fields"]
        names = dict.fromkeys(own["names"].split()) | names
        bare = dict.fromkeys(own["name"].split()) | bare
        fields = dict(own, names=" ".join(names), name=" ".join(bare))
        merged[place] = dataclasses.replace(chosen, content=dict(
            chosen.content, in_links=in_links[0], fields=fields))
    return merged
