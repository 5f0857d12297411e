"""utterances.judge_many: each utterance gets exactly the report utterances.judge gives it
alone (None exactly where that report holds no finding), on generated utterances and on
every segment of the bundled real and shaped transcripts taken as an utterance."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import degen
from degen.archive.utterances import judge
from degen.archive.utterances import BATCH, judge_many

from ..conftest import FIXTURES

PHRASES = ["thank you", "Thank you for watching!", "please subscribe", "字幕由Amara.org社区提供", "okay", "no",
           "对", "ha", "[music]", "♪", "Продолжение следует...", "ご視聴ありがとうございました"]
WORDS = "we will look at the numbers again on friday and then go home 我们 的 是 不 了".split()

unit = st.sampled_from(PHRASES + WORDS)
looped = st.builds(lambda u, n, sep: sep.join([u] * n), unit, st.integers(2, 40), st.sampled_from([" ", ", ", "", ". "]))
sentence = st.lists(st.sampled_from(WORDS), max_size=30).map(" ".join)
utterance = st.one_of(sentence, looped, unit, st.text(max_size=30),
                      st.tuples(sentence, looped, sentence).map(" ".join))
duration = st.one_of(st.none(), st.floats(0.01, 60.0), st.sampled_from([0.2, 1.0, 4.0, 30.0]))


def assert_same_as_alone(texts, durations):
    reports = judge_many(texts, durations)
    assert len(reports) == len(texts)
    for text, seconds, report in zip(texts, durations, reports):
        alone = judge(text, seconds)
        if not alone.findings:
            assert report is None, (text, seconds)
        else:
            assert report is not None, (text, seconds, alone.findings)
            assert report.findings == alone.findings and report.degenerate == alone.degenerate


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(utterance, duration), max_size=40))
def test_each_utterance_is_judged_as_alone(rows):
    assert_same_as_alone([t for t, _ in rows], [d for _, d in rows])


def _fixture_utterances():
    rows = []
    for path in sorted(FIXTURES.glob("**/*")):
        if path.suffix not in (".json", ".srt", ".vtt", ".txt", ".jsonl") or path.name in ("expect.json", "index.jsonl"):
            continue
        try:
            transcript = degen.read(path)
        except degen.FormatError:  # the fixtures hold unreadable files on purpose
            continue
        for seg in transcript:
            seconds = seg.span.end - seg.span.start if seg.span is not None else None
            rows.append((seg.text, seconds if seconds is not None and 0 < seconds < 1e7 else None))
    return rows


def test_every_fixture_segment_as_an_utterance_is_judged_as_alone():
    rows = _fixture_utterances()
    assert len(rows) > BATCH  # more than one batch, the last one partial
    assert sum(judge(t, d).degenerate for t, d in rows[:200]) > 0  # loops among them, not only clean text
    assert_same_as_alone([t for t, _ in rows], [d for _, d in rows])


@pytest.mark.parametrize("seconds", [None, 3.0])
def test_a_loop_next_to_the_same_words_is_still_each_utterances_own(seconds):
    # A run that goes on across utterances is no loop of either; a loop inside one is.
    texts = ["okay okay okay", "okay " * 30, "okay okay", "okay", "we will go"]
    assert_same_as_alone(texts, [seconds] * len(texts))


def test_a_manifest_scan_gives_each_line_the_findings_it_has_alone(tmp_path):
    # `degen scan manifest.jsonl` and `degen filter` must agree line by line: once, every
    # utterance after another seemed to "overlap" it (each starts at 0 s on its own clip),
    # and neighbouring lines too dense for their time made one finding together.
    import dataclasses

    import orjson
    rows = [r for r in _fixture_utterances() if r[1] is not None][:600]
    rows[5:8] = [("Thank you.", 2.0), ("Thank you for watching!", 3.0), ("we will look at it again", 2.5)]
    rows[10:12] = [("and then we will see about the rest of it after the meeting is over today with everyone", 1.0),
                   ("we talked about the numbers and the plan for the release next week with the whole team", 1.2)]
    path = tmp_path / "m.jsonl"
    path.write_bytes(b"".join(orjson.dumps({"audio_filepath": f"{k}.wav", "duration": d, "text": t}) + b"\n"
                              for k, (t, d) in enumerate(rows)))
    scanned = degen.scan(path)
    assert scanned.format == "manifest"
    per_line: dict[int, list] = {}
    for f in scanned.findings:
        assert f.segments[0] == f.segments[1], f  # never a run of neighbouring lines
        per_line.setdefault(f.segments[0], []).append(dataclasses.replace(f, segments=(0, 0)))
    for k, (text, seconds) in enumerate(rows):
        assert sorted(per_line.get(k, []), key=repr) == sorted(judge(text, seconds).findings, key=repr), k
    assert not judge("Thank you.", 2.0).findings and 5 not in per_line
    assert len(per_line) >= 10  # flagged lines among them, timing ones included
    assert [f.kind for f in per_line[10] + per_line[11]] == ["rate", "rate"]  # too dense, each alone


def test_a_batch_skips_only_the_compression_ratio():
    from degen.detect import analyze
    transcript = degen.read(FIXTURES / "seed" / "degenerate.json")
    full, lean = analyze(transcript), analyze(transcript, ratios=False)
    assert lean.findings == full.findings and lean.max_repetition == full.max_repetition
    assert full.max_compression_ratio > 2.4 and (lean.max_compression_ratio, lean.segments_over_compression) == (0.0, 0)
