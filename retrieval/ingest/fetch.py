"""`--source pypi:` and `env:` under the names the command line imports: kept importable here.

The fetchers are package_sources.py's; their dispatch (scheme_of, fetch_sources) is sources.py's,
with every other form of --source in its one registry, FETCHERS.
"""

from .package_sources import FetchError, fetch_env, fetch_pypi
from .sources import FETCHERS, fetch_sources, scheme_of

__all__ = ["FETCHERS", "FetchError", "fetch_env", "fetch_pypi", "fetch_sources", "scheme_of"]
