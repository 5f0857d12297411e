"""Per-segment facts as arrays, built once per transcript and shared by the detectors:
times, closure, speech units (for rates) and speakers."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple, Sequence

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


def unit_counts(streams: Streams) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(speech units, whether CJK, words, CJK characters) of each segment: its units are
    its words, plus its CJK characters when its text is CJK. A segment's counts depend
    on its own text only."""
    cjk_count = _count_per_text(cjk_mask(streams.char_codes), streams.chars.bounds)
    word_count = np.diff(streams.words.bounds)
    cjk = is_cjk(cjk_count, word_count) & (cjk_count > 0)
    return np.where(cjk, cjk_count + word_count, word_count), cjk, word_count, cjk_count


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
    # Each segment's words and CJK characters (the streams' counts), for the rules that
    # read one line at a time to pass over most lines in one vectorised test.
    words: np.ndarray | None = None
    cjk_chars: np.ndarray | None = None

    @classmethod
    def empty(cls, transcript: Transcript) -> "SegmentTable":
        """The table of ``transcript`` with its speech units still to ``fill``."""
        cols = transcript.columns()
        n = len(cols.texts)
        # The columns' speaker list itself, read only: a tuple copy is 8 bytes a segment more.
        # Speech units as int32 (a segment has far fewer than 2**31): 4 bytes a segment less.
        return cls(cols.starts, cols.ends, cols.closed, np.zeros(n, dtype=np.int32), np.zeros(n, dtype=bool),
                   cols.speakers, cols.timed, transcript.format not in DERIVED_END_FORMATS,
                   np.zeros(n, dtype=np.int32), np.zeros(n, dtype=np.int32))

    def fill(self, first: int, streams: Streams) -> None:
        """Speech units of segments ``first``.. from their streams (a window's)."""
        units, cjk, words, cjk_chars = unit_counts(streams)
        stop = first + units.size
        self.units[first:stop], self.cjk[first:stop] = units, cjk
        self.words[first:stop], self.cjk_chars[first:stop] = words, cjk_chars

    def __len__(self) -> int:
        return len(self.speakers)

    def evidence(self, first: int, last: int, config: DetectConfig, members=None,
                 uniform_min: int | None = None) -> tuple[str, ...]:
        """Timing signals, independent of any repeat count, that text in first..last is
        not real speech (``members``: the segments of one speaker's stream in that range;
        ``uniform_min``: how many equal durations in a row count, default
        ``config.uniform_duration_run``)."""
        shape = self.timed and self.measured
        small = 0 <= last - first < SMALL_RANGE  # most loops lie in one segment or a few
        sums = (_plain_sums if small else _array_sums)(self, first, last, members, shape, config.window_seconds)
        found = []
        if self.timed and sums.last_closed and sums.spoken >= config.rate_min_units:  # an unclosed end has no time
            cjk = sums.cjk_share >= config.cjk_share
            limit = config.max_cjk_rate if cjk else config.max_word_rate
            if sums.spoken / max(sums.span, config.rate_min_seconds) > limit:
                found.append("dense")
        if not sums.closed:
            found.append("unclosed")
        if shape:  # machine-made durations: zero, all equal, whole 30 s decoding windows, or
            # far too long for the text they carry (a model filling silence or music)
            several = last > first
            if several and sums.zero:
                found.append("zero_length")
            if last - first + 1 >= (uniform_min or config.uniform_duration_run) and sums.spread <= config.uniform_tolerance:
                found.append("uniform")
            if several and sums.closed and sums.off_window <= config.uniform_tolerance:
                found.append("window")
            if sums.units and sums.seconds >= config.slow_min_seconds and sums.units / sums.seconds < config.slow_rate:
                found.append("slow")
        return tuple(found)

    def speaker_of(self, first: int, last: int) -> str | None:
        names = sorted({s for s in self.speakers[first:last + 1] if s is not None})
        return "+".join(names) if names else None


SMALL_RANGE = 7  # segments below which ``evidence`` reads plain values (numpy sums 8 or more pairwise)


class _Sums(NamedTuple):
    """What ``SegmentTable.evidence`` weighs over a stretch of segments."""

    spoken: int  # speech units the rate counts (one speaker's, for their own stream)
    units: int  # every speech unit of the stretch
    span: float  # seconds from the first start to the last end
    cjk_share: float  # the share of CJK segments
    closed: bool  # every segment closed
    last_closed: bool
    zero: bool  # a closed segment of no (or negative) duration
    spread: float  # longest minus shortest duration; infinite unless every one is positive
    off_window: float  # the most any duration differs from a decoding window (NaN without time)
    seconds: float  # the time of the closed segments of positive duration


def _array_sums(table: SegmentTable, first: int, last: int, members, shape: bool, window: float) -> _Sums:
    """``_Sums`` by numpy over the stretch's slices (not the whole columns per call)."""
    stop = last + 1
    closed, units = table.closed[first:stop], table.units[first:stop]
    spoken = int(units.sum() if members is None else table.units[members].sum())
    cjk_share = float(table.cjk[first:stop].mean()) if last >= first else 0.0
    zero, spread, off_window, seconds = False, math.inf, math.inf, 0.0
    if shape:
        durations = table.end[first:stop] - table.start[first:stop]
        zero = bool((durations[closed] <= 0).any())
        spread = float(durations.max() - durations.min()) if durations.min() > 0 else math.inf
        off_window = float(np.abs(durations - window).max())
        seconds = float(durations[closed & (durations > 0)].sum())
    return _Sums(spoken, int(units.sum()), float(table.end[last] - table.start[first]), cjk_share,
                 bool(closed.all()), bool(table.closed[last]), zero, spread, off_window, seconds)


def _plain_sums(table: SegmentTable, first: int, last: int, members, shape: bool, window: float) -> _Sums:
    """``_array_sums`` for a few segments, in plain Python over their values: a dozen
    numpy calls on small slices cost more than the arithmetic. Sums of fewer than eight
    floats add in order in numpy too, so every figure is equal (the hypothesis test in
    ``tests/detect/test_detect_evidence_small.py`` holds the two to it)."""
    stop = last + 1
    closed, units = table.closed[first:stop].tolist(), table.units[first:stop].tolist()
    start, end = table.start[first:stop].tolist(), table.end[first:stop].tolist()
    spoken = sum(units) if members is None else sum(table.units[members].tolist())
    cjk = table.cjk[first:stop].tolist()
    zero, spread, off_window, seconds = False, math.inf, math.inf, 0.0
    if shape:
        durations = [b - a for a, b in zip(start, end)]
        zero = any(d <= 0 for d, c in zip(durations, closed) if c)
        # all(d > 0), not min(d) > 0: a NaN duration (no time) fails it, as numpy's NaN minimum does
        if all(d > 0 for d in durations):
            spread = max(durations) - min(durations)
        off_window = max(abs(d - window) for d in durations)
        if any(d != d for d in durations):  # a NaN (no time): numpy's maximum is NaN, max() may skip it
            off_window = math.nan
        for d, c in zip(durations, closed):  # in order from 0.0, as numpy adds fewer than 8 (sum() may compensate)
            if c and d > 0:
                seconds += d
    return _Sums(spoken, sum(units), end[-1] - start[0], sum(cjk) / len(cjk), all(closed), closed[-1], zero,
                 spread, off_window, seconds)
