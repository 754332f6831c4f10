"""API keys: a keys file of secret hashes, bearer-token authentication, and per-key rate limits.

The keys file stores only the SHA-256 of each secret, so a leaked file (a backup, a support bundle)
grants nothing; the secret is shown once, by `retrieval keys add`. Authentication hashes the
presented token and compares it with every stored hash using `hmac.compare_digest`, never stopping
early and never looking a hash up in a dict, so response time does not tell which key, or how much
of a hash, matched. A token that matches no key and one that matches an expired key get the same
`InvalidCredentials`, so a caller cannot learn whether a key id or secret ever existed.
"""

import contextlib
import fcntl
import hashlib
import hmac
import json
import math
import os
import re
import secrets
import stat
import tempfile
import threading
from dataclasses import dataclass
from datetime import UTC, datetime

from ..core.errors import UserError
from ..core.snapshot import COLLECTION_PATTERN
from ..core.strict_json import StrictJSONError, loads_strict
from .errors import InvalidCredentials, Unauthenticated

KEYS_FORMAT = "retrieval-keys"
ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_HEX64 = re.compile(r"[0-9a-f]{64}")
# [0-9], not \d: \d also matches non-ASCII digits.
_TIMESTAMP = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]{1,6})?Z")
# RFC 9110 11.4 / RFC 6750 2.1: scheme, one or more spaces, one token68.
_CREDENTIALS = re.compile(r"([!#$%&'*+.^_`|~0-9A-Za-z-]+) +([A-Za-z0-9._~+/-]+=*)")
MIN_RATE_PER_SECOND = 1 / 86400
_ENTRY_FIELDS = {"id", "secret_sha256", "collections", "rate_limit", "expires"}


class KeysFileError(UserError):
    """A keys file is missing, malformed, or cannot be written; the message names file and entry."""


@dataclass(frozen=True)
class ApiKey:
    """One key as loaded: who it is, what it may read, how fast, until when."""

    key_id: str
    secret_sha256: str
    collections: frozenset
    per_second: float | None = None
    burst: int | None = None
    expires_at: float | None = None

    def may_read(self, collection: str) -> bool:
        """Return whether this key may read the collection."""
        return collection in self.collections

    def expired(self, now: float) -> bool:
        """Return whether the key has expired at wall-clock time `now` (epoch seconds)."""
        return self.expires_at is not None and now >= self.expires_at


def _show(value) -> str:
    return repr(value)[:80]


def _is_number(value) -> bool:
    # bool is an int subclass; `true` is not a rate.
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def parse_timestamp(text: str) -> float:
    """Parse an RFC 3339 UTC timestamp ending in Z to epoch seconds, or raise ValueError."""
    match = _TIMESTAMP.fullmatch(text)
    if not match:
        raise ValueError(f"{_show(text)} is not a UTC timestamp like 2027-01-01T00:00:00Z")
    year, month, day, hour, minute, second = (int(part) for part in match.groups()[:6])
    # ValueError for 2027-02-30 and the like.
    moment = datetime(year, month, day, hour, minute, second, tzinfo=UTC)
    return moment.timestamp() + float("0" + (match.group(7) or ".0"))


def _parse_entry(entry, where: str) -> ApiKey:
    if not isinstance(entry, dict):
        raise KeysFileError(f"{where}: must be an object")
    for field in entry:
        if field not in _ENTRY_FIELDS:
            raise KeysFileError(f"{where}: unknown field {_show(field)}")
    for field in ("id", "secret_sha256", "collections"):
        if field not in entry:
            raise KeysFileError(f"{where}: missing field {field!r}")
    key_id, digest, collections = entry["id"], entry["secret_sha256"], entry["collections"]
    if not isinstance(key_id, str) or not ID_PATTERN.fullmatch(key_id):
        raise KeysFileError(f"{where}.id: {_show(key_id)} does not match {ID_PATTERN.pattern}")
    if not isinstance(digest, str) or not _HEX64.fullmatch(digest):
        raise KeysFileError(f"{where}.secret_sha256: must be 64 lowercase hex digits")
    if not isinstance(collections, list) or not collections:
        raise KeysFileError(f"{where}.collections: must be a non-empty list of collection names")
    for index, name in enumerate(collections):
        if not isinstance(name, str) or not COLLECTION_PATTERN.fullmatch(name):
            raise KeysFileError(
                f"{where}.collections[{index}]: {_show(name)} is not a collection name")
        if name in collections[:index]:
            raise KeysFileError(f"{where}.collections[{index}]: {name!r} is listed twice")
    per_second = burst = expires_at = None
    limit = entry.get("rate_limit")
    if limit is not None:
        if not isinstance(limit, dict) or set(limit) != {"per_second", "burst"}:
            raise KeysFileError(f"{where}.rate_limit: must be null or {{per_second, burst}}")
        per_second, burst = limit["per_second"], limit["burst"]
        if not _is_number(per_second) or not math.isfinite(per_second) or per_second <= 0:
            raise KeysFileError(
                f"{where}.rate_limit.per_second: {_show(per_second)} is not a positive number")
        # The wait for a token (1 / rate) becomes Retry-After: it must be a number of seconds.
        if per_second < MIN_RATE_PER_SECOND:
            raise KeysFileError(f"{where}.rate_limit.per_second: {_show(per_second)} is below "
                                f"one request a day ({MIN_RATE_PER_SECOND:.3g})")
        if not isinstance(burst, int) or isinstance(burst, bool) or burst < 1:
            raise KeysFileError(f"{where}.rate_limit.burst: {_show(burst)} is not an integer >= 1")
        per_second = float(per_second)
    expires = entry.get("expires")
    if expires is not None:
        try:
            if not isinstance(expires, str):
                raise ValueError(f"{_show(expires)} is not a timestamp string")
            expires_at = parse_timestamp(expires)
        except ValueError as exc:
            raise KeysFileError(f"{where}.expires: {exc}") from None
    return ApiKey(key_id, digest, frozenset(collections), per_second, burst, expires_at)


