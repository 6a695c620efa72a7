"""Decision rules read in blocks of lines (gitmem.rules._matching_lines): the lines found
must be exactly those a search of each line finds, whatever the pattern's anchors."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitmem import rules

PATTERNS = [
    r"float\(",
    r"^import x",
    r"x$",
    r"^$",
    r"\bfoo\b",
    r"foo\s+bar",  # spans lines in a block, not in a line
    r"[^a]b",
    r"(?i)FOO",
    r"\Afoo",
    r"bar\z",
    r"(?-m)^foo",
    r"a*",
    r".",
    r"foo.*bar",
    r"(?s)foo.bar",
]
line = st.text(alphabet="abfoxr (\n\t", max_size=12).map(lambda s: s.replace("\n", " "))


@settings(max_examples=300, deadline=None)
@given(
    pattern=st.sampled_from(PATTERNS),
    texts=st.lists(line | st.sampled_from(["float(1)", "import x", "foo", "bar", ""]), max_size=40),
    block=st.sampled_from([1, 2, 3, 256]),
)
def test_blocks_find_what_each_line_finds(pattern: str, texts: list[str], block: int) -> None:
    lines = list(enumerate(texts, 1))
    want = [(n, t) for n, t in lines if rules.first_match(pattern, t)]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(rules, "BLOCK_LINES", block)
        assert rules._matching_lines(pattern, lines) == want


def test_a_large_file_is_read_in_blocks() -> None:
    """5 MB of lines a rule matches in once: before, ~12 us a line through the RE2
    wrapper (2.2 s in the before-tool hook); now one search of each block's text."""
    lines = [(n, "x = 1  # filler") for n in range(1, 180_001)]
    lines.insert(123_456, (123_457, "y = float(1)"))
    calls = 0
    real = rules.first_match

    def counted(pattern: str, text: str) -> bool:
        nonlocal calls
        calls += 1
        return real(pattern, text)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(rules, "first_match", counted)
        assert rules._matching_lines(r"float\(", lines) == [(123_457, "y = float(1)")]
    assert calls < len(lines) // 100  # a search per block, and the one block's lines


def test_a_pattern_re2_cannot_run_is_no_violation() -> None:
    class Entry:
        id, severity = "D-1", "critical"
        rules = ({"forbid": r"(a)\1"}, {"forbid": r"float\("})

    found = rules.violations_in(Entry, "x.py", [(1, "aa float(1)"), (2, "ok")])
    assert [(v.line, v.message) for v in found] == [(1, "matches the forbidden pattern 'float\\\\('")]
