"""The keyword analyzer's word splitting (Whoosh), keeping words that mix letters and digits.

Whoosh's ``IntraWordFilter`` splits at case changes, delimiters and letter/digit changes,
and the stop filter then drops parts shorter than two characters: ``S3`` was indexed as
nothing at all, ``http2`` as ``http``, ``OAuth2Client`` as ``oauth`` and ``2client``. A
prompt about the S3 bucket could not find the decision about it by keyword, and
``quokka2`` matched every record that said ``quokka1`` as well as its own (found in a
daemon check). This filter keeps the split parts and adds each such word whole.

Its own module, imported only with Whoosh: the analyzer is pickled into the Whoosh index's
schema, so the class must be importable by name.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from whoosh.analysis import Filter, IntraWordFilter

# a run of letters and digits with a letter next to a digit somewhere in it
_MIXED = re.compile(r"[^\W_]*(?:[^\W\d_]\d|\d[^\W\d_])[^\W_]*")


# IntraWordFilter's time grows with the square of a token's parts: a 32,000-character run
# of case changes ("AbAb…", base64 without "/") took it 31 s, and a prompt with such a
# paste kept the warm daemon busy for hours while every hook waited its second and gave
# up (session 40). A token longer than MAX_TOKEN (the tokenizer keeps `a/b/c.d-e` whole)
# is cut at its delimiters, and its pieces longer than MAX_PIECE, which no word or name
# is, are left out.
MAX_TOKEN = 256
MAX_PIECE = 128
_DELIMITERS = re.compile(r"[./\-]+")


class SplitKeepingMixedWords(Filter):  # type: ignore[misc]  # whoosh is untyped
    def __init__(self) -> None:
        self.split = IntraWordFilter(mergewords=True, mergenums=True)

    def __call__(self, tokens: Iterator[Any]) -> Iterator[Any]:
        for token in tokens:
            if len(token.text) <= MAX_TOKEN:
                yield from self._words(token)
                continue
            for piece in _DELIMITERS.split(token.text):
                if 0 < len(piece) <= MAX_PIECE:
                    token.text = piece
                    yield from self._words(token)

    def _words(self, token: Any) -> Iterator[Any]:
        mixed = _MIXED.findall(token.text)
        yield from self.split(iter((token,)))
        for word in mixed:
            token.text = word
            yield token
