"""JSON for the agent-hook hot path, without importing :mod:`json`.

``import json`` pulls in ``re`` (and with it ``enum``, ``functools``, ``collections``): about
10 ms of a hook's budget on a 2-core machine, when a fresh ``python -c pass`` is ~15-20 ms.
The C accelerators that ``json`` itself uses live in the ``_json`` extension, which imports
nothing; this module drives them directly: the C scanner for parsing (exactly the parser
``json.loads`` runs) and the C string escaper for output (what ``json.dumps`` uses with its
default ``ensure_ascii=True``). Anywhere ``_json`` is missing or its interface differs
(another Python implementation), it falls back to ``json``.

Errors raise ``ValueError`` (``json.JSONDecodeError`` is one), as with ``json.loads``.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `from typing import ...`: typing costs ~3 ms at hook start
if TYPE_CHECKING:
    from collections.abc import Callable

_WS = " \t\n\r"


class _Context:
    """The attributes ``_json.make_scanner`` reads from a ``json.JSONDecoder``."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = float  # NaN, Infinity, -Infinity, as json.loads accepts them
    memo: dict[str, str] = {}  # noqa: RUF012 - read by the C scanner, never written here


_scan: Callable[[str, int], tuple[object, int]] | None
_escape: Callable[[str], str] | None
try:
    from _json import encode_basestring_ascii as _escape
    from _json import make_scanner as _make_scanner

    _scan = _make_scanner(_Context())  # type: ignore[arg-type]
except (ImportError, TypeError, AttributeError):  # pragma: no cover - not CPython
    _scan = None
    _escape = None


def loads(text: str | bytes) -> object:
    """Parse one JSON document (surrounding whitespace allowed), as ``json.loads``."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    if _scan is None:  # pragma: no cover
        import json

        return json.loads(text)
    s = text.strip(_WS)
    try:
        value, end = _scan(s, 0)
    except StopIteration:
        raise ValueError("not a JSON document: expecting a value at character 0") from None
    except SystemError:
        # CPython 3.11's scanner builds its error from `json.decoder`, and when that is not
        # imported yet, it fails this way ("returned NULL without setting an exception")
        # on a bad object key or an unterminated string. Errors are off the hot path: let
        # `json` say what is wrong.
        import json

        return json.loads(s)
    if end != len(s):
        raise ValueError(f"not a JSON document: extra data at character {end}")
    return value


def dumps(value: object) -> str:
    """Compact JSON (``","`` and ``":"`` separators, ASCII-only, like ``json.dumps``
    with ``separators=(",", ":")``) of dicts, lists, tuples, strings, numbers, booleans
    and None. Anything else raises ``TypeError``."""
    if _escape is None:  # pragma: no cover
        import json

        return json.dumps(value, separators=(",", ":"))
    parts: list[str] = []
    _encode(value, parts, _escape)
    return "".join(parts)


def _encode(value: object, out: list[str], escape: Callable[[str], str]) -> None:
    if isinstance(value, str):
        out.append(escape(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        out.append(int.__repr__(value))
    elif isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"out of range float value: {value!r}")
        out.append(float.__repr__(value))
    elif isinstance(value, dict):
        out.append("{")
        first = True
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"keys must be str, not {type(key).__name__}")
            if not first:
                out.append(",")
            first = False
            out.append(escape(key))
            out.append(":")
            _encode(item, out, escape)
        out.append("}")
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _encode(item, out, escape)
        out.append("]")
    else:
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def well_formed(text: str) -> str:
    """``text`` with each lone surrogate as U+FFFD (a split pair joined), so that it
    encodes as UTF-8. JSON that JavaScript writes holds one where a string was cut inside
    an emoji's surrogate pair (``"\\ud83d"``), and both parsers keep it."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
