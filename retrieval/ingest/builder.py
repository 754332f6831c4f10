"""`retrieval build`: documentation trees in, a snapshot directory (manifest + SQLite) out.

Four kinds of tree are read (read_passage_contents decides). A published Sphinx HTML root (it
holds `objects.inv` and `_sources/`, as Debian's python3.11-doc does) gives one unit per
documented object and per section's own text, quoted from the reST sources (from the rendered
page where a source is autodoc stubs), anchored with the rendered pages' own ids and ranked with
priors read off the documentation's structure (its cross-references, its object kinds, which pages
describe objects). A rendered site without sources (MkDocs, Sphinx without `_sources`, or any tree
with `--format html`) gives the same units from its pages. An llms.txt directory or llms-full.txt
gives its Markdown pages' paragraphs, and any other tree of reST, Markdown and plain text one unit
per paragraph, ranked by its text alone.
"""

import hashlib
import json
import os
import posixpath
import re
import sqlite3
import sys
import time
import urllib.parse
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..core import database
from ..core.ranking import SECTION, IndexFields, ubiquitous_by_collection, word_shares
from ..core.snapshot import (
    DEFAULT_COLLECTION,
    Policy,
    SnapshotError,
    collection_corpus_ids,
    collection_of,
    compute_corpus_id,
    derive_passage,
)
from ..core.snapshot_directory import (
    DATABASE,
    IDENTITY,
    MANIFEST,
    manifest_for,
    source_summary,
    vector_content,
)
from . import llms, markdown
from .html_units import page_units as html_page_units
from .inventory import InventoryError, read_inventory
from .parse import decode_source, iter_source_files, page_url, parse_source, source_kind
from .provenance import PROVENANCE
from .rendered import RenderedSite
from .tree import DEFAULT_MAX_FILE_BYTES, Unreadable, open_tree_file, read_tree_file, shown
from .units import page_units, plain_text

# English function words. They are data in the policy (and so part of corpus_id), not code, so
# changing the list changes the snapshot's identity.
DEFAULT_STOP_WORDS = sorted(set("""
a about above after again against all am an and any are as at be because been before being below
between both but by can could did do does doing down during each few for from further had has have
having he her here hers herself him himself his how i if in into is it its itself just me more most
my myself no nor not now of off on once only or other our ours ourselves out over own same she
should so some such than that the their theirs them themselves then there these they this those
through to too under until up very was we were what when where which while who whom why will with
would you your yours yourself yourselves
""".split()))

