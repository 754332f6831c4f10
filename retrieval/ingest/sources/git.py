"""A documentation folder of a git repository at one tag or commit: `git+URL@REF[#PATH]`.

Any URL git itself can clone (`https://`, `ssh://`, `file://`) is fetched at depth 1 into the
fetch cache, and the documentation folder found in it: the path after `#`, else the `docs_dir`
of a top-level `mkdocs.yml`, else `docs/`, else `doc/`. The provenance is the commit id. The
`git` program is the one dependency.

The source string may come from a package's own metadata, so it is untrusted: a URL or ref that
starts with `-` is refused (git would read it as an option: `--upload-pack=CMD` runs CMD), git
is always given `--end-of-options` before them, and only the file, git, http(s) and ssh
transports are allowed (`ext::` runs a command). The documentation folder, however it is named
(`#PATH`, `mkdocs.yml`'s `docs_dir`, `docs/`), must resolve inside the checkout: an absolute
`docs_dir`, one that climbs out, or a committed link out of the repository is refused.
"""

import hashlib
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass

from ...core.errors import UserError
from ..readers.markdown import CONFIG, mkdocs_site, translated_site

SCHEME = "git+"
_TIMEOUT_S = 600
_FOLDERS = ("docs", "doc")
# The transports git may use (GIT_ALLOW_PROTOCOL): not ext:: (a command) nor fd::.
_PROTOCOLS = "file:git:http:https:ssh"


class GitSourceError(UserError):
    """A git source cannot be fetched or holds no documentation folder; one line."""


@dataclass(frozen=True)
class GitSpec:
    """What a `git+URL@REF#PATH` source names."""

    url: str
    ref: str
    path: str  # "" when the folder is to be found


def parse_spec(spec: str) -> GitSpec:
    """Split a git+URL@REF[#PATH] source, or raise GitSourceError saying what is missing."""
    address, _, path = spec.removeprefix(SCHEME).partition("#")
    url, at, ref = address.rpartition("@")
    # "ssh://git@host/repo.git" without a ref splits inside the user part: no path after "://".
    if not at or not ref or "/" not in url.partition("://")[2]:
        raise GitSourceError(f"{spec}: give git+URL@REF (a tag, branch or commit), "
                             "optionally #PATH of the documentation folder")
    if path and (os.path.isabs(path) or ".." in path.split("/")):
        raise GitSourceError(f"{spec}: #{path} must be a relative path inside the repository")
    for what, value in (("URL", url), ("ref", ref)):
        if value.startswith("-"):
            raise GitSourceError(f"{spec}: the {what} starts with '-' (git would read it as an "
                                 "option); give a URL and a tag, branch or commit")
    return GitSpec(url, ref, path.strip("/"))


def _program(spec: str) -> str:
    git = shutil.which("git")
    if git is None:
        raise GitSourceError(f"{spec}: needs the git program, which is not installed "
                             "(apt-get install git)")
    return git


def _git(args: list, where: str, spec: str) -> str:
    git = _program(spec)
    try:
        # Nothing may wait for a person: no credential prompt, no ssh host-key question.
        env = {"GIT_SSH_COMMAND": "ssh -o BatchMode=yes", **os.environ,
               "GIT_TERMINAL_PROMPT": "0", "GIT_ALLOW_PROTOCOL": _PROTOCOLS}
        done = subprocess.run([git, *args], cwd=where, capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=_TIMEOUT_S, env=env)
    except subprocess.TimeoutExpired:
        raise GitSourceError(f"{spec}: git {args[0]} took over {_TIMEOUT_S}s") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        raise GitSourceError(f"{spec}: git {args[0]} failed: {last}")
    return done.stdout.strip()


def docs_folder(checkout: str, path: str, spec: str) -> str:
    """Return the documentation folder of a checkout: #PATH, mkdocs.yml's docs_dir, docs/, doc/.

    Whichever names it, the folder must resolve inside the checkout, or GitSourceError.
    """
    folder = _named_folder(checkout, path, spec)
    inside, real = os.path.realpath(checkout), os.path.realpath(folder)
    if real != inside and not real.startswith(inside + os.sep):
        named = f"#{path}" if path else os.path.relpath(folder, checkout)
        raise GitSourceError(f"{spec}: the documentation folder {named} leads out of the "
                             "repository (an absolute or climbing docs_dir, or a link); "
                             "not read")
    return folder


