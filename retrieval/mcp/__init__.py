"""`retrieval mcp`: the service's operations as Model Context Protocol tools and resources.

Needs the `mcp` extra (pip install '.[mcp]'); the core and the WSGI app never import it.
"""
