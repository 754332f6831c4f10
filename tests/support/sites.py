"""Documentation sites served over loopback for the crawler's tests: well-behaved and hostile."""

import http.server
import ssl
import threading
import urllib.parse


class Route:
    """One path's answer: status, headers, body; `then` answers every later request."""

    def __init__(self, status=200, body=b"", content_type="text/html; charset=utf-8",
                 headers=None, then=None):
        self.status, self.body, self.then = status, body, then
        self.headers = {"Content-Type": content_type, **(headers or {})}
        self.calls = 0

    def answer(self, handler):
        self.calls += 1
        if self.then is not None and self.calls > 1:
            return self.then.answer(handler)
        etag = self.headers.get("ETag")
        if etag and handler.headers.get("If-None-Match") == etag:
            handler.send_response(304)
            handler.send_header("ETag", etag)
            handler.end_headers()
            return
        handler.send_response(self.status)
        for name, value in self.headers.items():
            handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(self.body)))
        handler.end_headers()
        handler.wfile.write(self.body)


class Stream:
    """A page sent without a Content-Length: its end is the end of the connection."""

    def __init__(self, body: bytes):
        self.body = body

    def answer(self, handler):
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html")
        handler.end_headers()
        handler.wfile.write(self.body)
        handler.close_connection = True


class Drip:
    """A page that promises a body and sends one byte at a time until the site stops."""

    def __init__(self, stopped: threading.Event):
        self.stopped = stopped

    def answer(self, handler):
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html")
        handler.send_header("Content-Length", "100000")
        handler.end_headers()
        while not self.stopped.wait(0.02):
            handler.wfile.write(b"x")
            handler.wfile.flush()


class HeaderDrip(Drip):
    """A page whose status line and headers arrive one byte at a time, never ending."""

    def answer(self, handler):
        handler.wfile.write(b"HTTP/1.0 200 OK\r\n")
        while not self.stopped.wait(0.02):
            handler.wfile.write(b"X")
            handler.wfile.flush()


class Site:
    """A loopback HTTP server answering GETs from a route table; it records every request."""

    def __init__(self, add_cleanup, routes: dict, fallback: Route | None = None,
                 tls: ssl.SSLContext | None = None):
        """add_cleanup: a test's addCleanup, or a class's addClassCleanup; tls: serve https."""
        self.routes = routes
        self.fallback = fallback or Route(404, b"not found", "text/plain")
        self.requests = []  # (path with query, headers)
        self.stopped = threading.Event()
        site = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's naming)
                site.requests.append((self.path, dict(self.headers)))
                path = urllib.parse.urlsplit(self.path).path
                try:
                    site.routes.get(path, site.fallback).answer(self)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the crawler gave up on a hostile page

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.scheme = "http" if tls is None else "https"
        if tls is not None:
            self.server.socket = tls.wrap_socket(self.server.socket, server_side=True)
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,),
                                       daemon=True)
        self.thread.start()
        add_cleanup(self.stop)

    def stop(self):
        self.stopped.set()
        self.server.shutdown()
        self.server.server_close()

    @property
    def origin(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.server.server_address[1]}"

    def paths(self) -> list:
        """Return the paths asked for, in order."""
        return [path for path, _ in self.requests]


def page(title: str, body: str, links=()) -> bytes:
    """Return a small HTML page with a main part, its links and a title."""
    anchors = "".join(f'<a href="{href}">{href}</a>\n' for href in links)
    return (f"<!DOCTYPE html>\n<html><head><title>{title}</title></head>\n<body>\n"
            f"<nav>{anchors}</nav>\n<main>\n{body}\n</main>\n</body></html>\n").encode()
