"""The vectorised tandem-repeat finder against a naive reference."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from degen.detect import periodic
from degen.detect.periodic import tandem_repeats


def naive_tandem(ids, max_period, min_count=2):
    """Maximal regions of each period, then drop those inside a region of a divisor period."""
    n = len(ids)
    regions = {}
    for p in range(1, max_period + 1):
        found, i = [], 0
        while i + p < n:
            if ids[i] != ids[i + p]:
                i += 1
                continue
            j = i
            while j + p < n and ids[j] == ids[j + p]:
                j += 1
            if (j - i) >= p:  # at least two whole copies
                found.append((i, j + p))
            i = j
        regions[p] = found
    out = []
    for p, found in regions.items():
        for s, e in found:
            inside = any(qs <= s and e <= qe for q in range(1, p) if p % q == 0 for qs, qe in regions[q])
            if not inside and (e - s) // p >= min_count:
                out.append((s, p, (e - s) // p, e - s))
    return sorted(out)


def as_tuples(runs):
    return sorted(zip(runs.start.tolist(), runs.period.tolist(), runs.count.tolist(), runs.length.tolist()))


@pytest.mark.parametrize("ids, expected", [
    ([9, 1, 2, 1, 2, 1, 2, 7], [(1, 2, 3, 6)]),
    ([5] * 10, [(0, 1, 10, 10)]),
    (list(b"abcabcabcXababab"), [(0, 3, 3, 9), (10, 2, 3, 6)]),
    ([1, 2, 3, 4], []),
    ([], []),
    (list(b"aab"), [(0, 1, 2, 2)]),
    (list(b"abcabcab"), [(0, 3, 2, 8)]),  # a trailing partial copy belongs to the region
])
def test_known_cases(ids, expected):
    assert as_tuples(tandem_repeats(ids, 8)) == expected


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 3), max_size=60), st.integers(1, 8), st.integers(2, 4))
def test_equals_naive_reference(ids, max_period, min_count):
    fast = as_tuples(tandem_repeats(np.array(ids, dtype=np.int32), max_period, min_count))
    assert fast == naive_tandem(ids, max_period, min_count)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 3), max_size=80), st.integers(1, 8), st.integers(2, 4))
def test_period_by_period_search_equals_naive_reference(ids, max_period, min_count):
    """Long transcripts take the sampled search, one period at a time, not the dense one."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(periodic, "DENSE_BUDGET", 0)
        fast = as_tuples(tandem_repeats(np.array(ids, dtype=np.int32), max_period, min_count))
    assert fast == naive_tandem(ids, max_period, min_count)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 3), max_size=120), st.integers(1, 12), st.integers(2, 4), st.integers(1, 40))
def test_blockwise_sampling_equals_naive_reference(ids, max_period, min_count, block):
    """The sampled search reads the ids a block of ``SAMPLE_BLOCK`` bytes at a time for
    every period: blocks of a few ids put block edges everywhere a sample can fall."""
    ids = np.array(ids, dtype=np.int32)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(periodic, "DENSE_BUDGET", 0)
        patch.setattr(periodic, "SAMPLE_BLOCK", block * ids.itemsize)
        fast = as_tuples(tandem_repeats(ids, max_period, min_count))
    assert fast == naive_tandem(ids.tolist(), max_period, min_count)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 1000), min_size=1, max_size=12, unique=True), st.integers(2, 40),
       st.lists(st.integers(2000, 3000), max_size=10), st.lists(st.integers(4000, 5000), max_size=10))
def test_planted_unit_found_with_its_count(unit, count, before, after):
    ids = before + unit * count + after
    runs = as_tuples(tandem_repeats(ids, 16))
    assert (len(before), len(unit), count, len(unit) * count) in runs


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.integers(0, 2), st.none()), max_size=80), st.integers(1, 8), st.integers(2, 4))
def test_search_in_live_stretches_equals_whole_search(tokens, max_period, min_count):
    """Tokens that match nothing (None here: each a distinct negative id) split the search."""
    ids = np.array([t if t is not None else -1 - i for i, t in enumerate(tokens)], dtype=np.int32)
    within = as_tuples(periodic.tandem_repeats_in(ids, ids >= 0, max_period, min_count))
    assert within == as_tuples(tandem_repeats(ids, max_period, min_count))


# The one-period search, as production ran it period by period before ``_runs_all``
# took every period at once: the definition that ``_runs_all`` must equal.

