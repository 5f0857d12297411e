"""Voice activity: how many seconds of a clip hold sound that could be speech.

The repair judge weighs every answer against this (a thin answer for a voiced clip is a
deletion; more text than the voiced time can hold is a loop), so the default detector
is a small numpy one with no dependency: frame energy against an adaptive noise floor,
with a hangover that bridges the short dips between syllables. faster-whisper's Silero
VAD is used only when asked for (``make_vad("silero")``), so results never depend on an
optional extra being installed.

    level (dBFS)   ▁▁▂▁▅▇▆▇▅▁▂▁▁▆▇▇▆▁▁▁
    floor          ───────────────────   follows quiet frames down at once, rises slowly
    voiced         ....#####...#####..   above floor + margin (and above digital silence),
                                         each voiced frame holding the next `hangover` on
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np


class Vad(Protocol):
    """Anything that finds the voiced stretches of mono samples."""

    def voiced_spans(self, samples: np.ndarray, rate: int) -> list[tuple[float, float]]:
        """(start, end) seconds from the first sample, in order."""
        ...

    def voiced_seconds(self, samples: np.ndarray, rate: int) -> float: ...


@dataclass(frozen=True)
class EnergyVad:
    """Frame energy against an adaptive noise floor.

    Attributes:
        frame: seconds per frame (30 ms: a syllable spans several).
        margin_db: how far above the noise floor a frame must be (speech peaks sit 15 to
            30 dB over room tone; 9 dB keeps soft syllables without counting hum).
        A clip whose loud and quiet frames (90th and 10th percentiles) differ by
            less than the margin has no floor to stand out from (all speech, or all
            steady sound): it is voiced throughout when its median is above
            ``steady_db``, else silent.
        steady_db: typical speech sits at -30 to -15 dBFS; room tone well below -35.
        silence_db: frames below this are never voiced (dither, digital silence).
        rise_db_per_second: how fast the floor may creep up through sustained sound.
        hangover: seconds a voiced frame holds the ones after it (gaps inside words).
    """

    frame: float = 0.03
    margin_db: float = 9.0
    steady_db: float = -35.0
    silence_db: float = -60.0
    rise_db_per_second: float = 3.0
    hangover: float = 0.2

    def levels(self, samples: np.ndarray, rate: int) -> np.ndarray:
        """Frame levels in dBFS."""
        n = max(1, int(round(self.frame * rate)))
        frames = samples.size // n
        if frames == 0:
            return np.zeros(0)
        x = samples[: frames * n].astype(np.float64).reshape(frames, n) / 32768.0
        return 10.0 * np.log10(np.mean(x * x, axis=1) + 1e-12)

    def voiced(self, samples: np.ndarray, rate: int) -> np.ndarray:
        """One bool per frame."""
        return self.voiced_levels(self.levels(samples, rate))

    def voiced_levels(self, level: np.ndarray) -> np.ndarray:
        """One bool per frame of ``level`` (dBFS per frame, as ``levels`` gives)."""
        if level.size == 0:
            return np.zeros(0, dtype=bool)
        low, high = np.percentile(level, [10, 90])
        if high - low < self.margin_db:
            steady = float(np.median(level)) > self.steady_db
            return np.full(level.size, steady, dtype=bool)
        floor = np.empty_like(level)
        current, rise = float(low), self.rise_db_per_second * self.frame
        for i, value in enumerate(level):  # one float op per 30 ms: an hour is 120k steps
            current = min(value, current + rise)
            floor[i] = current
        loud = (level > floor + self.margin_db) & (level > self.silence_db)
        hold = int(round(self.hangover / self.frame))
        if hold and loud.any():
            idx = np.flatnonzero(loud)
            out = np.zeros_like(loud)
            for k in range(hold + 1):
                out[np.minimum(idx + k, loud.size - 1)] = True
            loud = out
        return loud

    def voiced_spans(self, samples: np.ndarray, rate: int) -> list[tuple[float, float]]:
        n = max(1, int(round(self.frame * rate)))
        mask = self.voiced(samples, rate).astype(np.int8)
        edges = np.flatnonzero(np.diff(np.concatenate(([0], mask, [0]))))
        return [(a * n / rate, b * n / rate) for a, b in zip(edges[::2].tolist(), edges[1::2].tolist())]

    def voiced_seconds(self, samples: np.ndarray, rate: int) -> float:
        n = max(1, int(round(self.frame * rate)))
        return float(self.voiced(samples, rate).sum()) * n / rate


@dataclass(frozen=True)
class SileroVad:
    """faster-whisper's bundled Silero model (16 kHz; other rates are resampled linearly,
    which is plenty for telling speech from silence)."""

    threshold: float = 0.5

    def voiced_seconds(self, samples: np.ndarray, rate: int) -> float:
        return sum(b - a for a, b in self.voiced_spans(samples, rate))

    def voiced_spans(self, samples: np.ndarray, rate: int) -> list[tuple[float, float]]:
        from faster_whisper.vad import VadOptions, get_speech_timestamps
        audio = samples.astype(np.float32) / 32768.0
        if rate != 16000 and audio.size:
            positions = np.arange(0, audio.size, rate / 16000.0)
            audio = np.interp(positions, np.arange(audio.size), audio).astype(np.float32)
        spans = get_speech_timestamps(audio, VadOptions(threshold=self.threshold, min_silence_duration_ms=300,
                                                        speech_pad_ms=100))
        return [(s["start"] / 16000.0, s["end"] / 16000.0) for s in spans]


def silero_available() -> bool:
    try:
        import faster_whisper.vad  # noqa: F401
    except ImportError:
        return False
    return True


def make_vad(kind: str = "energy") -> Vad:
    """``"energy"`` (the default, no dependency) or ``"silero"`` (needs faster-whisper)."""
    if kind == "energy":
        return EnergyVad()
    if kind == "silero":
        if not silero_available():
            from ..errors import ConfigError
            raise ConfigError("the silero VAD needs faster-whisper: pip install 'degen-asr[asr]', or use the energy VAD")
        return SileroVad()
    from ..errors import ConfigError
    raise ConfigError(f"unknown VAD {kind!r}: use energy or silero")
