"""Tandem repeats: a unit of ``p`` tokens repeated ``k`` times back to back.

One routine serves characters, words and whole segments: tokens are integer ids, and
``ids[i] == ids[i + p]`` holding for ``L`` consecutive ``i`` means ``L + p`` tokens of
period ``p``:

    ids:   x  a b a b a b a b  y
    p=2:      1 1 1 1 1 1 0        run of L=6 matches -> region of 8 tokens, k=4

Only primitive periods are kept: a region of period 2 is also 4-periodic, and the p=4
run is dropped because a run of a divisor period contains it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, slots=True)
class Runs:
    """Maximal tandem repeats, as parallel arrays. ``count`` whole copies of ``period``
    tokens start at ``start``; ``length`` tokens (>= count * period) share the period."""

    start: np.ndarray
    period: np.ndarray
    count: np.ndarray
    length: np.ndarray

    def __len__(self) -> int:
        return len(self.start)


def _ranges(begin: np.ndarray, stop: np.ndarray) -> np.ndarray:
    """Sorted positions covered by the ranges ``[begin[i], stop[i])`` (begin sorted),
    each once: overlapping ranges are merged first."""
    if begin.size == 0:
        return np.zeros(0, dtype=np.int64)
    reach = np.maximum.accumulate(stop)
    fresh = np.flatnonzero(np.concatenate(([True], begin[1:] > reach[:-1])))
    begin, stop = begin[fresh], np.maximum.reduceat(stop, fresh)
    lengths = np.maximum(stop - begin, 0)
    offsets = np.repeat(np.cumsum(lengths) - lengths, lengths)
    return np.arange(lengths.sum()) - offsets + np.repeat(begin, lengths)


def _runs_all(ids: np.ndarray, candidates: list[np.ndarray], min_count: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """(start, match-run length) of the maximal runs of period p with at least
    ``min_count`` copies, for every period p at once, from ``candidates[p - 1]`` (the
    sampled hits ``_sampled_candidates`` found for p).

    A run of ``L >= (min_count - 1) * p`` matches covers at least ``min_count - 1``
    consecutive multiples of ``p``, so comparing only at multiples of ``p`` (n/p
    compares) finds every candidate; the exact run is then settled within ``p - 1`` of
    the sampled hits. Summed over all periods this is about ``n * ln(max_period)``
    compares, not ``n * max_period``. A few positions between two samples, which a run
    must cover too, drop most chance hits first (``_plausible_all``). The one-period
    definition this equals is in ``tests/detect/test_periodic.py``.

    Each period's positions lie in a row of their own, ``n + 1`` wide, along one axis, so
    that one pass of array operations serves every period (a dozen calls in all, not a
    dozen a period): a row's windows end ``p + 1`` or more before the next row begins,
    so no window or run reaches across two periods.
    """
    n, need, width = ids.size, min_count - 1, ids.size + 1
    empty = (np.zeros(0, dtype=np.int64),) * 2
    sizes = [c.size for c in candidates]
    if not sum(sizes):
        return [empty] * len(candidates)
    period = np.repeat(np.arange(1, len(candidates) + 1, dtype=np.int64), sizes)
    first = np.concatenate(candidates).astype(np.int64, copy=False)
    keep = _plausible_all(ids, period, first, need)
    period, first = period[keep], first[keep]
    row = (period - 1) * width
    begin = row + np.maximum(first * period - (period - 1), 0)
    stop = row + np.minimum((first + need) * period, n - period)
    starts, lengths, period = _joined([_matched(ids, width, begin[a:b], stop[a:b])
                                       for a, b in _pieces(np.maximum(stop - begin, 0))])
    keep = lengths >= period * (min_count - 1)
    starts, lengths, period = starts[keep] - (period[keep] - 1) * width, lengths[keep], period[keep]
    edges = np.searchsorted(period, np.arange(1, len(candidates) + 2))
    return [(starts[a:b], lengths[a:b]) for a, b in zip(edges.tolist(), edges[1:].tolist())]


# Positions compared at once by ``_runs_all`` (about 40 bytes each in its arrays). A text
# that repeats one character for megabytes puts every period's windows over all of it:
# compared at once, 200 KB of "a" took 550 MB and 50 MB took more than 20 GB.
WINDOW_BUDGET = 1 << 19


def _pieces(sizes: np.ndarray):
    """(a, b) slices of the candidates whose windows hold about ``WINDOW_BUDGET``
    positions together (at least one candidate each)."""
    if int(sizes.sum()) <= WINDOW_BUDGET:
        yield 0, sizes.size
        return
    ends = np.cumsum(sizes)
    a = 0
    while a < sizes.size:
        base = int(ends[a - 1]) if a else 0
        b = max(a + 1, int(np.searchsorted(ends, base + WINDOW_BUDGET, side="right")))
        yield a, b
        a = b


def _matched(ids: np.ndarray, width: int, begin: np.ndarray, stop: np.ndarray):
    """(start, length, period) of the runs of consecutive matches (``ids[i] == ids[i + p]``)
    within the windows ``[begin, stop)``, positions on the rows' axis."""
    window = _ranges(begin, stop)
    at_period = window // width + 1
    at = window - (at_period - 1) * width
    hit = ids[at] == ids[at + at_period]
    matches, at_period = window[hit], at_period[hit]
    if matches.size == 0:
        return (np.zeros(0, dtype=np.int64),) * 3
    breaks = np.flatnonzero(np.diff(matches) != 1)
    heads = np.concatenate(([0], breaks + 1))
    starts = matches[heads]
    lengths = matches[np.concatenate((breaks, [matches.size - 1]))] + 1 - starts
    return starts, lengths, at_period[heads]


