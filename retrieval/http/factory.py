"""Build the app: the one place its collaborators are made, from settings and a snapshot path."""

import sys

from ..core.service import RetrievalService
from ..core.snapshot import default_snapshot_path, load_snapshot
from ..hosts import HostCheck, parse_hosts
from ..rerank import attach
from ..settings import load_settings, parse_origins
from .access_log import BatchedLineWriter
from .app import RetrievalApp
from .auth import KeyStore
from .cors import CorsPolicy
from .state import AppState
from .static import StaticPages


def create_app(snapshot_path=None, tool_factory=None, settings=None, expect_corpus_id=None,
               access_log=None) -> RetrievalApp:
    """Load and verify a snapshot (and the keys file), build the index, return the WSGI app.

    access_log: a callable taking one line per request; default stderr when the access_log
    setting is on.
    """
    settings = settings or load_settings()
    path = snapshot_path or settings.snapshot or default_snapshot_path()
    keys = KeyStore.load(settings.keys_file) if settings.keys_file else None
    # A semantic snapshot's re-ranker is attached here, by the extra, before its index opens.
    service = RetrievalService(
        attach(load_snapshot(path, expect_corpus_id or settings.expect_corpus_id)), tool_factory,
        memo_entries=settings.cache_entries, memo_bytes=settings.cache_bytes,
        connections=settings.threads)
    if access_log is None and settings.access_log:
        access_log = BatchedLineWriter(sys.stderr)
    # Without keys, only the names the service is served under (DNS rebinding).
    hosts = HostCheck(parse_hosts(settings.allowed_hosts)) if keys is None else None
    cors = CorsPolicy(parse_origins(settings.cors_origins))
    return RetrievalApp(AppState(service, settings, keys), cors, hosts, StaticPages(), access_log)
