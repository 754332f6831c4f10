"""Names and versions as people write them, read the one way every part of the package reads them.

A distribution's name in PEP 503's normal form (`Flask`, `flask`; `ruamel.yaml`, `ruamel-yaml`);
a version in PEP 440's grammar (a leading `v`, calendar versions, pre-, post- and dev releases,
any case and separators), its normal form and its order. Like the rest of core, the standard
library alone (tests/test_index_fetch.py holds the forms and the order to `packaging`'s answers).

Three shapes of version are told apart:

- VERSION_PATTERN, a version a snapshot holds: a build label, a stored passage's version. A
  PEP 440 normal form (`2.2.2`, `2024.8.30`, `2.5.0b1`, `1.0.post1`, `1.0.dev3`, `2.1.0+cpu`),
  written as the build was told it (leading zeros, which earlier builds allowed, are kept).
- REQUEST_VERSION_PATTERN, a version a request names: any PEP 440 spelling (`v2.2.2`,
  `2.5.0-beta.1`, `1.0-1`), which is served as the held version of the same normal form.
- `X.Y` alone (two release numbers, nothing else): also the highest final or post release of
  `X.Y.*` a collection holds (`==X.Y.*` without pre- and dev releases), when it holds no `X.Y`.
"""

import re

# Passages that name no collection belong to this one; requests that name none read it.
DEFAULT_COLLECTION = "default"

# PEP 440, Appendix B: the canonical pattern, matched case-insensitively after stripping.
_PEP440 = re.compile(r"""
    v?
    (?:(?P<epoch>[0-9]+)!)?
    (?P<release>[0-9]+(?:\.[0-9]+)*)
    (?P<pre>[-_.]?(?P<pre_l>alpha|a|beta|b|preview|pre|c|rc)[-_.]?(?P<pre_n>[0-9]+)?)?
    (?P<post>(?:-(?P<post_n1>[0-9]+))
             |(?:[-_.]?(?P<post_l>post|rev|r)[-_.]?(?P<post_n2>[0-9]+)?))?
    (?P<dev>[-_.]?(?P<dev_l>dev)[-_.]?(?P<dev_n>[0-9]+)?)?
    (?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?
""", re.VERBOSE | re.IGNORECASE)
_PRE = {"alpha": "a", "a": "a", "beta": "b", "b": "b", "c": "rc", "pre": "rc", "preview": "rc",
        "rc": "rc"}

# Every number of a version is at most 9 digits, a release at most 10 numbers: bounded patterns,
# plain enough for JSON Schema (ECMA-262) to read as Python does.
_N = "[0-9]{1,9}"
_RELEASE = rf"{_N}(?:\.{_N}){{0,9}}"
_LOCAL = r"[a-z0-9]{1,16}(?:\.[a-z0-9]{1,16}){0,7}"
VERSION_PATTERN = re.compile(
    rf"(?:{_N}!)?{_RELEASE}(?:(?:a|b|rc){_N})?(?:\.post{_N})?(?:\.dev{_N})?(?:\+{_LOCAL})?")
VERSION_SHAPE = ("a PEP 440 version in its normal form (2.2.2, 2024.8.30, 2.5.0b1, 1.0.post1, "
                 "1.0.dev0)")


def _any_case(word: str) -> str:
    """Return a pattern of word in any case, without flags (JSON Schema's patterns have none)."""
    return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else c for c in word)


def _words(*words: str) -> str:
    return "(?:" + "|".join(_any_case(word) for word in words) + ")"


_SEP = "[-_.]?"
REQUEST_VERSION_PATTERN = re.compile(
    rf"[vV]?(?:{_N}!)?{_RELEASE}"
    rf"(?:{_SEP}{_words('alpha', 'a', 'beta', 'b', 'preview', 'pre', 'c', 'rc')}{_SEP}"
    rf"[0-9]{{0,9}})?"
    rf"(?:-{_N}|{_SEP}{_words('post', 'rev', 'r')}{_SEP}[0-9]{{0,9}})?"
    rf"(?:{_SEP}{_words('dev')}{_SEP}[0-9]{{0,9}})?"
    r"(?:\+[a-zA-Z0-9]{1,16}(?:[-_.][a-zA-Z0-9]{1,16}){0,7})?")
REQUEST_VERSION_SHAPE = "a PEP 440 version (2.2.2, v2.2.2, 2024.8.30, 2.5.0b1, 1.0.post1)"

# A collection as a request may name it: the collection's own name, its distribution's name in
# any spelling (PEP 508: letters, digits, -, _ and .), or an import name (bs4, yaml, _pytest).
REQUEST_COLLECTION_PATTERN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,63}")
# An import name as a project's pins list it: a dotted Python identifier (ASCII).
IMPORT_NAME_PATTERN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")


def normalized_name(name: str) -> str:
    """PEP 503's normal form of a project name."""
    return re.sub(r"[-_.]+", "-", name).lower()


