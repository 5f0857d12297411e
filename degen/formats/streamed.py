"""A large line-based transcript (SRT, WebVTT, JSON Lines, NeMo manifest) read piece by
piece into columns, never held whole.

Read whole, a file is held as bytes and then as a str (up to four bytes a character)
while its segments are made; piece by piece, only ``PIECE`` bytes of it are held at a
time, and what is kept is columns (``subtitle_columns``, ``jsonl_columns``).

Only a file that sniffing would call one of these formats (or that is named so), in UTF-8,
is read this way. Anything else, and any error on the way (a bad line, invalid UTF-8
further on), returns None: the caller reads the whole file as before, which then gives the
usual transcript or the usual error, worded as always.
"""

from __future__ import annotations

from itertools import chain
from typing import BinaryIO, Iterator

from ..errors import FormatError
from ..model import Transcript
from . import jsonl, jsonl_columns, moss, subtitle_columns, subtitles
from .sniff import BOMS, decode, sniff_text

STREAMED_BYTES = 32 * 2 ** 20  # from this size on, a line-based file is read piece by piece
PIECE = 1 << 22  # bytes read at a time (cut after the last newline in them)
SAMPLE = 1 << 20  # bytes sniffed (sniffing looks at 64 KiB past the leading blanks)
LINE_FORMATS = ("srt", "vtt", "jsonl", "manifest")
_UTF8_BOM = b"\xef\xbb\xbf"


def _odd_break(piece: bytes) -> bool:
    """Whether ``piece`` holds a line end other than LF and CRLF: a lone CR (each CRLF
    holds one CR: any other CR is a lone one)."""
    return b"\r" in piece and piece.count(b"\r") != piece.count(b"\r\n")


def read_file(path, format: str | None = None, extension: str = "") -> Transcript | None:
    """The transcript of the file at ``path`` as its format (``format``, a registry name,
    or sniffed), read piece by piece; None when it is not one of ``LINE_FORMATS`` in
    UTF-8 or anything goes wrong (read it whole then)."""
    with open(path, "rb") as handle:
        sample = handle.read(SAMPLE)
        if any(sample.startswith(bom) for bom, _ in BOMS):
            return None  # UTF-16/32: the whole read decodes it
        complete = len(sample) < SAMPLE
        if not complete:
            sample = sample[:sample.rfind(b"\n") + 1]  # whole lines: no character cut
        start = 0
        while sample.startswith(_UTF8_BOM, start):  # byte-order marks: the whole read drops them
            start += len(_UTF8_BOM)
        handle.seek(start)
        try:
            text = decode(sample).lstrip("\ufeff")
            name = format or _sniffed(text, extension, complete)
            if name not in LINE_FORMATS or not text.strip() or (name == "vtt" and not subtitles.looks_like_vtt(text)):
                return None
            pieces = _pieces(handle)
            if name in ("srt", "vtt"):
                return subtitle_columns.read((piece.decode("utf-8") for piece in pieces), vtt=name == "vtt",
                                             newline=subtitles.newline_meta(text))
            return jsonl_columns.read(numbered_lines(pieces), name, jsonl.line_style(text))
        except (FormatError, UnicodeDecodeError):
            return None


def _pieces(handle: BinaryIO) -> Iterator[bytes]:
    """The file's bytes in pieces of about ``PIECE`` bytes, each cut after a newline (the
    last piece ends where the file does)."""
    carry = b""
    while True:
        data = handle.read(PIECE)
        if not data:
            break
        data = carry + data if carry else data
        cut = data.rfind(b"\n") + 1
        if cut == 0:  # no line end yet: read on
            carry = data
            continue
        carry = data[cut:]
        yield data[:cut] if carry else data
    if carry:
        yield carry


def numbered_lines(pieces) -> Iterator[tuple[int, bytes]]:
    """(line number, line) for every line of the pieces joined, numbered and split as
    ``lines.split_lines`` splits the decoded text (a line keeps no line end)."""
    number = 0
    for piece in pieces:
        if _odd_break(piece):
            lines = piece.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
            if lines[-1] == b"":
                lines.pop()
        else:
            lines = piece.split(b"\n")
            if lines[-1] == b"":  # the piece ended with a newline: no line after it
                lines.pop()
            lines = [line[:-1] if line.endswith(b"\r") else line for line in lines]
        for line in lines:
            number += 1
            yield number, line


def _sniffed(text: str, extension: str, complete: bool) -> str | None:
    """What ``sniff.load`` would call a file starting with ``text`` (at least 64 KiB past
    its leading blanks, or ``complete``: the whole file), when that is one of
    ``LINE_FORMATS``; else None."""
    head = text.lstrip(" \t\r\n")
    if not head or (len(head) < 65536 and not complete) or moss.OPENING.match(head):
        return None
    if head[0] in "{[":  # JSON Lines only: several lines, the first an object (no JSON document then)
        return jsonl.sniff(head) if jsonl.looks_like(head) else None  # head: whole lines
    return sniff_text(head[:65536], extension)
