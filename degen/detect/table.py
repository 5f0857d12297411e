"""Per-segment facts as arrays, built once per transcript and shared by the detectors:
times, closure, speech units (for rates) and speakers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..model import Transcript
from .config import DetectConfig
from .script import cjk_mask, is_cjk
from .tokens import Streams

DERIVED_END_FORMATS = frozenset({"lrc"})  # formats whose ends are the next start



def _count_per_text(mask: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """How many tokens of each text ``mask`` marks (``bounds``: each text's first token,
    and the end), one sum per text in one pass rather than a search per marked token."""
    padded = np.concatenate((mask.view(np.uint8), [0]))  # every text, even an empty last one, starts inside
    sums = np.add.reduceat(padded, bounds[:-1], dtype=np.int64)
    return np.where(np.diff(bounds) > 0, sums, 0)  # reduceat gives an empty text the next token, not 0


def unit_counts(streams: Streams) -> tuple[np.ndarray, np.ndarray]:
    """(speech units, whether CJK) of each segment: words, plus CJK characters in a
    segment whose text is CJK. A segment's counts depend on its own text only."""
    cjk_count = _count_per_text(cjk_mask(streams.char_codes), streams.chars.bounds)
    word_count = np.diff(streams.words.bounds)
    cjk = is_cjk(cjk_count, word_count) & (cjk_count > 0)
    return np.where(cjk, cjk_count + word_count, word_count), cjk


