"""Which Host names a service without keys answers: the defence against DNS rebinding.

A keyless service on loopback trusts that only this machine can reach it. A web page can break
that: its name, rebound to 127.0.0.1 after the page loaded, makes the browser send the page's
requests to the service as same-origin requests, CORS or not. Those requests still name the
page's host in `Host`, so a keyless service answers only the names it is served under: loopback
names (`localhost`, any loopback address) and those the `allowed_hosts` setting adds, like the
MCP SDK's transport security. A request without a Host header (HTTP/1.0 probes) is answered: a
browser always sends one.
"""

import ipaddress
import re

ANY = "*"
_NAME = re.compile(r"[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]")


def parse_hosts(value: str) -> frozenset:
    """Split the allowed_hosts setting into lower-cased names (no port), or raise ValueError."""
    names = frozenset(part.strip().lower() for part in value.split(",") if part.strip())
    for name in names:
        if name != ANY and not _NAME.fullmatch(name):
            raise ValueError(f"{name!r} is not a host name or address (no scheme, no port)")
    return names


def host_name(host: str) -> str:
    """Return a Host header's name without its port, lower-cased ("[::1]:8765" -> "[::1]")."""
    name, colon, port = host.rpartition(":")
    if colon and port.isdigit() and not name.endswith(":"):
        host = name
    return host.lower()


def _is_loopback_ip(text: str) -> bool:
    try:
        return ipaddress.ip_address(text).is_loopback
    except ValueError:
        return False  # a name other than localhost may resolve anywhere


def is_loopback(host: str) -> bool:
    """Tell whether a listen address is reachable from this machine only."""
    return host == "localhost" or _is_loopback_ip(host)


def is_loopback_name(name: str) -> bool:
    """Tell whether a host name (as host_name returns it) names this machine's loopback."""
    return name == "localhost" or _is_loopback_ip(name.removeprefix("[").removesuffix("]"))


class HostCheck:
    """Tell which Host headers a keyless service answers; remembers its verdicts (bounded)."""

    MEMORY = 256  # distinct Host values remembered: a client sending new ones costs a parse each

    def __init__(self, allowed: frozenset):
        self._allowed = allowed
        self._verdicts: dict[str, bool] = {}

    def allows(self, host: str | None) -> bool:
        """Tell whether a request with this Host header (None: without one) is answered."""
        if host is None:
            return True
        verdict = self._verdicts.get(host)
        if verdict is None:
            name = host_name(host)
            verdict = ANY in self._allowed or is_loopback_name(name) or name in self._allowed
            if len(self._verdicts) < self.MEMORY:
                self._verdicts[host] = verdict
        return verdict
