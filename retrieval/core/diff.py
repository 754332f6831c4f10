"""What changed in a collection's API between two of its versions, each change cited.

A built snapshot records what every unit documents (core/index.ApiUnit: its kind, qualified
names, signature and prose). The objects a version documents are those a name lookup finds in it
(database.DOCUMENTS_OBJECT: `:noindex:` descriptions and a docstring build's internals and
modules included). An API object is the units of one version under one primary name (a long
docstring is several units, a `:noindex:` description a duplicate of an indexed one); two
versions' objects are the same object when they share a qualified name (a re-export moved is
not a removal). Between an old and a new version:

- added / removed: an object only the new / only the old version documents;
- renamed: a removed and an added object of the same kind whose prose is the same, word for
  word, once each one's own bare name is left out; else one the other's prose names as its
  successor or predecessor (NAMED_SUCCESSOR, NAMED_PREDECESSOR: "Replaces ``contextfilter``",
  "renamed to `App`", "use `prod` instead"; an added object may replace several); else of the
  same bare name under a new qualified name (moved: `pkg.tools.sjoin` to `pkg.sjoin`; a method or
  attribute in a class of the same name); else of the same kind beside each other (a qualified
  name with the same parent) whose prose is nearly the same (SIMILAR_PROSE of its words, each
  the other's closest). Each only where no other removed or added object qualifies alike: an
  ambiguous pair is left as added and removed. A renamed object's signature and deprecation are
  compared as any other's. An object both versions document whose new prose (not its old) names
  an added object as its successor was renamed and kept as an alias (`falcon.API`, "renamed to
  `App`"): listed as renamed to it as well, the added object not as added;
- signature_changed: the same object, its signature otherwise spelled (whitespace aside);
- deprecated: the same object, with a deprecation note (deprecation_note: its units' `deprecated`
  version notes, else a deprecation its text quotes) only the new version has.

Each change cites its object's first passage in each version it is in, as a search hit cites
one (HIT_FIELDS: passage_id and text_sha256 to fetch it by id and check its bytes).
"""

import ast
import difflib
import re
from dataclasses import dataclass

from .fields import passage_hit_fields
from .index import ApiUnit, CollectionIndex
from .model import Passage
from .ranking import SECTION

# The change kinds, in the order a diff lists them.
CHANGES = ("added", "removed", "renamed", "signature_changed", "deprecated")
# The kinds of a class's members (core/ranking.KINDS).
MEMBER_KINDS = ("method", "attribute")
# What a diff calls an object whose unit is a section under a qualified name: a docstring
# build's module (no other section is indexed under one).
MODULE = "module"
# Prose shorter than this says too little to tell a rename from two unrelated objects.
MIN_RENAME_PROSE = 40
# Two objects' prose (words, own names left out) at least this alike (difflib's ratio) is one
# object's, edited: librosa 0.6's rmse and 0.7's rms are 0.98 alike, falcon 2's add_link and
# 3's append_link 0.94 (a sentence on a new argument).
SIMILAR_PROSE = 0.8
# A sentence that names the object that took this one's place (SUCCESSOR; "use X" only with
# "instead"), or the one this one took the place of (PREDECESSOR): the names it quotes, or the
# word right after the phrase.
SUCCESSOR = re.compile(
    r"\b(?:renamed\s+(?:to|as)|replaced\s+(?:by|with)|superseded\s+by|in\s+favou?r\s+of|"
    r"alias\s+(?:of|for)|(?P<use>use|call))\b", re.IGNORECASE)
PREDECESSOR = re.compile(
    r"\b(?:replaces|renamed\s+from|formerly|previously\s+(?:called|named|known\s+as)|"
    r"supersedes)\b", re.IGNORECASE)
# What a rendered version note puts before its text ("3.0.0 Replaces ...", "New in version 2.1:").
_VERSION_LABEL = re.compile(r"^\s*(?:(?:new|added|changed)\s+in\s+version\s+)?v?\d+(?:\.\d+)*:?")
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n\s*\n")
_QUOTED = re.compile(r"`+([^`]+?)`+")
_IDENTIFIER = re.compile(r"[A-Za-z_][\w.]*")
_WORD_AFTER = re.compile(r"\s+(?:the\s+)?(?::\w+:)?`*([A-Za-z_][\w.]*)")