def _parse_document(document, path) -> tuple:
    """Validate a decoded keys document; return its keys in file order."""
    if not isinstance(document, dict):
        raise KeysFileError(f"{path}: must be a JSON object")
    for field in document:
        if field not in ("format", "keys"):
            raise KeysFileError(f"{path}: unknown field {_show(field)}")
    if document.get("format") != KEYS_FORMAT:
        found = _show(document.get("format"))
        raise KeysFileError(f"{path}: format: must be {KEYS_FORMAT!r}, not {found}")
    if not isinstance(document.get("keys"), list):
        raise KeysFileError(f"{path}: keys: must be a list")
    keys: list[ApiKey] = []
    ids: dict[str, int] = {}
    digests: dict[str, int] = {}
    for index, entry in enumerate(document["keys"]):
        key = _parse_entry(entry, f"{path}: keys[{index}]")
        if key.key_id in ids:
            raise KeysFileError(
                f"{path}: keys[{index}].id: {key.key_id!r} is also keys[{ids[key.key_id]}]")
        if key.secret_sha256 in digests:
            raise KeysFileError(f"{path}: keys[{index}].secret_sha256: "
                                f"same hash as keys[{digests[key.secret_sha256]}]")
        ids[key.key_id], digests[key.secret_sha256] = index, index
        keys.append(key)
    return tuple(keys)


def _decode(data: bytes, path):
    try:
        return loads_strict(data)
    except StrictJSONError as exc:
        raise KeysFileError(f"{path}: not strict JSON: {exc}") from None


def _directories(path) -> list:
    """Return each directory above a path, as it is named and where its links lead, up to /."""
    found = []
    for start in (os.path.abspath(path), os.path.realpath(path)):
        directory = os.path.dirname(start)
        while directory not in found:
            found.append(directory)
            directory = os.path.dirname(directory)
    return found


def _file_refusal(status) -> str | None:
    """Return why the keys file itself lets another user change the keys, or None."""
    if status.st_uid not in (0, os.geteuid()):
        return f"keys file is owned by another user (uid {status.st_uid}); move it"
    if status.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return (f"keys file is writable by group or others "
                f"(mode {stat.S_IMODE(status.st_mode):o}); chmod go-w it")
    return None


def _directory_refusal(status, directory: str) -> str | None:
    """Return why a directory above the keys file lets another user replace it, or None."""
    mode = status.st_mode
    if status.st_uid not in (0, os.geteuid()):
        return (f"keys file is in a directory owned by another user "
                f"({directory}, uid {status.st_uid}); move it")
    if mode & stat.S_ISVTX:
        return None  # like /tmp: no one may replace or remove another's file there
    if mode & stat.S_IWOTH:
        return f"keys file is in a world-writable directory without the sticky bit " \
               f"({directory}); move it"
    if mode & stat.S_IWGRP:
        return (f"keys file is in a group-writable directory ({directory}, mode "
                f"{stat.S_IMODE(mode):o}); move it or chmod g-w the directory")
    return None


def check_permissions(path) -> None:
    """Refuse a keys file others could change, as OpenSSH refuses such key files.

    The file (where its links lead) and every directory above it, as named and as its links
    lead, up to /: each must be owned by this user or root, and writable by neither group nor
    others (a directory with the sticky bit, like /tmp, lets no one replace another's file).
    Otherwise another user could add a key of their own, or put another file in its place.
    """
    try:
        problems = [_file_refusal(os.stat(path))] if os.path.lexists(path) else []
        problems += [_directory_refusal(os.stat(directory), directory)
                     for directory in _directories(path)]
    except OSError as exc:
        raise KeysFileError(f"{path}: cannot inspect keys file: {exc.strerror or exc}") from None
    problem = next((problem for problem in problems if problem), None)
    if problem:
        raise KeysFileError(f"{path}: {problem}")


