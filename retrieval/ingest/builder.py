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
from dataclasses import dataclass, field
from pathlib import Path

from ..core import database
from ..core.ranking import SECTION, IndexFields, ubiquitous_by_collection, word_shares
from ..core.snapshot import (
    DEFAULT_COLLECTION,
    SnapshotError,
    built_policy_ranking,
    collection_corpus_ids,
    collection_of,
    compute_corpus_id,
    derive_passage,
    parse_policy,
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
    },
}
# How a --semantic build re-ranks, unless its policy says otherwise: the 200 best lexical hits
# re-sorted by score - weight x cosine, at the weight the model chose on CoNaLa train
# (its default_weight).
DEFAULT_CANDIDATES = 200
SOURCES = "_sources"
INVENTORY = "objects.inv"
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
        print(f"build: skipped {relative_path}: {reason}", file=self._stream, flush=True)

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


def _read_file(tree: SourceTree, relative_path: str, absolute_path: str, progress: Progress):
    """Return (text, sha256) of one UTF-8 file, or None (reported) if it is not UTF-8."""
    data = Path(absolute_path).read_bytes()
    try:
        text = decode_source(data)
    except UnicodeDecodeError as exc:
        # Reported and skipped whole: a half-read file would be evidence nobody wrote.
        progress.skip(f"{tree.label}/{relative_path}", f"not UTF-8 (byte {exc.start})")
        return None
    progress.files += 1
    progress.tick(tree.label)
    return text, hashlib.sha256(data).hexdigest()


def _read_sources(tree: SourceTree, root: str, progress: Progress):
    """Yield (relative path, text, sha256) of each supported, UTF-8 file of a tree."""
    for relative_path, absolute_path in iter_source_files(root):
        read = _read_file(tree, relative_path, absolute_path, progress)
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


def read_paragraph_contents(tree: SourceTree, progress: Progress) -> list:
    """Parse every supported file of a plain tree, in path order: a Markdown page into one unit
    per section, other files into one passage per paragraph.

    Returns [(content, heading)]. The Markdown of an MkDocs project (its docs_dir) is read alone,
    anchored and published as MkDocs renders it.
    """
    site = markdown.mkdocs_site(tree.root)
    contents = []
    for relative_path, text, source_sha256 in _read_sources(
            tree, site.docs_dir if site else tree.root, progress):
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
        root, names = os.path.dirname(tree.root), [os.path.basename(tree.root)]
    elif os.path.isfile(os.path.join(tree.root, llms.INDEX)):
        root, names = tree.root, [llms.INDEX]
        index = _read_file(tree, llms.INDEX, os.path.join(root, llms.INDEX), progress)
        for link in llms.read_index(index[0] if index else ""):
            path = llms.local_path(link.url, tree.base_url)
            if path is None or not os.path.isfile(os.path.join(root, *path.split("/"))):
                progress.skip(f"{tree.label}/{link.url}", "linked page not in the tree")
            elif path not in names:
                names.append(path)
    else:
        root, names = tree.root, [llms.FULL]
    contents = []
    for name in names:
        read = _read_file(tree, name, os.path.join(root, *name.split("/")), progress)
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


def _reference_pages(site: RenderedSite, documenting: set) -> set:
    """Return the pages that describe Python objects: the documentation's reference pages.

    From objects.inv when there is one: pages where Python objects are at least as many as the
    objects of other domains (a C API page documents C functions, whatever Python it mentions).
    Without it, `documenting`: the pages whose rendered HTML describes a Python object.
    """
    try:
        entries = read_inventory(Path(site.root, INVENTORY).read_bytes())
    except (OSError, InventoryError):
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
    read = _read_file(tree, page, os.path.join(tree.root, *page.split("/")), progress)
    if read is None:
        return None
    text, sha256 = read
    return page, sha256, html_page_units(text)


def read_sphinx_contents(tree: SourceTree, progress: Progress) -> list:
    """Parse a published Sphinx site into one passage per documented object and section text.

    A page's units come from its reST source, or from the rendered page where the source is
    autodoc stubs (the text exists only in the HTML). Returns [(content, heading)], heading
    being the title of the unit's section.
    """
    site = RenderedSite(tree.root, tree.base_url)
    pages = site.pages()
    # The documentation's own cross-references: how often each (page, id) is linked to.
    in_links = Counter(target for page in pages for target in site.page(page).links)
    reference = _reference_pages(site, {page for page in pages
                                        if any(obj.ids for obj in site.page(page).objects)})
    contents = []
    sources = os.path.join(tree.root, SOURCES)
    for relative_source, text, source_sha256 in _read_sources(tree, sources, progress):
        if not relative_source.endswith(_SOURCE_SUFFIX):
            continue
        page = relative_source[:-len(_SOURCE_SUFFIX)] + ".html"
        rendered = site.page(page)
        if rendered is None:
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
    site = RenderedSite(tree.root, tree.base_url)
    pages = [page for page in site.pages() if posixpath.basename(page) not in _GENERATED_PAGES]
    in_links = Counter(target for page in pages for target in site.page(page).links)
    read = [found for found in (_html_units(tree, page, progress) for page in pages) if found]
    progress.tick(tree.label, force=True)
    reference = _reference_pages(site, {page for page, _, units in read
                                        if any(unit.kind != SECTION for unit in units)})
    contents = []
    for page, sha256, units in read:
        contents.extend(_unit_contents(tree, page, page, sha256, units, reference, in_links))
        progress.passages += len(units)
    return contents


def is_rendered_site(root: str) -> bool:
    """Tell whether a tree is a published site to read page by page: MkDocs, or Sphinx without
    its `_sources` (Django's docs), as its index page's generator tag or objects.inv say."""
    if os.path.isfile(os.path.join(root, INVENTORY)):
        return True
    try:
        with open(os.path.join(root, "index.html"), encoding="utf-8", errors="replace") as f:
            head = f.read(65536)
    except OSError:
        return False
    return _GENERATOR.search(head) is not None


def read_passage_contents(tree: SourceTree, progress: Progress) -> list:
    """Read one tree into [(passage content, heading)], in path order, by its kind of tree."""
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


def build_snapshot(trees, out_dir, policy=None, progress=None, semantic=None) -> dict:
    """Build a snapshot directory from documentation trees; return its manifest.

    semantic: (the semantic module, its loaded model) from load_semantic, to store a vector per
    unit and re-rank with them (`--semantic`); None builds a lexical snapshot.
    """
    policy = DEFAULT_POLICY if policy is None else policy
    if semantic is not None:
        policy = semantic_policy(policy, *semantic)
    elif "semantic" in policy:
        raise SnapshotError("policy: a semantic section needs a --semantic build")
    _, fallback = parse_policy(policy)  # refuse a bad policy before any work
    ranking = built_policy_ranking(policy)
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
                            {(tree.collection, tree.version): tree.base_url for tree in trees})
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n",
                                encoding="utf-8")
    progress.done(len(contents), corpus)
    return manifest
