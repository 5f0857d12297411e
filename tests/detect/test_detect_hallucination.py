"""Known hallucinations, utterance-per-line transcripts, and the invariants that keep
verdicts local: a lexicon written here, timing that raises or lowers the severity."""

import re
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from degen.detect import DEFAULT, analyze, load_lexicon
from degen.detect.config import DetectConfig
from degen.detect.script import cjk_count, is_cjk, speech_units
from degen.errors import ConfigError
from degen.model import Segment, Span, Transcript

LEXICON = """# [t1] test credits, cited for the loader
# [weak-t2] everyday phrases, cited for the loader
en\tThanks for watching!\tt1
de\tUntertitelung des ZDF, 2020\tt1
zh\t字幕由Amara.org社区提供\tt1
ja\tご視聴ありがとうございました\tt1
en\tThank you.\tweak-t2
de\tVielen Dank.\tweak-t2
"""


@pytest.fixture
def lexicon(tmp_path):
    path = tmp_path / "lexicon.tsv"
    path.write_text(LEXICON, encoding="utf-8")
    return load_lexicon(path)


def meeting(*extra, start=0.0):
    """A few ordinary turns, then ``extra`` (start, end, speaker, text) segments."""
    base = [(start + 0.5, start + 3.0, "A", "Let's look at the numbers from last week."),
            (start + 3.3, start + 6.0, "B", "The latency went down by about a third."),
            (start + 6.4, start + 9.0, "A", "Good, then we can plan the release.")]
    return Transcript(tuple(Segment(Span(a, b), s, t) for a, b, s, t in [*base, *extra]), "moss")


def hallucinations(transcript, lexicon, config=DEFAULT):
    return [f for f in analyze(transcript, config, lexicon=lexicon).findings if f.kind == "hallucination"]


# ---- the lexicon ---------------------------------------------------------------------

def test_lexicon_matches_normalised_text(lexicon):
    assert lexicon.pattern.fullmatch("thanksforwatching")
    assert lexicon.strong("thanksforwatching") and not lexicon.strong("thankyou")
    t = Transcript((Segment(Span(0, 4), None, "ＴＨＡＮＫＳ  for   watching"),), "moss")
    (f,) = hallucinations(t, lexicon)
    assert f.at_least("medium") and "lexicon:en" in f.evidence


@pytest.mark.parametrize("row, complaint", [
    ("en\tonly two fields\n", "line 3: expected lang<TAB>phrase<TAB>source_id"),
    ("en\tA phrase\tnope\n", "line 3: source 'nope' has no"),
])
def test_bad_lexicon_rows_name_the_line(tmp_path, row, complaint):
    path = tmp_path / "bad.tsv"
    path.write_text("# [t1] a source\n\n" + row, encoding="utf-8")
    with pytest.raises(ConfigError, match=re.escape(complaint)):
        load_lexicon(path)


def test_missing_lexicon_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="cannot read the hallucination lexicon"):
        load_lexicon(tmp_path / "absent.tsv")


def test_packaged_lexicon_loads_and_cites_every_source():
    packaged = load_lexicon()
    assert packaged.path.endswith("hallucinations.tsv")
    languages = {lang for sources in packaged.phrases.values() for lang, _ in sources}
    assert {"en", "zh", "ja", "ko", "de", "fr", "es", "it", "pt", "ru"} <= languages


# ---- severity from timing ------------------------------------------------------------

def test_strong_phrase_at_the_end_over_silence_is_high(lexicon):
    (f,) = hallucinations(meeting((30.0, 60.0, "A", "Untertitelung des ZDF, 2020")), lexicon)
    assert f.severity == "high" and {"file_edge", "over_silence"} <= set(f.evidence)


def test_strong_phrase_mid_conversation_is_still_flagged(lexicon):
    t = meeting((9.5, 11.0, "B", "Thanks for watching!"), (11.3, 14.0, "A", "Right, so about the release date."))
    (f,) = hallucinations(t, lexicon)
    assert f.severity == "medium" and f.segments == (3, 3)


