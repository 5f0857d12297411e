"""The lexicon search a block of keys at a time (lexicon_blocks.search) and the shred
search a block of texts at a time (shreds._maybe_shredded) find what the searches of
everything joined find."""

import random
import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from degen.detect import hallucination, lexicon_blocks, shreds
from degen.detect.hallucination import Lexicon, _trie_pattern, default_lexicon
from degen.detect.lexicon_blocks import matches
from degen.detect.shreds import match_keys, straddling

LEXICON = default_lexicon()
PHRASES = sorted(LEXICON.phrases)[:40]
# Phrases that overlap one another, so that one match hides the next ("abcd" hides "cde").
SMALL_PHRASES = ["ab", "abcd", "bc", "cde", "dea", "eab", "aaa", "的的", "的是的"]
SMALL = Lexicon({p: (("en", "t"),) for p in SMALL_PHRASES}, re.compile(_trie_pattern(SMALL_PHRASES)))


def _whole(texts, keys, lexicon, straddle):
    """The unblocked search: every key joined at once, by the separator and by nothing."""
    matched = match_keys(texts, keys)
    separated, joined = lexicon.finditer_keys(matched, joined_too=straddle)
    return (matches(matched, lexicon, separated), straddling(matched, lexicon, joined) if straddle else [],
            sum(1 for k in matched if k))


def _blocked(texts, keys, lexicon, straddle):
    found = lexicon_blocks.search(texts, keys, lexicon, straddle)
    return found.phrases, found.straddling, found.nonempty


def _keys(rng: random.Random, n: int) -> list[str]:
    out = []
    for _ in range(n):
        parts = [rng.choice(PHRASES + ["", "xyz", "的的", "hello"]) for _ in range(rng.randint(0, 3))]
        out.append("".join(parts))
    return out


def _cut(texts: list[str], rng: random.Random) -> list[str]:
    """The texts joined and cut again at random places: phrases straddle segments."""
    joined = "".join(texts)
    cuts = sorted(rng.sample(range(len(joined) + 1), min(len(texts), len(joined) + 1)))
    return [joined[a:b] for a, b in zip([0, *cuts], [*cuts, len(joined)])]


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("block", [1, 3, 50, 1 << 16])
@pytest.mark.parametrize("long_text", [0, 10 ** 9])  # the prefiltered search, and the regex alone
@pytest.mark.parametrize("straddle", [False, True])
def test_blockwise_lexicon_search_equals_the_whole_search(monkeypatch, seed, block, long_text, straddle):
    rng = random.Random(seed)
    keys = _cut(_keys(rng, 400), rng)
    whole = _whole(keys, keys, LEXICON, straddle)
    assert whole[0] and (whole[1] or not straddle)  # phrases were planted, some cut in two
    monkeypatch.setattr(lexicon_blocks, "LEXICON_BLOCK", block)
    monkeypatch.setattr(hallucination, "LONG_TEXT", long_text)
    found = _blocked(keys, keys, LEXICON, straddle)
    assert found == whole and list(found[0]) == list(whole[0])


@settings(max_examples=400, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from(list("abcde的是 ")), max_size=7), max_size=30),
       st.integers(1, 5), st.booleans(), st.booleans())
def test_blockwise_search_of_overlapping_phrases_equals_the_whole_search(keys, block, prefiltered, straddle):
    """Matches that overlap block edges and hide one another: the blocks keep the whole
    search's leftmost, non-overlapping matches, in order."""
    mp = pytest.MonkeyPatch()
    try:
        mp.setattr(lexicon_blocks, "LEXICON_BLOCK", block)
        mp.setattr(hallucination, "LONG_TEXT", 0 if prefiltered else 10 ** 9)
        found = _blocked(keys, keys, SMALL, straddle)
    finally:
        mp.undo()
    whole = _whole(keys, keys, SMALL, straddle)
    assert found == whole and list(found[0]) == list(whole[0])


def test_shredded_keys_are_matched_undoubled_in_every_block(monkeypatch):
    texts = ["你好", "请不 不吝点 点赞 赞 订阅 阅", "转发 发 打赏 赏支 支持"]
    keys = ["你好", "请不不吝点点赞赞订阅阅", "转发发打赏赏支支持"]
    monkeypatch.setattr(lexicon_blocks, "LEXICON_BLOCK", 1)
    assert lexicon_blocks.matched_key(texts, keys, 1) == "请不吝点赞订阅"
    assert _blocked(texts, keys, LEXICON, True) == _whole(texts, keys, LEXICON, True)


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