_SPACE = re.compile(r"\s+")
# A deprecation as the docs source or their rendering says it: the reST directive (in a .rst
# page or a docstring), Sphinx's rendering of it, a `@deprecated` decorator quoted with its
# object, and the "DEPRECATED:" first words scikit-learn's decorator gives a docstring.
_DEPRECATION = re.compile(
    r"^[ \t]*\.\.[ \t]+deprecated::.*$|Deprecated since version [^\n]*|^[ \t]*@(?:\w+\.)*"
    r"deprecated\b.*$|(?:^|\"\"\"|''')[ \t]*DEPRECATED\b[^\n]*", re.MULTILINE)


def deprecation_note(unit: ApiUnit) -> str | None:
    """Return the unit's first deprecation note, said as Sphinx renders one, or None.

    The one place a unit's deprecation is read: its `deprecated` version notes (core/notes.py)
    when it has notes; a unit without any (a snapshot built before notes were recorded) from
    its quoted text, the line that says it, stripped.
    """
    if unit.passage.notes:
        note = next((n for n in unit.passage.notes if n.kind == "deprecated"), None)
        if note is None:
            return None
        label = f"Deprecated since version {note.version}" if note.version else "Deprecated"
        return f"{label}: {note.text}" if note.text else label
    found = _DEPRECATION.search(unit.passage.text)
    return None if found is None else _SPACE.sub(" ", found.group(0)).strip()


@dataclass(frozen=True)
class ApiObject:
    """One documented object of one version: its names, what is compared, its first passage."""

    name: str  # its primary qualified name
    names: tuple  # every qualified name it is documented under, the primary first
    kind: str
    signature: str  # as the first unit spells it
    prose: str  # every unit's prose, whitespace folded
    deprecation: str | None
    passage: Passage

    @property
    def bare(self) -> str:
        """Return the last component of its primary name."""
        return self.name.rsplit(".", 1)[-1]

    def member_of(self) -> str | None:
        """Return the bare name of the class a method or attribute belongs to, else None (a
        module-level object may move between modules; a member stays in its class)."""
        if self.kind not in MEMBER_KINDS:
            return None
        parts = self.name.split(".")
        return parts[-2] if len(parts) > 1 else None

    def prose_key(self) -> str:
        """Return its prose with its own bare name left out (a rename's prose names it)."""
        return re.sub(rf"\b{re.escape(self.bare)}\b", "\0", self.prose)


def api_objects(units) -> list:
    """Return the objects the units (ApiUnits of one version, in passage order) document.

    An object's first unit, whose signature and passage it is compared and cited by, is its
    first indexed one (a `:noindex:` duplicate only where it has no other)."""
    grouped: dict[str, list] = {}
    for unit in units:
        grouped.setdefault(unit.names.split()[0], []).append(unit)
    objects = []
    for name, group in grouped.items():
        first = next((unit for unit in group if not unit.noindex), group[0])
        notes = (deprecation_note(unit) for unit in group)
        objects.append(ApiObject(
            name, tuple(dict.fromkeys(n for unit in group for n in unit.names.split())),
            MODULE if first.kind == SECTION else first.kind, first.signature,
            _SPACE.sub(" ", " ".join(u.body for u in group)).strip(),
            next((note for note in notes if note is not None), None), first.passage))
    return objects


@dataclass(frozen=True)
class Parameter:
    """One parameter of a Python signature: what a call can pass it by, and its default and
    annotation as ast reads them (ast.dump: quotes, spacing and comments aside)."""

    name: str
    kind: str  # inspect's names: positional_only, positional_or_keyword, var_positional, ...
    default: str | None
    annotation: str | None


def parameters(signature: str) -> tuple | None:
    """Return a signature's parameters and its return annotation (ast.dump; "" for none), or
    None where it is no Python signature (a rendered page's `mean(a[, axis])`, an attribute's
    type)."""
    try:
        tree = ast.parse(f"def f{signature.strip()}: pass")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    function = tree.body[0]
    if not isinstance(function, ast.FunctionDef):
        return None
    arguments = function.args

    def dumped(node):
        return None if node is None else ast.dump(node)

    positional = arguments.posonlyargs + arguments.args
    defaults = [None] * (len(positional) - len(arguments.defaults)) + arguments.defaults
    found = [Parameter(a.arg, "positional_only" if i < len(arguments.posonlyargs)
                       else "positional_or_keyword", dumped(d), dumped(a.annotation))
             for i, (a, d) in enumerate(zip(positional, defaults, strict=True))]
    if arguments.vararg is not None:
        found.append(Parameter(arguments.vararg.arg, "var_positional", None,
                               dumped(arguments.vararg.annotation)))
    found += [Parameter(a.arg, "keyword_only", dumped(d), dumped(a.annotation))
              for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)]
    if arguments.kwarg is not None:
        found.append(Parameter(arguments.kwarg.arg, "var_keyword", None,
                               dumped(arguments.kwarg.annotation)))
    return tuple(found), dumped(function.returns) or ""


