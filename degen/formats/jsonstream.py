"""A large SGLang-Omni verbose_json file read piece by piece, never parsed whole.

``orjson.loads`` of a 300 MB response holds the file's bytes, orjson's own copy and a
tree of about 1.7 M dicts at once: nearly six times the file. Here one pass of numpy over
the bytes, a block at a time, finds the document's skeleton (where each top-level member
and each item of its ``segments`` array starts and ends, outside strings), then each piece
is read from the file and parsed alone: the items a block at a time, straight into
``jsonfmt.PackedItems``, the markup as one string. What comes out equals what
``jsonfmt.from_doc(orjson.loads(data))`` gives.

Only the one shape is read this way, and only when the skeleton is plain: anything else
(another shape, a duplicate key, a piece orjson refuses, nesting the writer could not write
back) returns None, and the caller reads the whole file as before, which then gives the
usual transcript or the usual error.
"""

from __future__ import annotations

import os

import numpy as np
import orjson

from ..model import Transcript, give_back_free_memory
from . import jsonfmt, jsonturns, moss

SCAN_BLOCK = 1 << 23  # bytes looked at per step of the skeleton scan: its arrays stay a few times this
WHITESPACE = b" \t\n\r"  # what JSON allows between tokens

# Byte classes: the quote, then the structural characters (backslashes are looked at
# only before a quote).
QUOTE, OPEN_OBJECT, OPEN_ARRAY, CLOSE_OBJECT, CLOSE_ARRAY, COMMA, COLON = 1, 3, 4, 5, 6, 7, 8
_CLASSES = np.zeros(256, dtype=np.uint8)
for _char, _class in zip(b'"{[}],:', (QUOTE, OPEN_OBJECT, OPEN_ARRAY, CLOSE_OBJECT, CLOSE_ARRAY, COMMA, COLON)):
    _CLASSES[_char] = _class
BACKSLASH = ord("\\")
# The same as a table for bytes.translate, 1 where a byte has a class: translating and
# finding the ones takes a third of the time of a numpy look-up per byte.
_MARKED = bytes((_CLASSES > 0).astype(np.uint8).tolist())
_DELTA = np.array([0, 0, 0, 1, 1, -1, -1, 0, 0], dtype=np.int64)  # depth change by class


class Skeleton:
    """Structural characters outside strings: those of the top two levels (the document
    and its members' containers), and the commas between items of level-1 arrays."""

    def __init__(self):
        self.positions: list[np.ndarray] = []
        self.kinds: list[np.ndarray] = []
        self.item_commas: list[np.ndarray] = []
        self.in_string = False
        self.backslashes = 0  # backslashes ending the previous block
        self.depth = 0
        self.valid = True
        self.top_level = 0  # characters of the document's own level: its open and close only

    def feed(self, block: bytes, offset: int) -> None:
        codes = np.frombuffer(block, dtype=np.uint8)
        where = np.flatnonzero(np.frombuffer(block.translate(_MARKED), dtype=bool))
        kinds = _CLASSES[codes[where]]
        quote = kinds == QUOTE
        self._unescape(block, codes, where, quote)
        # Quotes seen so far, at each character: odd inside a string. A structural
        # character is no quote, so the running count there is the count before it.
        inside = (np.cumsum(quote, dtype=np.int32) + self.in_string) % 2 == 1
        self.in_string = bool(inside[-1]) if inside.size else self.in_string
        keep = ~quote & ~inside
        where, kinds = where[keep], kinds[keep]
        delta = _DELTA[kinds]
        after = self.depth + np.cumsum(delta)
        level = after - delta  # the depth of the container a comma or colon is in, or an open enters
        level[delta < 0] -= 1  # a close leaves its container: the level of its open
        if after.size:
            self.depth = int(after[-1])
            self.valid &= bool(after.min() >= 0)
        top = level <= 1
        self.positions.append(where[top] + offset)
        self.kinds.append(kinds[top])
        self.top_level += int((level[top] == 0).sum())
        self.item_commas.append(where[(level == 2) & (kinds == COMMA)] + offset)
        trailing = len(block) - len(block.rstrip(b"\\"))
        self.backslashes = trailing + (self.backslashes if trailing == len(block) else 0)

    def _unescape(self, block: bytes, codes: np.ndarray, where: np.ndarray, quote: np.ndarray) -> None:
        """Clear ``quote`` where a quote is escaped: after an odd run of backslashes
        (rare in a transcript: only quotes inside its text are escaped)."""
        quotes = np.flatnonzero(quote)
        positions = where[quotes]
        suspect = np.flatnonzero(codes[positions - 1] == BACKSLASH)  # at 0 this reads the block's last byte
        for k in suspect.tolist() + ([0] if positions.size and positions[0] == 0 else []):
            at = int(positions[k])
            run = _backslashes_before(block, at)
            if run == at:  # back to the block's start: the previous block's backslashes go on
                run += self.backslashes
            if run % 2:
                quote[quotes[k]] = False

    def finish(self):
        join = (lambda parts, dtype: np.concatenate(parts) if parts else np.zeros(0, dtype=dtype))
        return (join(self.positions, np.int64), join(self.kinds, np.uint8), join(self.item_commas, np.int64))


