"""Line bookkeeping for the line-based formats: split keeping the newline style, and write
back lines that a reader skipped (logs, headers, blank lines) where they were.

Readers put the raw lines that come before a segment in ``extra["before"]`` and those after
the last one in ``meta["trailer"]``; a segment a repair made anew has no ``before`` and is
simply written in its place.
"""

from __future__ import annotations

from typing import Iterable


def split(text: str) -> tuple[list[str], dict]:
    """The lines of ``text`` and the meta that writes them back alike (newline, final newline)."""
    newline = "\r\n" if "\r\n" in text[:65536] else "\n"
    return text.splitlines(), {"newline": newline, "final_newline": text.endswith(("\n", "\r"))}


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
