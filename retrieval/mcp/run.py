"""`retrieval mcp`: choose the backend and the transport, then serve until the client leaves."""

import signal
import socket
import sys

import anyio

from ..errors import ServiceError
from ..response import encode_error
from ..server import refuse_open_exposure
from ..settings import SettingsError, load_settings
from .backends import LocalBackend, RemoteBackend, bearer_header
from .server import RetrievalMCP

MCP_PATH = "/mcp"


def build(args):
    """Return (RetrievalMCP, settings) for the command's flags."""
    settings = load_settings(config_file=args.config, overrides={
        "snapshot": args.snapshot, "expect_corpus_id": args.expect_corpus_id,
        "keys_file": args.keys_file, "host": args.host, "port": args.port,
        "allow_unauthenticated": True if args.allow_unauthenticated else None,
    })
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
            anyio.run(_serve_http, mcp, settings.host, listen(settings.host, settings.port))
    finally:
        mcp.backend.close()
    return 0


async def _serve_stdio(mcp):
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read_stream, write_stream):
        await mcp.server.run(read_stream, write_stream, mcp.server.create_initialization_options())


def key_gate(app, backend):
    """Wrap an ASGI app: with keys, a request without a valid bearer gets the service's 401."""
    if not backend.keys_required:
        return app

    async def gated(scope, receive, send):
        if scope["type"] == "http":
            header = dict(scope["headers"]).get(b"authorization")
            try:
                backend.authenticate(header.decode("latin-1") if header is not None else None)
            except ServiceError as error:
                body = encode_error(error)
                headers = [(b"content-type", b"application/json"),
                           (b"content-length", str(len(body)).encode())]
                headers += [(name.lower().encode(), value.encode())
                            for name, value in error.headers()]
                await send({"type": "http.response.start", "status": int(error.status[:3]),
                            "headers": headers})
                await send({"type": "http.response.body", "body": body})
                return
        await app(scope, receive, send)

    return gated


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


async def _serve_http(mcp, host, listening):
    import uvicorn

    app = key_gate(mcp.server.streamable_http_app(streamable_http_path=MCP_PATH, host=host),
                   mcp.backend)
    family = listening.family
    bound = listening.getsockname()
    shown = f"[{bound[0]}]" if family == socket.AF_INET6 else bound[0]
    # One line a launcher (or a test) waits for: the port is known only now with --port 0.
    print(f"retrieval mcp: listening on http://{shown}:{bound[1]}{MCP_PATH}", file=sys.stderr,
          flush=True)
    # uvicorn shuts down gracefully on SIGTERM, then raises the signal again with the handler
    # it found: make that an ordinary exit, so a stop is status 0 and the backend is closed.
    signal.signal(signal.SIGTERM, _exit_cleanly)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    await uvicorn.Server(config).serve(sockets=[listening])

