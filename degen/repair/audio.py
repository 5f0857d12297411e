"""Audio: read a span by sample index (no resampling), as mono, encoded in memory.

soundfile (libsndfile) reads WAV, FLAC, OGG/Vorbis/Opus and MP3 and seeks by frame, so
a 30 s span of a 3-hour file costs 30 s of decoding, not 3 hours.
"""

from __future__ import annotations

import io
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import soundfile as sf

from ..errors import AudioError
from ..model import Span

# A transcript may end a little after the audio (MOSS clamps times to duration + 5 s).
END_TOLERANCE = 5.0


@dataclass(frozen=True)
class Audio:
    """An audio file opened for span reads.

    Attributes:
        path: the file.
        sample_rate: frames per second.
        frames: total frames.
        channels: channels in the file (spans are mixed down to mono).
    """

    path: Path
    sample_rate: int
    frames: int
    channels: int

    @property
    def duration(self) -> float:
        return self.frames / self.sample_rate

    @classmethod
    def open(cls, path: str | os.PathLike) -> "Audio":
        path = Path(path)
        if not path.is_file():
            raise AudioError(f"{path}: no such audio file; pass the audio the transcript was made from with --audio")
        try:
            info = sf.info(str(path))
        except (sf.LibsndfileError, RuntimeError, OSError) as exc:
            raise AudioError(f"{path}: cannot read audio ({exc}); use WAV, FLAC, OGG or MP3") from None
        if info.frames <= 0 or info.samplerate <= 0:
            raise AudioError(f"{path}: the audio is empty")
        return cls(path, int(info.samplerate), int(info.frames), int(info.channels))

    def check_covers(self, transcript_end: float | None) -> None:
        """Refuse audio that ends well before the transcript does: it is the wrong file."""
        if transcript_end is not None and transcript_end > self.duration + END_TOLERANCE:
            raise AudioError(f"{self.path}: audio is {self.duration:.1f}s but the transcript runs to "
                             f"{transcript_end:.1f}s; is this the audio the transcript was made from?")

    def frame(self, seconds: float) -> int:
        return int(round(min(max(seconds, 0.0), self.duration) * self.sample_rate))

    def read(self, span: Span) -> np.ndarray:
        """Mono int16 samples of ``span`` (clamped to the file)."""
        start, stop = self.frame(span.start), self.frame(span.end)
        try:
            data = sf.read(str(self.path), start=start, stop=max(stop, start), dtype="int16", always_2d=True)[0]
        except (sf.LibsndfileError, RuntimeError, OSError) as exc:
            raise AudioError(f"{self.path}: cannot read {span.start:.2f}-{span.end:.2f}s ({exc})") from None
        if data.shape[1] == 1:
            return data[:, 0]
        # Mix down: the server transcribes mono.
        return np.round(data.astype(np.float32).mean(axis=1)).astype(np.int16)

    def clip(self, span: Span, fmt: str = "WAV") -> bytes:
        """``span`` encoded in memory as WAV PCM16 (or FLAC), ready to upload."""
        return encode(self.read(span), self.sample_rate, fmt)


def encode(samples: np.ndarray, sample_rate: int, fmt: str = "WAV") -> bytes:
    buffer = io.BytesIO()
    sf.write(buffer, samples, sample_rate, format=fmt, subtype="PCM_16")
    return buffer.getvalue()


def decode(data: bytes) -> tuple[np.ndarray, int]:
    """Mono int16 samples and the rate of an uploaded file (used by the test server)."""
    try:
        samples, rate = sf.read(io.BytesIO(data), dtype="int16", always_2d=True)
    except (sf.LibsndfileError, RuntimeError, OSError) as exc:
        raise AudioError(f"cannot decode uploaded audio ({exc})") from None
    mono = samples[:, 0] if samples.shape[1] == 1 else np.round(samples.mean(axis=1)).astype(np.int16)
    return mono, int(rate)
