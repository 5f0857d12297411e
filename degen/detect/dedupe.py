"""One finding per place: of findings that overlap, the one worth reading; timing
findings inside a loop go with the loop."""

from __future__ import annotations

import bisect
import itertools
import math

from .finding import Finding

_STREAM_PREFERENCE = {"segments": 0, "lexicon": 1, "words": 2, "chars": 3, "punct": 4}
# A finding over more unit steps than this is not filed under each of them: a tail echo
# or a hallucinated whole file may cover a million segments.
WIDE_STEPS = 64


def dedupe(findings: list[Finding], overlap: float) -> list[Finding]:
    """One finding per place: where two overlap by ``overlap`` of the shorter, keep the
    more severe one, then the one that covers more text, then the segment-level, lexicon,
    word-level, character-level one in that order (the most readable unit)."""
    ranked = sorted(findings, key=lambda f: (-f.severity.rank, -f.covered,
                                             _STREAM_PREFERENCE[f.stream]))
    kept: list[Finding] = []
    near: dict[int, list[Finding]] = {}  # kept findings of few steps, by the unit steps of the axis they touch
    wide: list[Finding] = []  # kept findings of many steps (few of them), asked every time
    for f in ranked:
        steps = _steps(f.extent)
        nearby = itertools.chain(wide, *(near.get(step, ()) for step in steps))
        if not any(overlaps(f.extent, k.extent, overlap) for k in nearby):
            kept.append(f)
            if len(steps) > WIDE_STEPS:
                wide.append(f)
            else:
                for step in steps:
                    near.setdefault(step, []).append(f)
    return kept


def _steps(extent: tuple[float, float]) -> range:
    """The unit steps [k, k + 1) of the axis that meet the open interval ``extent``: two
    extents that share any length share one of them (comparing every pair of findings was
    quadratic: 7 s for the 3,000 findings of a 100,000-line manifest)."""
    return range(math.floor(extent[0]), math.ceil(extent[1]))


def overlaps(a: tuple[float, float], b: tuple[float, float], share: float) -> bool:
    """Whether extents ``a`` and ``b`` share some length, at least ``share`` of the shorter."""
    shared = min(a[1], b[1]) - max(a[0], b[0])
    shorter = min(a[1] - a[0], b[1] - b[0])
    return shared > 0 and shared >= share * shorter


def absorbed(timing: list[Finding], loops: list[Finding]) -> list[Finding]:
    """Drop timing findings that lie inside a loop: the loop carries them as evidence.
    A finding lies inside one when, of the loops that start at or before it, the one that
    ends last ends at or after it (one binary search each; asking every loop was
    quadratic in a transcript that loops throughout)."""
    spans = sorted(l.segments for l in loops)
    firsts = [first for first, _ in spans]
    reach = list(itertools.accumulate((last for _, last in spans), max))  # furthest end so far
    def inside(f: Finding) -> bool:
        k = bisect.bisect_right(firsts, f.segments[0])
        return k > 0 and reach[k - 1] >= f.segments[1]
    return [f for f in timing if not inside(f)]