# bench/fit_ranking.py's output (docs/corpora.md, "The ranking model").
MODEL_WEIGHTS = {
    "bm25_names": -0.1331, "bm25_name": 0.03025, "bm25_signature": 0.08855,
    "bm25_summary": 0.02494, "bm25_body": -0.1431, "bm25_code": -0.07266,
    "bm25_context": 0.04553, "bm25_all": -0.1734, "in_links": 0.7247, "kind_function": 0.2132,
    "kind_method": -0.3061, "kind_class": -0.8044, "kind_exception": -2.024,
    "kind_attribute": -1.78, "kind_data": -2.167, "non_reference_page": 0.6614,
    "noindex": -1.434, "release_notes": -2.527, "fielded_rank": -0.2736, "plain_rank": -0.2934,
}
DEFAULT_POLICY = {
    "rules": [],
    "fallback": {
        "name": "question-terms",
        "kind": "question_terms",
        "phrases": [],
        "initial_query": None,
        "refinement_query": None,
        "required_marker": None,
        "max_rounds": 1,
        "stop_words": DEFAULT_STOP_WORDS,
        "drop_literals": True,
        # Words more than half of a collection's units hold (`django` in Django's docs) are left
        # out of its queries: they tell no unit apart, and matching them made FTS5 score nearly
        # every unit (Django's distinct-question p99 61 -> 20 ms in process). No word of the
        # 3.11 docs but stop words passes half, so CoNaLa figures are unchanged.
        "ubiquitous_share": 0.5,
        "search_k": 10,
        "reads": "best",
    },
    # bm25() weight per indexed field, and the priors subtracted from it (see core/ranking.py).
    "ranking": {
        "fields": {"names": 8, "name": 8, "signature": 0.5, "summary": 2, "body": 0.5,
                   "code": 0.5, "context": 0.25},
        # Tuned on CoNaLa train (bench/quality.py; docs/corpora.md has the dev figures). The in-link
        # prior stops growing at 32 links (3 x ln 33 = 10.5) so that the most linked-to objects
        # cannot fill every unrelated question's top 10: at 12 (54 links) eval(), repr() and
        # open(), gold for no train question, sat in 25, 23 and 21 % of train top 10s; at 10.5,
        # 17 % and under 11 %, for 0.1 point of train R@10. Classes and sections are demoted only
        # mildly, so a question that describes one still finds it.
        "priors": {
            "in_links": 3, "in_links_cap": 10.5,
            "kind": {"function": 2, "method": 1, "class": -1, "exception": -3,
                     "attribute": -3, "data": -3, "section": -5},
            "non_reference_page": -12,
            "noindex": -2,
        },
        # Words more than 15 % of a collection's units hold ("function", "file", "python") match
        # only in names, signatures and first sentences: in prose they tell units apart poorly,
        # and matching them there made FTS5 score thousands of units per question (3.11 docs:
        # ranking query p99 28.6 -> 22.4 ms, CoNaLa train R@10 41.2 -> 40.9; docs/performance.md).
        "common_terms": {"share": 0.15, "fields": ["names", "name", "signature", "summary"]},
        # The fielded score above alone buries guides: its priors were tuned on CoNaLa, whose
        # answers are all API objects. The model re-sorts the best 100 of it and of plain bm25
        # by weights fitted on CoNaLa train and bench/data/libraries-train (half guides), by
        # bench/fit_ranking.py; docs/corpora.md has the command and the dev figures.
        "model": {"candidates": 100, "weights": MODEL_WEIGHTS},
    },
}
# `retrieval build --ranking`: the default policy as it is ("fitted": the model re-sorts the
# fielded ranking's candidates), or without its model ("fielded": the fielded score alone,
# whose priors CoNaLa prefers on the Python stdlib docs; docs/corpora.md has both figures).
RANKINGS = ("fitted", "fielded")


def default_policy(ranking: str = RANKINGS[0]) -> dict:
    """Return the default policy with the named ranking (one of RANKINGS)."""
    if ranking not in RANKINGS:
        raise ValueError(f"ranking {ranking!r} must be one of {', '.join(RANKINGS)}")
    if ranking == "fitted":
        return DEFAULT_POLICY
    return dict(DEFAULT_POLICY, ranking={
        key: value for key, value in DEFAULT_POLICY["ranking"].items() if key != "model"})


# How a --semantic build re-ranks, unless its policy says otherwise: the 200 best lexical hits
# re-sorted by score - weight x cosine, at the weight the model chose on CoNaLa train
# (its default_weight).
DEFAULT_CANDIDATES = 200
SOURCES = "_sources"
INVENTORY = "objects.inv"
MKDOCS_SEARCH_INDEX = ("search", "search_index.json")
_SOURCE_SUFFIX = ".rst.txt"
# An autodoc directive in a page's source: its text is generated, so it exists only in the HTML.
# How a tree is read: "auto" decides by what the tree holds; "html" reads every rendered page.
FORMATS = ("auto", "html")
_AUTODOC = re.compile(r"^[ \t]*\.\.[ \t]+auto\w+::", re.M)
_GENERATOR = re.compile(r"<meta\s+name=[\"']generator[\"']\s+content=[\"'](?:mkdocs|sphinx)",
                        re.I)
# Pages a documentation generator writes about the site itself, not documentation.
_GENERATED_PAGES = frozenset(("404.html", "search.html", "genindex.html", "py-modindex.html"))


