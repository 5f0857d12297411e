"""Issue 23: what the text and its timing say for and against a verdict (rulers, stock
phrases inside lines, short loops on one line, near-repeats, singing pace, coarse headers)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import degen
from degen.detect.finding import Severity


def worst(report) -> Severity | None:
    ranks = [f.severity for f in report.findings]
    return max(ranks, key=lambda s: s.rank) if ranks else None


# ---- rulers --------------------------------------------------------------------------

LOG = ("Calling whisper CPP done in 00:01:15.4103282\n" + "-" * 77 + "\nDate: 06/18/2024 12:30:33\n"
       "SE: 4.0.6.0 - Microsoft Windows NT 10.0.22000.0 - 64-bit\n" + "-" * 77 + "\nMessage: main.exe --language en\n")


def test_a_logs_rulers_are_no_loop():
    assert not degen.scan_text(LOG).findings


@pytest.mark.parametrize("text", [
    "[00:00.000 --> 00:05.000]  " + "-" * 60,  # a timed segment of dashes: the decoder wrote it
    "We said " + "-" * 60 + " and more",          # dashes inside a line of text
    "Hello\n" + "." * 60,                          # dots are what decoders loop on, never a ruler
])
def test_dashes_that_are_text_still_count(text):
    assert degen.scan_text(text).degenerate


# ---- stock phrases inside lines --------------------------------------------------------

def hallucinations(text, **kw):
    return [f for f in degen.scan_text(text, **kw).findings if f.kind == "hallucination"]


def test_a_credit_ending_the_only_line_is_medium():
    found = hallucinations("Please fill in the form to register as Thank you for watching!.")
    assert [(f.severity, f.unit) for f in found] == [(Severity.MEDIUM, "Thank you for watching")]
    assert "file_edge" in found[0].evidence and "inline" in found[0].evidence


def test_a_credit_inside_a_line_with_nothing_for_it_is_low():
    text = "First we met.\nThen he said thank you for watching the kids and left.\nWe went home."
    assert [f.severity for f in hallucinations(text)] == [Severity.LOW]
    assert not degen.scan_text(text).degenerate  # informational: exit 0 at the default fail-on


def test_a_credit_coming_back_inside_lines_is_medium():
    lines = [f"Line {i} has thank you for watching in it, then more words." for i in range(3)]
    text = "Opening words here.\n" + "\n".join(lines) + "\nClosing words here."
    assert {f.severity for f in hallucinations(text)} == {Severity.MEDIUM}


def test_a_credit_before_a_long_silence_is_at_a_windows_edge():
    text = ("[00:00.000 --> 00:04.000]  We start here.\n"
            "[00:04.000 --> 00:08.000]  That is all we have for you today on this show, thank you for watching\n"
            "[00:20.000 --> 00:24.000]  And now the next part begins.\n")
    found = hallucinations(text)
    assert [f.severity for f in found] == [Severity.MEDIUM] and "window_edge" in found[0].evidence


@pytest.mark.parametrize("text", ["Typhoid, did I tell you?", "I said thank your sister for the gift.",
                                  "We will see you next time, he said, and we laughed about it for hours."])
def test_everyday_phrases_inside_sentences_are_nothing(text):
    assert not hallucinations(text)


def test_an_everyday_phrase_closing_the_text_as_its_own_sentence_is_low():
    found = hallucinations("With the new kit. One, two, three. Thank you.")
    assert [f.severity for f in found] == [Severity.LOW]


@pytest.mark.parametrize("text", ["Thank you.", "Okay, thank you.", "Bye.", "Thank you very much."])
def test_a_bare_everyday_phrase_alone_is_at_most_low(text):
    assert all(f.severity == Severity.LOW for f in hallucinations(text))
    assert not degen.scan_text(text).degenerate


def test_manifest_rows_without_durations_are_at_most_low():
    rows = "".join(f'{{"audio_filepath": "a{i}.wav", "text": "{t}"}}\n'
                   for i, t in enumerate(["Thank you.", "Untertitelung des ZDF, 2020", "Thank you.", "Bye."]))
    report = degen.scan_text(rows, format="manifest")
    assert all(f.severity == Severity.LOW for f in report.findings) and not report.degenerate


def test_a_manifest_row_is_judged_by_its_duration():
    rows = ('{"audio_filepath": "a.wav", "duration": 12.0, "text": "Untertitelung des ZDF, 2020"}\n'
            '{"audio_filepath": "b.wav", "duration": 1.5, "text": "Untertitelung des ZDF, 2020"}\n')
    found = {f.segments[0]: f for f in degen.scan_text(rows, format="manifest").findings if f.kind == "hallucination"}
    assert found[0].severity == Severity.MEDIUM and "over_silence" in found[0].evidence
    assert found[1].severity == Severity.LOW


# ---- near copies of a clause on one line -------------------------------------------------

CLAUSE = "is probably close to being right, if not a little bit on the wrong"


def loops(text):
    return [f for f in degen.scan_text(text).findings if f.is_loop and f.at_least("medium")]


def test_a_clause_three_times_with_a_word_slipped_in_is_a_loop():
    text = f"I think it {CLAUSE} side {CLAUSE}. {CLAUSE} place now."
    (f,) = loops(text)
    assert f.count == 3 and "near_copies" in f.evidence


def test_a_sentence_pasted_twice_with_no_space_is_a_loop():
    text = "This is the sentence we typed into the box.This is the sentence we typed into the box."
    (f,) = loops(text)
    assert f.count == 2 and f.evidence == ("glued_copies",)


@pytest.mark.parametrize("text", [
    "This is the sentence we typed into the box. This is the sentence we typed into the box.",  # said twice: low
    "You could, you could, you could do that, and then we would all go home early today.",  # a stutter
    "我 们 二 二 零 二 二 二 零 零 零 零 二 一 一 一 一 一 二 二 二 零 零 二 二 二 二 零 二 零 的",  # few distinct tokens
])
def test_what_speech_repeats_is_no_near_loop(text):
    assert not loops(text)


# Lines the exact loops already cover are not searched for near copies (near._covered): a
# near copy there would overlap the exact loop and be dropped, so skipping them must change
# nothing, whether the exact loop fills the line, part of it, or several lines.
_LINES = [
    f"I think it {CLAUSE} side {CLAUSE}. {CLAUSE} place now.",
    "go home now " * 12,
    f"{CLAUSE} " + "and then we left " * 9,
    "This is the sentence we typed into the box.This is the sentence we typed into the box.",
    "An ordinary sentence about the weather and the train that came late again today.",
    "the same line said again and again",
]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(_LINES), min_size=1, max_size=7))
def test_lines_inside_exact_loops_are_not_searched_and_nothing_changes(lines):
    import numpy as np

    from degen.detect import near
    from degen.detect.config import DEFAULT
    from degen.detect.dedupe import overlaps
    from degen.detect.windows import stream_loops
    from degen.formats import loads

    transcript = loads("".join(f"[{2.0 * i:.1f}][S01]{line}[{2.0 * i + 2:.1f}]" for i, line in enumerate(lines)))
    found, table, *_ = stream_loops(transcript, DEFAULT, False)
    taken = [f.extent for f in found if f.at_least("medium")]
    everywhere = [f for f in near._near(transcript, table, DEFAULT, np.zeros(len(transcript), dtype=bool))
                  if not any(overlaps(f.extent, e, DEFAULT.same_place_overlap) for e in taken)]
    assert near.near_findings(transcript, table, DEFAULT, found) == everywhere


def test_covered_lines_are_those_wholly_inside_an_extent():
    from degen.detect.near import _covered

    assert _covered([(2.0, 3.0), (4.0, 4.5), (5.2, 8.0), (8.0, 9.0)], 9).tolist() == \
        [False, False, True, False, False, False, True, True, True]
