"""Every setting of the service, declared once: name, type, default and help.

Values come from the defaults, then a TOML file (`--config FILE`, flat keys named as below), then
`RETRIEVAL_<NAME>` environment variables, then explicit overrides (the command line). An unknown
name or a value of the wrong type stops start-up with a message naming it, so a typo never silently
leaves a default in force.
"""

import dataclasses
import os
import re
import tomllib
from dataclasses import dataclass, field

from .core.admission import ALLOWANCES, DEFAULT_LIMITS, DEFAULT_MAXIMA
from .core.errors import UserError
from .hosts import parse_hosts

ENV_PREFIX = "RETRIEVAL_"


class SettingsError(UserError):
    """A setting is unknown or has a value of the wrong type."""


def _setting(kind, default, help_text):
    return field(default=default, metadata={"kind": kind, "help": help_text})


@dataclass(frozen=True)
class Settings:
    """The effective configuration of one service process."""

    snapshot: str | None = _setting(
        str, None, "Snapshot to serve (JSON file or built directory); default: the embedded "
                   "fixture snapshot.json.")
    expect_corpus_id: str | None = _setting(
        str, None, "Refuse to start unless the snapshot's corpus_id is exactly this.")
    host: str = _setting(str, "127.0.0.1", "Address `retrieval serve` listens on.")
    port: int = _setting(int, 8765, "Port `retrieval serve` listens on (0: any free port).")
    # One worker measured fastest on the fixture (bench/README.md): the app is CPU-bound under
    # the GIL, so more workers only add GIL handoffs. Re-measure for corpora where SQLite (which
    # runs without the GIL) dominates.
    threads: int = _setting(int, 1, "Waitress worker threads.")
    max_body_bytes: int = _setting(int, 4096, "Largest /retrieve body the app accepts, in bytes.")
    server_max_request_body_size: int = _setting(
        int, 65536, "Waitress's own body cap; bodies at or above it get Waitress's plain-text 413.")
    shutdown_grace_s: float = _setting(
        float, 10.0, "On SIGTERM, longest wait for in-flight requests before stopping anyway.")
    drain_delay_s: float = _setting(
        float, 0.0, "On SIGTERM, shortest time /health answers 503 draining before stopping, "
                    "so a load balancer's health check sees it.")
    cors_origins: str = _setting(
        str, "", "Comma-separated browser origins allowed to call the API (none by default).")
    keys_file: str | None = _setting(
        str, None, "API keys file (`retrieval keys add`); when set, /corpus, /passages and "
                   "/retrieve need `Authorization: Bearer <secret>`.")
    allowed_hosts: str = _setting(
        str, "", "Comma-separated Host names (no port) a service without a keys file answers "
                 "besides loopback names (`*`: any); other names get 421 host_not_allowed.")
    allow_unauthenticated: bool = _setting(
        bool, False, "Let `retrieval serve` listen on a non-loopback address without a keys file.")
    max_in_flight: int = _setting(
        int, 32, "Most /retrieve requests admitted at once (running or waiting for a worker); "
                 "the next gets 503 overloaded.")
    max_in_flight_per_peer: int = _setting(
        int, 0, "Most of those one client address may hold (0: no share); beyond it, 503 "
                "overloaded. Leave 0 behind a proxy, where every request has its address.")
    deadline_ms: int = _setting(
        int, 2000, "Wall-clock budget of one retrieval; a search still running then is "
                   "interrupted and the run ends limited/deadline.")
    channel_timeout_s: int = _setting(
        int, 30, "Waitress closes a connection that has sent and received nothing this long.")
    request_header_timeout_s: int = _setting(
        int, 10, "Close a connection whose request head is not complete this long after its "
                 "first byte, however it trickles.")
    request_body_timeout_s: int = _setting(
        int, 10, "Close a connection whose request body is not complete this long after its "
                 "head.")
    # Above HAProxy's 5 s pool-purge-delay (deploy/haproxy.cfg), so the proxy, not the replica,
    # closes an idle pooled connection and never reuses one the replica is closing.
    keepalive_timeout_s: int = _setting(
        int, 15, "Close a connection idle this long between requests (or before its first).")
    connection_limit: int = _setting(
        int, 100, "Most open client connections Waitress serves; at the limit a new one closes "
                  "the connection that has waited longest without a request in service.")
    max_pipelined_requests: int = _setting(
        int, 8, "Most requests one connection may have read and not yet answered; one that "
                "pipelines more is closed once those are answered.")
    send_grace_s: int = _setting(
        int, 10, "How long a connection's response bytes may wait before the send floor applies.")
    send_floor_bytes_s: int = _setting(
        int, 1024, "Close a connection whose response bytes have waited send_grace_s and that "
                   "took them at less than this many bytes a second since (slow readers).")
    access_log: bool = _setting(
        bool, True, "Write one JSON line per request to stderr.")
    # The memos' caps. Their names say "cache" because users set them by these names; the size
    # is counted in characters for the result memo and in bytes for the others (help text).
    cache_entries: int = _setting(
        int, 4096, "Most entries of each memo per process: search and read results; whole "
        "/retrieve replies; validated request bodies (0: none).")
    cache_bytes: int = _setting(
        int, 32 * 1024 * 1024, "Most size of each memo per process: characters of serialized "
        "results; bytes of reply and request bodies.")
    max_steps_limit: int = _setting(
        int, DEFAULT_MAXIMA.max_steps, "Largest max_steps a request may ask for.")
    max_searches_limit: int = _setting(
        int, DEFAULT_MAXIMA.max_searches, "Largest max_searches a request may ask for.")
    max_reads_limit: int = _setting(
        int, DEFAULT_MAXIMA.max_reads, "Largest max_reads a request may ask for.")
    max_source_bytes_limit: int = _setting(
        int, DEFAULT_MAXIMA.max_source_bytes, "Largest max_source_bytes a request may ask for.")
    max_tokens_limit: int = _setting(
        int, DEFAULT_MAXIMA.max_tokens, "Largest max_tokens a request may ask for.")