def _same_signature(first: str, second: str) -> bool:
    """Tell whether two signatures are the same: as Python reads them where both are Python
    signatures (quotes, spacing, comments and trailing commas aside), else as written,
    whitespace (and a trailing comma) aside."""
    read = parameters(first), parameters(second)
    if read[0] is not None and read[1] is not None:
        return read[0] == read[1]

    def folded(signature):
        return re.sub(r",\s*\)", ")", _SPACE.sub("", signature))
    return folded(first) == folded(second)


def parameter_changes(old: str, new: str) -> dict | None:
    """Return what changed in a signature's parameters, by name: `added`, `removed`, `changed`
    (its kind: keyword-only, positional-only, ...; or its default: what a call must change) and
    `annotation_changed` (its annotation: jinja2 3's type hints, 291 of its 323 signature
    changes from 2.11), each in the new (removed: the old) signature's order, and whether the
    return annotation changed; None where either is no Python signature."""
    old_read, new_read = parameters(old), parameters(new)
    if old_read is None or new_read is None:
        return None
    (before, returns_before), (after, returns_after) = old_read, new_read
    by_name = {parameter.name: parameter for parameter in before}
    names = {parameter.name for parameter in after}
    kept = [(by_name[p.name], p) for p in after if p.name in by_name]
    return {"added": [p.name for p in after if p.name not in by_name],
            "removed": [p.name for p in before if p.name not in names],
            "changed": [p.name for o, p in kept if (o.kind, o.default) != (p.kind, p.default)],
            "annotation_changed": [p.name for o, p in kept if o.annotation != p.annotation],
            "returns_changed": returns_before != returns_after}


@dataclass(frozen=True)
class VersionDiff:
    """The changes between two versions of one collection, each kind in name order.

    added and removed hold ApiObjects; renamed, signature_changed and deprecated hold
    (old object, new object) pairs.
    """

    collection: str
    old: str
    new: str
    added: tuple
    removed: tuple
    renamed: tuple
    signature_changed: tuple
    deprecated: tuple

    def only(self, names) -> "VersionDiff":
        """Return the changes to the given names only: an object is kept when one of its names
        (old or new) is one of them or lies under one (flask.Flask keeps flask.Flask.run)."""
        wanted = tuple(names)

        def used(*objects):
            return any(name == want or name.startswith(want + ".")
                       for obj in objects for name in obj.names for want in wanted)

        return VersionDiff(self.collection, self.old, self.new,
                           *(tuple(obj for obj in getattr(self, kind) if used(obj))
                             for kind in ("added", "removed")),
                           *(tuple(pair for pair in getattr(self, kind) if used(*pair))
                             for kind in CHANGES[2:]))

    def counts(self) -> dict:
        """Return how many changes of each kind there are."""
        return {kind: len(getattr(self, kind)) for kind in CHANGES}

    def describe(self, limit: int | None = None) -> dict:
        """Return the changes as the diff route and tool answer them: per kind, its first
        `limit` entries (None: all), and every kind's count."""
        def side(obj: ApiObject) -> dict:
            return passage_hit_fields(obj.passage)

        def entry(kind: str, value) -> dict:
            if kind in ("added", "removed"):
                where = "new" if kind == "added" else "old"
                return {"name": value.name, "kind": value.kind, where: side(value)}
            old, new = value
            found: dict = {"name": old.name, "kind": new.kind}
            if kind == "renamed":
                found["new_name"] = new.name
            elif kind == "signature_changed":
                found.update(old_signature=old.signature, new_signature=new.signature)
                changes = parameter_changes(old.signature, new.signature)
                if changes is not None:
                    found["parameters"] = changes
            else:
                found["note"] = new.deprecation
            return dict(found, old=side(old), new=side(new))

        return {"old_version": self.old, "new_version": self.new, "counts": self.counts(),
                "changes": {kind: [entry(kind, value) for value in getattr(self, kind)[:limit]]
                            for kind in CHANGES}}


def _by_name(objects) -> dict:
    """Return {qualified name: object} over every name of every object, the first object
    documenting a name keeping it."""
    found: dict = {}
    for obj in objects:
        for name in obj.names:
            found.setdefault(name, obj)
    return found


