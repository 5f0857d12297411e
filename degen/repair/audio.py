"""Audio: read a span by sample index (no resampling), as mono, encoded in memory.

soundfile (libsndfile) reads WAV, FLAC, OGG/Vorbis/Opus and MP3 and seeks by frame, so
a 30 s span of a 3-hour file costs 30 s of decoding, not 3 hours.
"""

from __future__ import annotations

import io
import os
import stat
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import soundfile as sf

from ..errors import AudioError
from ..model import Span

# A transcript may end a little after the audio (MOSS clamps times to duration + 5 s).
END_TOLERANCE = 5.0
# What libsndfile and the OS raise for a file they cannot read; translated once, below.
_READ_ERRORS = (sf.LibsndfileError, RuntimeError, OSError)


@contextmanager
def audio_errors(what: str, hint: str = ""):
    """Turn soundfile and OS errors met inside into one ``AudioError`` line:
    ``WHAT: cannot read audio (REASON)[; HINT]``."""
    try:
        yield
    except _READ_ERRORS as exc:
        reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        raise AudioError(f"{what}: cannot read audio ({reason}){'; ' + hint if hint else ''}") from None


def _check_regular(path: Path) -> None:
    """A FIFO would block and a device never ends: refuse both before opening."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        mode = None
    if mode is None:
        raise AudioError(f"{path}: no such audio file; pass the audio the transcript was made from")
    if not stat.S_ISREG(mode):
        raise AudioError(f"{path}: is not a regular file (a FIFO, device or directory); pass an audio file")


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
        _check_regular(path)
        with audio_errors(str(path), "use WAV, FLAC, OGG or MP3"):
            info = sf.info(str(path))
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
        with audio_errors(f"{self.path} at {span.start:.2f}-{span.end:.2f}s"):
            data = sf.read(str(self.path), start=start, stop=max(stop, start), dtype="int16", always_2d=True)[0]
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
    with audio_errors("uploaded file"):
        samples, rate = sf.read(io.BytesIO(data), dtype="int16", always_2d=True)
    mono = samples[:, 0] if samples.shape[1] == 1 else np.round(samples.mean(axis=1)).astype(np.int16)
    return mono, int(rate)
