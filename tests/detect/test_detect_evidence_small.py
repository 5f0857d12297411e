"""Timing evidence over a few segments, read as plain values, equals the array path."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from degen.detect import DEFAULT, table as table_module
from degen.detect.table import SegmentTable

# Durations near the thresholds: zero, equal within the tolerance, 30 s windows, slow.
TIMES = st.sampled_from([0.0, 0.005, 0.01, 0.1, 0.3, 1.0, 2.5, 6.0, 29.995, 30.0, 30.01, 1e-9, float("nan")])


@st.composite
def tables(draw):
    n = draw(st.integers(1, 9))
    starts = np.cumsum([draw(st.sampled_from([0.0, 0.5, 3.0, 0.1])) for _ in range(n)])
    durations = np.array([draw(TIMES) for _ in range(n)])
    closed = np.array([draw(st.booleans()) or i < n - 1 for i in range(n)])
    units = np.array([draw(st.integers(0, 40)) for _ in range(n)], dtype=np.int64)
    cjk = np.array([draw(st.booleans()) for _ in range(n)])
    return SegmentTable(starts, starts + durations, closed, units, cjk, (None,) * n,
                        timed=draw(st.booleans()), measured=draw(st.booleans()))


@settings(max_examples=400, deadline=None)
@given(tables(), st.data())
def test_small_range_evidence_equals_the_array_path(table, data):
    first = data.draw(st.integers(0, len(table) - 1))
    last = data.draw(st.integers(first, len(table) - 1))
    uniform_min = data.draw(st.sampled_from([None, 1, 2, 3, 5]))
    chosen = data.draw(st.lists(st.integers(first, last), min_size=1, unique=True).map(sorted))
    members = data.draw(st.sampled_from([None, np.array(chosen)]))  # one speaker's segments in the range
    fast = table.evidence(first, last, DEFAULT, members, uniform_min)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(table_module, "SMALL_RANGE", 0)
        assert fast == table.evidence(first, last, DEFAULT, members, uniform_min)


@settings(max_examples=400, deadline=None)
@given(tables(), st.data())
def test_plain_sums_are_the_array_sums_figure_for_figure(table, data):
    """Every figure the evidence weighs, not only the verdicts, over the ranges the plain
    values serve (fewer than SMALL_RANGE segments: numpy sums more pairwise): NaN where
    the other is NaN."""
    first = data.draw(st.integers(0, len(table) - 1))
    last = data.draw(st.integers(first, min(len(table), first + table_module.SMALL_RANGE) - 1))
    chosen = data.draw(st.lists(st.integers(first, last), min_size=1, unique=True).map(sorted))
    members = data.draw(st.sampled_from([None, np.array(chosen)]))
    shape = data.draw(st.booleans())
    plain = table_module._plain_sums(table, first, last, members, shape, DEFAULT.window_seconds)
    arrays = table_module._array_sums(table, first, last, members, shape, DEFAULT.window_seconds)
    for name, a, b in zip(plain._fields, plain, arrays):
        assert a == b or (a != a and b != b), name
