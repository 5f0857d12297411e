"""Detectors: every loop shape found, natural repetition left alone, the seed's numbers."""

import json

import pytest
from hypothesis import assume, given, settings, strategies as st

import degen
from degen.detect import DetectConfig, analyze
from degen.detect.tokens import content
from degen.formats import loads
from degen.model import Segment, Span, Transcript

from ..conftest import FIXTURES

EXPECT = json.loads((FIXTURES / "shapes" / "expect.json").read_text(encoding="utf-8"))


def is_rotation(a: str, b: str) -> bool:
    return len(a) == len(b) and a in b + b


@pytest.mark.parametrize("name", sorted(EXPECT))
def test_shapes(name):
    expect = EXPECT[name]
    report = degen.scan(FIXTURES / "shapes" / name)
    assert report.degenerate == expect["degenerate"], [f.to_dict() for f in report.findings]
    if not expect["degenerate"]:  # natural: nothing, or only low (a doubled clause, a chorus)
        lows = [f for f in report.findings if f.severity == "low"]
        assert len(lows) == len(report.findings), [f.to_dict() for f in report.findings]
        assert bool(lows) == expect.get("low", False), [f.to_dict() for f in lows]
        return
    top = max(report.flagged, key=lambda f: (f.count or 0))
    if "kind" in expect:
        assert top.kind == expect["kind"]
    if "unit" in expect:
        assert is_rotation(content(top.unit), content(expect["unit"])), top.unit
    if "count" in expect:
        assert top.count == expect["count"]
    if "period" in expect:
        assert top.period == expect["period"]


def test_seed_degenerate_metrics():
    r = degen.scan(FIXTURES / "seed" / "degenerate.json")
    m = r.metrics
    assert r.degenerate
    assert (m.segments, m.consecutive_repeated_segments) == (793, 163)
    assert (m.max_repetition_unit, m.max_repetition) == ("的", 102)
    counts = sorted(f.count for f in r.flagged if f.is_loop)
    assert 49 in counts and 102 in counts and 121 in counts and 37 in counts


def test_seed_clean_twin_is_clean():
    r = degen.scan(FIXTURES / "seed" / "clean.json")
    m = r.metrics
    assert not r.degenerate and not r.findings
    assert (m.segments, m.consecutive_repeated_segments, m.max_repetition) == (623, 7, 6)


def test_loop_times_and_speaker_come_from_segments():
    t = loads("[1.00][S01]hello there[2.00][3.00][S02]" + "的" * 60 + "[9.00][9.50][S01]bye[10.00]")
    (f,) = [f for f in analyze(t).findings if f.is_loop]
    assert (f.span, f.speaker, f.segments) == (Span(3.0, 9.0), "S02", (1, 1))


def test_loop_split_across_speakers_turns_is_found_per_speaker():
    texts = []
    for i in range(12):
        texts.append(("S01", "we should ship the release candidate today"))
        texts.append(("S02", ["ok", "sure", "right", "mm", "yes", "fine"][i % 6]))
    t = Transcript(tuple(Segment(Span(i * 3.0, i * 3.0 + 2.5), s, x) for i, (s, x) in enumerate(texts)), "moss")
    loops = [f for f in analyze(t).findings if f.is_loop]
    assert loops and loops[0].speaker == "S01" and loops[0].count >= 12


def test_thresholds_are_overridable():
    t = loads("[0.00][S01]" + "no, " * 11 + "[5.00]")
    assert not analyze(t).findings
    assert analyze(t, DetectConfig(min_repeats_short=10)).findings


def test_truncation_needs_the_audio_duration():
    t = loads("[0.00][S01]hello there everyone[2.00]")
    assert not degen.scan(t).findings
    (f,) = degen.scan(t, audio_duration=600.0).findings
    assert f.kind == "truncated" and f.span == Span(2.0, 600.0)


# ---- properties -------------------------------------------------------------------

FILLER = ["我们先看一下进度", "这个问题比较复杂", "下周再讨论吧", "Let us look at it", "the numbers are fine"]
UNITS = st.one_of(
    st.sampled_from(["的", "嗯，", "あ、", "!", "Aye. ", "ну, ", "いや", "这个快速发展的时代，", "way ", "As in there, ",
                     "The report shows revenue grew. "]),
    st.text(st.characters(whitelist_categories=("Lo",)), min_size=1, max_size=12),
)