SETTINGS = tuple(dataclasses.fields(Settings))
_BY_NAME = {f.name: f for f in SETTINGS}


_BOOL_TEXT = {"true": True, "1": True, "false": False, "0": False}


def _convert(name, raw, from_text=False):
    kind = _BY_NAME[name].metadata["kind"]
    if from_text and kind is bool and isinstance(raw, str):
        if raw.lower() not in _BOOL_TEXT:
            raise SettingsError(f"setting {name}: {raw!r} is not true/false/1/0")
        return _BOOL_TEXT[raw.lower()]
    if kind is bool:
        if not isinstance(raw, bool):
            raise SettingsError(f"setting {name}: {raw!r} is not of type bool")
        return raw
    # Environment variables are always text; a TOML file or a flag has real types, and a string
    # where a number belongs there is a mistake to report, not to parse.
    if from_text and kind in (int, float) and isinstance(raw, str):
        try:
            return int(raw, 10) if kind is int else float(raw)
        except ValueError:
            raise SettingsError(f"setting {name}: {raw!r} is not a number of type "
                                f"{kind.__name__}") from None
    if kind is float and isinstance(raw, int) and not isinstance(raw, bool):
        return float(raw)
    if isinstance(raw, bool) or not isinstance(raw, kind):
        raise SettingsError(f"setting {name}: {raw!r} is not of type {kind.__name__}")
    return raw