def _unique_pairs(removed: list, added: list, key) -> list:
    """Return the (old, new) pairs of removed and added objects whose key (None: none) is the
    same and is no other removed or added object's."""
    def keyed(objects):
        keys: dict = {}
        for obj in objects:
            value = key(obj)
            if value is not None:
                keys.setdefault(value, []).append(obj)
        return keys

    old_keys, new_keys = keyed(removed), keyed(added)
    return [(olds[0], new_keys[value][0]) for value, olds in old_keys.items()
            if len(olds) == 1 and len(new_keys.get(value, ())) == 1]


def _named(prose: str, phrase: re.Pattern, own: str) -> frozenset:
    """Return the names (as written, dotted or bare; not its own) the prose's sentences saying
    the phrase of the object itself name: the phrase opens the sentence or follows the object's
    own name, "this" or "it", or a deprecation ("Deprecated alias for `x`"), not a sentence
    about something else ("the option is deprecated, use `media` instead")."""
    found: set = set()
    for sentence in _SENTENCE.split(prose):
        for match in phrase.finditer(sentence):
            if match.groupdict().get("use") and "instead" not in sentence.lower():
                continue
            before = _VERSION_LABEL.sub("", sentence[:match.start()]).strip(" `*").lower()
            if before and not (re.search(rf"\b{re.escape(own.lower())}\b", before)
                               or re.match(r"(?:this|it|deprecated)\b", before)):
                continue
            after = _WORD_AFTER.match(sentence, match.end())
            quoted = [name for text in _QUOTED.findall(sentence)
                      for name in _IDENTIFIER.findall(text)]
            found.update(name.strip(".")
                         for name in quoted + ([after.group(1)] if after else []))
    return frozenset(found - {own, ""})


def _named_objects(names: frozenset, objects: list, excluded: set) -> list:
    """Return the objects the names name, none whose bare name is excluded (one the other
    version has too): those a dotted name ends one of the names of (`falcon.App`, not
    `falcon.asgi.App`; `PIL.Image.open` none of ours), else those a bare name is the bare name
    of."""
    wanted = [name for name in names if name.rsplit(".", 1)[-1] not in excluded]
    dotted = [obj for obj in objects if any(
        own == name or own.endswith("." + name)
        for name in wanted if "." in name for own in obj.names)]
    return dotted or [obj for obj in objects if obj.bare in wanted]


def _named_pairs(removed: list, added: list, old_bare: set, new_bare: set) -> list:
    """Return the (old, new) pairs of removed and added objects one's prose names the other as
    its successor (old; a name the old version has none of) or predecessor (new; a name the new
    version has none of), each removed object named with one added object only (an added
    object may replace several)."""
    successors = {id(obj): _named(obj.prose, SUCCESSOR, obj.bare) for obj in removed}
    predecessors = [(obj, _named(obj.prose, PREDECESSOR, obj.bare)) for obj in added]
    pairs = []
    for old in removed:
        named = _named_objects(successors[id(old)], added, old_bare)
        named += [new for new, names in predecessors
                  if all(new is not obj for obj in named)
                  and _named_objects(names, [old], new_bare)]
        if len(named) == 1:
            pairs.append((old, named[0]))
    return pairs


def _aliased(kept: list, added: list, old_bare: set) -> list:
    """Return the (old, new) pairs of an object both versions document (kept: (old, new) of
    it) and the one added object its new prose, not its old, names as its successor (a name the
    old version has none of)."""
    pairs = []
    for old, new in kept:
        names = _named(new.prose, SUCCESSOR, new.bare) - _named(old.prose, SUCCESSOR, old.bare)
        named = _named_objects(names, added, old_bare)
        if len(named) == 1:
            pairs.append((old, named[0]))
    return pairs


