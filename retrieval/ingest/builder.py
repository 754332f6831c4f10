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

import json
import os
import posixpath
import re
import sqlite3
from collections import Counter
from pathlib import Path

from ..core import database
from ..core.ranking import SECTION, IndexFields, ubiquitous_by_collection, word_shares
from ..core.snapshot import (
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
from .default_policy import (
    DEFAULT_CANDIDATES,
    DEFAULT_POLICY,
    DEFAULT_STOP_WORDS,
    MODEL_WEIGHTS,
    RANKINGS,
    default_policy,
)
from .html_units import page_units as html_page_units
from .inventory import InventoryError, read_inventory
from .parse import page_url, parse_source, source_kind
from .provenance import PROVENANCE
from .rendered import RenderedSite
from .tree import (
    Progress,
    SourceTree,
    UnitDraft,
    Unreadable,
    open_tree_file,
    read_file,
    read_sources,
    unit_drafts,
)
from .units import page_units, plain_text

# The names the command line and the tests import from here, wherever they are defined.
__all__ = [
    "DEFAULT_CANDIDATES", "DEFAULT_POLICY", "DEFAULT_STOP_WORDS", "FORMATS", "MODEL_WEIGHTS",
    "RANKINGS", "Progress", "SourceTree", "build_snapshot", "default_policy", "is_llms_tree",
    "read_passage_contents", "semantic_policy",
]

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


def is_sphinx_site(root: str) -> bool:
    """Tell whether a tree is a published Sphinx HTML root (rendered pages beside _sources)."""
    return os.path.isdir(os.path.join(root, SOURCES)) and (
        os.path.isfile(os.path.join(root, INVENTORY))
        or os.path.isfile(os.path.join(root, "index.html")))


def _paragraph_contents(tree, relative_path, source_sha256, page, paragraphs, prose) -> list:
    """Return [(content, "")] of one file's paragraphs, each under the page URL + its anchor."""
    contents = []
    for paragraph in paragraphs:
        # A paragraph is prose under a heading: no names, no priors beyond the section's.
        body = plain_text(paragraph.text) if prose else paragraph.text
        facts = IndexFields.of(
            kind=SECTION, in_links=0, noindex=False, reference_page=True, names="", name="",
            signature="", body=body, code="", context=relative_path)
        contents.append(UnitDraft.of(
            tree, relative_path, source_sha256,
            page + ("#" + paragraph.anchor if paragraph.anchor else ""),
            paragraph.start_line, paragraph.end_line, paragraph.text, relative_path, facts))
    return contents


def _markdown_contents(tree, relative_path, page, source_sha256, text, flavour) -> list:
    """Return [(content, heading)] of one Markdown file's section units, published as page."""
    units = markdown.page_units(text, flavour, relative_path)
    return unit_drafts(tree, page, relative_path, source_sha256, units, {page}, Counter())


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
    for relative_path, text, source_sha256 in read_sources(tree, below, progress):
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
        index = read_file(tree, llms.INDEX, progress)
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
        read = read_file(tree, path, progress, name)
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


def _html_units(tree: SourceTree, page: str, progress: Progress):
    """Return (source_id, sha256, units) of a rendered page read as the document itself, or
    None (reported) if it is not UTF-8, as for every source file."""
    read = read_file(tree, page, progress)
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
    for relative_source, text, source_sha256 in read_sources(tree, SOURCES, progress):
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
        contents.extend(unit_drafts(tree, page, source_id, sha256, units, reference, in_links))
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
        contents.extend(unit_drafts(tree, page, page, sha256, units, reference, in_links))
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
    """Return each unit's vector bytes."""
    progress.note(f"embedding {len(units)} units (model sha256 {model.digest[:12]})")
    texts = [semantic.document_text(unit.content["fields"]["names"], unit.heading,
                                    unit.content["fields"]["body"]) for unit in units]
    return semantic.vector_bytes(model.embed(texts))


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
    contents = [unit.content for unit in units]
    if vectors is not None:  # a unit's vector is part of its content (its digest): corpus_id
        contents = [content | vector_content(vector)  # covers it
                    for content, vector in zip(contents, vectors, strict=True)]

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
