"""`retrieval mcp`: choose the backend and the transport, then serve until the client leaves."""

import json
import signal
import socket
import sys

import anyio

from ..hosts import ANY, is_loopback_name, parse_hosts
from ..http.errors import ServiceError
from ..http.exchange import encode_error
from ..serve.exposure import refuse_open_exposure
from ..settings import SettingsError, load_settings
from .backends import BackendError, LocalBackend, RemoteBackend, bearer_header
from .server import RetrievalMCP

MCP_PATH = "/mcp"


def build(args):
    """Return (RetrievalMCP, settings) for the command's flags."""
    settings = load_settings(config_file=args.config, overrides={
        "snapshot": args.snapshot, "expect_corpus_id": args.expect_corpus_id,
        "keys_file": args.keys_file, "host": args.host, "port": args.port,
        "allow_unauthenticated": True if args.allow_unauthenticated else None,
    })
    if args.api_key is not None and args.transport == "http":
        # Over HTTP each request's own bearer is the caller: a default key would let a request
        # without one act as that key.
        raise SettingsError("--api-key is for --transport stdio: over HTTP each request's own "
                            "Authorization header is the caller")
    if args.url:
        if args.snapshot or args.keys_file:
            raise SettingsError("--url fronts a running service: it takes no --snapshot or "
                                "--keys-file (the service has its own)")
        backend = RemoteBackend(args.url, api_key=args.api_key, timeout=args.timeout)
        return RetrievalMCP(backend, bearer_header(args.api_key),
                            max_text_bytes=settings.max_source_bytes_limit), settings
    backend = LocalBackend(settings)
    return RetrievalMCP(backend, bearer_header(args.api_key),
                        max_text_bytes=settings.max_source_bytes_limit, maxima=backend.maxima,
                        threads=settings.threads), settings


def run(args) -> int:
    """Serve MCP over stdio or Streamable HTTP."""
    if args.transport == "http" and args.port is None:
        raise SettingsError("--transport http needs --port P (0: any free port)")
    mcp, settings = build(args)
    try:
        if args.transport == "stdio":
            anyio.run(_serve_stdio, mcp)
        else:
            refuse_open_exposure(settings)
            anyio.run(_serve_http, mcp, settings, listen(settings.host, settings.port))
    finally:
        mcp.backend.close()
    return 0


async def _serve_stdio(mcp):
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read_stream, write_stream):
        await mcp.server.run(read_stream, write_stream, mcp.server.create_initialization_options())


def key_gate(app, backend):
    """Wrap an ASGI app: with keys, a request without a valid bearer gets the service's 401.

    Before any MCP processing: the SDK never sees the request, so no session, no tool call.
    """
    if not backend.keys_required:
        return app

    async def gated(scope, receive, send):
        if scope["type"] == "http":
            header = dict(scope["headers"]).get(b"authorization")
            authorization = header.decode("latin-1") if header is not None else None
            try:
                # A remote check is an HTTP exchange: off the event loop.
                await anyio.to_thread.run_sync(backend.authenticate, authorization)
            except ServiceError as error:
                await _send_refusal(send, int(error.status[:3]), encode_error(error),
                                    error.headers())
                return
            except BackendError as error:
                # The fronted service's own refusal (401 for a bearer it does not accept).
                await _send_refusal(send, 401 if error.code in UNAUTHORIZED else 503,
                                    compact_body(error.body), [("WWW-Authenticate", "Bearer")])
                return
        await app(scope, receive, send)

    return gated


UNAUTHORIZED = ("unauthenticated", "invalid_credentials")


def compact_body(document) -> bytes:
    """Return a JSON document as the service writes it: compact UTF-8."""
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()


async def _send_refusal(send, status: int, body: bytes, extra_headers):
    headers = [(b"content-type", b"application/json"),
               (b"content-length", str(len(body)).encode())]
    headers += [(name.lower().encode(), value.encode()) for name, value in extra_headers]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def transport_security(host: str, allowed_hosts: str):
    """Return the SDK's Host and Origin checks for a listen address (None: the SDK's own).

    The SDK turns them on only for 127.0.0.1, localhost and ::1 exactly: on 127.0.0.2, also
    loopback and so served keyless, they were off. Every loopback address gets them here, with
    the loopback names and those of the allowed_hosts setting.
    """
    from mcp.server.transport_security import TransportSecuritySettings

    listen = f"[{host}]" if ":" in host else host.lower()
    names = parse_hosts(allowed_hosts)
    if not is_loopback_name(listen) or ANY in names:
        return None
    served = sorted({"127.0.0.1", "localhost", "[::1]", listen, *names})
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[pattern for name in served for pattern in (name, f"{name}:*")],
        allowed_origins=[pattern for name in served
                         for pattern in (f"http://{name}", f"http://{name}:*")])


def _exit_cleanly(signum, frame):
    raise SystemExit(0)


def listen(host: str, port: int) -> socket.socket:
    """Return a socket listening on host:port; refuse a port in use in one line."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listening = socket.socket(family, socket.SOCK_STREAM)
    try:
        listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listening.bind((host, port))
        listening.listen(128)
    except OSError as exc:
        listening.close()
        # As `retrieval serve` says it (server._create_server): one line, not a traceback.
        raise SettingsError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return listening


async def _serve_http(mcp, settings, listening):
    import uvicorn

    from .request_deadline import deadline_protocol

    host = settings.host
    # Stateless: no session outlives its request, so one key cannot fill a session table that
    # every other caller then finds full, nor can a key use or end a session another opened.
    app = key_gate(mcp.server.streamable_http_app(
        streamable_http_path=MCP_PATH, host=host, stateless_http=True,
        transport_security=transport_security(host, settings.allowed_hosts)), mcp.backend)
    family = listening.family
    bound = listening.getsockname()
    shown = f"[{bound[0]}]" if family == socket.AF_INET6 else bound[0]
    # One line a launcher (or a test) waits for: the port is known only now with --port 0.
    print(f"retrieval mcp: listening on http://{shown}:{bound[1]}{MCP_PATH}", file=sys.stderr,
          flush=True)
    # uvicorn shuts down gracefully on SIGTERM, then raises the signal again with the handler
    # it found: make that an ordinary exit, so a stop is status 0 and the backend is closed.
    signal.signal(signal.SIGTERM, _exit_cleanly)
    # A request must arrive in full within the head and body deadlines of `retrieval serve`;
    # at connection_limit open connections (or tasks) uvicorn answers 503 at once.
    protocol = deadline_protocol(settings.request_header_timeout_s +
                                 settings.request_body_timeout_s)
    config = uvicorn.Config(app, log_level="warning", lifespan="on", http=protocol,
                            limit_concurrency=settings.connection_limit)
    await uvicorn.Server(config).serve(sockets=[listening])