def _backslashes_before(block: bytes, at: int) -> int:
    """How many backslashes run up to ``block[at]``, looking back a little at a time."""
    start, step = at, 64
    while start > 0:
        low = max(0, start - step)
        kept = block[low:start].rstrip(b"\\")
        if kept:
            return at - low - len(kept)
        start, step = low, step * 2
    return at


def read_file(path: str | os.PathLike, size: int) -> Transcript | None:
    """The transcript of a verbose_json file read in pieces, or None to read it whole."""
    with open(path, "rb") as handle:
        fd = handle.fileno()
        skeleton = Skeleton()
        for offset in range(0, size, SCAN_BLOCK):
            skeleton.feed(os.pread(fd, SCAN_BLOCK, offset), offset)
        if not skeleton.valid or skeleton.in_string or skeleton.depth != 0 or skeleton.top_level != 2:
            return None
        return _transcript(lambda a, b: os.pread(fd, b - a, a), *skeleton.finish(), size)


def _members(positions, kinds, size, read) -> list[tuple[int, int, int, int]] | None:
    """(key start, key stop, value start, value stop) of each top-level member."""
    if kinds.size < 2 or kinds[0] != OPEN_OBJECT or kinds[-1] != CLOSE_OBJECT:
        return None
    first, last = int(positions[0]), int(positions[-1])
    if read(0, first).strip(WHITESPACE) or read(last + 1, size).strip(WHITESPACE):
        return None
    commas = positions[(kinds == COMMA)]
    colons = positions[(kinds == COLON)]
    bounds = [first, *commas.tolist(), last]
    members = []
    for a, b in zip(bounds, bounds[1:]):
        colon = colons[(colons > a) & (colons < b)]
        if colon.size != 1:
            return None
        members.append((a + 1, int(colon[0]), int(colon[0]) + 1, b))
    return members


def _transcript(read, positions, kinds, item_commas, size) -> Transcript | None:
    members = _members(positions, kinds, size, read)
    if members is None:
        return None
    try:
        keys = [orjson.loads(read(a, b)) for a, b, _, _ in members]
    except orjson.JSONDecodeError:
        return None
    if not all(isinstance(k, str) for k in keys) or len(set(keys)) != len(keys) or "segments" not in keys:
        return None
    doc, spans = {}, {}
    try:
        for key, (_, _, a, b) in zip(keys, members):
            if key in ("text", "segments"):
                spans[key], doc[key] = (a, b), None  # read last, the largest pieces
            else:
                doc[key] = orjson.loads(read(a, b))
        orjson.dumps(doc)  # what the writer could not write back is refused by the whole read
        if "text" not in spans:
            return None
        items = _packed_items(read, spans["segments"], positions, kinds, item_commas)
        if items is None:
            return None
        doc["text"] = orjson.loads(read(*spans["text"]))
    except (orjson.JSONDecodeError, orjson.JSONEncodeError):
        return None
    doc["segments"] = []  # what shape_of reads: the key, never the items
    if not isinstance(doc["text"], str) or jsonturns.shape(doc) is not None or not moss.looks_like(doc["text"]):
        return None
    give_back_free_memory()  # the skeleton's and the pieces' blocks
    return jsonfmt.read_sglang_verbose(doc, items)


def _packed_items(read, span, positions, kinds, item_commas) -> jsonfmt.PackedItems | None:
    """The items of the ``segments`` array, parsed and packed a block at a time (the
    parsed block is dropped at once: only its serialised form is kept)."""
    a, b = span
    inside = (positions >= a) & (positions < b)
    marks, inner = positions[inside], kinds[inside]
    if inner.size != 2 or inner[0] != OPEN_ARRAY or inner[-1] != CLOSE_ARRAY:
        return None  # not a plain array
    open_, close = int(marks[0]), int(marks[1])
    if read(a, open_).strip(WHITESPACE) or read(close + 1, b).strip(WHITESPACE):
        return None
    commas = item_commas[(item_commas > open_) & (item_commas < close)]
    bounds = [open_, *commas.tolist(), close]
    if not commas.size and not read(open_ + 1, close).strip(WHITESPACE):
        return jsonfmt.PackedItems([])  # an empty list
    step, blocks = jsonfmt.PackedItems.BLOCK, []
    for k in range(0, len(bounds) - 1, step):
        stop = min(k + step, len(bounds) - 1)
        items = orjson.loads(b"[" + read(bounds[k] + 1, bounds[stop]) + b"]")
        if len(items) != stop - k:
            return None
        blocks.append(jsonfmt.PackedItems.pack(items, compress=True))
    return jsonfmt.PackedItems.from_blocks(blocks, len(bounds) - 1, compressed=True)
