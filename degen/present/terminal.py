"""Text made safe and tidy for a terminal: control characters escaped, columns padded
by display width, plurals. Standard library only (unicodedata), so the report and the
command line share it without a dependency.
"""

from __future__ import annotations

import math
import unicodedata

# Bidirectional overrides and isolates reorder what follows them on screen (a file name
# can be made to read as something else), so they are escaped like control characters.
_BIDI = {0x200E, 0x200F, 0x061C, *range(0x202A, 0x202F), *range(0x2066, 0x206A)}


def _escape_char(ch: str) -> str:
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"


def safe(text: object) -> str:
    """``text`` with control characters (C0, DEL, C1) and bidi overrides written as
    ``\\x1b``-style escapes, so transcript text or a file name cannot move the cursor,
    retitle the terminal or reorder the line. Newlines and tabs are escaped too: every
    value is shown on one line."""
    text = str(text)
    if text.isprintable() and not any(ord(c) in _BIDI for c in text):
        return text
    return "".join(_escape_char(c) if _unsafe(c) else c for c in text)


def _unsafe(ch: str) -> bool:
    code = ord(ch)
    return code < 0x20 or 0x7F <= code < 0xA0 or code in _BIDI or unicodedata.category(ch) == "Cc"


def char_width(ch: str) -> int:
    """Terminal columns one character takes: 2 for East Asian wide/fullwidth, 0 for
    combining marks and zero-width format characters, else 1."""
    if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def width(text: str) -> int:
    """Display width of ``text`` in terminal columns."""
    return sum(char_width(c) for c in text)


def pad(text: str, columns: int) -> str:
    """``text`` left-aligned in ``columns`` display columns (never cut)."""
    return text + " " * max(0, columns - width(text))


def shorten(text: str | None, columns: int) -> str:
    """``text`` on one line, cut to at most ``columns`` display columns with an ellipsis."""
    text = " ".join((text or "").split())
    if width(text) <= columns:
        return text
    out, used = [], 0
    for ch in text:
        w = char_width(ch)
        if used + w > columns - 1:
            break
        out.append(ch)
        used += w
    return "".join(out) + "…"


def clip(line: str, columns: int | None) -> str:
    """``line`` cut to ``columns`` display columns with an ellipsis, its spacing kept
    (``shorten`` joins the words with single spaces)."""
    if columns is None or width(line) <= columns:
        return line
    used, out = 0, []
    for ch in line:
        used += char_width(ch)
        if used > columns - 1:
            break
        out.append(ch)
    return "".join(out) + "…"


def wrap(text: str, columns: int | None, first: str = "", rest: str = "") -> list[str]:
    """``text`` as lines of at most ``columns`` display columns, broken at spaces (a word
    wider than a line is cut), the first line starting with ``first``, the others with
    ``rest``; one line when ``columns`` is None."""
    if columns is None:
        return [first + text]
    lines, line, empty = [], first, True
    for word in text.split():
        if not empty and width(line) + 1 + width(word) <= columns:
            line += " " + word
            continue
        if not empty:
            lines.append(line)
            line = rest
        while width(line) + width(word) > columns:  # a path or URL longer than a line
            cut = _fitting(word, max(1, columns - width(line)))
            lines.append(line + word[:cut])
            line, word = rest, word[cut:]
        line, empty = line + word, False
    lines.append(line)
    return lines


def _fitting(text: str, columns: int) -> int:
    """How many leading characters of ``text`` fit in ``columns``."""
    used = 0
    for count, ch in enumerate(text):
        used += char_width(ch)
        if used > columns:
            return max(1, count)
    return len(text)


def plural(count: int, noun: str, many: str | None = None) -> str:
    """``"1 span"``, ``"2 spans"`` (``many`` for irregular plurals)."""
    return f"{count} {noun if count == 1 else (many or noun + 's')}"


def seconds(value: float | None, digits: int = 1) -> str:
    """Seconds for people: ``12.3``; a value no recording has (inf, NaN, above ~300
    years) in short scientific form, so a corrupt stamp cannot flood the line."""
    if value is None:
        return "-"
    if not math.isfinite(value):
        return str(value)
    return f"{value:.{digits}f}" if abs(value) < 1e10 else f"{value:.3g}"