def _named_folder(checkout: str, path: str, spec: str) -> str:
    if path:
        folder = os.path.join(checkout, *path.split("/"))
        if not os.path.isdir(folder) and not os.path.isfile(folder):
            raise GitSourceError(f"{spec}: the repository has no {path}")
        return folder
    if os.path.isfile(os.path.join(checkout, CONFIG)):
        site = mkdocs_site(checkout)
        if site is None:
            raise GitSourceError(f"{spec}: {CONFIG} names a docs_dir the repository lacks")
        return site.docs_dir
    for name in _FOLDERS:
        if os.path.isdir(os.path.join(checkout, name)):
            # One MkDocs site per language: the original's pages (markdown.translated_site).
            translated = translated_site(os.path.join(checkout, name))
            return translated[0].docs_dir if translated else os.path.join(checkout, name)
    raise GitSourceError(f"{spec}: no documentation folder (docs/, doc/ or {CONFIG}'s "
                         "docs_dir); name one after #")


def checkout_path(url: str, ref: str, cache_dir: str) -> str:
    """Return where the fetch cache keeps the checkout of url at ref."""
    key = hashlib.sha256(f"{url}\n{ref}".encode()).hexdigest()[:16]
    return os.path.join(cache_dir, "git", key)


def check_out(spec: str, cache_dir: str, stream=None) -> tuple:
    """Check a git source out at its ref in the fetch cache (depth 1); return (the checkout,
    its GitSpec, the commit)."""
    parsed = parse_spec(spec)
    _program(spec)
    print(f"fetch: git {parsed.url} at {parsed.ref} (depth 1)", file=stream or sys.stderr,
          flush=True)
    checkout = checkout_path(parsed.url, parsed.ref, cache_dir)
    os.makedirs(checkout, exist_ok=True)
    if not os.path.isdir(os.path.join(checkout, ".git")):
        _git(["init", "-q"], checkout, spec)
    _git(["fetch", "-q", "--depth", "1", "--no-tags", "--end-of-options", parsed.url,
          parsed.ref], checkout, spec)
    _git(["checkout", "-q", "--force", "--detach", "FETCH_HEAD"], checkout, spec)
    _git(["clean", "-q", "-f", "-d", "-x"], checkout, spec)
    return checkout, parsed, head_commit(checkout, spec)


def head_commit(checkout: str, spec: str) -> str:
    """Return the commit a checkout is at."""
    return _git(["rev-parse", "HEAD"], checkout, spec)


def remote_tags(url: str, spec: str, where: str) -> list:
    """Return the tag names of a remote repository (git ls-remote, nothing fetched)."""
    if url.startswith("-"):
        raise GitSourceError(f"{spec}: the URL starts with '-' (git would read it as an option)")
    # git runs in the fetch cache (never in a folder whose repository config it would read),
    # which a first run has not made yet.
    os.makedirs(where, exist_ok=True)
    listed = _git(["ls-remote", "--tags", "--refs", "--end-of-options", url], where, spec)
    return [ref.removeprefix("refs/tags/") for _, _, ref in
            (line.partition("\t") for line in listed.splitlines())
            if ref.startswith("refs/tags/")]


def fetch(spec: str, cache_dir: str, stream=None) -> tuple:
    """Check out a git source at its ref in the fetch cache; return (folder, provenance)."""
    checkout, parsed, commit = check_out(spec, cache_dir, stream)
    folder = docs_folder(checkout, parsed.path, spec)
    print(f"fetch: commit {commit}, folder {os.path.relpath(folder, checkout)}",
          file=stream or sys.stderr, flush=True)
    return folder, {"kind": "git", "url": parsed.url, "ref": parsed.ref, "commit": commit,
                    "path": os.path.relpath(folder, checkout).replace(os.sep, "/")}