@dataclass(frozen=True)
class SegmentTable:
    start: np.ndarray
    end: np.ndarray
    closed: np.ndarray
    units: np.ndarray
    cjk: np.ndarray
    speakers: Sequence[str | None]
    timed: bool
    # False where the format writes only start times (LRC): each end is the next line's
    # start, so durations say nothing about the decoder and no shape evidence is read.
    measured: bool = True

    @classmethod
    def empty(cls, transcript: Transcript) -> "SegmentTable":
        """The table of ``transcript`` with its speech units still to ``fill``."""
        cols = transcript.columns()
        n = len(cols.texts)
        # The columns' speaker list itself, read only: a tuple copy is 8 bytes a segment more.
        # Speech units as int32 (a segment has far fewer than 2**31): 4 bytes a segment less.
        return cls(cols.starts, cols.ends, cols.closed, np.zeros(n, dtype=np.int32), np.zeros(n, dtype=bool),
                   cols.speakers, cols.timed, transcript.format not in DERIVED_END_FORMATS)

    def fill(self, first: int, streams: Streams) -> None:
        """Speech units of segments ``first``.. from their streams (a window's)."""
        units, cjk = unit_counts(streams)
        self.units[first:first + units.size] = units
        self.cjk[first:first + cjk.size] = cjk

    def __len__(self) -> int:
        return len(self.speakers)

    def rate_limit(self, first: int, last: int, config: DetectConfig) -> float:
        cjk_share = self.cjk[first:last + 1].mean() if last >= first else 0.0
        return config.max_cjk_rate if cjk_share >= 0.5 else config.max_word_rate

    def rate(self, first: int, last: int, config: DetectConfig, members=None) -> float | None:
        """Speech units per second over segments first..last (only ``members`` of them,
        for one speaker's stream), or None without a verdict."""
        if not self.timed or not self.closed[last]:
            return None  # an unclosed segment has no end time
        units = int(self.units[first:last + 1].sum() if members is None else self.units[members].sum())
        if units < config.rate_min_units:
            return None
        seconds = max(float(self.end[last] - self.start[first]), config.rate_min_seconds)
        return units / seconds

    def evidence(self, first: int, last: int, config: DetectConfig, members=None,
                 uniform_min: int | None = None) -> tuple[str, ...]:
        """Timing signals, independent of any repeat count, that text in first..last is
        not real speech (``members``: the segments of one speaker's stream in that range;
        ``uniform_min``: how many equal durations in a row count, default
        ``config.uniform_duration_run``)."""
        if 0 <= last - first < SMALL_RANGE:
            return self._small_evidence(first, last, config, uniform_min or config.uniform_duration_run, members)
        found = []
        rate = self.rate(first, last, config, members)
        if rate is not None and rate > self.rate_limit(first, last, config):
            found.append("dense")
        if not self.closed[first:last + 1].all():
            found.append("unclosed")
        if self.timed and self.measured:
            found += self._shape(first, last, config, uniform_min or config.uniform_duration_run)
        return tuple(found)

    def _shape(self, first: int, last: int, config: DetectConfig, uniform_min: int) -> list[str]:
        """Machine-made durations: zero, all equal, whole 30 s decoding windows, or
        far too long for the text they carry (a model filling silence or music)."""
        found = []
        closed = self.closed[first:last + 1]
        durations = self.end[first:last + 1] - self.start[first:last + 1]  # not the whole column per call
        if last > first and (durations[closed] <= 0).any():
            found.append("zero_length")
        if (last - first + 1 >= uniform_min and durations.min() > 0
                and durations.max() - durations.min() <= config.uniform_tolerance):
            found.append("uniform")
        if last > first and closed.all() and (np.abs(durations - config.window_seconds) <= config.uniform_tolerance).all():
            found.append("window")
        seconds = float(durations[closed & (durations > 0)].sum())
        units = int(self.units[first:last + 1].sum())
        if units and seconds >= config.slow_min_seconds and units / seconds < config.slow_rate:
            found.append("slow")
        return found

    def _small_evidence(self, first: int, last: int, config: DetectConfig, uniform_min: int,
                        members=None) -> tuple[str, ...]:
        """``evidence`` for a few segments (most loops lie in one; ``members``: one
        speaker's among them, whose units the rate counts), in plain Python over their
        values: a dozen numpy calls cost more than the arithmetic. Sums of fewer than
        eight floats add in order in numpy too, so the figures are equal."""
        stop = last + 1
        closed, units = self.closed[first:stop].tolist(), self.units[first:stop].tolist()
        start, end = self.start[first:stop].tolist(), self.end[first:stop].tolist()
        found = []
        spoken = sum(units) if members is None else sum(self.units[members].tolist())  # the rate's units
        if self.timed and closed[-1] and spoken >= config.rate_min_units:
            cjk = self.cjk[first:stop].tolist()
            limit = config.max_cjk_rate if sum(cjk) / len(cjk) >= 0.5 else config.max_word_rate
            if spoken / max(end[-1] - start[0], config.rate_min_seconds) > limit:
                found.append("dense")
        if not all(closed):
            found.append("unclosed")
        if self.timed and self.measured:
            durations = [b - a for a, b in zip(start, end)]
            found += _small_shape(durations, closed, sum(units), config, uniform_min)
        return tuple(found)

    def speaker_of(self, first: int, last: int) -> str | None:
        names = sorted({s for s in self.speakers[first:last + 1] if s is not None})
        return "+".join(names) if names else None


SMALL_RANGE = 7  # segments below which ``evidence`` reads plain values (numpy sums 8 or more pairwise)


def _small_shape(durations: list[float], closed: list[bool], units: int, config: DetectConfig,
                 uniform_min: int) -> list[str]:
    """``SegmentTable._shape`` over plain values (the segments' durations, closure and
    total speech units)."""
    found, several = [], len(durations) > 1
    if several and any(d <= 0 for d, c in zip(durations, closed) if c):
        found.append("zero_length")
    # all(d > 0), not min(d) > 0: a NaN duration (no time) fails it, as numpy's NaN minimum does
    if (len(durations) >= uniform_min and all(d > 0 for d in durations)
            and max(durations) - min(durations) <= config.uniform_tolerance):
        found.append("uniform")
    if several and all(closed) and all(abs(d - config.window_seconds) <= config.uniform_tolerance for d in durations):
        found.append("window")
    seconds = 0.0
    for d, c in zip(durations, closed):  # in order from 0.0, as numpy adds fewer than 8 (sum() may compensate)
        if c and d > 0:
            seconds += d
    if units and seconds >= config.slow_min_seconds and units / seconds < config.slow_rate:
        found.append("slow")
    return found
