"""Where a lexicon phrase can start, found for the whole text at once.

The lexicon's regex tries every position of a transcript in turn (5 M positions in a
100-hour one), yet almost none starts a phrase. A phrase can only start where the text
holds the first ``m`` characters of some phrase (``m`` = the shortest phrase, at most 3),
and that is tested for every position in a few array operations; the regex then runs only
at those positions. :func:`finditer` returns exactly the matches ``pattern.finditer``
would: leftmost first, each search resuming after the previous match.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .tokens import lookup, positions_by_block

MAX_CODE = 0x110000
BITS = 21  # a code point fits 21 bits: three pack into one uint64
HEAD = 64 // BITS  # leading characters tested at most: as many as pack into one uint64


@dataclass(frozen=True)
class Heads:
    """The first ``size`` characters of every phrase, as lookup tables.

    Attributes:
        size: how many leading characters are tested (the shortest phrase, at most 3).
        ids: a table over code points: a small id (from 1) for each character found
            among the leading ones, 0 for every other.
        pairs: per pair of neighbouring leading positions (k, k+1), a table over
            ``id_k * width + id_k+1``: does some phrase start so?
        keys: the leading characters of every phrase packed into one number, sorted.
        next_keys: for phrases of ``2 * size`` characters or more, their leading
            characters and the ``size`` after them, mixed into one number, sorted;
            ``short``: for the shorter phrases, per count ``e`` of characters after the
            leading ones, the leading characters mixed with those ``e`` (the whole
            phrase). Tested after ``keys``, they drop most starts a phrase only begins
            like ("tha" of "that" for "thanks", "mer" of "customer" for "merci"), each of
            which would cost a regex attempt.
    """

    size: int
    ids: np.ndarray
    width: int
    pairs: tuple[np.ndarray, ...]
    firsts: np.ndarray
    keys: np.ndarray
    next_keys: np.ndarray
    short: tuple[np.ndarray, ...]

    @classmethod
    def of(cls, phrases) -> "Heads":
        size = min(HEAD, min(len(p) for p in phrases))
        leading = sorted({c for p in phrases for c in p[:size]})
        # 1.1 M entries, built once per lexicon; one byte each while the ids fit (a smaller
        # table stays in cache: the look-up of every position is most of the search)
        ids = np.zeros(MAX_CODE, dtype=np.uint8 if len(leading) < 256 else np.uint16)
        ids[[ord(c) for c in leading]] = np.arange(1, len(leading) + 1)
        width = len(leading) + 1
        pairs = tuple(np.zeros(width * width, dtype=bool) for _ in range(size - 1))
        firsts = np.zeros(width, dtype=bool)
        for p in phrases:
            firsts[ids[ord(p[0])]] = True
            for k in range(size - 1):
                pairs[k][int(ids[ord(p[k])]) * width + int(ids[ord(p[k + 1])])] = True
        keys = np.unique(np.array([_pack([ord(c) for c in p[:size]]) for p in phrases], dtype=np.uint64))
        reach = 2 * size
        next_keys = np.unique(np.array([_mix(_pack([ord(c) for c in p[:size]]), _pack([ord(c) for c in p[size:reach]]))
                                        for p in phrases if len(p) >= reach], dtype=np.uint64))
        short = tuple(np.unique(np.array([_mix(_pack([ord(c) for c in p[:size]]), _pack([ord(c) for c in p[size:]]))
                                          for p in phrases if len(p) == size + extra], dtype=np.uint64))
                      for extra in range(size))
        return cls(size, ids, width, pairs, firsts, keys, next_keys, short)

    @property
    def reach(self) -> int:
        """Characters from a start that ``candidates`` looks at."""
        return 2 * self.size

    def candidates(self, codes: np.ndarray) -> np.ndarray:
        """Positions of ``codes`` where some phrase's leading characters stand."""
        ids = lookup(self.ids, codes).astype(np.int32 if self.width * self.width >= 2 ** 16 else np.uint16)
        last = codes.size - self.size + 1  # the leading characters must fit
        if self.size == 1:
            positions = np.flatnonzero(lookup(self.firsts, ids[:max(last, 0)]))
        else:  # the first pair on every position at once, the next only where it held
            positions = np.flatnonzero(lookup(self.pairs[0], ids[:max(last, 0)] * self.width + ids[1:max(last, 0) + 1]))
        for k in range(1, self.size - 1):
            positions = positions[self.pairs[k][ids[positions + k] * self.width + ids[positions + k + 1]]]
        packed = np.zeros(positions.size, dtype=np.uint64)
        for k in range(self.size):
            packed = (packed << np.uint64(BITS)) | codes[positions + k].astype(np.uint64)
        hit = _member(self.keys, packed)
        positions, packed = positions[hit], packed[hit]
        # The next ``size`` characters, where the text has them (a start too near its end
        # is kept: ``pattern.match`` settles it).
        inside = np.flatnonzero(positions + self.reach <= codes.size)
        lead, following = packed[inside], np.zeros(inside.size, dtype=np.uint64)
        found = _member(self.short[0], _mix(lead, following))
        for k in range(self.size, self.reach):
            following = (following << np.uint64(BITS)) | codes[positions[inside] + k].astype(np.uint64)
            extra = k - self.size + 1  # the phrases of size + extra characters, whole
            if extra < self.size and self.short[extra].size:
                found |= _member(self.short[extra], _mix(lead, following))
        keep = np.ones(positions.size, dtype=bool)
        keep[inside] = found | _member(self.next_keys, _mix(lead, following))
        return positions[keep]