def normal_version(text: str) -> str | None:
    """PEP 440's normal form of a version (what packaging's str(Version(text)) is), or None."""
    match = _PEP440.fullmatch(text.strip())
    if match is None:
        return None
    parts = []
    if match["epoch"] and int(match["epoch"]):
        parts.append(f"{int(match['epoch'])}!")
    parts.append(".".join(str(int(n)) for n in match["release"].split(".")))
    if match["pre"]:
        parts.append(f"{_PRE[match['pre_l'].lower()]}{int(match['pre_n'] or 0)}")
    if match["post"]:
        parts.append(f".post{int(match['post_n1'] or match['post_n2'] or 0)}")
    if match["dev"]:
        parts.append(f".dev{int(match['dev_n'] or 0)}")
    if match["local"]:
        parts.append("+" + ".".join(str(int(p)) if p.isdigit() else p.lower()
                                    for p in re.split(r"[-_.]", match["local"])))
    return "".join(parts)


def same_version(first: str, second: str) -> bool:
    """Tell whether two versions are the same release (PEP 440's normal forms, else the
    strings)."""
    return (normal_version(first) or first) == (normal_version(second) or second)


def version_key(text: str) -> tuple:
    """Sort key of a version in PEP 440's order (packaging's); other strings first, by text."""
    match = _PEP440.fullmatch(text.strip())
    if match is None:
        return (0, text)
    release = [int(n) for n in match["release"].split(".")]
    while len(release) > 1 and release[-1] == 0:
        release.pop()
    if match["pre"]:
        pre: tuple = (("a", "b", "rc").index(_PRE[match["pre_l"].lower()]),
                      int(match["pre_n"] or 0))
    else:  # a dev release of no pre-release comes before the pre-releases
        pre = (-1, 0) if match["dev"] and not match["post"] else (3, 0)
    post = int(match["post_n1"] or match["post_n2"] or 0) if match["post"] else -1
    dev = (0, int(match["dev_n"] or 0)) if match["dev"] else (1, 0)
    local: tuple = ((1, tuple((1, int(p), "") if p.isdigit() else (0, 0, p.lower())
                              for p in re.split(r"[-_.]", match["local"])))
                    if match["local"] else (0, ()))
    return (1, (int(match["epoch"] or 0), tuple(release), pre, post, dev, local))


def version_order(text: str) -> tuple:
    """Sort key of a held version: PEP 440's order, and of two equal there (3.9 and 3.9.0) the
    shorter spelling first, as versions have always been listed."""
    return version_key(text), len(text), text


def _release_and_kind(text: str) -> tuple | None:
    """Return (epoch, release numbers, final_or_post) of a version, None if it is none."""
    match = _PEP440.fullmatch(text.strip())
    if match is None:
        return None
    final = not (match["pre"] or match["dev"])
    return int(match["epoch"] or 0), tuple(int(n) for n in match["release"].split(".")), final


def serve_version(asked: str, held) -> str | None:
    """Return the held version a request for `asked` is served, or None if none is it.

    The version held as asked; else the one held of the same PEP 440 normal form (`v2.2.2` is
    2.2.2, `2.5.0-beta.1` is 2.5.0b1); else, for an `X.Y` alone, the highest final or post
    release of `X.Y.*` held (2.28 is 2.28.2 when 2.28.1 and 2.28.2 are held; never 2.29.0rc1,
    and never a pre- or dev release of X.Y.*: those are served only when asked for by name).
    """
    held = tuple(held)
    if asked in held:
        return asked
    wanted = normal_version(asked)
    if wanted is None:
        return None
    same = [name for name in held if normal_version(name) == wanted]
    if same:
        return min(same, key=version_order)
    if not re.fullmatch(r"[0-9]+\.[0-9]+", wanted):
        return None
    prefix = tuple(int(n) for n in wanted.split("."))
    releases = []
    for name in held:
        parsed = _release_and_kind(name)
        if parsed is not None and parsed[0] == 0 and parsed[1][:2] == prefix and parsed[2]:
            releases.append(name)
    return max(releases, key=version_order) if releases else None


def resolve_collection(asked: str, collections, pins=()) -> str | None:
    """Return the collection a request naming `asked` reads, or None if none (or several) is it.

    Tried in this order, the first that names exactly one collection deciding: a collection of
    that name; one whose name is the same in PEP 503's normal form (Flask, flask;
    zope.interface, zope-interface); the collection of the pin of that distribution (pins: a
    project's, each with name, collection and import_names); the collection of the pin imported
    by that name (bs4 for beautifulsoup4, yaml for pyyaml, sklearn for scikit-learn).
    """
    if asked in collections:
        return asked
    wanted = normalized_name(asked)
    built = [pin for pin in pins if pin.collection is not None]
    for found in ({name for name in collections if normalized_name(name) == wanted},
                  {pin.collection for pin in built if pin.name == wanted},
                  {pin.collection for pin in built
                   if any(normalized_name(name) == wanted for name in pin.import_names)}):
        if found:
            return found.pop() if len(found) == 1 else None
    return None
