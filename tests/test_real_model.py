"""End to end on a real speech model (Whisper tiny.en via faster-whisper, on the CPU)
behind the test server: real loops are found at the right time and repaired; clean
audio is left alone. Loop versus no loop is asserted, never exact strings."""

import pytest

import degen
from degen.model import Span
from degen.repair.audio import Audio
from degen.repair.client import HttpTranscriber, Request
from degen.testing import TestServer

from .conftest import FIXTURES

pytest.importorskip("faster_whisper", reason="the real-model tests need the asr extra: pip install -e '.[asr]'")
from degen.testing.whisper import WhisperDecoder  # noqa: E402

AUDIO = FIXTURES / "audio"


@pytest.fixture(scope="module")
def whisper_server():
    with TestServer(WhisperDecoder(seed=0)) as server:
        yield server


def transcribe_whole(server, name, tmp_path):
    """What a user would have saved: the file decoded greedily in one request."""
    audio = Audio.open(AUDIO / f"{name}.wav")
    reply = HttpTranscriber(server.url).transcribe(Request(audio.clip(Span(0, audio.duration)), 0.0, 4096))
    path = tmp_path / f"{name}.json"
    path.write_text(reply.text, encoding="utf-8")
    return path


def loops(report):
    return [f for f in report.flagged if f.is_loop]


def test_composite_loop_is_found_where_it_starts_and_repaired(whisper_server, tmp_path):
    saved = transcribe_whole(whisper_server, "composite", tmp_path)
    found = loops(degen.scan(saved))
    assert found, "greedy decoding of the composite file should loop"
    # "okay" x10 is spoken at about 15.6 s; the loop runs from there to the end.
    assert any(f.span.start <= 17.0 and f.span.end >= 50.0 for f in found)
    result = degen.fix(saved, audio=AUDIO / "composite.wav", transcriber=whisper_server.url)
    assert not loops(result.after)
    assert result.seconds_decoded < 3 * result.audio_seconds
    # The sentences the loop swallowed come back (at least some of them).
    text = " ".join(s.text for s in result.transcript).lower()
    assert sum(word in text for word in ("server", "latency", "design", "customers", "engineer", "release")) >= 3


@pytest.mark.parametrize("name", ["no_x15", "okay_x10"])
def test_short_loops_are_repaired(whisper_server, tmp_path, name):
    saved = transcribe_whole(whisper_server, name, tmp_path)
    assert loops(degen.scan(saved))
    result = degen.fix(saved, audio=AUDIO / f"{name}.wav", transcriber=whisper_server.url)
    assert not loops(result.after)


@pytest.mark.parametrize("name", ["clean_a", "clean_b"])
def test_clean_audio_is_left_alone_and_nothing_is_sent(whisper_server, tmp_path, name):
    saved = transcribe_whole(whisper_server, name, tmp_path)
    assert not degen.scan(saved).degenerate
    before = whisper_server.stats.transcriptions
    result = degen.fix(saved, audio=AUDIO / f"{name}.wav", transcriber=whisper_server.url)
    assert whisper_server.stats.transcriptions == before and not result.edits
    assert result.transcript.segments == degen.read(saved).segments