@dataclass(frozen=True)
class SourceTree:
    """One documentation version to build: version, source root, base URL, and collection."""

    version: str
    root: str
    base_url: str
    collection: str = DEFAULT_COLLECTION
    format: str = "auto"  # one of FORMATS
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES  # a larger file is skipped, reported
    # How a fetched source (ingest/fetch.py) is read, (tree, progress) -> contents; None: by
    # what the tree holds.
    reader: Callable | None = field(default=None, compare=False)
    # Where a fetched tree came from (sources.LocalTree.provenance), written to PROVENANCE.
    provenance: dict | None = field(default=None, compare=False, hash=False)

    @property
    def label(self) -> str:
        """Return how progress lines and --source name this tree: [collection/]version."""
        if self.collection == DEFAULT_COLLECTION:
            return self.version
        return f"{self.collection}/{self.version}"


class Progress:
    """Report files and passages done, with the rate, on stderr at most once a second."""

    def __init__(self, stream=None):
        self._stream = stream or sys.stderr
        self._start = time.monotonic()
        self._last = 0.0
        self.files = 0
        self.passages = 0
        self.skipped = []

    def tick(self, version, force=False):
        now = time.monotonic()
        if force or now - self._last >= 1.0:
            self._last = now
            rate = self.files / max(now - self._start, 1e-9)
            print(f"build: {version}: {self.files} files, {self.passages} passages, "
                  f"{rate:.0f} files/s", file=self._stream, flush=True)

    def skip(self, relative_path, reason):
        self.skipped.append(relative_path)
        # Escaped: the name is the tree's, and a crafted one must not drive the terminal.
        print(f"build: skipped {shown(relative_path)}: {reason}", file=self._stream, flush=True)

    def note(self, message):
        print(f"build: {message}", file=self._stream, flush=True)

    def done(self, passages, corpus):
        elapsed = time.monotonic() - self._start
        print(f"build: done: {passages} passages from {self.files} files "
              f"({len(self.skipped)} skipped) in {elapsed:.1f}s; corpus_id {corpus}",
              file=self._stream, flush=True)


def is_sphinx_site(root: str) -> bool:
    """Tell whether a tree is a published Sphinx HTML root (rendered pages beside _sources)."""
    return os.path.isdir(os.path.join(root, SOURCES)) and (
        os.path.isfile(os.path.join(root, INVENTORY))
        or os.path.isfile(os.path.join(root, "index.html")))


def _read_file(tree: SourceTree, relative_path: str, progress: Progress, name=None):
    """Return (text, sha256) of one UTF-8 file of a tree, or None (reported) if it is not UTF-8
    or not read (a link out of the tree, not a regular file, over the size cap: tree.py).

    relative_path is below the tree's root (a tree given as one file: below its directory);
    name, if given, is how the skip line names it.
    """
    try:
        data = read_tree_file(tree.root, relative_path, tree.max_file_bytes)
    except Unreadable as exc:
        progress.skip(f"{tree.label}/{name or relative_path}", str(exc))
        return None
    except OSError as exc:  # a dangling link, a file without read permission
        progress.skip(f"{tree.label}/{name or relative_path}", f"cannot read: {exc.strerror}")
        return None
    try:
        text = decode_source(data)
    except UnicodeDecodeError as exc:
        # Reported and skipped whole: a half-read file would be evidence nobody wrote.
        progress.skip(f"{tree.label}/{name or relative_path}", f"not UTF-8 (byte {exc.start})")
        return None
    progress.files += 1
    progress.tick(tree.label)
    return text, hashlib.sha256(data).hexdigest()


def _read_sources(tree: SourceTree, below: str, progress: Progress):
    """Yield (path below `below`, text, sha256) of each supported, UTF-8 file of a tree's
    directory `below` ("" for the whole tree)."""
    for relative_path, _ in iter_source_files(os.path.join(tree.root, below)):
        read = _read_file(tree, posixpath.join(below, relative_path), progress, relative_path)
        if read is not None:
            yield relative_path, *read
    progress.tick(tree.label, force=True)


