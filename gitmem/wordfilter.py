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


class SplitKeepingMixedWords(Filter):  # type: ignore[misc]  # whoosh is untyped
    def __init__(self) -> None:
        self.split = IntraWordFilter(mergewords=True, mergenums=True)

    def __call__(self, tokens: Iterator[Any]) -> Iterator[Any]:
        for token in tokens:
            mixed = _MIXED.findall(token.text)
            yield from self.split(iter((token,)))
            for word in mixed:
                token.text = word
                yield token
