"""The fast paths of detection give the same answers as the general ones."""

import numpy as np
from hypothesis import given, settings, strategies as st

from degen.detect import periodic, streams, tokens
from degen.detect.periodic import tandem_repeats


def as_tuples(runs):
    return sorted(zip(runs.start.tolist(), runs.period.tolist(), runs.count.tolist(), runs.length.tolist()))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 4), max_size=300), st.integers(1, 40), st.integers(2, 5))
def test_all_periods_at_once_equals_one_period_at_a_time(ids, max_period, min_count):
    ids = np.array(ids, dtype=np.int64)
    dense = as_tuples(tandem_repeats(ids, max_period, min_count))
    saved = periodic.DENSE_BUDGET
    periodic.DENSE_BUDGET = -1
    try:
        sparse = as_tuples(tandem_repeats(ids, max_period, min_count))
    finally:
        periodic.DENSE_BUDGET = saved
    assert dense == sparse


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from("aAＡ ﬁé\u0301.,!'’\x1f的のß"), max_size=30))
def test_normalize_skips_only_what_is_already_normalised(text):
    import unicodedata
    assert tokens.normalize(text) == unicodedata.normalize("NFKC", text).casefold()


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 0x2FFFF), max_size=200))
def test_classifying_distinct_code_points_equals_the_table(points):
    codes = np.array(points, dtype=np.uint32)
    tokens._bmp_table.cache_clear()
    tokens._small_seen[0] = 0
    small = tokens.classify(codes)
    tokens._bmp_table()  # from now on the table path
    assert np.array_equal(small, tokens.classify(codes))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(alphabet="ab 的'", max_size=12), max_size=12), st.integers(1, 9))
def test_word_ids_are_equal_exactly_for_equal_words_whatever_the_hash_block(texts, block):
    saved = streams.HASH_BLOCK
    streams.HASH_BLOCK = block
    try:
        words = streams.build_streams(texts).words
    finally:
        streams.HASH_BLOCK = saved
    spelled = [words.source[a:b] for a, b in zip(words.starts.tolist(), words.ends.tolist())]
    ids = words.ids.tolist()
    for i in range(len(ids)):
        for j in range(len(ids)):
            assert (ids[i] == ids[j]) == (spelled[i] == spelled[j])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(alphabet="ab c.", max_size=8), min_size=1, max_size=10), st.data())
def test_a_subset_stream_holds_exactly_the_chosen_segments_tokens(texts, data):
    stream = streams.build_streams(texts).chars
    chosen = sorted(data.draw(st.sets(st.integers(0, len(texts) - 1))))
    sub = stream.subset(np.array(chosen, dtype=np.int64))
    want = [k for i in chosen for k in range(stream.bounds[i], stream.bounds[i + 1])]
    assert sub.ids.tolist() == stream.ids[want].tolist() and sub.starts.tolist() == stream.starts[want].tolist()
    assert sub.owners.tolist() == chosen and np.diff(sub.bounds).tolist() == np.diff(stream.bounds)[chosen].tolist()


@settings(max_examples=100, deadline=None)
@given(st.lists(st.booleans(), max_size=200), st.integers(1, 50))
def test_positions_per_block_equal_flatnonzero(mask, block):
    saved = tokens.POSITION_BLOCK
    tokens.POSITION_BLOCK = block
    try:
        found = tokens.positions(np.array(mask, dtype=bool))
    finally:
        tokens.POSITION_BLOCK = saved
    assert found.dtype == np.int32
    assert found.tolist() == np.flatnonzero(mask).tolist()


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.sampled_from("aAΣσßẞİı ﬁ.\u0301的Ǆ"), max_size=40), st.integers(1, 7))
def test_case_folding_in_pieces_equals_folding_at_once(text, block):
    import unicodedata
    saved = tokens.FOLD_BLOCK
    tokens.FOLD_BLOCK = block
    try:
        assert tokens.normalize(text) == unicodedata.normalize("NFKC", text).casefold()
    finally:
        tokens.FOLD_BLOCK = saved
