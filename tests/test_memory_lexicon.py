"""The lexicon search of independent utterances a block of keys at a time
(hallucination.matches_by_block) and the shred search a block of texts at a time
(shreds._maybe_shredded) find what the searches of everything joined find."""

import random

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from degen.detect import default_lexicon, hallucination, shreds
from degen.detect.hallucination import matches

LEXICON = default_lexicon()
PHRASES = sorted(LEXICON.phrases)[:40]


def _keys(rng: random.Random, n: int) -> list[str]:
    out = []
    for _ in range(n):
        parts = [rng.choice(PHRASES + ["", "xyz", "的的", "hello"]) for _ in range(rng.randint(0, 3))]
        out.append("".join(parts))
    return out


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("block", [1, 3, 50, 1 << 16])
def test_blockwise_lexicon_matches_equal_the_whole_search(monkeypatch, seed, block):
    keys = _keys(random.Random(seed), 400)
    whole = matches(keys, LEXICON, LEXICON.finditer_keys(keys, joined_too=False)[0])
    assert whole  # phrases were planted
    monkeypatch.setattr(hallucination, "LEXICON_BLOCK", block)
    found = hallucination.matches_by_block(keys, LEXICON)
    assert found == whole and list(found) == list(whole)


def _whole_shredded(texts: list[str]) -> list[int]:
    """The search of every text joined at once (what _maybe_shredded did)."""
    starts = shreds._cjk_then_space("\n".join(texts))
    if starts.size < 2:
        return []
    bounds = np.cumsum(np.fromiter(map(len, texts), dtype=np.int64, count=len(texts)) + 1)
    counts = np.bincount(np.searchsorted(bounds, starts, side="right"), minlength=len(texts))
    return np.flatnonzero(counts >= 2).tolist()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from(list("的 是a\u3000\n")), max_size=8), max_size=40),
       st.integers(1, 6))
def test_blockwise_shred_search_equals_the_whole_search(texts, block):
    mp = pytest.MonkeyPatch()
    try:
        mp.setattr(shreds, "SMALL_TEXT", 0)
        mp.setattr(shreds, "SHRED_BLOCK", block)
        assert shreds._maybe_shredded(texts) == _whole_shredded(texts)
    finally:
        mp.undo()
