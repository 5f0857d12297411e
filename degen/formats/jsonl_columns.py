"""JSON Lines (segments a line, or NeMo manifests) read as columns, line by line: for
large files.

``jsonl.loads_manifest`` keeps each line's parsed object in its segment (``extra["json"]``,
so that writing back loses no field): a dict of Python objects, a Span and a Segment are
about 900 bytes a line, nine times a manifest line. Here a line leaves its text, speaker
and times in columns, and the rest of it (for a manifest line, its object without the
text: the bulk of a line, and what compresses worst) serialised, zlib-compressed a block
of lines at a time; its segment is built from them again when asked for.

The transcript equals ``jsonl.loads_segments``' or ``jsonl.loads_manifest``'s: the same
segments, extras included, and the same meta (``tests/formats/test_stream_formats.py`` holds it
to that).
"""

from __future__ import annotations

import math
import zlib
from array import array
from itertools import islice
from typing import Iterable

import numpy as np
import orjson

from ..errors import FormatError
from ..model import Columns, Segment, Transcript
from . import jsonfmt, jsonitems, jsonl

BLOCK = jsonfmt.PackedItems.BLOCK  # lines a compressed block


def read(lines: Iterable[tuple[int, bytes]], shape: str, style: dict) -> Transcript:
    """The transcript of ``lines`` ((line number, the line's bytes), blank lines too) as
    ``shape`` ('jsonl' or 'manifest'), with the meta ``style`` (``jsonl.line_style`` of the
    text). Raises what ``jsonl.loads_segments`` / ``loads_manifest`` would raise."""
    found = _Lines(shape)
    kept = ((number, line) for number, line in lines if line.strip())
    while batch := list(islice(kept, BATCH)):
        found.add_batch(batch)
        if shape == "manifest":
            found.numbers.extend(number for number, _ in batch)
    return found.transcript(style)


# Non-blank lines read at a time: a manifest's batch is parsed and read a column at a time
# (``jsonl.manifest_rows``), a few MB of objects at once.
BATCH = 16 * BLOCK


class _Lines:
    def __init__(self, shape: str):
        self.shape = shape
        self.texts: list[str] = []
        self.speakers: list[str | None] = []
        self.names: dict[str, str] = {}  # one string per speaker
        self.starts, self.ends = array("d"), array("d")
        self.untimed = False
        self.first = None  # the first line's object: the jsonl layout comes from it
        self.block: list = []  # kept lines (see _kept) not yet packed
        self.blocks: list[bytes] = []
        self.numbers = array("q")  # a manifest's line numbers, for jsonl.line_meta

    def add_batch(self, batch: list[tuple[int, bytes]]) -> None:
        """Non-blank lines in order: a manifest's read a column at a time when they are
        plainly manifest lines, else (and any line of another shape) one by one."""
        found = jsonl.manifest_rows([line for _, line in batch]) if self.shape == "manifest" else None
        if found is None:
            for number, line in batch:
                self.add(number, line)
            return
        items, (texts, speakers, starts, ends) = found
        if self.first is None:
            self.first = items[0]
        self.texts.extend(texts)
        names = self.names
        self.speakers.extend(s if s is None else names.setdefault(s, s) for s in speakers)
        self.untimed = self.untimed or bool(np.isnan(starts).any())
        self.starts.frombytes(starts.tobytes())
        self.ends.frombytes(ends.tobytes())
        for item in items:  # what is kept of a line: its object without its text (see _kept)
            item[jsonl.text_key(item)] = None  # every line has one: manifest_rows checked
        self._keep(items)

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
        self._keep([self._kept(item, seg, line)])

    def _kept(self, item: dict, seg: Segment, line: bytes):
        """What is kept of a line: a manifest line's object without its text (the text
        column has it: the bulk of a line, and what compresses worst); a segment line
        as it is, its bytes (its text column lost the speaker tag)."""
        if self.shape != "manifest":
            return line
        item[seg.extra["text_key"]] = None
        return item

    def _keep(self, kept: list) -> None:
        """Lines' kept values added to the block, packed ``BLOCK`` at a time."""
        self.block.extend(kept)
        if len(self.block) >= BLOCK:
            block, done = self.block, len(self.block) - len(self.block) % BLOCK
            for a in range(0, done, BLOCK):
                self._pack(block[a:a + BLOCK])
            self.block = block[done:]

    def _pack(self, block: list) -> None:
        """One block compressed: a segment line's bytes joined as a JSON list; a manifest
        line's object serialised, the block of them as one list (the same bytes as their
        serialisations joined so, orjson writing no spaces), or each alone where one nests
        as deep as orjson writes (one level more in a list is one too many)."""
        if self.shape != "manifest":
            data = b"[" + b",".join(block) + b"]"
        else:
            try:
                data = orjson.dumps(block)
            except orjson.JSONEncodeError:
                data = b"[" + b",".join(map(orjson.dumps, block)) + b"]"
        self.blocks.append(zlib.compress(data, 1))

    def transcript(self, style: dict) -> Transcript:
        if not self.texts:
            raise FormatError("the transcript is empty")
        if self.block:
            self._pack(self.block)
            self.block = []
        n = len(self.texts)
        items = jsonfmt.PackedItems.from_blocks(self.blocks, n, compressed=True)
        starts, ends = np.frombuffer(self.starts, dtype=np.float64), np.frombuffer(self.ends, dtype=np.float64)
        meta = {"style": style}
        if self.shape == "manifest":
            meta.update(independent=True, **jsonl.line_meta(self.numbers))
            if self.untimed:  # all timed or none, as the whole reader makes them
                starts, ends = np.full(n, math.nan), np.full(n, math.nan)
        else:
            meta["layout"] = jsonitems.layout([self.first])
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
