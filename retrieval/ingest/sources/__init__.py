"""Where each `--source` value lives -> the trees to build from: the one registry of source forms.

A value is `[LABEL=]SPEC`; the first row of FORMS whose scheme SPEC starts with reads it, the last
row (a local path) any other. `resolve` checks every value, and the --base-url values, before it
fetches any, then returns every value's SourceTrees. A new form of source is one module in this
package (its fetch: (Requested, SourceOptions) -> SourceTrees) and one row of FORMS.
"""

import os
import sys
import urllib.parse
from dataclasses import dataclass

from ...core.errors import UserError
from ..formats.llms import is_llms_tree
from ..registry import registry
from ..tree import Progress
from . import crawl, git, packages
from .form import (
    LocalTree,
    Requested,
    SourceError,
    SourceForm,
    SourceOptions,
    collection_version,
    tree_form,
)


def _crawled(requested: Requested, options: SourceOptions) -> LocalTree:
    """Crawl a published site (`https://`; `http://` for loopback hosts only) into the cache."""
    from ...hosts import is_loopback  # the one definition of a loopback listen address

    spec = requested.spec
    host = urllib.parse.urlsplit(spec).hostname or ""
    if spec.startswith("http://") and not is_loopback(host):
        raise crawl.CrawlError(f"{spec}: use https:// (http:// is for loopback hosts only)")
    result = crawl.crawl(spec, options.cache_dir, options.limits, requested.label,
                         options.stream or sys.stderr)
    prefix, _ = crawl.split_prefix(spec)
    has_html = any(f.path.endswith((".html", ".htm")) for f in result.files)
    has_sources = any(f.path.startswith("_sources/") for f in result.files)
    # Pages without a generator's own layout are read page by page (--format html).
    return LocalTree(result.root, prefix, "html" if has_html and not has_sources else None,
                     {"kind": "crawl", "url": spec, "prefix": prefix,
                      "files": [f.provenance() for f in result.files]})


def _checked_out(requested: Requested, options: SourceOptions) -> LocalTree:
    """Check a git repository's documentation folder out at its ref into the cache."""
    folder, provenance = git.fetch(requested.spec, options.cache_dir, options.stream)
    return LocalTree(folder, None, None, provenance)


def _local(requested: Requested, options: SourceOptions) -> LocalTree:
    """Read a tree on disk where it is."""
    return LocalTree(requested.spec, provenance={"kind": "path",
                                                 "path": os.path.abspath(requested.spec)})


def _check_local(requested: Requested) -> None:
    """Refuse a local tree that is not a directory (or an llms-full.txt, the one file tree)."""
    path = requested.spec
    if not (os.path.isdir(path) or is_llms_tree(path)):
        raise SourceError(f"--source {requested.label}={path}: " + (
            "not a directory (give the documentation tree's root)"
            if os.path.exists(path) else "no such directory"))


# In the order tried; the last row, a local path, reads any value no scheme claims.
FORMS = registry((
    SourceForm("https://", tree_form(_crawled), labelled=True, gives_base_url=True),
    SourceForm("http://", tree_form(_crawled), labelled=True, gives_base_url=True),
    SourceForm(git.SCHEME, tree_form(_checked_out), labelled=True),
    SourceForm("pypi:", packages.fetch_pypi, labelled=False),
    SourceForm("env:", packages.fetch_env, labelled=False),
    SourceForm("", tree_form(_local), labelled=True, check=_check_local),
), lambda form: form.scheme)


def form_of(spec: str) -> SourceForm:
    """Return the form that reads a spec (a value without its label)."""
    return next(form for scheme, form in FORMS.items() if spec.startswith(scheme))


def _requested(value: str) -> tuple:
    """Return (the form, Requested) of one --source value, its label checked."""
    for scheme, form in FORMS.items():
        if scheme and not form.labelled and value.startswith(scheme):
            return form, Requested(value, "", value)  # a package form without a label
    label, sep, spec = value.partition("=")
    if not sep or not label or not spec:
        raise SourceError(f"--source takes VERSION=VALUE, not {value!r}")
    form = form_of(spec)
    if form.labelled:  # a package form reads its own label (pypi: a version, env: names)
        collection_version(label)
    return form, Requested(value, label, spec)


