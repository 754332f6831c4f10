"""Budgeted, verifiable documentation retrieval over HTTP (WSGI)."""

__version__ = "0.1.0"