def _joined(parts: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The runs of matches of consecutive pieces of windows, one run where a run of one
    piece overlaps or touches one of the next (the same positions match either way)."""
    if len(parts) == 1:
        return parts[0]
    starts, lengths, period = (np.concatenate(a) for a in zip(*parts))
    if starts.size == 0:
        return starts, lengths, period
    order = np.argsort(starts, kind="stable")  # a piece's last run may start after the next piece's first
    starts, lengths, period = starts[order], lengths[order], period[order]
    ends = starts + lengths
    reach = np.maximum.accumulate(ends)
    fresh = np.flatnonzero(np.concatenate(([True], starts[1:] > reach[:-1])))
    return starts[fresh], np.maximum.reduceat(ends, fresh) - starts[fresh], period[fresh]


def _plausible_all(ids: np.ndarray, period: np.ndarray, first: np.ndarray, need: int) -> np.ndarray:
    """Which candidates ``first`` (``need`` sampled hits from ``first * period`` on) can
    lie in a run of ``need * period`` or more matches, from a few positions between the
    samples, which such a run covers and which must match too (``period``: each one's).
    With a small alphabet one sample in 20 matches by chance; these few looks drop most
    of those before each is checked position by position. An offset of 0 (short periods)
    tests the sampled hit itself, which holds."""
    n = ids.size
    at = first * period
    half = period // 2
    if need == 1:
        before, after = at - period + half, at + half
        ok_before = (before >= 0) & _match_all(ids, np.maximum(before, 0), period)
        ok_after = (after < n - period) & _match_all(ids, np.minimum(after, n - period - 1), period)
        return ok_before | ok_after
    keep = np.ones(first.size, dtype=bool)
    for offset in (half, period // 4, 3 * period // 4):  # between samples j and j + 1
        keep &= _match_all(ids, at + offset, period)
    return keep


def _match_all(ids: np.ndarray, where: np.ndarray, period: np.ndarray) -> np.ndarray:
    return ids[where] == ids[where + period]


def _chained_hits(samples: np.ndarray, need: int) -> np.ndarray:
    """Indices j where ``samples[j + k] == samples[j + k + 1]`` for every k < ``need``.
    Candidates: where ``need`` sampled hits follow each other. Shifted ANDs keep this to
    a few passes over the samples, and leave only the (rare) candidates to index, where
    listing every run of hits would touch each one of them."""
    chained = hits = samples[:-1] == samples[1:]
    for k in range(1, need):
        chained = chained[:-1] & hits[k:]
    return np.flatnonzero(chained)


# Bytes of ids compared for every period before moving on: the samples of period p are
# every p-th id, so on a long stream each period would read the whole array again from
# memory (5 MB of characters, 64 times); a block this size stays in the core's cache
# while all the periods read it.
SAMPLE_BLOCK = 1 << 20


def _sampled_candidates(ids: np.ndarray, top: int, need: int, limit: int | None = None) -> list[np.ndarray] | None:
    """``_chained_hits(ids[::p], need)`` for every period p = 1..top (item p - 1), found
    block by block of ids: block [a, a + step) owns the samples j with a <= j * p <
    a + step, and reads the ``need`` samples after its last one too. None once more than
    ``limit`` are found (a long periodic stretch: searched in blocks instead)."""
    n = ids.size
    step = max(1, SAMPLE_BLOCK // ids.itemsize)
    found: list[list[np.ndarray]] = [[] for _ in range(top)]
    total = 0
    for a in range(0, n, step):
        if limit is not None and total > limit:
            return None
        for p in range(1, top + 1):
            count = -(-(n - p) // p)  # samples j with a next one: j * p < n - p
            j0, j1 = -(-a // p), min(-(-(a + step) // p), count)
            if j1 <= j0 or min(j1 + need - 1, count) - j0 < need:
                continue
            chained = _chained_hits(ids[j0 * p:min(j1 + need - 1, count) * p + 1:p], need)
            here = chained[chained < j1 - j0]
            if here.size:
                found[p - 1].append(here + j0)
                total += here.size
    if limit is not None and total > limit:
        return None
    empty = np.zeros(0, dtype=np.int64)
    return [np.concatenate(f) if f else empty for f in found]


def tandem_repeats(ids, max_period: int = 64, min_count: int = 2) -> Runs:
    """Every maximal tandem repeat of primitive period ``1..max_period``.

    Args:
        ids: a 1-D sequence of integer token ids.
        max_period: the longest unit searched, in tokens.
        min_count: the fewest whole copies reported (at least 2).

    >>> r = tandem_repeats([9, 1, 2, 1, 2, 1, 2, 7])
    >>> [(int(s), int(p), int(k)) for s, p, k in zip(r.start, r.period, r.count)]
    [(1, 2, 3)]
    """
    return _search(np.asarray(ids), max_period, max(2, min_count), CANDIDATE_LIMIT)


def _search(ids: np.ndarray, max_period: int, min_count: int, limit: int | None) -> Runs:
    """``tandem_repeats``; with more than ``limit`` sampled candidates, block by block."""
    found: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    # A non-primitive run of k copies lies inside a divisor-period run of at least k
    # copies, so scanning every period at ``min_count`` keeps the filter exact.
    scan_count = min_count
    out_s, out_p, out_l = [], [], []
    top = min(max_period, len(ids) // 2)
    dense = _dense_runs(ids, top, scan_count) if ids.size * top <= DENSE_BUDGET else None
    sampled = _sampled_candidates(ids, top, scan_count - 1, limit) if dense is None else None
    if dense is None and sampled is None:
        return _in_blocks(ids, max_period, min_count)
    batched = _runs_all(ids, sampled, scan_count) if sampled is not None else None
    for p in sorted(dense) if dense is not None else range(1, top + 1):
        starts, lengths = dense[p] if dense is not None else batched[p - 1]
        if starts.size:
            keep = np.ones(starts.size, dtype=bool)
            for q in _divisors(p):
                if q in found and found[q][0].size:
                    keep &= ~_contained(starts, lengths + p, found[q][0], found[q][1] + q)
            starts, lengths = starts[keep], lengths[keep]
        found[p] = (starts, lengths)
        out_s.append(starts)
        out_l.append(lengths + p)
        out_p.append(np.full(starts.size, p, dtype=np.int64))
    if not out_s:
        empty = np.zeros(0, dtype=np.int64)
        return Runs(empty, empty, empty, empty)
    start, period, length = (np.concatenate(a).astype(np.int64) for a in (out_s, out_p, out_l))
    count = length // period
    keep = count >= min_count
    order = np.lexsort((period[keep], start[keep]))
    return Runs(start[keep][order], period[keep][order], count[keep][order], length[keep][order])


# Sampled candidates beyond which a stream is searched in blocks of ``TANDEM_BLOCK`` ids.
# Ordinary text gives far fewer (95,000 on the 100-hour bench's busiest stream, 500,000
# ids); one character repeated for megabytes gives about 4.7 per id, each with arrays of
# its own, so the search of the whole stream at once would grow with it.
CANDIDATE_LIMIT = 1 << 18
TANDEM_BLOCK = 1 << 16


def _in_blocks(ids: np.ndarray, max_period: int, min_count: int) -> Runs:
    """``tandem_repeats`` of a long stream, block by block. Each block reaches
    ``2 * min_count * max_period`` ids into the next, so a run crossing a block edge is
    found in both, its two parts overlapping by a whole unit or more, and two runs of one
    period that overlap by a whole unit are one run (both repeat that unit throughout):
    joined, they are the run the whole search finds. A run is primitive or not within any
    whole unit of it, so each block drops the same non-primitive runs."""
    reach = 2 * min_count * max_period
    parts = []
    for a in range(0, ids.size, TANDEM_BLOCK):
        runs = _search(ids[a:a + TANDEM_BLOCK + reach], max_period, min_count, None)
        parts.append((runs.start + a, runs.period, runs.length))
        if a + TANDEM_BLOCK + reach >= ids.size:
            break
    start, period, length = (np.concatenate(x).astype(np.int64) for x in zip(*parts))
    order = np.lexsort((start, period))  # by period, then start: a run's parts follow each other
    start, period, length = start[order], period[order], length[order]
    end = start + length
    same = np.concatenate(([False], period[1:] == period[:-1]))
    reach_end = _running_max_by_group(end, same)
    joined = same & (np.concatenate(([0], reach_end[:-1])) - start >= period)
    heads = np.flatnonzero(~joined)
    start, period = start[heads], period[heads]
    length = np.maximum.reduceat(end, heads) - start
    order = np.lexsort((period, start))
    start, period, length = start[order], period[order], length[order]
    return Runs(start, period, length // period, length)


def _running_max_by_group(values: np.ndarray, same: np.ndarray) -> np.ndarray:
    """The running maximum of non-negative ``values``, started afresh wherever ``same``
    is False: each group is lifted above every earlier one, so the maximum carried into
    a group is never an earlier group's."""
    lift = np.cumsum(~same) * (int(values.max(initial=0)) + 1)
    return np.maximum.accumulate(values + lift) - lift


def tandem_repeats_in(ids: np.ndarray, live: np.ndarray, max_period: int = 64, min_count: int = 2) -> Runs:
    """``tandem_repeats(ids, ...)`` when the tokens where ``live`` is False match nothing
    (each id unique): every run then lies in a stretch of live tokens at least
    ``min_count`` long, so only those stretches are searched, laid end to end with a
    token between them that matches nothing either; positions are mapped back."""
    padded = np.concatenate(([False], live, [False]))
    changes = np.flatnonzero(padded[1:] != padded[:-1])
    begin, end = changes[0::2], changes[1::2]
    keep = end - begin >= max(2, min_count)
    begin, end = begin[keep], end[keep]
    if begin.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return Runs(empty, empty, empty, empty)
    # Each stretch followed by one gap position (-1), except the last.
    where = _ranges(begin, end + 1)[:-1]
    where[np.isin(where, end)] = -1
    gaps = np.flatnonzero(where < 0)
    packed = ids[np.maximum(where, 0)].astype(np.int64)
    packed[gaps] = min(int(ids.min()), 0) - 1 - np.arange(gaps.size)  # below every id, each its own
    runs = tandem_repeats(packed, max_period, min_count)
    return Runs(where[runs.start], runs.period, runs.count, runs.length)


# Below this many compares (tokens x periods), every period is searched at once in one
# 2-D array: a dozen array operations in all instead of a dozen per period, which is
# what a short text (one utterance, one small file) spends most of its time on.
DENSE_BUDGET = 1 << 20


def _dense_runs(ids: np.ndarray, top: int, min_count: int) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """What ``_runs_all`` finds, for every period 1..top at once (only periods with runs)."""
    n = ids.size
    width = n + 1
    flat = np.zeros(top * width + 1, dtype=bool)  # [0] + rows; row p-1: ids[i] == ids[i + p], then a False
    for p in range(1, top + 1):
        flat[1 + (p - 1) * width:(p - 1) * width + n - p + 1] = ids[:-p] == ids[p:]
    # Every run of True starts and ends inside its row, so the changes alternate start, end.
    changes = np.flatnonzero(flat[1:] != flat[:-1])
    begin, end = changes[0::2], changes[1::2]
    rows, starts = np.divmod(begin, width)
    lengths = end - begin
    periods = rows + 1
    keep = lengths >= periods * (min_count - 1)
    periods, starts, lengths = periods[keep], starts[keep], lengths[keep]
    edges = [0, *(np.flatnonzero(np.diff(periods)) + 1).tolist(), periods.size]
    return {int(periods[a]): (starts[a:b], lengths[a:b]) for a, b in zip(edges, edges[1:]) if b > a}


def _divisors(p: int) -> list[int]:
    return [q for q in range(1, p // 2 + 1) if p % q == 0]


def _contained(starts, extents, outer_starts, outer_extents) -> np.ndarray:
    """For each region [start, start+extent): is it inside one of the outer regions?
    Outer regions of one period never nest, so the last one starting before suffices."""
    idx = np.searchsorted(outer_starts, starts, side="right") - 1
    ok = idx >= 0
    idx = np.where(ok, idx, 0)
    return ok & (outer_starts[idx] + outer_extents[idx] >= starts + extents)