@contextlib.contextmanager
def _locked(path):
    """Hold an exclusive lock on the keys file's directory so concurrent `keys add` runs take turns.

    The directory, not the file: the file is replaced by a rename on every write, and a lock
    file would be one more file left beside it.
    """
    try:
        fd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY | os.O_CLOEXEC)
    except OSError as exc:
        raise KeysFileError(f"{path}: cannot lock keys file: {exc.strerror or exc}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def _read(path) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as exc:
        raise KeysFileError(f"{path}: cannot read keys file: {exc.strerror or exc}") from None


class KeyStore:
    """The loaded keys; immutable, so request threads share it without a lock."""

    def __init__(self, keys: tuple):
        self._keys = tuple(keys)

    @classmethod
    def load(cls, path) -> "KeyStore":
        """Load and strictly validate a keys file, or raise KeysFileError."""
        check_permissions(path)
        return cls(_parse_document(_decode(_read(path), path), path))

    @property
    def keys(self) -> tuple:
        """Return the keys in file order."""
        return self._keys

    def authenticate(self, authorization: str | None, now: float) -> ApiKey:
        """Return the live key a `Bearer` Authorization header names, or raise a 401 error."""
        match = _CREDENTIALS.fullmatch(authorization.strip(" \t")) if authorization else None
        if not match or match.group(1).lower() != "bearer":
            raise Unauthenticated("no bearer token")
        presented = hashlib.sha256(match.group(2).encode("ascii")).hexdigest()
        found = None
        for key in self._keys:
            # Compare with every key, whatever matched before: the time taken must not say which.
            if hmac.compare_digest(presented, key.secret_sha256):
                found = key
        if found is None or found.expired(now):
            raise InvalidCredentials()
        return found


def _write_atomically(path, data: bytes) -> None:
    # Written where a link leads: replacing the link by a plain file would leave the file it
    # names (the one other configuration points at) without the new key.
    target = os.path.realpath(path)
    directory = os.path.dirname(target)
    try:
        # mkstemp creates the file 0600; os.replace keeps that mode at the final name.
        fd, temp = tempfile.mkstemp(prefix=".keys-", suffix=".tmp", dir=directory)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, target)
        except BaseException:
            os.unlink(temp)
            raise
        dir_fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dir_fd)  # make the rename itself durable
        finally:
            os.close(dir_fd)
    except OSError as exc:
        raise KeysFileError(f"{path}: cannot write keys file: {exc.strerror or exc}") from None


def add_key(path, key_id, collections, per_second=None, burst=None, expires=None) -> str:
    """Add a key with a new secret to the keys file (creating it) and return the secret."""
    if burst is not None and per_second is None:
        raise KeysFileError(f"{path}: key {key_id!r}: a burst needs a rate limit per second")
    if isinstance(collections, str):
        raise KeysFileError(f"{path}: key {key_id!r}: collections must be a list, not a string")
    check_permissions(path)
    # Read, add, write under one lock: two runs at once would otherwise each write the file they
    # read plus their own key, and the first key written would be lost.
    with _locked(os.path.realpath(path)):  # the directory the file is written in
        return _add_key(path, key_id, collections, per_second, burst, expires)


def _add_key(path, key_id, collections, per_second, burst, expires) -> str:
    if os.path.exists(path):
        document = _decode(_read(path), path)
        _parse_document(document, path)
    else:
        document = {"format": KEYS_FORMAT, "keys": []}
    if any(entry["id"] == key_id for entry in document["keys"]):
        raise KeysFileError(f"{path}: key id {key_id!r} already exists")
    if burst is None and _is_number(per_second) and math.isfinite(per_second):
        burst = max(1, math.ceil(per_second))  # invalid rates are refused below, by the loader
    secret = "rk_" + secrets.token_urlsafe(32)
    document["keys"].append({
        "id": key_id,
        "secret_sha256": hashlib.sha256(secret.encode("utf-8")).hexdigest(),
        "collections": list(collections),
        "rate_limit": None if per_second is None else {"per_second": per_second, "burst": burst},
        "expires": expires,
    })
    _parse_document(document, path)  # names the field, where json.dumps would fail on a NaN
    data = (json.dumps(document, indent=2) + "\n").encode("utf-8")
    _parse_document(_decode(data, path), path)  # exactly what the next load will see
    _write_atomically(path, data)
    return secret


class RateLimiter:
    """Token buckets per key id, refilled at the key's rate up to its burst; thread-safe."""

    def __init__(self):
        self._lock = threading.Lock()
        self._buckets = {}  # key id -> [tokens, monotonic time of the last update]

    def take(self, key: ApiKey, now: float) -> float:
        """Take one token and return 0.0, or return the seconds until one is available."""
        if key.per_second is None or key.burst is None:  # a rate always comes with its burst
            return 0.0
        with self._lock:
            bucket = self._buckets.setdefault(key.key_id, [float(key.burst), now])
            elapsed = max(0.0, now - bucket[1])  # a clock that steps back must not mint tokens
            tokens = min(float(key.burst), bucket[0] + elapsed * key.per_second)
            bucket[1] = now
            if tokens >= 1.0:
                bucket[0] = tokens - 1.0
                return 0.0
            bucket[0] = tokens
            return (1.0 - tokens) / key.per_second


def retry_after_seconds(wait_s: float) -> int:
    """Round a wait up to whole seconds, at least 1, for a Retry-After header."""
    return max(1, math.ceil(wait_s))
