"""gitmem.agent.perlsub against perl itself: for every script it reads, the text it
makes is the text `perl -p -e SCRIPT` makes (with `-0777`, `-l`); what it cannot read
the same, it does not read."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from gitmem.agent import perlsub

pytestmark = pytest.mark.skipif(shutil.which("perl") is None, reason="no perl here")

PATTERNS = ["x", "x = 1", r"\d+", "^", "$", r"(\w+)", ".", r"\.", "[a-c]", r"(?<n>x)",
            r"\s*", "a|b", r"(x) = (\d)", "float", r"\bx\b", r"\z", r"\h+", "(?i)X",
            "x.*", r"\n", "^x", r"1$", "a{2}", r"\/", "@", r"\$", "y?", "[^x]", "[]a]",
            "[a-c^]", "[.]", r"[\d\s]", "(?:x|y)", "x+?", "(?=1)"]  # fmt: skip
REPLACEMENTS = ["y", "$1", "${1}", "$&", r"\n", r"\t", "float(1)", r"\/", "[$1]", r"\1",
                "", "z$", "$2-$1", r"\$", "@", "a@b", r"\.", "{}", "$+{n}", r"\U$1"]  # fmt: skip
TEXTS = ["x = 1\n", "x = 1\ny = 2\n", "abc\nx\n", "no newline at end", "", "\n\n",
         "a.b/c\n1 2 3\n", "x = 1\r\n", "aab\tb\n", "X x\n"]  # fmt: skip


def perl(script: str, text: str, options: list[str]) -> str:
    proc = subprocess.run(["perl", *options, "-p", "-e", script], input=text.encode(),
                          capture_output=True, timeout=10)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.decode()


# PERLSUB_EXAMPLES=5000 for a longer look (session 44 ran 3 x 5,000)
@settings(max_examples=int(os.environ.get("PERLSUB_EXAMPLES", "400")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(
    st.lists(
        st.tuples(
            st.lists(st.sampled_from(PATTERNS), min_size=1, max_size=3).map("".join),
            st.lists(st.sampled_from(REPLACEMENTS), max_size=3).map("".join),
            st.sampled_from(["", "g", "i", "m", "s", "x", "gi", "gms"]),
            st.sampled_from(["/", "|", "#", "{", ","]),
        ),
        min_size=1,
        max_size=2,
    ),
    st.sampled_from(TEXTS),
    st.sampled_from([[], ["-0777"], ["-l"], ["-0"]]),
)
@example([("x = 1", "x = float(1)", "", "/")], "x = 1\ny = 1\n", [])
@example([(r"(\w+) = 1", "$1 = 2", "g", "{")], "a = 1\n", ["-0777"])
def test_what_it_reads_it_reads_as_perl_does(
    subs: list[tuple[str, str, str, str]], text: str, options: list[str]
) -> None:
    parts = []
    for pattern, replacement, flags, delim in subs:
        if delim == "{":
            parts.append(f"s{{{pattern}}}{{{replacement}}}{flags}")
        else:
            parts.append(f"s{delim}{pattern}{delim}{replacement}{delim}{flags}")
    script = "; ".join(parts)
    read = perlsub.substitutions(script)
    if read is None:
        return  # left to the after-tool check
    ends = None if "-0777" in options else "\0" if "-0" in options else "\n"
    got = perlsub.apply(read, text, ends=ends, chomp="-l" in options)
    assert got == perl(script, text, options), (script, text, options)


@pytest.mark.parametrize(
    "script",
    ["s/a/b/e", "s/$x/y/", "s/a/$x/", r"s/a/\U$1/", "s/a/b/; print 1", "y/a/b/",
     "s/a/@{[ 1 ]}/", "$_ = 1", "s/(?{ 1 })//", "s/[[:alpha:]]/x/", "s #a#b#",
     "s/x(?i)X/y/"],  # Perl: a flag from there on; Python 3.10: the whole pattern's
)  # fmt: skip
def test_what_it_cannot_read_the_same_it_leaves(script: str) -> None:
    assert perlsub.substitutions(script) is None
