"""Adversarial batches for utterances.judge_many: each utterance must get exactly the
report utterances.judge gives it alone, whatever its neighbours are (repeats that run on from
one row into the next, the same row many times, one-character rows, blank rows, control
characters, hallucination phrases side by side), and across batch edges."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from degen.archive import utterances
from degen.archive.utterances import judge
from degen.archive.utterances import judge_many


def assert_same_as_alone(texts, durations):
    reports = judge_many(texts, durations)
    assert len(reports) == len(texts)
    for k, (text, seconds, report) in enumerate(zip(texts, durations, reports)):
        alone = judge(text, seconds)
        if not alone.findings:
            assert report is None, (k, text, seconds, report.findings)
        else:
            assert report is not None, (k, text, seconds, alone.findings)
            assert report.findings == alone.findings and report.degenerate == alone.degenerate


@pytest.mark.parametrize("before", ["了 了 了 了", "了 了 了 了 了 了", " 了", "了"])
def test_a_loop_that_runs_on_into_the_next_row_is_still_found_in_it(before):
    # 了 x4 over 17 s is a loop alone ("slow": text laid over silence). Searched as one
    # run with the row before it (10 s), the run made no finding and hid it.
    assert judge("了 了 了 了", 17.0).findings
    assert_same_as_alone([before, "了 了 了 了"], [10.0, 17.0])


def test_rows_between_walls_still_loop_alone():
    # The same row many times in a row, rows of one character, blank and control rows.
    texts = (["Thank you."] * 50 + list("aaaaaaaaaa") + ["", " ", "\t", "\x1f\x1f", "a\x00a\x00a"]
             + ["Subtitles by the Amara.org community", "Thank you.", "Thank you for watching!"] * 4)
    for seconds in (None, 0.5, 4.0, 17.0):
        assert_same_as_alone(texts, [seconds] * len(texts))


def test_rows_that_use_the_wall_letters_themselves():
    # The walls between rows are letters no row holds; rows made of those letters too.
    wall = [chr(c) for c in utterances.WALLS[:3]]
    texts = [" ".join([wall[0]] * 6), wall[0], " ".join([wall[1]] * 6), "".join(wall) * 5, "了 了 了 了"]
    assert_same_as_alone(texts, [17.0] * len(texts))
    assert_same_as_alone(texts, [None] * len(texts))


UNITS = ["了", "okay", "Thank you.", "ha", "!", "对", "la la", "ご視聴ありがとうございました", "Amara.org"]
SEPARATORS = [" ", "", ", ", "\n", "\x1f"]
# Rows of one unit (drawn once per batch, so that neighbours share it): each row a count of
# it, a separator and maybe a word before it, with a duration or none.
shape = st.tuples(st.integers(0, 6), st.sampled_from(SEPARATORS), st.sampled_from(["", " ", "so "]),
                  st.one_of(st.none(), st.sampled_from([0.3, 1.0, 4.0, 8.0, 10.0, 17.0, 30.0])))


@settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(UNITS), st.lists(shape, min_size=1, max_size=10), st.integers(1, 5))
def test_neighbours_made_of_the_same_unit_never_change_a_verdict(unit, shapes, batch):
    texts = [lead + sep.join([unit] * n) for n, sep, lead, _ in shapes]
    old = utterances.BATCH
    utterances.BATCH = batch  # batch edges inside the list as well
    try:
        assert_same_as_alone(texts, [seconds for *_, seconds in shapes])
    finally:
        utterances.BATCH = old


def test_a_character_that_normalises_to_a_wall_letter_keeps_that_wall_out():
    # U+FAD2 (a compatibility ideograph) is U+3B9D, an Extension A letter, once NFKC-normalised
    # as the token streams read text: that letter must not stand between rows either.
    import unicodedata
    assert unicodedata.normalize("NFKC", "\ufad2") == "\u3b9d" and "\u3b9d" in map(chr, utterances.WALLS)
    assert "\u3b9d" not in utterances._walls(["\ufad2 \ufad2", "x"] * 3000)


def test_names_may_be_any_sequence():
    # A column of ids straight from numpy or pandas: its truth value is ambiguous.
    import numpy as np
    texts = ["okay " * 40, "hello there", "okay " * 30]
    reports = judge_many(texts, [None, 1.0, 2.0], names=np.array(["a", "b", "c"]))
    assert [r and r.source for r in reports] == ["a", None, "c"]
