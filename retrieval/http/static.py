"""The Retrieval Inspector's files, shipped in the package and served as they are.

Modelled on Falcon's StaticRoute, without its file-system lookups: the contract names every
page, and each is read once at start-up, so no request path ever reaches the file system.
"""

from pathlib import Path

from .contract import ROUTES

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"
# Only this origin's own files may load or be connected to; nothing inline, no frames.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)


class StaticPages:
    """The bytes and headers of each page route, read at start-up."""

    def __init__(self, directory: Path = STATIC_DIR):
        self._pages = {}
        for route in ROUTES:
            if route.page is not None:
                body = (directory / route.page.file).read_bytes()
                self._pages[route.path] = (body, [
                    ("Content-Type", route.page.media_type),
                    ("Content-Length", str(len(body))),
                    ("Content-Security-Policy", CONTENT_SECURITY_POLICY),
                    ("X-Content-Type-Options", "nosniff"),
                    ("Cache-Control", "no-cache"),
                ])

    def response(self, path: str):
        """Return the (body, headers) of the page at path."""
        return self._pages[path]
