"""The voice activity detectors measure voiced seconds the judge weighs answers against."""

import numpy as np
import pytest

from degen.repair.vad import EnergyVad, SileroVad, make_vad, silero_available
from degen.errors import ConfigError

RATE = 16000


def bursts(pattern, rate=RATE, level=8000, room=30, seed=0):
    """Voiced (True) and silent (False) stretches of (seconds, voiced): a harmonic buzz
    with syllable-rate dips over faint room tone."""
    rng = np.random.default_rng(seed)
    parts = []
    for seconds, voiced in pattern:
        n = int(seconds * rate)
        t = np.arange(n) / rate
        x = rng.normal(0, room, n)
        if voiced:
            envelope = 0.6 + 0.4 * np.sin(2 * np.pi * 4 * t) ** 2  # syllables, never silent
            x += level * envelope * (np.sin(2 * np.pi * 140 * t) + 0.5 * np.sin(2 * np.pi * 280 * t)) / 1.5
        parts.append(x)
    return np.clip(np.concatenate(parts), -32768, 32767).astype(np.int16)


@pytest.mark.parametrize("pattern, voiced", [
    ([(2.0, False)], 0.0),
    ([(1.0, False), (3.0, True), (1.0, False)], 3.0),
    ([(0.5, True), (2.0, False), (1.5, True), (2.0, False)], 2.0),
])
def test_energy_vad_measures_voiced_seconds(pattern, voiced):
    vad = EnergyVad()
    measured = vad.voiced_seconds(bursts(pattern), RATE)
    runs = sum(1 for _, v in pattern if v)
    # The hangover holds each voiced stretch on a little past its end, by design.
    assert voiced - 0.1 <= measured <= voiced + runs * vad.hangover + 0.1


def test_all_speech_and_steady_noise_are_not_silent_against_themselves():
    speech = bursts([(4.0, True)])
    noise = np.random.default_rng(1).integers(-4000, 4000, 4 * 8000).astype(np.int16)
    assert EnergyVad().voiced_seconds(speech, RATE) > 3.5
    assert EnergyVad().voiced_seconds(noise, 8000) > 3.5


def test_digital_silence_and_empty_input():
    assert EnergyVad().voiced_seconds(np.zeros(RATE, dtype=np.int16), RATE) == 0.0
    assert EnergyVad().voiced_seconds(np.zeros(0, dtype=np.int16), RATE) == 0.0


def test_the_floor_adapts_to_louder_room_tone():
    # Louder room tone (-40 dBFS) under the same speech: still only the speech is voiced.
    samples = bursts([(2.0, False), (2.0, True), (2.0, False)], room=300)
    assert EnergyVad().voiced_seconds(samples, RATE) == pytest.approx(2.0, abs=0.4)


def test_make_vad_names():
    assert isinstance(make_vad(), EnergyVad)
    with pytest.raises(ConfigError):
        make_vad("webrtc")


@pytest.mark.skipif(not silero_available(), reason="faster-whisper (the asr extra) is not installed")
def test_silero_has_the_same_interface():
    vad = make_vad("silero")
    assert isinstance(vad, SileroVad)
    assert vad.voiced_seconds(np.zeros(RATE * 2, dtype=np.int16), RATE) == 0.0


SPOKEN = sorted((__import__("pathlib").Path(__file__).resolve().parents[2] / "fixtures" / "audio").glob("*.wav"))


@pytest.mark.parametrize("path", SPOKEN, ids=lambda p: p.name)
def test_energy_vad_on_real_speech(path):
    import soundfile as sf
    samples, rate = sf.read(str(path), dtype="int16")
    seconds = samples.size / rate
    voiced = EnergyVad().voiced_seconds(samples, rate)
    assert 0.3 * seconds < voiced <= seconds
    if path.name == "composite.wav":  # sentences with 3 s silences between them
        assert voiced < 0.7 * seconds
    if silero_available():  # the two detectors agree on speech
        assert voiced == pytest.approx(SileroVad().voiced_seconds(samples, rate), rel=0.1, abs=0.5)


def test_spoken_fixtures_are_there():
    assert len(SPOKEN) >= 3