def runs_at(ids: np.ndarray, p: int, min_count: int, first: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(start, match-run length) of maximal runs with at least ``min_count`` copies
    (``first``: the candidates, ``_sampled_candidates``' for ``p``, when found already).

    A run of ``L >= (min_count - 1) * p`` matches covers at least ``min_count - 1``
    consecutive multiples of ``p``, so comparing only at multiples of ``p`` (n/p
    compares) finds every candidate; the exact run is then settled within ``p - 1`` of
    the sampled hits. Summed over all periods this is about ``n * ln(max_period)``
    compares, not ``n * max_period``.
    """
    n = ids.size
    need = min_count - 1
    if first is None:
        first = periodic._chained_hits(ids[0:n:p], need)
    if p > 1 and first.size:
        first = first[plausible(ids, p, first, need)]
    if first.size == 0:
        return first, first
    window = periodic._ranges(np.maximum(first * p - (p - 1), 0), np.minimum((first + need) * p, n - p))
    matches = window[ids[window] == ids[window + p]]
    if matches.size == 0:
        return matches, matches
    breaks = np.flatnonzero(np.diff(matches) != 1)
    starts = matches[np.concatenate(([0], breaks + 1))]
    ends = matches[np.concatenate((breaks, [matches.size - 1]))] + 1
    lengths = ends - starts
    keep = lengths >= p * (min_count - 1)
    return starts[keep], lengths[keep]


def plausible(ids: np.ndarray, p: int, first: np.ndarray, need: int) -> np.ndarray:
    """Which candidates ``first`` (``need`` sampled hits from ``first * p`` on) can lie in
    a run of ``need * p`` or more matches, from a few positions between the samples,
    which such a run covers and which must match too. With a small alphabet (letters,
    or the words of a dull text) one sample in 20 matches by chance; these few looks
    drop most of those before each is checked position by position."""
    n = ids.size
    at = first * p
    if need == 1:
        # A run of p matches covering sample j also covers the point halfway to the
        # sample before it or the one after it.
        before, after = at - p + p // 2, at + p // 2
        ok_before = (before >= 0) & match(ids, np.maximum(before, 0), p)
        ok_after = (after < n - p) & match(ids, np.minimum(after, n - p - 1), p)
        return ok_before | ok_after
    keep = np.ones(first.size, dtype=bool)
    for offset in sorted({p // 2, p // 4, 3 * p // 4} - {0}):  # between samples j and j + 1
        keep &= match(ids, at + offset, p)
    return keep


def match(ids: np.ndarray, where: np.ndarray, p: int) -> np.ndarray:
    return ids[where] == ids[where + p]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 3), max_size=150), st.integers(1, 12), st.integers(2, 4))
def test_every_period_at_once_equals_one_period_at_a_time(ids, max_period, min_count):
    ids = np.array(ids, dtype=np.int32)
    top = min(max_period, ids.size // 2)
    sampled = periodic._sampled_candidates(ids, top, min_count - 1)
    batched = periodic._runs_all(ids, sampled, min_count)
    for p in range(1, top + 1):
        one = runs_at(ids, p, min_count, sampled[p - 1])
        assert batched[p - 1][0].tolist() == one[0].tolist() and batched[p - 1][1].tolist() == one[1].tolist()


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.integers(0, 2), max_size=160), st.integers(1, 8), st.integers(2, 4), st.integers(1, 30),
       st.integers(1, 24))
def test_a_stream_searched_in_pieces_and_blocks_equals_naive_reference(ids, max_period, min_count, budget, block):
    """A long periodic stretch: candidates beyond the limit send the stream to the block
    search, and the windows are compared a few positions at a time."""
    ids = np.array(ids, dtype=np.int32)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(periodic, "DENSE_BUDGET", 0)
        patch.setattr(periodic, "WINDOW_BUDGET", budget)
        patch.setattr(periodic, "CANDIDATE_LIMIT", 0)
        patch.setattr(periodic, "TANDEM_BLOCK", block)
        fast = as_tuples(tandem_repeats(ids, max_period, min_count))
    assert fast == naive_tandem(ids.tolist(), max_period, min_count)


def test_one_character_repeated_for_megabytes_is_searched_in_bounded_memory():
    import tracemalloc
    ids = np.full(1_000_000, 0x7684, dtype=np.uint16)  # 的 x 1,000,000
    tracemalloc.start()
    try:
        runs = tandem_repeats(ids, 64, 3)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert as_tuples(runs) == [(0, 1, 1_000_000, 1_000_000)]
    assert peak < 100 * 2 ** 20, f"{peak / 2 ** 20:.0f} MB"