def test_weak_phrase_mid_conversation_is_not_flagged(lexicon):
    t = meeting((9.3, 9.9, "B", "Thank you."), (10.2, 13.0, "A", "Now the second item on the agenda."))
    assert not hallucinations(t, lexicon)


def test_weak_phrase_at_the_end_is_low_but_over_silence_medium(lexicon):
    (short,) = hallucinations(meeting((9.3, 9.9, "B", "Thank you.")), lexicon)
    assert short.severity == "low"
    (stretched,) = hallucinations(meeting((12.0, 26.0, "B", "Thank you.")), lexicon)
    assert stretched.severity == "medium"


def test_weak_phrase_alone_between_long_gaps_and_repeated(lexicon):
    t = meeting(*[(20.0 + 10 * i, 21.0 + 10 * i, "B", "Vielen Dank.") for i in range(3)],
                (60.0, 63.0, "A", "Okay, back to the budget then."))
    (f,) = hallucinations(t, lexicon)
    assert f.at_least("medium") and "repeated" in f.evidence and f.segments == (3, 5)


def test_a_file_of_nothing_but_a_weak_phrase_is_low_unless_timing_agrees(lexicon):
    # Its place (the whole text, at both edges) counts once: a real short utterance saved
    # on its own, as a manifest's row of "Thank you." split into a file, reads the same.
    t = Transcript((Segment(Span(0.0, 0.9), None, "Thank you."),), "moss")
    (f,) = hallucinations(t, lexicon)
    assert f.severity == "low" and "only_text" in f.evidence
    # Over silence (a 6 s segment for two words) it is medium.
    t = Transcript((Segment(Span(0.0, 6.0), None, "Thank you."),), "moss")
    (f,) = hallucinations(t, lexicon)
    assert f.severity == "medium" and "over_silence" in f.evidence


def test_phrase_inside_real_speech_is_not_a_hallucination(lexicon):
    t = meeting((9.3, 14.0, "B", "Thank you all for watching the demo, and the next slide shows the costs."))
    assert not hallucinations(t, lexicon)


def test_untimed_plain_text_credit(lexicon):
    t = Transcript((Segment(None, None, "字幕由Amara.org社区提供"),), "text")
    (f,) = hallucinations(t, lexicon)
    assert f.at_least("medium")


# ---- utterance-per-line transcripts ------------------------------------------------

def utterances(texts, independent=True, seconds=2.0):
    segs = tuple(Segment(Span(i * 10.0, i * 10.0 + seconds), None, t) for i, t in enumerate(texts))
    return Transcript(segs, "jsonl", {"independent": True} if independent else {})


def test_independent_utterances_are_not_one_stream():
    texts = ["we should ship the release candidate today"] * 6
    assert [f for f in analyze(utterances(texts, False)).findings if f.at_least("medium")]
    assert not analyze(utterances(texts)).findings


def test_independent_utterance_keeps_its_own_loop():
    texts = ["the weather is fine today", "no no, " + "I think " * 30 + "so", "see you tomorrow"]
    loops = [f for f in analyze(utterances(texts, seconds=8.0)).findings if f.is_loop]
    assert [(f.segments, f.count) for f in loops] == [((1, 1), 30)]


def test_loop_split_over_utterances_is_judged_per_utterance():
    texts = ["ok fine", "yes " * 20, "yes " * 20, "thanks"]
    loops = [f for f in analyze(utterances(texts, seconds=8.0)).findings if f.is_loop]
    assert sorted((f.segments, f.count) for f in loops) == [((1, 1), 20), ((2, 2), 20)]


def test_independent_utterances_of_equal_length_are_not_uniform_timing():
    texts = [f"utterance number {w} reads fine" for w in ("one", "two", "three", "four", "five", "six")]
    kinds = {f.kind for f in analyze(utterances(texts)).findings}
    assert "uniform_durations" not in kinds
    assert "uniform_durations" in {f.kind for f in analyze(utterances(texts, False)).findings}


