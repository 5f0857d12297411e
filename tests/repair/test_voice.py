"""Spans sized from the voiced audio, not from the looping segment's own stamps; voiced
audio no segment covers is a finding of its own."""

import numpy as np
import pytest

import degen
from degen.detect.finding import Finding
from degen.model import Segment, Span, Transcript
from degen.repair.audio import Audio, encode
from degen.repair.plan import make_plan
from degen.repair.vad import make_vad
from degen.repair.voice import untranscribed, voice_of

RATE = 16000


def speech(seconds: float, seed: int) -> np.ndarray:
    """Syllable-like bursts: voiced for the VAD, with short dips between them."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * RATE)) / RATE
    tone = np.sin(2 * np.pi * 160 * t) + 0.5 * np.sin(2 * np.pi * 480 * t)
    envelope = 0.55 + 0.45 * np.sin(2 * np.pi * 4 * t)  # four syllables a second
    return tone * envelope * 0.3 + rng.normal(0, 0.002, t.size)


def silence(seconds: float) -> np.ndarray:
    return np.random.default_rng(9).normal(0, 0.0005, int(seconds * RATE))


@pytest.fixture
def recording(tmp_path):
    """speech 1-4 s, a pause 4-6 s, speech 6-12 s, a little silence to 13 s."""
    samples = np.concatenate([silence(1.0), speech(3.0, 1), silence(2.0), speech(6.0, 2), silence(1.0)])
    path = tmp_path / "talk.wav"
    path.write_bytes(encode((samples * 32767).astype(np.int16), RATE))
    return Audio.open(path)


def test_the_file_s_voiced_audio(recording):
    voice = voice_of(recording, make_vad())
    assert voice.informative
    assert voice.seconds(Span(0, 1)) < 0.3 and voice.seconds(Span(1, 4)) > 2.5
    assert voice.seconds(Span(4.3, 5.8)) < 0.3 and 11.5 < voice.speech_end() < 12.6
    assert voice.confirms(Span(1.2, 3.8)) and not voice.confirms(Span(4.5, 5.5))


def test_a_loop_stamped_in_a_pause_reaches_to_the_end_of_the_speech(recording):
    """The loop that ate the speech after the pause is stamped inside the pause (its own
    times cover no voiced audio); no segment follows it: the span runs from the clean
    neighbour the audio confirms to the end of the speech."""
    transcript = Transcript((Segment(Span(1.0, 4.0), "S01", "We start with the budget."),
                             Segment(Span(4.5, 5.5), "S01", "好的" * 100)), "moss")
    loop = Finding("char_loop", "high", Span(4.5, 5.5), (1, 1), unit="好的", count=100)
    voice = voice_of(recording, make_vad())
    plan = make_plan(transcript, [loop], recording.duration, voice=voice)
    (rs,) = plan.spans
    assert rs.segments == (1, 1)
    assert rs.core.start <= 4.5 and rs.core.end >= 11.9  # the speech after the pause is inside
    blind = make_plan(transcript, [loop], recording.duration)  # the loop's own stamps
    assert blind.spans[0].core == Span(4.5, 5.5)


def test_an_unconfirmed_neighbour_is_replaced_with_the_loop(recording):
    """A clean segment stamped over silence is no anchor: the span reaches past it to the
    one the audio confirms."""
    transcript = Transcript((Segment(Span(1.0, 4.0), "S01", "We start with the budget."),
                             Segment(Span(4.2, 5.8), "S01", "Thank you for watching."),
                             Segment(Span(6.0, 8.0), "S01", "no " * 60),
                             Segment(Span(8.1, 12.0), "S01", "And then the release.")), "moss")
    loop = Finding("phrase_loop", "high", Span(6.0, 8.0), (2, 2), unit="no", count=60)
    plan = make_plan(transcript, [loop], recording.duration, voice=voice_of(recording, make_vad()))
    assert plan.spans[0].segments == (1, 2)


def test_voiced_audio_no_segment_covers_is_found(recording):
    transcript = Transcript((Segment(Span(1.0, 4.0), "S01", "We start with the budget."),), "moss")
    (found,) = untranscribed(transcript, voice_of(recording, make_vad()))
    assert found.kind == "untranscribed" and found.severity == "medium"
    assert 5.5 <= found.span.start <= 6.5 and found.span.end >= 11.5
    covered = Transcript(transcript.segments + (Segment(Span(6.0, 12.0), "S01", "And then the release."),), "moss")
    assert untranscribed(covered, voice_of(recording, make_vad())) == []


def test_scan_with_audio_reports_untranscribed_speech(recording, tmp_path):
    path = tmp_path / "short.json"
    path.write_text('{"text": "[1.00][S01]We start with the budget.[4.00]"}')
    report = degen.scan(path, audio=recording.path)
    assert [f.kind for f in report.findings] == ["untranscribed"] and report.degenerate
    assert not degen.scan(path).findings  # without the audio nothing says speech is missing


def test_steady_sound_throughout_confirms_every_time(tmp_path):
    noise = np.random.default_rng(3).integers(-4000, 4000, RATE * 6).astype(np.int16)
    path = tmp_path / "noise.wav"
    path.write_bytes(encode(noise, RATE))
    voice = voice_of(Audio.open(path), make_vad())
    assert not voice.informative and voice.confirms(Span(1, 2))
    assert untranscribed(Transcript((Segment(Span(0, 1), None, "hi"),)), voice) == []


class _Silent:
    """A server that answers every clip with nothing (what a decoder said for the pause
    the loop's stamps point at)."""

    def __init__(self):
        self.clips = []

    def transcribe(self, request):
        from types import SimpleNamespace
        from degen.repair.audio import decode
        samples, rate = decode(request.audio)
        self.clips.append(samples.size / rate)
        return SimpleNamespace(text="", response_format="json", requests_sent=1)


def test_an_empty_answer_for_the_speech_a_loop_ate_is_never_a_repair(recording, tmp_path):
    """Issue 20's 好的 x19: the looping last segment is stamped in the pause before the
    speech; judged on its own stamps (no voiced audio) an empty answer looked right and
    the speech was deleted with exit 0. Sized from the audio, the empty answer is a
    deletion and the span stays unresolved with its text."""
    path = tmp_path / "loop.json"
    path.write_text('{"text": "[1.00][S01]We start with the budget.[4.00][4.50][S01]' + "好的" * 100 + '[5.50]"}')
    server = _Silent()
    result = degen.fix(path, audio=recording.path, transcriber=server, concurrency=1)
    (outcome,) = result.outcomes
    assert outcome.status == "unresolved" and result.unresolved
    assert all(a.verdict.loses_text for a in outcome.attempts if a.verdict)  # empty: a deletion, never clean
    assert [s.text for s in result.transcript] == [s.text for s in degen.read(path)]  # nothing lost
    assert outcome.rs.core.end > 11.5 and sum(server.clips) > 7.0  # the requests held the speech after the pause