def read_config_file(path) -> dict:
    """Read a flat TOML settings file, refusing unknown keys and wrong types by name."""
    try:
        with open(path, "rb") as handle:
            document = tomllib.load(handle)
    except OSError as exc:
        raise SettingsError(f"config {path}: cannot read: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"config {path}: not TOML: {exc}") from None
    values = {}
    for name, raw in document.items():
        if name not in _BY_NAME:
            raise SettingsError(f"config {path}: unknown setting {name}")
        try:
            values[name] = _convert(name, raw)
        except SettingsError as exc:
            raise SettingsError(f"config {path}: {exc}") from None
    return values


def load_settings(environ=None, overrides=None, config_file=None) -> Settings:
    """Build the effective settings: defaults, TOML file, RETRIEVAL_* variables, overrides."""
    environ = os.environ if environ is None else environ
    values = read_config_file(config_file) if config_file else {}
    for key, raw in environ.items():
        if not key.startswith(ENV_PREFIX):
            continue
        name = key[len(ENV_PREFIX):].lower()
        if name not in _BY_NAME:
            raise SettingsError(f"unknown setting {key}")
        values[name] = _convert(name, raw, from_text=True)
    for name, raw in (overrides or {}).items():
        if name not in _BY_NAME:
            raise SettingsError(f"unknown setting {name}")
        if raw is not None:
            values[name] = _convert(name, raw)
    settings = Settings(**values)
    _check_ranges(settings)
    return settings


def parse_origins(value: str) -> frozenset:
    """Split the cors_origins setting into exact origins (scheme://host[:port], no path)."""
    origins = frozenset(part.strip() for part in value.split(",") if part.strip())
    for origin in origins:
        if not re.fullmatch(r"https?://[^/\s]+", origin):
            raise SettingsError(
                f"setting cors_origins: {origin!r} is not an origin (scheme://host[:port])")
    return origins


def _check_ranges(settings: Settings):
    parse_origins(settings.cors_origins)
    try:
        parse_hosts(settings.allowed_hosts)
    except ValueError as exc:
        raise SettingsError(f"setting allowed_hosts: {exc}") from None
    for name in ("shutdown_grace_s", "drain_delay_s"):
        if not 0 <= getattr(settings, name) < 3600:
            raise SettingsError(f"setting {name}: {getattr(settings, name)} is out of range")
    for name in ("port", "threads", "max_body_bytes", "server_max_request_body_size",
                 "max_in_flight", "deadline_ms", "channel_timeout_s", "connection_limit",
                 "request_header_timeout_s", "request_body_timeout_s", "keepalive_timeout_s",
                 "max_pipelined_requests", "send_grace_s"):
        if getattr(settings, name) < (0 if name == "port" else 1):
            raise SettingsError(f"setting {name}: {getattr(settings, name)} is out of range")
    for name in ("send_floor_bytes_s", "max_in_flight_per_peer", "max_tokens_limit"):
        if getattr(settings, name) < 0:
            raise SettingsError(f"setting {name}: {getattr(settings, name)} is out of range")
    if settings.port > 65535:
        raise SettingsError(f"setting port: {settings.port} is out of range (0..65535)")
    # The defaults a request gets must fit under the maxima.
    for count in ALLOWANCES:
        maximum = getattr(settings, count + "_limit")
        if maximum < getattr(DEFAULT_LIMITS, count):
            raise SettingsError(
                f"setting {count}_limit: {maximum} is below the default allowance "
                f"{getattr(DEFAULT_LIMITS, count)}")
    if settings.server_max_request_body_size <= settings.max_body_bytes:
        raise SettingsError("setting server_max_request_body_size must exceed max_body_bytes")


def effective_config(settings: Settings) -> str:
    """Render settings as the TOML file that would produce them (secrets masked)."""
    lines = []
    for f in SETTINGS:
        value = getattr(settings, f.name)
        if value is None:
            lines.append(f"# {f.name} is not set")
        elif f.metadata.get("secret"):
            lines.append(f'{f.name} = "***"')
        else:
            lines.append(f"{f.name} = {_toml_value(value)}")
    return "\n".join(lines)


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(value)


def settings_table() -> str:
    """Return the settings as docs/operating.md's Markdown table (tests keep the two equal)."""
    lines = ["| setting (TOML key) | environment | default | meaning |",
             "| --- | --- | --- | --- |"]
    for f in SETTINGS:
        default = "none" if f.default is None else f"`{_toml_value(f.default)}`"
        help_text = f.metadata["help"].replace("|", "\\|")
        lines.append(f"| `{f.name}` | `{ENV_PREFIX}{f.name.upper()}` | {default} | {help_text} |")
    return "\n".join(lines)


def describe_settings() -> str:
    """Return a help text listing every setting with its environment variable and default."""
    lines = []
    for f in SETTINGS:
        lines.append(f"  {ENV_PREFIX}{f.name.upper()} (default {f.default!r}): "
                     f"{f.metadata['help']}")
    return "\n".join(lines)