# ---- one notion of CJK text ----------------------------------------------------------

@pytest.mark.parametrize("text, units, cjk", [
    ("we should ship it", 4, False), ("我们先看一下", 7, True), ("네네네 좋아요", 8, True),
    ("ship 我们先看一下进度 today", 11, True), ("ok", 1, False)])
def test_speech_units(text, units, cjk):
    assert speech_units(text) == (units, cjk)


def test_no_other_module_decides_what_cjk_is():
    root = Path(__file__).resolve().parents[2] / "degen"
    offenders = [str(p.relative_to(root)) for p in root.rglob("*.py") if p.name != "script.py"
                 and re.search(r"\\u3040|\\u9fff|0x3040|0x4E00|\\uac00", p.read_text(encoding="utf-8"), re.I)]
    assert offenders == []
    assert cjk_count("ひらがなカタカナ漢字한글abc") == 12 and is_cjk(3, 2) and not is_cjk(1, 2)


def test_every_threshold_has_its_reason():
    source = (Path(__file__).resolve().parents[2] / "degen" / "detect" / "config.py").read_text().splitlines()
    fields = [i for i, line in enumerate(source) if re.match(r"    [a-z_]+: (int|float|str) = ", line)]
    assert len(fields) == len(DetectConfig.__dataclass_fields__)
    for i in fields:  # a comment right above, or above the fields it shares one with
        j = i - 1
        while re.match(r"    [a-z_]+: (int|float|str) = ", source[j]):
            j -= 1
        assert source[j].strip().startswith("#"), source[i]


# ---- verdicts stay local -------------------------------------------------------------

SHAPES = st.sampled_from([
    [(7.0 + 2 * i, 9.0 + 2 * i, "B", "I'm not sure I can get through this today.") for i in range(3)],
    [(7.0, 10.0, "B", "Welcome to the new office. " * 3)],
    [(7.0, 9.0, "B", "So the plan is fixed. So the plan is fixed.")],
    [(7.0, 8.0, "B", "Thank you."), (8.3, 11.0, "A", "Right, next item then.")],
    [(7.0, 9.0, "B", "no, " * 11 + "not that one")],
    [(7.0, 30.0, "B", "Thanks for watching!")],
])


def verdicts(transcript, lexicon):
    return [(f.kind, f.severity, f.segments, f.count) for f in analyze(transcript, lexicon=lexicon).findings]


@settings(max_examples=40, deadline=None)
@given(SHAPES, st.floats(200.0, 5000.0), st.sampled_from(["And that closes the meeting for today.",
                                                            "我们下周再讨论这个问题。", "Yeah."]))
def test_a_clean_segment_far_away_changes_no_verdict(shape, gap, text):
    lexicon = _lexicon()
    base = Transcript(tuple(Segment(Span(a, b), s, t) for a, b, s, t in shape), "moss")
    before = verdicts(base, lexicon)
    end = base.end
    longer = Transcript(base.segments + (Segment(Span(end + gap, end + gap + 2.0), "C", text),), "moss")
    after = [v for v in verdicts(longer, lexicon) if v[2][0] < len(base)]
    # the file's last segment is no longer at its edge: only a hallucination's severity
    # may drop from that, a credit stays flagged, and nothing else changes
    assert [v for v in after if v[0] != "hallucination"] == [v for v in before if v[0] != "hallucination"]
    strong = [v for v in before if v[0] == "hallucination" and v[1] != "low"]
    assert len([v for v in after if v[0] == "hallucination" and v[1] != "low"]) == len(strong)


def _lexicon():
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "l.tsv"
        p.write_text(LEXICON, encoding="utf-8")
        return load_lexicon(p)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["we need to ship it this week", "先週の進捗を確認しましょう", "这个问题我们下周再讨论",
                        "no", "yeah", "对", "I think"]), st.integers(2, 3), st.booleans())