def _content(tree, relative_path, source_sha256, url, start_line, end_line, text, title,
             facts: IndexFields) -> dict:
    # The default collection is the absence of the field (one spelling per identity).
    collection = {} if tree.collection == DEFAULT_COLLECTION else {"collection": tree.collection}
    return collection | {
        "source_id": relative_path,
        "version": tree.version,
        "url": url,
        "start_line": start_line,
        "end_line": end_line,
        "text": text,
        "source_sha256": source_sha256,
        "title": title,
    } | facts.content()


def _paragraph_contents(tree, relative_path, source_sha256, page, paragraphs, prose) -> list:
    """Return [(content, "")] of one file's paragraphs, each under the page URL + its anchor."""
    contents = []
    for paragraph in paragraphs:
        # A paragraph is prose under a heading: no names, no priors beyond the section's.
        body = plain_text(paragraph.text) if prose else paragraph.text
        facts = IndexFields.of(
            kind=SECTION, in_links=0, noindex=False, reference_page=True, names="", name="",
            signature="", body=body, code="", context=relative_path)
        contents.append((_content(
            tree, relative_path, source_sha256,
            page + ("#" + paragraph.anchor if paragraph.anchor else ""),
            paragraph.start_line, paragraph.end_line, paragraph.text, relative_path, facts), ""))
    return contents


def _markdown_contents(tree, relative_path, page, source_sha256, text, flavour) -> list:
    """Return [(content, heading)] of one Markdown file's section units, published as page."""
    units = markdown.page_units(text, flavour, relative_path)
    return _unit_contents(tree, page, relative_path, source_sha256, units, {page}, Counter())


def _mkdocs_docs_dir(tree: SourceTree) -> tuple:
    """Return (the MkDocs project a tree is the docs of, or None; its docs_dir below the root).

    Files are read through the tree's reader (tree.py), relative to its root: a docs_dir that
    names a place outside the tree (`docs_dir: ../..`) is not an MkDocs project to read.
    """
    site = markdown.mkdocs_site(tree.root)
    if site is None:
        return None, ""
    below = os.path.relpath(site.docs_dir, os.path.abspath(tree.root))
    if below == os.curdir:
        return site, ""
    if below == os.pardir or below.startswith(os.pardir + os.sep):
        return None, ""
    return site, below.replace(os.sep, "/")


def read_paragraph_contents(tree: SourceTree, progress: Progress) -> list:
    """Parse every supported file of a plain tree, in path order: a Markdown page into one unit
    per section, other files into one passage per paragraph.

    Returns [(content, heading)]. The Markdown of an MkDocs project (its docs_dir) is read alone,
    anchored and published as MkDocs renders it.
    """
    site, below = _mkdocs_docs_dir(tree)
    contents = []
    for relative_path, text, source_sha256 in _read_sources(tree, below, progress):
        if source_kind(relative_path) == "markdown":
            found = _markdown_contents(tree, relative_path,
                                       markdown.page_path(relative_path, site), source_sha256,
                                       text, site.flavour if site else "github")
        elif site:
            continue  # MkDocs publishes only its Markdown as pages
        else:
            found = _paragraph_contents(
                tree, relative_path, source_sha256, page_url(tree.base_url, relative_path),
                parse_source(relative_path, text), source_kind(relative_path) == "rst")
        contents.extend(found)
        progress.passages += len(found)
    return contents


def read_llms_contents(tree: SourceTree, progress: Progress) -> list:
    """Read an llms-full.txt, or a directory's llms.txt and the Markdown pages it links.

    Each file is Markdown, one unit per section under its heading's anchor, published under the
    base URL by its own name (the pages an llms.txt lists are the .md files).
    """
    if os.path.isfile(tree.root):
        # Read under its real name, published under the name it was given.
        names = {os.path.basename(tree.root): os.path.basename(os.path.realpath(tree.root))}
    elif os.path.isfile(os.path.join(tree.root, llms.INDEX)):
        names = {llms.INDEX: llms.INDEX}
        index = _read_file(tree, llms.INDEX, progress)
        for link in llms.read_index(index[0] if index else ""):
            path = llms.local_path(link.url, tree.base_url)
            # lexists: a link is kept, for its read to say why it is not followed.
            if path is None or not os.path.lexists(os.path.join(tree.root, *path.split("/"))):
                progress.skip(f"{tree.label}/{link.url}", "linked page not in the tree")
            else:
                names.setdefault(path, path)
    else:
        names = {llms.FULL: llms.FULL}
    contents = []
    for name, path in names.items():
        read = _read_file(tree, path, progress, name)
        if read is not None:
            found = _markdown_contents(tree, name, name, read[1], read[0], "github")
            contents.extend(found)
            progress.passages += len(found)
    progress.tick(tree.label, force=True)
    return contents


