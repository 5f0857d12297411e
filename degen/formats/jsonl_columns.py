"""JSON Lines (segments a line, or NeMo manifests) read as columns, line by line: for
large files.

``jsonl.loads_manifest`` keeps each line's parsed object in its segment (``extra["json"]``,
so that writing back loses no field): a dict of Python objects, a Span and a Segment are
about 900 bytes a line, nine times a manifest line. Here a line leaves its text, speaker
and times in columns, and the rest of it (for a manifest line, its object without the
text: the bulk of a line, and what compresses worst) serialised, zlib-compressed a block
of lines at a time; its segment is built from them again when asked for.

The transcript equals ``jsonl.loads_segments``' or ``jsonl.loads_manifest``'s: the same
segments, extras included, and the same meta (``tests/test_stream_formats.py`` holds it
to that).
"""

from __future__ import annotations

import math
import zlib
from array import array
from typing import Iterable

import numpy as np
import orjson

from ..errors import FormatError
from ..model import Columns, Segment, Transcript
from . import jsonfmt, jsonl

BLOCK = jsonfmt.PackedItems.BLOCK  # lines a compressed block


def read(lines: Iterable[tuple[int, bytes]], shape: str, style: dict) -> Transcript:
    """The transcript of ``lines`` ((line number, the line's bytes), blank lines too) as
    ``shape`` ('jsonl' or 'manifest'), with the meta ``style`` (``jsonl._style`` of the
    text). Raises what ``jsonl.loads_segments`` / ``loads_manifest`` would raise."""
    found = _Lines(shape)
    for number, line in lines:
        if line.strip():
            found.add(number, line)
    return found.transcript(style)


class _Lines:
    def __init__(self, shape: str):
        self.shape = shape
        self.texts: list[str] = []
        self.speakers: list[str | None] = []
        self.names: dict[str, str] = {}  # one string per speaker
        self.starts, self.ends = array("d"), array("d")
        self.untimed = False
        self.first = None  # the first line's object: the jsonl layout comes from it
        self.block: list[bytes] = []
        self.blocks: list[bytes] = []

    def add(self, number: int, line: bytes) -> None:
        item = jsonl.parse_line(line, number)
        seg = jsonl.segment_of(item, number, self.shape)
        if self.first is None:
            self.first = item
        self.texts.append(seg.text)
        speaker = seg.speaker
        self.speakers.append(speaker if speaker is None else self.names.setdefault(speaker, speaker))
        span = seg.span
        self.untimed = self.untimed or span is None
        self.starts.append(math.nan if span is None else span.start)
        self.ends.append(math.nan if span is None else span.end)
        self.block.append(self._kept(item, seg, line))
        if len(self.block) == BLOCK:
            self._pack()

    def _kept(self, item: dict, seg: Segment, line: bytes) -> bytes:
        """What is kept of a line: a manifest line's object without its text (the text
        column has it: the bulk of a line, and what compresses worst); a segment line
        as it is (its text column lost the speaker tag)."""
        if self.shape != "manifest":
            return line
        item[seg.extra["text_key"]] = None
        return orjson.dumps(item)

    def _pack(self) -> None:
        self.blocks.append(zlib.compress(b"[" + b",".join(self.block) + b"]", 1))
        self.block = []

    def transcript(self, style: dict) -> Transcript:
        if not self.texts:
            raise FormatError("the transcript is empty")
        if self.block:
            self._pack()
        n = len(self.texts)
        items = jsonfmt.PackedItems.from_blocks(self.blocks, n, compressed=True)
        starts, ends = np.frombuffer(self.starts, dtype=np.float64), np.frombuffer(self.ends, dtype=np.float64)
        meta = {"style": style}
        if self.shape == "manifest":
            meta["independent"] = True
            if self.untimed:  # all timed or none, as the whole reader makes them
                starts, ends = np.full(n, math.nan), np.full(n, math.nan)
        else:
            meta["layout"] = jsonfmt.layout([self.first])
        columns = Columns(self.texts, self.speakers, starts, ends, np.ones(n, dtype=bool))
        return Transcript(format=self.shape, meta=meta, columns=columns,
                          build=_builder(items, self.texts, self.shape, self.untimed and self.shape == "manifest"))


def _builder(items: jsonfmt.PackedItems, texts: list[str], shape: str, untimed: bool):
    def build(i: int) -> Segment:
        item = items[i]
        if shape == "manifest":  # its text back in its place (the key kept its place in the object)
            item[next(k for k in jsonl.MANIFEST_TEXT_KEYS if k in item)] = texts[i]
        seg = jsonl.segment_of(item, i + 1, shape)  # read before: cannot fail (the number names no line)
        return seg.with_(span=None) if untimed else seg
    return build
