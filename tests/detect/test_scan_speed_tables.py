"""The look-up tables and one-pass counts that replace per-range compares and per-token
searches give the same answers as the plain computations."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from degen.detect.script import CJK_RANGES, cjk_mask
from degen.detect.table import _count_per_text
from degen.detect.tokens import _bmp_table, _flag, classify


def test_cjk_table_equals_the_ranges_over_the_whole_bmp():
    codes = np.arange(0x10000, dtype=np.uint32)
    expected = np.zeros(codes.size, dtype=bool)
    for low, high in CJK_RANGES:
        expected[low:high + 1] = True
    assert np.array_equal(cjk_mask(codes.astype(np.uint16)), expected)
    assert np.array_equal(cjk_mask(codes), expected)


def test_cjk_mask_beyond_the_bmp():
    codes = np.array([0x4E00, 0x1F600, 0x20000, 0x3134F, 0x31350], dtype=np.uint32)
    assert cjk_mask(codes).tolist() == [True, False, True, True, False]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(st.integers(0, 0xFFFF), st.integers(0x10000, 0x10FFFF)), min_size=200, max_size=400))
def test_classify_equals_one_code_at_a_time(codes):
    _bmp_table()  # built: classify takes the table, not the few-distinct-codes path
    array = np.array([c for c in codes if not 0xD800 <= c <= 0xDFFF], dtype=np.uint32)
    assert classify(array).tolist() == [_flag(c) for c in array.tolist()]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=10), st.randoms())
def test_count_per_text_equals_a_search_per_token(lengths, rng):
    bounds = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    mask = np.array([rng.random() < 0.5 for _ in range(int(bounds[-1]))], dtype=bool)
    owner = np.searchsorted(bounds, np.flatnonzero(mask), side="right") - 1
    assert _count_per_text(mask, bounds).tolist() == np.bincount(owner, minlength=len(lengths)).tolist()