def is_llms_tree(root: str) -> bool:
    """Tell whether a source is an llms-full.txt, or a directory holding llms.txt or one."""
    if os.path.isfile(root):
        return os.path.basename(root) == llms.FULL
    return any(os.path.isfile(os.path.join(root, name)) for name in (llms.INDEX, llms.FULL))


def _reference_pages(tree: SourceTree, site: RenderedSite, documenting: set,
                     progress: Progress) -> set:
    """Return the pages that describe Python objects: the documentation's reference pages.

    From objects.inv when there is one: pages where Python objects are at least as many as the
    objects of other domains (a C API page documents C functions, whatever Python it mentions).
    Without it (or with one that is refused, reported), `documenting`: the pages whose rendered
    HTML describes a Python object.
    """
    try:
        entries = read_inventory(site.read(INVENTORY), tree.max_file_bytes)
    except FileNotFoundError:
        return documenting
    except (OSError, Unreadable, InventoryError) as exc:
        reason = f"cannot read: {exc.strerror or exc}" if isinstance(exc, OSError) else str(exc)
        progress.skip(f"{tree.label}/{INVENTORY}", reason)
        return documenting
    python, other = Counter(), Counter()
    for entry in entries:
        if entry.domain == "py" and entry.role != "module":
            python[entry.page] += 1
        elif entry.domain not in ("py", "std"):
            other[entry.page] += 1
    return {page for page in python if python[page] >= other[page]}


def _unit_contents(tree, page, source_id, source_sha256, units, reference, in_links) -> list:
    """Return [(content, heading)] of one page's units, with their ranking facts."""
    page_address = tree.base_url + urllib.parse.quote(page, safe="/")
    contents = []
    for unit in units:
        facts = IndexFields.of(
            kind=unit.kind, noindex=unit.noindex, reference_page=page in reference,
            in_links=sum(in_links[page, anchor] for anchor in unit.anchors),
            names=unit.names, name=unit.name, signature=unit.signature, body=unit.body,
            code=unit.code, context=unit.context)
        contents.append((_content(
            tree, source_id, source_sha256,
            page_address + ("#" + unit.anchor if unit.anchor else ""),
            unit.start_line, unit.end_line, unit.text, unit.title, facts), unit.heading))
    return contents


def _html_units(tree: SourceTree, page: str, progress: Progress):
    """Return (source_id, sha256, units) of a rendered page read as the document itself, or
    None (reported) if it is not UTF-8, as for every source file."""
    read = _read_file(tree, page, progress)
    if read is None:
        return None
    text, sha256 = read
    return page, sha256, html_page_units(text)


def _published(tree: SourceTree, site: RenderedSite, pages, progress: Progress) -> list:
    """Return the pages of a site that are read (reporting each one refused: tree.py)."""
    found = []
    for page in pages:
        if site.page(page) is not None:
            found.append(page)
        elif page in site.refused:
            progress.skip(f"{tree.label}/{page}", site.refused[page])
    return found