def label_pairs(values, flag: str) -> dict:
    """Return {label: value} of LABEL=VALUE flags; refuse a value without a label, or twice."""
    pairs: dict = {}
    for value in values:
        key, sep, rest = value.partition("=")
        if not sep or not key or not rest:
            raise SourceError(f"{flag} takes VERSION=VALUE, not {value!r}")
        if key in pairs:
            raise SourceError(f"{flag} {key} given twice")
        pairs[key] = rest
    return pairs


def check_base_urls(values) -> dict:
    """Return the --base-url values by label, each checked to end with '/'."""
    base_urls = label_pairs(values, "--base-url")
    for label, url in base_urls.items():
        if not url.endswith("/"):
            raise SourceError(f"--base-url {label}={url} must end with '/'")
    return base_urls


def _refuse_unused(base_urls, labels) -> None:
    unused = sorted(set(base_urls) - set(labels))
    if unused:
        raise SourceError(f"--base-url {unused[0]}: no --source of that version")


@dataclass(frozen=True)
class Plan:
    """Every --source value checked, with the form that fetches it; nothing fetched yet."""

    requested: tuple  # (SourceForm, Requested) of each value
    options: SourceOptions

    def fetch(self, progress: Progress | None = None) -> list:
        """Return the SourceTrees of every value: tree forms in label order, then packages.

        A package value (`pypi:`, `env:`) that cannot be fetched is skipped, reported and
        counted (progress.skip_tree) when the others give trees; alone, or with every other
        value failing too, it stops the build (SourceError). A tree form's value names one tree
        the user labelled, and its failure always stops the build, as does the disk.
        """
        trees, failed = [], []
        for form, one in sorted(self.requested,
                                key=lambda pair: (not pair[0].labelled, pair[1].label)):
            try:
                trees.extend(form.fetch(one, self.options))
            except OSError as exc:  # the fetch cache cannot be written, or the disk is full
                raise SourceError(f"{one.spec}: {exc.strerror or exc} "
                                  f"({exc.filename or self.options.cache_dir})") from None
            except UserError as error:
                if form.labelled:
                    raise
                failed.append((one, error))
        if failed and not trees:
            (_, first), others = failed[0], len(failed) - 1
            if not others:
                raise first
            raise SourceError(f"{first} (and {others} more --source value"
                              f"{'' if others == 1 else 's'} cannot be fetched)") from None
        progress = progress or Progress()
        for one, refusal in failed:
            progress.skip_tree(one.value, str(refusal).removeprefix("--source ")
                               .removeprefix(one.spec + ": "))
        _refuse_unused(self.options.base_urls, [tree.label for tree in trees])
        return trees


def plan(values, options: SourceOptions) -> Plan:
    """Check every --source value, and the --base-url values, before anything is fetched."""
    if not values:
        raise SourceError("give at least one --source [COLLECTION/]VERSION=PATH")
    if options.max_file_bytes < 1:
        raise SourceError(f"--max-file-bytes {options.max_file_bytes} must be at least 1")
    requested = tuple(_requested(value) for value in values)
    labelled = label_pairs([r.value for form, r in requested if form.labelled], "--source")
    for form, one in requested:
        if form.labelled and one.label not in options.base_urls and not form.gives_base_url:
            raise SourceError(f"--source {one.label} needs --base-url {one.label}=URL (where "
                              "its pages are published)")
        if form.check is not None:
            form.check(one)
    # Package forms may name their collections only once fetched; without them every label is
    # known now, so a --base-url of no --source is refused before any fetch.
    if all(form.labelled for form, _ in requested):
        _refuse_unused(options.base_urls, labelled)
    return Plan(requested, options)


def resolve(values, options: SourceOptions) -> list:
    """Return the SourceTrees of every --source value, each checked before any is fetched."""
    return plan(values, options).fetch()
