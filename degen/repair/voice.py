"""The voiced audio of the whole file: what a span's extent and an answer's amount of text
are measured against, instead of the looping segments' own timestamps.

A looping file's least reliable numbers are the loop's own times: the segment that loops
on 好的 may be stamped in the pause before the word is said, and the speech after it may
have no segment at all. The audio says where the speech is:

    audio      ▁▅▇▆▅▁▁▁▁▅▇▆▇▅▆▇▅▆▇▅▆▇▅▁▁▅▇▆▅▁
    segments   |-A--|   |L|                      |-B-|   A, B clean and voiced; L loops,
    region          |===========================|        stamped in the pause: the region
                                                         runs from A's end to B's start

A clean neighbour counts only where the audio confirms its time (voiced sound under it);
with no confirmed neighbour after the loop, the region runs to the end of the speech.
Voiced stretches no segment covers are findings of their own (``untranscribed``).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

import numpy as np

from ..detect.finding import Finding, Kind, Severity
from ..model import Span, Transcript
from .audio import Audio
from .vad import EnergyVad, Vad

BLOCK_SECONDS = 60.0  # audio read at a time: an hour of 48 kHz stereo is never held whole


@dataclass(frozen=True)
class Voice:
    """Voiced stretches of a file, in seconds from its start, in order.

    Attributes:
        spans: (start, end) of each voiced stretch.
        duration: the file's length.
        informative: False when nearly the whole file is voiced (steady noise, music
            throughout, a synthetic session): the audio then confirms no time.
    """

    spans: tuple[tuple[float, float], ...]
    duration: float

    @property
    def informative(self) -> bool:
        return self.seconds(Span(0.0, self.duration)) < INFORMATIVE_SHARE * self.duration

    def seconds(self, span: Span) -> float:
        """Voiced seconds inside ``span``."""
        return sum(b - a for a, b in self.within(span))

    def within(self, span: Span) -> list[tuple[float, float]]:
        """The voiced stretches inside ``span``, clipped to it."""
        k = max(0, bisect.bisect_right(self.spans, span.start, key=lambda s: s[0]) - 1)
        out = []
        for a, b in self.spans[k:]:
            if a >= span.end:
                break
            lo, hi = max(a, span.start), min(b, span.end)
            if hi > lo:
                out.append((lo, hi))
        return out

    def speech_end(self) -> float:
        """Where the last voiced stretch ends (0 when nothing is voiced)."""
        return self.spans[-1][1] if self.spans else 0.0

    def confirms(self, span: Span) -> bool:
        """Whether the audio vouches for a segment stamped at ``span``: voiced sound under
        a good part of it (a word or more). Uninformative audio confirms every time."""
        if not self.informative:
            return True
        voiced = self.seconds(span)
        return voiced >= min(CONFIRM_SECONDS, CONFIRM_SHARE * span.duration) and voiced > 0


# Audio voiced over more than this share of its length tells speech from silence nowhere.
INFORMATIVE_SHARE = 0.95
# A segment's time is confirmed by this much voiced sound under it, or this share of it
# (a short "yes" of 0.3 s needs 0.15 s): a segment over silence has next to none.
CONFIRM_SECONDS = 0.5
CONFIRM_SHARE = 0.5


def voice_of(audio: Audio, vad: Vad) -> Voice:
    """The voiced stretches of the whole of ``audio``, read a block at a time. The energy
    detector's noise floor follows the whole file (one floor for all of it, so a clip
    that is all speech is not judged against itself)."""
    if isinstance(vad, EnergyVad):
        return Voice(tuple(_energy_spans(audio, vad)), audio.duration)
    spans, t = [], 0.0
    while t < audio.duration:
        block = Span(t, min(audio.duration, t + BLOCK_SECONDS))
        spans += [(t + a, t + b) for a, b in vad.voiced_spans(audio.read(block), audio.sample_rate)]
        t = block.end
    return Voice(tuple(_joined(spans)), audio.duration)


def _energy_spans(audio: Audio, vad: EnergyVad) -> list[tuple[float, float]]:
    n = max(1, int(round(vad.frame * audio.sample_rate)))
    block_frames = max(1, int(BLOCK_SECONDS * audio.sample_rate) // n)
    levels, t = [], 0
    while t < audio.frames:
        stop = min(audio.frames, t + block_frames * n)
        levels.append(vad.levels(audio.read(Span(t / audio.sample_rate, stop / audio.sample_rate)),
                                 audio.sample_rate))
        t = stop
    mask = vad.voiced_levels(np.concatenate(levels) if levels else np.zeros(0))
    edges = np.flatnonzero(np.diff(np.concatenate(([0], mask.astype(np.int8), [0]))))
    seconds = n / audio.sample_rate
    return [(a * seconds, b * seconds) for a, b in zip(edges[::2].tolist(), edges[1::2].tolist())]


def _joined(spans: list[tuple[float, float]]) -> list[tuple[float, float]]:
    out: list[tuple[float, float]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def untranscribed(transcript: Transcript, voice: Voice, least: float = 3.0, slack: float = 1.0) -> list[Finding]:
    """Voiced audio no segment covers: each gap between the segments' times (and before
    the first, after the last) that holds ``least`` seconds of voiced sound or more, its
    edges widened by ``slack`` for stamps that drift. Nothing where the audio is voiced
    throughout (it tells speech from silence nowhere)."""
    if not voice.informative or not transcript.timed:
        return []
    covered = [(s.span.start - slack, s.span.end + slack) for s in transcript if s.span is not None]
    out, cursor, before = [], 0.0, -1
    for index, (a, b) in sorted(enumerate(covered), key=lambda item: item[1]) + [(len(covered), (voice.duration,) * 2)]:
        if a > cursor:
            found = _gap_finding(Span(cursor, a), voice, least, before, len(covered))
            if found is not None:
                out.append(found)
        if b > cursor:
            cursor, before = b, index
    return out


def _gap_finding(gap: Span, voice: Voice, least: float, before: int, segments: int) -> Finding | None:
    voiced = voice.within(gap)
    seconds = sum(b - a for a, b in voiced)
    if seconds < least:
        return None
    at = min(max(before, 0), max(segments - 1, 0))
    return Finding(kind=Kind.UNTRANSCRIBED, severity=Severity.MEDIUM, span=Span(voiced[0][0], voiced[-1][1]),
                   segments=(at, at), count=None, excerpt="", evidence=(f"{seconds:.1f}s voiced, no segment",),
                   stream="timing", score=seconds / least)