@settings(max_examples=150, deadline=None)
@given(UNITS, st.integers(0, 60), st.sampled_from(FILLER), st.sampled_from(FILLER), st.booleans())
def test_planted_loop_is_found(unit, extra, before, after, slow):
    key = content(unit) or unit.strip()
    assume(key and before[-1] != key[-1] and after[0] != key[0])
    count = DetectConfig().threshold_for(len(key)) + extra
    body = before + "。" + unit * count + "。" + after
    seconds = 60.0 if slow else 5.0
    t = Transcript((Segment(Span(0, 3), "S01", "开始吧"), Segment(Span(4, 4 + seconds), "S02", body),
                    Segment(Span(5 + seconds, 7 + seconds), "S01", "好的")), "moss")
    loops = [f for f in analyze(t).findings if f.is_loop]
    assert len(loops) == 1
    (f,) = loops
    # A unit that is itself a repetition ("ªª") is found as its root ("ª"), copies multiplied.
    root = _root(key)
    assert f.count == count * (len(key) // len(root)) and f.segments == (1, 1) and f.span == Span(4, 4 + seconds)
    assert is_rotation(content(f.unit) or f.unit.strip(), root)


def _root(text: str) -> str:
    """The shortest string that ``text`` is whole copies of."""
    return next(text[:p] for p in range(1, len(text) + 1) if len(text) % p == 0 and text[:p] * (len(text) // p) == text)


NATURAL = st.sampled_from(["no, ", "对", "好的", "Yeah. ", "いや", "very ", "ha", "Okay. ", "I think, "])
CLAUSES = st.sampled_from(["我们再看看这个问题，", "we need to ship it this week, ", "先週の進捗を確認しましょう。"])


@settings(max_examples=150, deadline=None)
@given(st.one_of(st.tuples(NATURAL, st.integers(2, 6)), st.tuples(CLAUSES, st.just(2))),
       st.sampled_from(FILLER), st.sampled_from(FILLER))
def test_natural_repetition_is_never_above_low(repeat, before, after):
    """Words and backchannels up to x6, and a whole clause said twice, at a pace
    speech allows: never more than low. (A clause three times running is a loop.)"""
    unit, count = repeat
    body = before + "，" + unit * count + "，" + after
    seconds = max(2.0, len(body) / 4)
    t = Transcript((Segment(Span(0, seconds), "S01", body), Segment(Span(seconds + 1, seconds + 3), "S02", "好的")),
                   "moss")
    assert not [f for f in analyze(t).findings if f.at_least("medium")]


def test_lyrics_with_only_start_times_carry_no_duration_evidence():
    """LRC lines have no end: a line sung four times on a steady beat is evenly spaced,
    which says nothing about a decoder. The same shape with measured ends is a loop."""
    lines = ["Here comes the sun again today"] + ["Na na na hey hey goodbye now"] * 4 + ["And the sun sets"]
    segs = tuple(Segment(Span(10.0 + 4 * i, 14.0 + 4 * i), None, x) for i, x in enumerate(lines))
    assert not [f for f in analyze(Transcript(segs, "lrc")).findings if f.at_least("medium")]
    assert [f for f in analyze(Transcript(segs, "srt")).findings if f.at_least("medium")]


def test_a_long_drill_over_turns_needs_machine_timing():
    """Teacher and class trade one phrase ten times, each turn its own length and pause:
    a drill. The same alternation with every turn exactly 1.5 s long is a decoder's."""
    def drill(timed_alike):
        segs, t = [], 0.5
        for i in range(10):
            d = 1.5 if timed_alike else 1.4 + 0.13 * (i % 4)
            segs.append(Segment(Span(t, t + d), "AB"[i % 2], "How are you doing today?"))
            t += d + (0.0 if timed_alike else 0.5 + 0.1 * (i % 3))
        return Transcript(tuple(segs), "moss")
    assert not [f for f in analyze(drill(False)).findings if f.at_least("medium")]
    assert [f for f in analyze(drill(True)).findings if f.at_least("medium") and f.is_loop]


def _console_findings(middle_end: float):
    text = ("[00:00.000 --> 00:03.000]  今日はここまでです。\n"
            f"[00:03.000 --> {middle_end:06.3f}]  ありがとうございます。ありがとうございます。ありがとうございます。\n"
            "[00:08.000 --> 00:10.000]  では、また来週。\n")
    return [f for f in analyze(loads(text)).findings if f.kind == "phrase_loop"]


def test_a_polite_formula_said_three_times_is_low_unless_timing_says_machine():
    assert [f.severity for f in _console_findings(7.5)] == ["low"]  # 30 morae in 4.5 s: speech
    assert all(f.at_least("medium") for f in _console_findings(3.6)) and _console_findings(3.6)  # in 0.6 s: no
