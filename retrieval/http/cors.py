"""Cross-origin access for browser clients: the response headers and the preflight's.

Only the exact origins of the cors_origins setting get permission headers. Modelled on Falcon's
CORSMiddleware, without its wildcard: each response names the one origin it is for.
"""

from .contract import BODY_DIGEST_HEADER

MAX_AGE = "600"
ALLOW_HEADERS = "Content-Type, Authorization"
# What a browser script may read from a response: the digest header so it can verify the bytes.
EXPOSE_HEADERS = f"{BODY_DIGEST_HEADER}, ETag"


class CorsPolicy:
    """The origins allowed to call the API, and the headers that tell a browser so."""

    def __init__(self, origins: frozenset):
        self.origins = origins

    def __bool__(self) -> bool:
        return bool(self.origins)

    def headers(self, environ) -> list:
        """Return the CORS headers of a response (none when CORS is off)."""
        if not self.origins:
            return []
        # Vary on every response once CORS is on, so a shared cache never hands one origin's
        # answer (with or without permission headers) to another.
        origin = environ.get("HTTP_ORIGIN")
        if origin not in self.origins:
            return [("Vary", "Origin")]
        return [("Access-Control-Allow-Origin", origin), ("Vary", "Origin"),
                ("Access-Control-Expose-Headers", EXPOSE_HEADERS)]

    def preflight_headers(self, environ, allowed: tuple) -> list:
        """Return the headers of a 204 answer to OPTIONS on a path that answers `allowed`."""
        headers = [("Allow", ", ".join(allowed + ("OPTIONS",))), ("Content-Length", "0"),
                   *self.headers(environ)]
        if environ.get("HTTP_ORIGIN") in self.origins:
            headers += [("Access-Control-Allow-Methods", ", ".join(allowed)),
                        ("Access-Control-Allow-Headers", ALLOW_HEADERS),
                        ("Access-Control-Max-Age", MAX_AGE)]
        return headers
