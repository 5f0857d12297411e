"""Known phrases a transcript has shredded, so that the lexicon still finds them.

Word alignment of CJK text (WhisperX, whisper-diarization) can write each word with the
last grapheme of the one before it doubled, and diarization can cut a phrase between two
speakers' turns::

    Speaker 1: 请不 不吝点 点赞 赞 订阅 阅
    Speaker 0: 转发 发 打赏 赏支 支持 持明 明镜 镜与 与点 点点 ...

:func:`undouble` writes such a segment back as one string (请不吝点赞订阅), only when most
neighbouring words overlap that way (chance overlaps in spaced CJK text are rare), and
:func:`straddling` finds phrases that run from one segment into the next.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import regex

from .script import CJK_CLASS, CJK_RANGES, cjk_count, cjk_mask
from .tokens import content, lookup, positions_by_block

MIN_WORDS = 4  # fewer words give too few neighbours to call the overlap a habit
# At least this share of neighbouring words overlapping by a CJK grapheme makes a
# shredded segment: chance overlaps in spaced CJK text are rare.
DOUBLED_SHARE = 0.5
# The doubled boundaries the fewest words must show (half of 3 gaps, rounded up).
MIN_DOUBLED = math.ceil(DOUBLED_SHARE * (MIN_WORDS - 1))
# A CJK grapheme, a space, the same grapheme: a doubled word boundary. Counted in C first,
# so that the words of ordinary segments are never split in Python.
_DOUBLED = regex.compile(rf"([{CJK_CLASS}])\s+\1")


def undouble(text: str) -> str | None:
    """The key of ``text`` with word-boundary doubling undone, or None when the text does
    not have that shape (at least half the neighbouring words overlapping by a CJK grapheme)."""
    gaps = len(text.split()) - 1
    if gaps < MIN_WORDS - 1 or len(_DOUBLED.findall(text, overlapped=True)) < DOUBLED_SHARE * gaps:
        return None
    words = [w for w in map(content, text.split()) if w]
    if len(words) < MIN_WORDS:
        return None
    overlaps = [bool(a and b) and a[-1] == b[0] and cjk_count(b[0]) == 1 for a, b in zip(words, words[1:])]
    if sum(overlaps) < DOUBLED_SHARE * len(overlaps):
        return None
    return words[0] + "".join(b[1:] if o else b for b, o in zip(words[1:], overlaps))


def match_keys(texts: list[str], keys: list[str]) -> list[str]:
    """The keys to match the lexicon against: undoubled where a segment is shredded."""
    keys = list(keys)
    for i in _maybe_shredded(texts):
        keys[i] = undouble(texts[i]) or keys[i]
    return keys


def _maybe_shredded(texts: list[str]) -> list[int]:
    """Segments that may pass ``undouble``'s test, found for all texts at once: it needs
    ``MIN_DOUBLED`` doubled boundaries, and each starts with a CJK grapheme followed by a space
    (a superset: most segments, English or CJK without spaces, have none)."""
    if sum(map(len, texts)) < SMALL_TEXT:  # a short transcript: testing each is as quick
        return list(range(len(texts)))
    found = []
    for first in range(0, len(texts), SHRED_BLOCK):  # never all texts joined at once (a large file's size)
        block = texts[first:first + SHRED_BLOCK]
        more = first + SHRED_BLOCK < len(texts)  # then the newline after the block's last text, as joined whole
        starts = _cjk_then_space("\n".join(block) + ("\n" if more else ""))
        bounds = np.cumsum(np.fromiter(map(len, block), dtype=np.int64, count=len(block)) + 1)
        counts = np.bincount(np.searchsorted(bounds, starts, side="right"), minlength=len(block))
        found += (np.flatnonzero(counts >= MIN_DOUBLED) + first).tolist()
    return found


SHRED_BLOCK = 1 << 16  # texts joined at a time to look for shreds


_CJK_KIND, _SPACE_KIND = 1, 2
SMALL_TEXT = 100_000  # characters below which every segment goes to undouble (no table to build)


def _cjk_then_space(text: str) -> np.ndarray:
    """Positions of a CJK grapheme followed by a space (block by block, each block
    reaching one character into the next)."""
    table = _kinds()

    def find(codes: np.ndarray) -> np.ndarray:
        kind = lookup(table, codes)  # every code above the table's end reads its last entry
        return np.flatnonzero((kind[:-1] == _CJK_KIND) & (kind[1:] == _SPACE_KIND))

    return positions_by_block(text, find, 1)


@lru_cache(maxsize=1)
def _kinds() -> np.ndarray:
    """A table over all code points: CJK graphemes, and the spaces ``\\s`` matches (all
    below U+3100) or ``str.split`` splits on."""
    top = max(high for _, high in CJK_RANGES) + 2  # the last entry stands for every code above
    table = np.zeros(top, dtype=np.uint8)
    table[:-1][cjk_mask(np.arange(top - 1, dtype=np.uint32))] = _CJK_KIND
    space = regex.compile(r"\s")
    table[[c for c in range(0x3100) if space.match(chr(c)) or chr(c).isspace()]] = _SPACE_KIND
    return table


def straddling(keys: list[str], lexicon, hits: list | None = None) -> list[tuple[int, str, int, int]]:
    """(segment, phrase, graphemes in it, graphemes in the next) for each lexicon phrase
    that starts in one segment and ends in the next, found in one pass over the keys
    joined without separators (``hits``: that pass's matches, found already)."""
    if lexicon.pattern is None or len(keys) < 2:
        return []
    if hits is None:
        hits = lexicon.finditer("".join(keys))
    if not hits:
        return []
    bounds = np.concatenate(([0], np.cumsum(np.fromiter(map(len, keys), dtype=np.int64, count=len(keys)))))
    out = []
    for m in hits:
        first = int(np.searchsorted(bounds, m.start(), side="right")) - 1
        last = int(np.searchsorted(bounds, m.end() - 1, side="right")) - 1
        if last == first + 1:
            cut = int(bounds[last])
            out.append((first, m.group(), cut - m.start(), m.end() - cut))
    return out