def _member(sorted_keys: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Whether each of ``values`` is in ``sorted_keys``."""
    if sorted_keys.size == 0:
        return np.zeros(values.size, dtype=bool)
    found = np.searchsorted(sorted_keys, values)
    return sorted_keys[np.minimum(found, sorted_keys.size - 1)] == values


_MIX = 0x9E3779B97F4A7C15  # odd: lead * _MIX is a bijection mod 2**64


def _mix(lead, following):
    """One 64-bit number for (leading, following) characters, each packed: unequal pairs
    rarely mix equal, and a chance equality only keeps a start the regex then rejects."""
    if isinstance(lead, int):
        return ((lead * _MIX) & (2 ** 64 - 1)) ^ following
    with np.errstate(over="ignore"):
        return (lead * np.uint64(_MIX)) ^ following


def _pack(codes: list[int]) -> int:
    value = 0
    for code in codes:
        value = (value << BITS) | code
    return value


def candidates(heads: Heads, text: str) -> np.ndarray:
    """Every position of ``text`` where a phrase's leading characters stand (block by
    block; a phrase start near a block's end needs ``size - 1`` characters of the next)."""
    return positions_by_block(text, heads.candidates, heads.reach - 1)


def finditer(pattern, heads: Heads, text: str) -> list:
    """``list(pattern.finditer(text))`` for a pattern that matches only whole phrases
    (every match begins with some phrase's leading ``heads.size`` characters)."""
    return matches_at(pattern, text, candidates(heads, text))


def matches_at(pattern, text: str, starts: np.ndarray) -> list:
    """What ``pattern.finditer(text)`` finds, trying only ``starts`` (sorted), which must
    hold every position where a match can begin."""
    found, resume = [], 0
    for position in starts.tolist():
        if position < resume:  # inside the previous match: finditer never looks there
            continue
        m = pattern.match(text, position)
        if m is not None:
            found.append(m)
            resume = m.end()
    return found


def keys_candidates(heads: Heads, keys: list[str], joined: str, sep_len: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Where a phrase can start in ``keys`` joined by nothing (``joined``), and in the
    same keys joined by a separator of ``sep_len`` characters no phrase holds, from one
    search of ``joined``: a start there is one in the separated text when its leading
    characters stay inside one key, shifted by the separators before that key."""
    starts = candidates(heads, joined)
    lengths = np.fromiter(map(len, keys), dtype=np.int64, count=len(keys))
    bounds = np.concatenate(([0], np.cumsum(lengths)))
    owner = np.searchsorted(bounds, starts, side="right") - 1  # the key holding each start
    inside = starts + heads.size <= bounds[np.minimum(owner + 1, bounds.size - 1)]
    return starts, (starts + sep_len * owner)[inside]
