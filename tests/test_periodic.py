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


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 3), max_size=150), st.integers(1, 12), st.integers(2, 4))
def test_every_period_at_once_equals_one_period_at_a_time(ids, max_period, min_count):
    ids = np.array(ids, dtype=np.int32)
    top = min(max_period, ids.size // 2)
    sampled = periodic._sampled_candidates(ids, top, min_count - 1)
    batched = periodic._runs_all(ids, sampled, min_count)
    for p in range(1, top + 1):
        one = periodic._runs_at(ids, p, min_count, sampled[p - 1])
        assert batched[p - 1][0].tolist() == one[0].tolist() and batched[p - 1][1].tolist() == one[1].tolist()
