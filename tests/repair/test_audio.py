"""Audio: every common container read by sample index, mixed down to mono, refused clearly."""

import numpy as np
import pytest
import soundfile as sf

from degen.errors import AudioError
from degen.model import Span
from degen.repair.audio import Audio, decode


@pytest.mark.parametrize("fmt, ext, exact", [("WAV", "wav", True), ("FLAC", "flac", True),
                                             ("OGG", "ogg", False), ("MP3", "mp3", False)])
def test_containers_and_mixdown(tmp_path, fmt, ext, exact):
    rate = 16000
    t = np.arange(rate * 3) / rate
    left, right = 0.3 * np.sin(2 * np.pi * 440 * t), 0.1 * np.sin(2 * np.pi * 220 * t)
    path = tmp_path / f"a.{ext}"
    sf.write(path, np.stack([left, right], axis=1), rate, format=fmt)
    audio = Audio.open(path)
    assert audio.channels == 2 and abs(audio.duration - 3.0) < 0.1
    clip = audio.read(Span(1.0, 2.0))
    assert abs(clip.size - rate) <= (0 if exact else rate // 10)
    samples, clip_rate = decode(audio.clip(Span(1.0, 2.0)))
    assert clip_rate == rate and samples.ndim == 1  # sent as mono
    if exact:
        mono = np.round(((left + right) / 2 * 32767)[rate:2 * rate])
        assert np.abs(samples.astype(float) - mono).max() <= 2


def test_missing_and_unreadable(tmp_path):
    with pytest.raises(AudioError, match="no such audio file"):
        Audio.open(tmp_path / "nope.wav")
    bad = tmp_path / "bad.wav"
    bad.write_bytes(b"not audio at all")
    with pytest.raises(AudioError, match="cannot read audio"):
        Audio.open(bad)
