"""model.Packed reads like the list of str it holds, and the detectors that take keys
or texts as one find the same on it; segment_ids scores its pairs a block at a time."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import degen
from degen.detect import segments, windows
from degen.detect.segments import consecutive_repeats, segment_ids
from degen.formats import loads
from degen.model import Packed, lengths

TEXTS = st.lists(st.text(alphabet=st.sampled_from(list("ab的\x1f\n 😀")), max_size=5), max_size=30)


def _packed(items: list[str], cuts: list[int]) -> Packed:
    p = Packed()
    edges = sorted({0, len(items), *(c % (len(items) + 1) for c in cuts)})
    for a, b in zip(edges, edges[1:]):
        p.extend(items[a:b])
    return p


@settings(max_examples=300, deadline=None)
@given(TEXTS, st.lists(st.integers(0, 40), max_size=6), st.integers(-35, 35), st.integers(-35, 35))
def test_packed_reads_like_its_list(items, cuts, a, b):
    p = _packed(items, cuts)
    assert len(p) == len(items) and list(p) == items and p == items
    assert list(lengths(p)) == list(map(len, items)) == list(lengths(items))
    assert [p[i] for i in range(-len(items), len(items))] == items + items
    assert p[a:b] == items[a:b] and p[a:b:2] == items[a:b:2]
    assert all(p[np.int64(i)] == items[i] for i in range(len(items)))
    for i in (len(items), -len(items) - 1):
        with pytest.raises(IndexError):
            p[i]


@settings(max_examples=200, deadline=None)
@given(TEXTS, st.lists(st.integers(0, 40), max_size=6), st.data())
def test_a_replaced_chunk_reads_back(items, cuts, data):
    p = _packed(items, cuts)
    assert [p[i] for i in range(len(p))] == items  # each chunk read once: the last one read is kept
    chunks = list(p.chunks())
    assert [x for c in chunks for x in c] == items
    if not chunks:
        return
    c = data.draw(st.integers(0, len(chunks) - 1))
    new = [s[::-1] + "x" for s in chunks[c]]
    p.replace_chunk(c, new)
    chunks[c] = new
    assert list(p) == [x for chunk in chunks for x in chunk] == [p[i] for i in range(len(p))]
    with pytest.raises(ValueError):
        p.replace_chunk(c, new + ["y"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["", "abcd", "abce", "abcde", "xyz", "的的的的", "的的的是"]), max_size=40),
       st.integers(1, 4))
def test_segment_ids_and_repeats_are_the_same_on_packed_keys_and_small_pair_blocks(keys, block):
    ids, repeats = segment_ids(keys, 30.0), consecutive_repeats(keys)
    mp = pytest.MonkeyPatch()
    try:
        mp.setattr(segments, "PAIR_BLOCK", block)
        mp.setattr(segments, "FEW_PAIRS", 0)  # every pair scored, none spared by the set test
        packed = _packed(keys, [block, 2 * block + 1])
        assert np.array_equal(segment_ids(packed, 30.0), ids)
        assert consecutive_repeats(packed) == repeats
    finally:
        mp.undo()


def test_windowed_keys_are_packed_and_the_analysis_unchanged(monkeypatch):
    parts = []
    for i in range(300):  # loops of whole segments, echoes, a known phrase
        text = ["we should plan the release.", "的延迟比之前低了。", "Thank you."][i % 3] if i % 50 < 40 else "again"
        parts.append(f"[{3.0 * i:.2f}][S0{1 + i % 2}]{text}[{3.0 * i + 2.5:.2f}]")
    transcript = loads("".join(parts))
    monkeypatch.setattr(windows, "SMALLEST", 1 << 40)
    whole = degen.analyze(transcript)
    monkeypatch.setattr(windows, "SMALLEST", 0)
    monkeypatch.setattr(windows, "WINDOW", 200)
    found = windows.stream_loops(transcript, degen.DEFAULT)
    assert isinstance(found[2], Packed) and len(found[2]._chunks) > 3
    assert degen.analyze(transcript) == whole and whole.findings
