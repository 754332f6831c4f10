"""The token estimate a `max_tokens` allowance is counted in: the one definition of a token.

A token is four bytes of UTF-8 text, rounded up per text: `tokens(n) = ceil(n / 4)`. It is an
estimate, not any model's tokenizer (English prose and code run near four bytes a token in the
common BPE vocabularies), chosen because it is exact to compute from what a read handle already
promises (`byte_count`), so a read is reserved before it runs, and because it never changes: a
budget in tokens means the same thing for every snapshot, model and release.
"""

# Bytes of UTF-8 text per estimated token.
BYTES_PER_TOKEN = 4


def tokens_of_bytes(byte_count: int) -> int:
    """Return the estimated tokens of a text of byte_count UTF-8 bytes (ceil(byte_count / 4))."""
    return -(-byte_count // BYTES_PER_TOKEN)


def tokens_of_text(text: str) -> int:
    """Return the estimated tokens of a text."""
    return tokens_of_bytes(len(text.encode("utf-8")))
