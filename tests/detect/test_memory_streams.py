"""Streams built block by block (degen.detect.streams) equal the whole-text build."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from degen.detect import streams

PIECES = ["hello", "World", "let's", "l'eau", " ", "!!", "...", "的的", "我们", "ＡＢ", "ﬁ", "Straße", "\x1f", "",
          "'", "x'", "9", "—", "😀", "ΣΑΣ", "e\u0301"[:1], "ㄱ", "\u3000", "?!"]


def _whole(texts, monkeypatch):
    monkeypatch.setattr(streams, "SMALLEST", 1 << 40)
    return streams.build_streams(texts)


def _blocks(texts, monkeypatch, block):
    monkeypatch.setattr(streams, "BLOCK", block)
    return streams._by_blocks(texts)


def _same(a, b):
    assert a.keys == b.keys
    assert a.char_codes.dtype == b.char_codes.dtype and np.array_equal(a.char_codes, b.char_codes)
    for x, y in zip(a.all(), b.all()):
        assert x.source == y.source and x.joiner == y.joiner and x.name == y.name
        for field in ("ids", "bounds", "owners", "starts", "ends"):
            u, v = getattr(x, field), getattr(y, field)
            if u is None or v is None:
                assert u is None and v is None, field
            else:
                assert u.dtype == v.dtype and np.array_equal(u, v), (x.name, field)


@settings(max_examples=200, deadline=None)
@given(texts=st.lists(st.lists(st.sampled_from(PIECES), max_size=8).map("".join), min_size=1, max_size=25),
       block=st.integers(1, 30))
def test_blockwise_streams_equal_whole_streams(texts, block):
    mp = pytest.MonkeyPatch()
    try:
        blockwise = _blocks(texts, mp, block)
        if blockwise is not None:  # None: grapheme clusters, left to the whole-text build
            _same(_whole(texts, mp), blockwise)
    finally:
        mp.undo()


def test_blocks_are_used_on_a_long_text(monkeypatch):
    texts = ["we said it again. 我们又说了一遍！"] * 400
    blockwise = _blocks(texts, monkeypatch, 64)
    assert blockwise is not None
    _same(_whole(texts, monkeypatch), blockwise)


def test_clusters_fall_back_to_the_whole_text(monkeypatch):
    assert _blocks(["नमस्ते दुनिया"] * 50, monkeypatch, 16) is None