def _similar_pairs(removed: list, added: list, *_) -> list:
    """Return the (old, new) pairs of removed and added objects of one kind beside each other
    (a name of each under the same parent) whose prose is SIMILAR_PROSE alike, each the other's
    one closest."""
    def parents(obj):
        return {name.rsplit(".", 1)[0] for name in obj.names if "." in name}

    def candidate(obj):
        return len(obj.prose) >= MIN_RENAME_PROSE

    words = {id(obj): obj.prose_key().split() for obj in removed + added if candidate(obj)}
    scores: dict = {}  # (id old, id new) -> ratio, of the pairs at least SIMILAR_PROSE alike
    for old in filter(candidate, removed):
        for new in filter(candidate, added):
            if new.kind != old.kind or not parents(old) & parents(new):
                continue
            matcher = difflib.SequenceMatcher(None, words[id(old)], words[id(new)],
                                              autojunk=False)
            if matcher.real_quick_ratio() >= SIMILAR_PROSE \
                    and matcher.quick_ratio() >= SIMILAR_PROSE:
                ratio = matcher.ratio()
                if ratio >= SIMILAR_PROSE:
                    scores[id(old), id(new)] = ratio

    def closest(side: int, key) -> bool:
        ratio = scores[key]
        rivals = [value for other, value in scores.items() if other[side] == key[side]]
        return rivals.count(ratio) == 1 and ratio == max(rivals)

    return [(old, new) for old in removed for new in added
            if (id(old), id(new)) in scores and closest(0, (id(old), id(new)))
            and closest(1, (id(old), id(new)))]


def _prose_key(obj: ApiObject):
    """Return what a same-prose rename shares: its kind and prose, or None if too short."""
    return (obj.kind, obj.prose_key()) if len(obj.prose) >= MIN_RENAME_PROSE else None


def _same_prose_pairs(removed: list, added: list, *_) -> list:
    """Return the pairs of the same kind and prose, each the only one of it."""
    return _unique_pairs(removed, added, _prose_key)


def _moved_pairs(removed: list, added: list, *_) -> list:
    """Return the pairs of the same kind and bare name (in a class of the same name for a
    member), each the only one of it."""
    return _unique_pairs(removed, added, lambda obj: (obj.kind, obj.member_of(), obj.bare))


def _renames(removed: list, added: list, old_bare: set, new_bare: set) -> list:
    """Return the (old, new) pairs of removed and added objects that are one object renamed:
    the same prose under a new name, one named as the other's successor or predecessor, the same
    bare name under a new qualified name (moved), or nearly the same prose beside it; each stage
    pairs only what the ones before left."""
    found: list = []
    for stage in (_same_prose_pairs, _named_pairs, _moved_pairs, _similar_pairs):
        paired = {id(obj) for pair in found for obj in pair}
        found += stage([obj for obj in removed if id(obj) not in paired],
                       [obj for obj in added if id(obj) not in paired], old_bare, new_bare)
    return found


def compare(collection: str, old: str, new: str, old_objects, new_objects) -> VersionDiff:
    """Return the changes from one version's objects to another's."""
    old_names = _by_name(old_objects)
    matched: dict[str, ApiObject] = {}  # new object's name -> its old object
    for obj in new_objects:
        same = old_names.get(obj.name) or next(
            (old_names[name] for name in obj.names if name in old_names), None)
        if same is not None:
            matched[obj.name] = same
    kept = {id(obj) for obj in matched.values()}
    added = [obj for obj in new_objects if obj.name not in matched]
    removed = [obj for obj in old_objects if id(obj) not in kept]
    old_bare, new_bare = ({obj.bare for obj in objects} for objects in (old_objects, new_objects))
    renamed = _renames(removed, added, old_bare, new_bare)
    gone = {id(obj) for pair in renamed for obj in pair}
    same = [(matched[obj.name], obj) for obj in new_objects if obj.name in matched]
    aliased = _aliased(same, [obj for obj in added if id(obj) not in gone], old_bare)
    gone |= {id(new_obj) for _, new_obj in aliased}
    # A renamed object is the same object too: its signature and deprecation are compared (an
    # alias kept is compared as itself, in `same`).
    pairs = same + renamed

    def ordered(values, key=lambda value: value.name):
        return tuple(sorted(values, key=key))

    def by_old(pair):
        return pair[0].name

    return VersionDiff(
        collection, old, new,
        ordered(obj for obj in added if id(obj) not in gone),
        ordered(obj for obj in removed if id(obj) not in gone),
        ordered(renamed + aliased, by_old),
        ordered(((o, n) for o, n in pairs if not _same_signature(o.signature, n.signature)),
                by_old),
        ordered(((o, n) for o, n in pairs if n.deprecation and not o.deprecation), by_old))


class NoApiFacts(LookupError):
    """The snapshot records no units' facts (the JSON fixture): there is nothing to compare."""


def diff_versions(collection: CollectionIndex, old: str, new: str) -> VersionDiff:
    """Return what changed in a collection's API from version old to version new (both held)."""
    old_units, new_units = collection.api_units(old), collection.api_units(new)
    if old_units is None or new_units is None:
        raise NoApiFacts(collection.name)
    return compare(collection.name, old, new, api_objects(old_units), api_objects(new_units))