def read_sphinx_contents(tree: SourceTree, progress: Progress) -> list:
    """Parse a published Sphinx site into one passage per documented object and section text.

    A page's units come from its reST source, or from the rendered page where the source is
    autodoc stubs (the text exists only in the HTML). Returns [(content, heading)], heading
    being the title of the unit's section.
    """
    site = RenderedSite(tree.root, tree.base_url, tree.max_file_bytes)
    pages = _published(tree, site, site.pages(), progress)
    # The documentation's own cross-references: how often each (page, id) is linked to.
    in_links = Counter(target for page in pages for target in site.page(page).links)
    reference = _reference_pages(tree, site, {page for page in pages if any(
        obj.ids for obj in site.page(page).objects)}, progress)
    contents = []
    for relative_source, text, source_sha256 in _read_sources(tree, SOURCES, progress):
        if not relative_source.endswith(_SOURCE_SUFFIX):
            continue
        page = relative_source[:-len(_SOURCE_SUFFIX)] + ".html"
        rendered = site.page(page)
        if rendered is None:
            if page not in site.refused:  # a refused page was reported with its reason
                progress.skip(f"{tree.label}/{relative_source}", "no rendered page")
            continue
        if _AUTODOC.search(text):
            read = _html_units(tree, page, progress)
            if read is None:
                continue
            source_id, sha256, units = read
        else:
            source_id, sha256 = f"{SOURCES}/{relative_source}", source_sha256
            units = page_units(text, rendered)
        contents.extend(_unit_contents(tree, page, source_id, sha256, units, reference, in_links))
        progress.passages += len(units)
    return contents


def read_html_contents(tree: SourceTree, progress: Progress) -> list:
    """Read every rendered page of an HTML tree (MkDocs, or any site) as the document itself."""
    site = RenderedSite(tree.root, tree.base_url, tree.max_file_bytes)
    pages = _published(tree, site, [page for page in site.pages()
                                    if posixpath.basename(page) not in _GENERATED_PAGES], progress)
    in_links = Counter(target for page in pages for target in site.page(page).links)
    read = [found for found in (_html_units(tree, page, progress) for page in pages) if found]
    progress.tick(tree.label, force=True)
    reference = _reference_pages(tree, site, {page for page, _, units in read
                                              if any(unit.kind != SECTION for unit in units)},
                                 progress)
    contents = []
    for page, sha256, units in read:
        contents.extend(_unit_contents(tree, page, page, sha256, units, reference, in_links))
        progress.passages += len(units)
    return contents


def is_rendered_site(root: str) -> bool:
    """Tell whether a tree is a published site to read page by page: MkDocs, or Sphinx without
    its `_sources` (Django's docs), as its index page's generator tag, objects.inv or MkDocs's
    search index say (a custom MkDocs theme, as Django REST framework's, writes no generator
    tag)."""
    if os.path.isfile(os.path.join(root, INVENTORY)) or os.path.isfile(
            os.path.join(root, *MKDOCS_SEARCH_INDEX)):
        return True
    try:
        with open_tree_file(root, "index.html") as handle:
            head = handle.read(65536).decode("utf-8", "replace")
    except (OSError, Unreadable):
        return False  # the build, if it reads the page, reports why it is refused
    return _GENERATOR.search(head) is not None


def read_passage_contents(tree: SourceTree, progress: Progress) -> list:
    """Read one tree into [(passage content, heading)], in path order, by its kind of tree."""
    if tree.reader is not None:
        return tree.reader(tree, progress)
    if tree.format != "html" and is_sphinx_site(tree.root):
        return read_sphinx_contents(tree, progress)
    if tree.format == "html" or is_rendered_site(tree.root):
        return read_html_contents(tree, progress)
    if is_llms_tree(tree.root):
        return read_llms_contents(tree, progress)
    return read_paragraph_contents(tree, progress)


def semantic_policy(policy: dict, semantic, model) -> dict:
    """Return the policy with its semantic section naming the model that computes the vectors.

    Weight and candidates come from the policy's own semantic section when it has one.
    """
    given = policy.get("semantic")
    given = given if isinstance(given, dict) else {}  # anything else: parse_policy names it
    tuning = {"weight": given.get("weight", model.default_weight),
              "candidates": given.get("candidates", DEFAULT_CANDIDATES)}
    return dict(policy, semantic={"model_sha256": model.digest, "recipe": model.recipe,
                                  "dimensions": model.dim, **tuning})