def test_natural_double_or_triple_over_turns_is_never_above_low(unit, count, alternate):
    """The same words from different people over turns, each copy with its own
    plausible duration and pause: a conversation, never above low."""
    segs, t = [], 0.5
    for i in range(count):
        seconds = 1.2 + 0.37 * i + 0.1 * len(unit) / 4
        segs.append(Segment(Span(t, t + seconds), "AB"[i % 2] if alternate else "A", unit + "."))
        t += seconds + 0.6 + 0.25 * i
    segs.append(Segment(Span(t, t + 2.5), "B", "Okay, let's move on to the next point."))
    t = Transcript(tuple(segs), "moss")
    assert not [f for f in analyze(t, lexicon=_lexicon()).findings if f.at_least("medium")]


def test_known_phrase_looping_after_real_speech(lexicon):
    t = Transcript((Segment(Span(0.0, 6.0), None, "The art of dancing without a partner. "
                            + "Thank you. " * 5),), "moss")
    (f,) = hallucinations(t, lexicon)
    assert f.at_least("medium") and "repeated" in f.evidence


def test_a_phrase_said_here_and_there_in_a_long_turn_is_not_looping(lexicon):
    t = meeting((9.3, 30.0, "B", "Thank you. So the first point is the budget, thank you for the numbers, "
                 "and the second one, thank you again, is the schedule we agreed on last week."),
                (30.5, 33.0, "A", "Right, let's go through them one by one."))
    assert not hallucinations(t, lexicon)


def _hallucinations(t, lexicon):
    return [f for f in analyze(t, lexicon=lexicon).findings if f.kind == "hallucination"]


def test_a_blip_written_over_the_previous_segment_is_a_hallucination(lexicon):
    # whisperX: a 0.16 s "Thank you." that starts before the segment it follows has ended.
    blip = meeting((8.98, 9.14, "A", "Thank you."), (9.6, 12.0, "A", "Then stage three."))
    found = _hallucinations(blip, lexicon)
    assert [(f.severity, "fragment" in f.evidence, "overlap" in f.evidence) for f in found] == [("medium", True, True)]


def test_a_short_thanks_with_its_own_time_or_another_voice_is_not_medium(lexicon):
    said = meeting((9.2, 9.8, "B", "Thank you."), (10.2, 12.0, "A", "Then stage three."))
    assert not _hallucinations(said, lexicon)
    # Speakers may talk over each other: an overlap with another voice is no evidence.
    over = meeting((8.9, 9.1, "B", "Thank you."), (9.6, 12.0, "A", "Then stage three."))
    assert [f.severity for f in _hallucinations(over, lexicon)] == ["low"]  # the blip alone


def test_word_boundary_doubling_is_undone_only_where_it_is_the_habit():
    from degen.detect.shreds import undouble
    assert undouble("请不 不吝点 点赞 赞 订阅 阅") == "请不吝点赞订阅"
    assert undouble("镜与 与点 点点 点栏 栏目 目") == "镜与点点栏目"
    assert undouble("我们 今天 天气 很好 大家 出去") is None  # one chance overlap in five
    assert undouble("thank you you know") is None  # not CJK


def test_a_shredded_phrase_cut_between_two_speakers_is_found(lexicon):
    t = Transcript((Segment(None, "S1", "字幕 幕由 由Amara.org 社区 区"),
                    Segment(None, "S0", "提供 供 然后 后我们 们开始 始讨论 论今天 天的 的问题 题")), "speaker_text")
    found = _hallucinations(t, lexicon)
    assert [(f.segments, f.severity) for f in found] == [((0, 0), "high")]  # a strong phrase at the file's edge
    said = Transcript((Segment(None, "S1", "我们开始吧"), Segment(None, "S0", "好的，今天讨论字幕的问题")), "speaker_text")
    assert not _hallucinations(said, lexicon)
