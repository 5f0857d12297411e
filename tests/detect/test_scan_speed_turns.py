"""A speaker's stream judges only the runs that touch the edge of a turn: the rest are
found, and judged alike, in the whole stream. Whole analyses with and without that cut
must agree."""

from hypothesis import given, settings, strategies as st

import degen.detect as detect
from degen.detect import windows
from degen.model import Segment, Span, Transcript

UNITS = ["no", "no,", "yes", "the", "let us plan the work.", "的", "对", "我们先把上周的进度过一遍",
         "ha", "Okay.", "!"]


@st.composite
def transcripts(draw):
    segments, t = [], 0.0
    for _ in range(draw(st.integers(2, 14))):
        parts = [draw(st.sampled_from(UNITS)) * 1 for _ in range(draw(st.integers(0, 3)))]
        text = " ".join(p for part in parts for p in [part] * draw(st.sampled_from([1, 2, 3, 5, 9, 17])))
        length = draw(st.sampled_from([0.5, 1.0, 2.0, 8.0]))
        segments.append(Segment(Span(t, t + length), draw(st.sampled_from(["S01", "S02", "S03"])), text))
        t += length + draw(st.sampled_from([0.0, 0.3, 6.0]))
    return Transcript(segments, "moss")


def _all_runs(stream, runs):
    return runs


@settings(max_examples=150, deadline=None)
@given(transcripts())
def test_skipping_runs_inside_a_turn_changes_no_finding(transcript):
    fast = detect.analyze(transcript)
    saved = windows.crossing_turns
    windows.crossing_turns = _all_runs
    try:
        full = detect.analyze(transcript)
    finally:
        windows.crossing_turns = saved
    assert fast == full


def test_a_loop_split_by_another_speaker_is_still_found():
    said = "let us plan the work. "
    segments = [Segment(Span(0, 2), "S01", said * 3), Segment(Span(2, 3), "S02", "what?"),
                Segment(Span(3, 5), "S01", said * 3), Segment(Span(5, 6), "S02", "hm"),
                Segment(Span(6, 8), "S01", said * 3)]
    found = detect.analyze(Transcript(segments, "moss")).findings
    assert any(f.speaker == "S01" and f.segments == (0, 4) and f.count >= 9 for f in found)
