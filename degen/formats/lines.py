"""Line bookkeeping for the line-based formats: split keeping the newline style, and write
back lines that a reader skipped (logs, headers, blank lines) where they were.

Readers put the raw lines that come before a segment in ``extra["before"]`` and those after
the last one in ``meta["trailer"]``; a segment a repair made anew has no ``before`` and is
simply written in its place.
"""

from __future__ import annotations

from typing import Iterable


# Where str.splitlines ends a line and a file of lines does not: form feeds, separators,
# U+0085, U+2028, U+2029 (a JSON string may hold the last three raw: json.dumps(...,
# ensure_ascii=False) writes them so; U+0085 is a Windows-1252 ellipsis read as Latin-1).
_NOT_LINE_ENDS = ("\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")


def split_lines(text: str) -> list[str]:
    """The lines of ``text`` ended by LF, CRLF or a lone CR only (``str.splitlines``,
    when the text holds no other line end it knows: the quick common case)."""
    if not any(end in text for end in _NOT_LINE_ENDS):
        return text.splitlines()
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines[-1] == "":  # a final line end: no line after it
        lines.pop()
    return lines


def newline_of(text: str) -> str:
    """The line end a file uses: CRLF when its head holds one, a lone CR when its lines end
    in CR alone (classic Mac OS: split_lines reads them so, and they are written back so),
    else LF."""
    head = text[:65536]
    if "\r\n" in head:
        return "\r\n"
    return "\r" if "\r" in head and "\n" not in head else "\n"


def as_lf(text: str) -> str:
    """``text`` with every line end that ``split_lines`` reads (CRLF, LF, a lone CR) as LF,
    for the sniffers' patterns, which look for LF: a file whose lines end in a lone CR, or
    that mixes the three, is sniffed as the readers will read it."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def split(text: str) -> tuple[list[str], dict]:
    """The lines of ``text`` and the meta that writes them back alike (newline, final newline)."""
    return split_lines(text), {"newline": newline_of(text), "final_newline": text.endswith(("\n", "\r"))}


def join(lines: Iterable[str], meta: dict) -> str:
    """Lines joined the way :func:`split` found them."""
    lines = list(lines)
    end = meta.get("newline", "\n") if meta.get("final_newline", True) and lines else ""
    return meta.get("newline", "\n").join(lines) + end


def emit(segments, meta: dict, render) -> str:
    """Each segment's skipped lines, then ``render(segment)`` (one line or several), then the trailer."""
    out: list[str] = list(meta.get("header", ()))
    for seg in segments:
        out.extend(seg.extra.get("before", ()))
        rendered = render(seg)
        out.extend(rendered if isinstance(rendered, list) else [rendered])
    out.extend(meta.get("trailer", ()))
    return join(out, meta)
