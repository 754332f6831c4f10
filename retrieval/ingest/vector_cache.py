"""Embedding vectors kept between builds, by the text embedded and the model that embedded it.

`retrieval project` would otherwise re-embed every unit at every build: a one-pin bump would pay
for all the other pins' units again. The cache is one SQLite file per model (its digest and
recipe name it) in a folder of the fetch cache, mapping sha256(text) to the vector's stored
bytes. A model embeds a text to the same bytes whatever batch it is in (rerank/: each text is
padded alone), so a vector read from here is the one a fresh build computes on this machine, and
the snapshot is the same bytes (corpus_id covers the vectors). Another machine's BLAS may differ
in a last float16 bit: the cache is a local folder, never shipped.
"""

import hashlib
import sqlite3
from pathlib import Path

_CHUNK = 500  # keys per SELECT (SQLite's bound parameters)


def _key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()


def _read(connection, keys: list, size: int) -> dict:
    """Return {key: vector bytes} of the keys the cache holds at the model's size."""
    found: dict = {}
    for start in range(0, len(keys), _CHUNK):
        chunk = keys[start:start + _CHUNK]
        rows = connection.execute(
            f"SELECT key, vector FROM vectors WHERE key IN ({','.join('?' * len(chunk))})", chunk)
        found.update((key, vector) for key, vector in rows if len(vector) == size)
    return found


def cached_vectors(folder: str, model, texts: list, embed) -> tuple:
    """Return (each text's vector bytes, how many were read from the cache).

    embed(texts) -> vector bytes per text, called once with the texts the cache lacks, whose
    vectors are then kept (one transaction). A cache file SQLite cannot read is left alone and
    every text embedded.
    """
    name = hashlib.sha256(f"{model.digest}\0{model.recipe}".encode()).hexdigest()[:32]
    path = Path(folder, f"{name}.sqlite")
    keys = [_key(text) for text in texts]
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(path, timeout=60)
    except (OSError, sqlite3.Error):
        return embed(texts), 0
    try:
        try:
            with connection:
                connection.execute("CREATE TABLE IF NOT EXISTS vectors "
                                   "(key BLOB PRIMARY KEY, vector BLOB NOT NULL) WITHOUT ROWID")
            found = _read(connection, list(dict.fromkeys(keys)), 2 * model.dim)  # float16 rows
        except sqlite3.Error:
            return embed(texts), 0
        missing = {key: text for key, text in zip(keys, texts, strict=True) if key not in found}
        reused = len(texts) - sum(1 for key in keys if key in missing)
        if missing:
            fresh = embed(list(missing.values()))
            found.update(zip(missing, fresh, strict=True))
            try:
                with connection:
                    connection.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?)",
                                           zip(missing, fresh, strict=True))
            except sqlite3.Error:
                pass  # not kept: the next build embeds them again
    finally:
        connection.close()
    return [found[key] for key in keys], reused