def _embed(semantic, model, units, progress) -> list:
    """Return each unit's vector bytes, and put its digest into its content."""
    progress.note(f"embedding {len(units)} units (model sha256 {model.digest[:12]})")
    texts = [semantic.document_text(content["fields"]["names"], heading,
                                    content["fields"]["body"]) for content, heading in units]
    vectors = semantic.vector_bytes(model.embed(texts))
    for (content, _), vector in zip(units, vectors, strict=True):
        content.update(vector_content(vector))
    return vectors


def build_snapshot(trees, out_dir, policy=None, progress=None, semantic=None,
                   default_collection: str | None = None) -> dict:
    """Build a snapshot directory from documentation trees; return its manifest.

    semantic: (the semantic module, its loaded model) from load_semantic, to store a vector per
    unit and re-rank with them (`--semantic`); None builds a lexical snapshot.
    default_collection: the collection requests that name none read (one of the trees').
    """
    built = sorted({tree.collection for tree in trees})
    if default_collection is not None and default_collection not in built:
        raise SnapshotError(f"--default-collection {default_collection}: no --source builds it "
                            f"(the collections: {', '.join(built)})")
    policy = DEFAULT_POLICY if policy is None else policy
    if semantic is not None:
        policy = semantic_policy(policy, *semantic)
    elif "semantic" in policy:
        raise SnapshotError("policy: a semantic section needs a --semantic build")
    parsed = Policy.parse(policy)  # refuse a bad policy before any work
    fallback, ranking = parsed.fallback, parsed.built_ranking()
    out = Path(out_dir)
    for name in (MANIFEST, DATABASE):
        # A served snapshot's files are never rewritten in place: build into a new directory.
        if (out / name).exists():
            raise SnapshotError(f"{out}: already holds a snapshot ({name}); build into a new "
                                "directory and point the server at it")
    progress = progress or Progress()
    labels = [tree.label for tree in trees]
    if len(set(labels)) != len(labels):
        raise SnapshotError("each version of a collection may be given once")
    units = []
    for tree in sorted(trees, key=lambda t: (t.collection, t.version)):
        units.extend(read_passage_contents(tree, progress))
    if not units:
        raise SnapshotError("no passages: the sources hold no supported, readable files")
    vectors = None if semantic is None else _embed(*semantic, units, progress)
    contents = [content for content, _ in units]

    corpus = compute_corpus_id(contents, policy, **IDENTITY)
    collection_ids = collection_corpus_ids(contents, policy, **IDENTITY)
    out.mkdir(parents=True, exist_ok=True)
    # Written under a temporary name and renamed, so a failed build never leaves a database that
    # looks complete.
    partial = out / (DATABASE + ".partial")
    partial.unlink(missing_ok=True)
    conn = sqlite3.connect(partial)
    try:
        conn.execute("PRAGMA journal_mode = OFF")
        conn.execute("PRAGMA synchronous = OFF")
        passages = [derive_passage(collection_ids[collection_of(c)], c) for c in contents]
        words = ubiquitous_by_collection(
            ((passage.collection, passage.index) for passage in passages),
            word_shares(fallback.ubiquitous_share, ranking))
        database.create(
            conn, passages,
            {"corpus_id": corpus, "schema_version": str(IDENTITY["schema_version"])},
            collection_ids, ranking, None if vectors is None else {
                passage.passage_id: vector
                for passage, vector in zip(passages, vectors, strict=True)},
            words.get("ubiquitous"), words.get("common"))
        sources = source_summary(conn)
    finally:
        conn.close()
    os.replace(partial, out / DATABASE)

    fetched = {tree.label: tree.provenance for tree in trees if tree.provenance}
    if fetched:  # before the manifest, whose presence says the directory is complete
        (out / PROVENANCE).write_text(json.dumps(fetched, indent=1, sort_keys=True) + "\n",
                                      encoding="utf-8")
    else:
        (out / PROVENANCE).unlink(missing_ok=True)  # left by a build that failed here
    manifest = manifest_for(corpus, collection_ids, sources, policy,
                            {(tree.collection, tree.version): tree.base_url for tree in trees},
                            default_collection)
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n",
                                encoding="utf-8")
    progress.done(len(contents), corpus)
    return manifest
