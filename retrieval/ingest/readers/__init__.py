"""Readers: one document's text -> units. No trees are chosen and nothing is fetched here."""
