"""A window's compression ratio computed piece by piece (detect.ratios.joined_ratio) is the
ratio of its text joined whole: deflate's output does not depend on how its input is fed."""

import random

import pytest
from hypothesis import given, settings, strategies as st

from degen.detect import compression_ratio, ratios

TEXTS = st.lists(st.text(alphabet=st.sampled_from(list("ab 的。é\U0001f600x\n")), max_size=30), max_size=60)


@settings(max_examples=300, deadline=None)
@given(TEXTS, st.integers(1, 7), st.data())
def test_piecewise_ratio_equals_the_joined_text_s(texts, piece, data):
    first = data.draw(st.integers(0, len(texts)))
    stop = data.draw(st.integers(first, len(texts)))
    mp = pytest.MonkeyPatch()
    try:
        mp.setattr(ratios, "RATIO_PIECE", piece)
        assert ratios.joined_ratio(texts, first, stop) == compression_ratio("".join(texts[first:stop]))
    finally:
        mp.undo()


def test_piecewise_ratio_of_a_large_repetitive_window():
    rng = random.Random(4)
    words = "let us plan the work again and again 的延迟比之前低了".split()
    texts = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 12))) for _ in range(30000)]
    texts[5000:5300] = ["thank you for watching"] * 300
    whole = compression_ratio("".join(texts))
    assert whole > 1.5  # repetitive enough that the window sizes matter to deflate
    assert ratios.joined_ratio(texts, 0, len(texts)) == whole
