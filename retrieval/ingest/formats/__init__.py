"""The kinds of documentation tree `retrieval build` reads: an ordered registry of formats.

Each format is a module here with a `detect` (root -> whether the tree is of its kind) and a
`read` ((tree, progress) -> its units' drafts, in path order). A tree is read by the format it
names (`--format NAME`, or the one its source chose: a package source names `package`), else by
the first format in REGISTRY whose detect holds, the last one holding for any tree. A new format
is one module and one row of REGISTRY.

`read_trees` reads each tree of a build: a tree whose input cannot be read (UNREADABLE) is
reported, skipped and counted, and the others are built; a reader's bug stops the build.
"""

from collections.abc import Callable
from dataclasses import dataclass

from ...core.checks import SnapshotError
from ...core.errors import UserError
from ..registry import registry
from ..tree import AUTO_FORMAT, Progress, SourceTree, shown
from . import html, llms, mkdocs, package, plain, sphinx

# `--format`'s default: read each tree by the first format whose detect holds.
AUTO = AUTO_FORMAT


@dataclass(frozen=True)
class Format:
    """One kind of tree: its name, how it is recognised, and how it is read."""

    name: str
    # (the tree's root) -> whether it is a tree of this kind; None: read only when named.
    detect: Callable[[str], bool] | None
    read: Callable[[SourceTree, Progress], list]  # -> the tree's UnitDrafts
    named: bool = False  # `--format NAME` reads any tree this way


# In the order tried: a Sphinx site is also a rendered site, and any tree is a plain one.
REGISTRY = tuple(registry((
    Format("sphinx", sphinx.is_sphinx_site, sphinx.read_sphinx_contents),
    Format("html", html.is_rendered_site, html.read_html_contents, named=True),
    Format("llms", llms.is_llms_tree, llms.read_llms_contents),
    Format("mkdocs", mkdocs.is_mkdocs_project, mkdocs.read_mkdocs_contents),
    Format(package.PACKAGE_FORMAT, None, package.read_package_contents),
    Format("plain", plain.is_plain_tree, plain.read_paragraph_contents),
), lambda entry: entry.name).values())
# `--format`'s choices: AUTO, then each format that may be named.
CHOICES = (AUTO, *(entry.name for entry in REGISTRY if entry.named))


def format_of(tree: SourceTree) -> Format:
    """Return the format a tree is read with: the one it names, else the first that detects it."""
    if tree.format != AUTO:
        return next(entry for entry in REGISTRY if entry.name == tree.format)
    return next(entry for entry in REGISTRY
                if entry.detect is not None and entry.detect(tree.root))


def read_passage_contents(tree: SourceTree, progress: Progress) -> list:
    """Read one tree into its units' drafts (UnitDraft), in path order, by its kind of tree."""
    progress.begin_tree()
    return format_of(tree).read(tree, progress)


# What reading a tree may raise because of what the tree holds (it is untrusted input): a source's
# own refusal (a UserError: SourceError, FetchError...), a file that cannot be read or has gone
# (OSError), text a reader expected to decode or parse and could not (UnicodeError, SyntaxError),
# a module nested past the parser's depth or too large for memory (RecursionError, MemoryError).
# Such a tree is skipped and the build goes on. Anything else (TypeError, KeyError, a plain
# ValueError...) is a bug in a reader: it stops the build with its traceback, which names the
# tree being read.
UNREADABLE = (UserError, OSError, UnicodeError, SyntaxError, RecursionError, MemoryError)


def unreadable_reason(exc: BaseException) -> str:
    """Return why a tree could not be read, as its skip line says it (one line)."""
    if isinstance(exc, MemoryError):
        return "too large to read in memory"
    if isinstance(exc, RecursionError):
        return "nested too deeply to read"
    if isinstance(exc, OSError):
        where = f" {exc.filename}" if exc.filename else ""
        return f"cannot read{where}: {exc.strerror or exc}"
    if isinstance(exc, UserError):
        return str(exc)
    return f"{exc.__class__.__name__}: {exc}"  # UnicodeError, SyntaxError: their own words


def read_trees(trees, progress: Progress) -> list:
    """Read every tree into its units' drafts, in order, skipping (and reporting) unreadable ones.

    A tree that raises UNREADABLE gives no drafts, is reported as `build: skipped LABEL: REASON`
    and counted in the build's last line. The only tree, or every tree, unreadable: SnapshotError.
    """
    drafts, skipped = [], []
    for tree in trees:
        files, passages = progress.files, progress.passages
        try:
            read = read_passage_contents(tree, progress)
            drafts.extend(read)
            if not read:
                # No collection is made of it (tzdata's installed modules hold data alone):
                # said, so that its absence from the snapshot is no mystery.
                progress.note(f"{shown(tree.label)}: no units: nothing of it is documentation "
                              "(no page, no docstring, no public object); no collection")
        except UNREADABLE as exc:
            reason = shown(unreadable_reason(exc).replace("\n", " "))
            if len(trees) == 1:
                raise SnapshotError(f"{tree.label}: cannot be read: {reason}") from None
            progress.files, progress.passages = files, passages  # none of it is built
            progress.skip_tree(tree.label, reason)
            skipped.append(tree.label)
        except Exception as exc:  # a bug: its traceback says which tree it was reading
            exc.add_note(f"retrieval build: while reading {tree.label} "
                         f"(format {format_of(tree).name})")
            raise
    if trees and len(skipped) == len(trees):
        raise SnapshotError(f"every tree was skipped ({', '.join(skipped)}): nothing to build")
    return drafts
