"""The lexicon search of a transcript's segment keys, a block of keys at a time.

The search runs over the keys joined by the separator (a phrase inside one segment) and,
unless the segments are independent utterances, over the keys joined by nothing (a phrase
cut between two segments). Joined whole, both texts of a large transcript are about its
size each; here only a block of ``LEXICON_BLOCK`` keys is joined at a time, and what is
found equals the whole search, match for match:

- no match crosses the separator (the pattern is literal phrases without it), so each
  block's separated text has the whole text's matches;
- in the text joined by nothing, whether a phrase matches at a position depends only on
  the ``longest`` characters from there (the pattern has no anchors nor look-behind). A
  block's joined text reaches that far into the keys after it, and its search starts
  where the previous block's last kept match ended, so it finds the matches the whole
  search finds from there, leftmost first and none overlapping; it keeps those that start
  in its own keys.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .shreds import match_keys, straddling, undouble
from .tokens import SEP

LEXICON_BLOCK = 1 << 16  # keys matched at a time


def matches(keys: list[str], lexicon, hits: list | None = None) -> dict[int, list[str]]:
    """The lexicon phrases found in each segment key (only segments with some), in one
    pass of the automaton over all keys joined (``hits``: those matches, found already)."""
    if lexicon.pattern is None or not keys:
        return {}
    if hits is None:
        hits = lexicon.finditer(SEP.join(keys))
    if not hits:
        return {}
    bounds = np.cumsum(np.fromiter(map(len, keys), dtype=np.int64, count=len(keys)) + 1)
    owners = np.searchsorted(bounds, [m.start() for m in hits], side="right")
    found: dict[int, list[str]] = {}
    for i, m in zip(owners.tolist(), hits):
        found.setdefault(i, []).append(m.group())
    return found


@dataclass
class Found:
    """What the lexicon search found.

    Attributes:
        phrases: segment -> phrases inside its key, in order (only segments with some).
        straddling: (segment, phrase, graphemes in it, graphemes in the next) for each
            phrase cut between a segment and the next, in order (``shreds.straddling``).
        nonempty: how many matched keys are not empty.
    """

    phrases: dict[int, list[str]] = field(default_factory=dict)
    straddling: list[tuple[int, str, int, int]] = field(default_factory=list)
    nonempty: int = 0


def search(texts, keys, lexicon, straddle: bool = True) -> Found:
    """The lexicon's phrases in the keys matched against it (``shreds.match_keys`` of
    ``texts`` and ``keys``), a block of keys at a time; ``straddle``: also the phrases
    cut between two segments."""
    found = Found()
    longest = max(map(len, lexicon.phrases), default=0)
    offset = resume = 0  # where the block's joined text starts, and the joined search goes on
    for first in range(0, len(keys), LEXICON_BLOCK):
        stop = min(first + LEXICON_BLOCK, len(keys))
        block = match_keys(texts[first:stop], keys[first:stop])
        found.nonempty += sum(1 for k in block if k)
        if lexicon.pattern is None:
            continue
        if not straddle:
            separated, joined = lexicon.finditer_keys(block, joined_too=False)
        else:
            tail = _following(texts, keys, stop, longest)
            separated, joined = _block_hits(lexicon, block, tail, max(resume - offset, 0))
            found.straddling += [(first + i, *rest) for i, *rest in straddling(block + tail, lexicon, joined)]
            resume = offset + joined[-1].end() if joined else resume
            offset += sum(map(len, block))
        for i, phrases in matches(block, lexicon, separated).items():
            found.phrases[first + i] = phrases
    return found


def matched_key(texts, keys, i: int) -> str:
    """Segment ``i``'s key as ``search`` matched it (``shreds.match_keys``'s)."""
    return undouble(texts[i]) or keys[i]


def _following(texts, keys, stop: int, chars: int) -> list[str]:
    """The matched keys from ``stop`` on, as few as hold ``chars`` characters (or all
    that are left)."""
    tail, size = [], 0
    while size < chars and stop + len(tail) < len(keys):
        tail.append(matched_key(texts, keys, stop + len(tail)))
        size += len(tail[-1])
    return tail


def _block_hits(lexicon, block: list[str], tail: list[str], resume: int) -> tuple[list, list]:
    """The matches in ``block`` joined by the separator, and in ``block + tail`` joined by
    nothing from ``resume`` on (as ``pattern.finditer`` goes on), those that start in
    ``block`` (no match crosses a separator: those of ``block`` are the same with the
    tail's keys after it)."""
    separated, joined = lexicon.finditer_keys(block + tail, resume=resume)
    inside, own = len(SEP.join(block)), sum(map(len, block))
    return [m for m in separated if m.start() < inside], [m for m in joined if m.start() < own]
