"""Documentation in, a snapshot directory out: `retrieval build`, in three wings and a small model.

The words, each for one thing:

- a **source** is one `--source` value; its **form** (`sources/`: a local path, a crawled site, a
  git checkout, a `pypi:` release, an `env:` environment) fetches it, if it lives elsewhere, into
  one or more trees. `sources.resolve` (and `sources.plan`, its checks alone) is the one entry.
- a **tree** (`tree.SourceTree`) is the files of one collection version on disk, with where its
  pages are published; `tree.py` also reads its files as untrusted input and reports progress.
- a **format** (`formats/`) is a kind of tree (a Sphinx site, a rendered site, llms.txt, an
  MkDocs project, a package, a plain tree): which of its files are pages and how each is read.
- a **reader** (`readers/`) turns one document's text into **units**, fetching nothing and
  choosing no tree.
- a **unit** (`unit.Unit`) is one retrievable piece of a document: a section's own text or one
  documented object, with exact lines, an anchor and the facts the ranking reads. A **draft**
  (`unit.UnitDraft`) is a unit placed in its tree: the **passage** content the snapshot stores
  and serves, which corpus_id covers. A **paragraph** (`readers/blocks.Paragraph`) is the plain
  text readers' unit: a run of lines cut to size.

`builder.build_snapshot` reads every tree by its format and writes the snapshot; `verify.py` is
what `retrieval verify` checks against the sources.
"""
