"""Rhythm: where the audio itself repeats one word, and where its syllables part.

A model loops most readily on speech that really repeats ("no no no no", 然后然后然后):
the audio is periodic, and a decoder that hears the same sound again and again cannot tell
ten copies from a hundred. Re-decoding the whole span at another temperature mostly loops
again. What the audio does say is how many copies there are: the level envelope dips
between syllables, and a repeated word is a run of syllable groups that look alike
(duration, loudness, spectrum). Cut at those dips, each piece holds one copy, which no
decoder can loop on, and the pieces together keep the count the speaker said.

    level  ▁▅▇▆▂▁▅▇▆▂▁▅▇▆▂▁▅▇▆▂   dips (prominence >= 6 dB) part the syllables;
    dips       ^    ^    ^        runs of alike syllable groups are a repeated stretch,
    pieces  |----|----|----|      cut between copies (`Repetition.pieces`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

FRAME = 0.01  # seconds per envelope frame: syllables last 0.1 to 0.4 s
PAUSE = 15  # frames of quiet that part words (a stop's closure inside a word is shorter)


@dataclass(frozen=True)
class Repetition:
    """A stretch of audio that says one unit (a word, or a few syllables) again and again.

    Attributes:
        start, end: seconds from the first sample of the analysed audio.
        copies: how many times the unit is said.
        syllables: syllables per copy.
        cuts: the dips between copies (seconds), ``copies - 1`` of them.
    """

    start: float
    end: float
    copies: int
    syllables: int
    cuts: tuple[float, ...]

    def pieces(self) -> list[tuple[float, float]]:
        """The stretch cut at the dips between copies: one copy a piece. (Measured on
        Whisper tiny.en and base: a piece of two copies often came back as one, "okay okay"
        as "Okay.", which loses copies; single copies came back one word each.)"""
        bounds = [self.start, *self.cuts, self.end]
        return list(zip(bounds, bounds[1:]))


def envelope(samples: np.ndarray, rate: int) -> np.ndarray:
    """Frame levels in dBFS, smoothed over 30 ms, floored at -60 dB."""
    n = max(1, int(round(FRAME * rate)))
    frames = samples.size // n
    if frames < 3:
        return np.full(max(frames, 0), -60.0)
    x = samples[: frames * n].astype(np.float64).reshape(frames, n) / 32768.0
    level = 10.0 * np.log10(np.mean(x * x, axis=1) + 1e-12)
    return np.maximum(np.convolve(level, np.ones(3) / 3, mode="same"), -60.0)


def dips(level: np.ndarray, prominence: float = 6.0, reach: int = 25) -> np.ndarray:
    """Frames where the level falls at least ``prominence`` dB below the loudest frame
    within ``reach`` frames on each side: the valleys between syllables (6 dB is a
    quarter of the power; the dips inside a syllable are shallower)."""
    if level.size < 3:
        return np.zeros(0, dtype=np.int64)
    inner = np.flatnonzero((level[1:-1] <= level[:-2]) & (level[1:-1] < level[2:])) + 1
    out: list[int] = []
    for m in inner.tolist():
        left = level[max(0, m - reach):m].max()
        right = level[m + 1:m + 1 + reach].max()
        if min(left, right) - level[m] >= prominence and (not out or m - out[-1] >= 8):
            out.append(m)
    return np.asarray(out, dtype=np.int64)


def _bounds(level: np.ndarray, voiced_db: float) -> list[int]:
    """Syllable boundaries: the dips, and where sound starts and stops (a word after a
    pause has no dip before it). Sound is within 35 dB of the loud frames (speech's
    dynamic range) and above ``voiced_db``."""
    if level.size < 3:
        return []
    loud = level > max(voiced_db, float(np.percentile(level, 95)) - 35.0)
    edges = np.flatnonzero(np.diff(np.concatenate(([1], loud.astype(np.int8), [1])))).reshape(-1, 2)
    # pauses of PAUSE frames or more (a stop's closure inside a word is shorter: a dip),
    # and quiet at either end of the clip however short: the clip's edge is no word's
    # middle, so the last syllable, which trails off without a dip, still ends there
    pauses = [(a, b) for a, b in edges.tolist() if b - a >= PAUSE or (b - a >= 5 and (a == 0 or b == level.size))]
    out: list[int] = []
    for b in sorted(set(dips(level).tolist()) | {x for p in pauses for x in p if 0 < x < level.size}):
        if not out or b - out[-1] >= 5:
            out.append(b)
    return out


def _spectra(samples: np.ndarray, rate: int, bounds: list[int]) -> np.ndarray:
    """Mean log energy in 12 bands (150 Hz to 4 kHz, log-spaced) of each syllable."""
    n = max(1, int(round(FRAME * rate)))
    edges = np.geomspace(150.0, min(4000.0, rate / 2 - 1), 13)
    out = []
    for a, b in zip(bounds, bounds[1:]):
        chunk = samples[a * n:b * n].astype(np.float64)
        if chunk.size < 16:
            out.append(np.zeros(12))
            continue
        power = np.abs(np.fft.rfft(chunk * np.hanning(chunk.size))) ** 2
        freqs = np.fft.rfftfreq(chunk.size, 1.0 / rate)
        bands = [power[(freqs >= lo) & (freqs < hi)].sum() for lo, hi in zip(edges, edges[1:])]
        out.append(np.log10(np.asarray(bands) + 1e-9))
    return np.asarray(out)


@dataclass(frozen=True)
class Alike:
    """How close two copies of a unit must be to count as the same word said again. A
    speaker repeating a word varies its length by a fifth and its loudness by a few dB;
    the spectrum's shape (correlation of band energies) stays, while neighbouring
    syllables of ordinary speech differ in vowel and so in shape.

    Attributes:
        duration: largest ratio between the copies' lengths.
        loudness_db: largest difference of their peak levels.
        shape: smallest correlation of their band energies, syllable by syllable.
        least_copies: the fewest copies that make a repeated stretch (three is still a
            phrase people say: "no, no, no"; a decoder loops on longer runs).
    """

    duration: float = 1.35
    loudness_db: float = 6.0
    shape: float = 0.7
    least_copies: int = 4


def find_repetition(samples: np.ndarray, rate: int, alike: Alike = Alike(), longest_unit: int = 3,
                    voiced_db: float = -45.0) -> Repetition | None:
    """The longest stretch that repeats one unit of 1 to ``longest_unit`` syllables, or
    None. Copies are compared with their neighbours only, so a speaker who slows down
    over ten copies still reads as one stretch."""
    level = envelope(samples, rate)
    bounds = _bounds(level, voiced_db)
    if len(bounds) <= alike.least_copies:
        return None
    # each syllable: [bounds[i], bounds[i+1]) frames; voiced only if its peak is speech-loud
    peaks = np.array([level[a:b].max() for a, b in zip(bounds, bounds[1:])])
    lengths = np.diff(np.asarray(bounds)).astype(np.float64)
    spectra = _spectra(samples, rate, bounds)
    best: Repetition | None = None
    for m in range(1, longest_unit + 1):
        # Each alignment's longest run, grown: a two-syllable word read from its second
        # syllable can tie before growing, and only the word's own alignment grows whole.
        grown = [_extend(*found, m, bounds, peaks, lengths, spectra, alike, voiced_db)
                 for found in _longest_runs(peaks, lengths, spectra, m, alike, voiced_db)]
        for first, copies in sorted(grown, key=lambda run: -run[1])[:1]:
            if best is None or copies * m > best.copies * best.syllables:
                edges = [bounds[first + k * m] * FRAME for k in range(copies + 1)]
                best = Repetition(edges[0], edges[-1], copies, m, tuple(edges[1:-1]))
    return best


def _extend(first: int, copies: int, m: int, bounds: list[int], peaks, lengths, spectra, alike: Alike,
            voiced_db: float) -> tuple[int, int]:
    """Grow a run by the copies on either side that last as long as its own and are like
    their neighbour by a looser measure (the first said louder, the last trailing off, a
    copy on another tone): their number is what matters for the count."""
    def unit(i: int) -> float | None:
        if i < 0 or i + m >= len(bounds) or peaks[i:i + m].min() <= voiced_db:
            return None
        return float(bounds[i + m] - bounds[i])

    typical = float(np.median([unit(first + k * m) for k in range(copies)]))
    loose = Alike(alike.duration, alike.loudness_db * 1.5, alike.shape / 2, alike.least_copies)

    def like(i: int, near: tuple[int, ...]) -> bool:
        # like the copy next to it or the one after that, as in _longest_runs: a two-
        # syllable word seen as single syllables matches every other one
        u = unit(i)
        return u is not None and max(u, typical) <= alike.duration * min(u, typical) and any(
            _same_unit(i, j, m, peaks, lengths, spectra, loose) for j in near if 0 <= j < len(lengths))

    while like(first - m, (first, first + m)):
        first, copies = first - m, copies + 1
    while like(last := first + copies * m, (last - m, last - 2 * m)):
        copies += 1
    return first, copies


def _same_unit(i: int, j: int, m: int, peaks, lengths, spectra, alike: Alike) -> bool:
    for k in range(m):
        a, b = i + k, j + k
        if max(lengths[a], lengths[b]) > alike.duration * min(lengths[a], lengths[b]):
            return False
        if abs(peaks[a] - peaks[b]) > alike.loudness_db:
            return False
        x, y = spectra[a] - spectra[a].mean(), spectra[b] - spectra[b].mean()
        norm = float(np.linalg.norm(x) * np.linalg.norm(y))
        if norm == 0 or float(x @ y) / norm < alike.shape:
            return False
    return True


def _longest_runs(peaks, lengths, spectra, m: int, alike: Alike, voiced_db: float) -> list[tuple[int, int]]:
    """(first syllable, copies) of the longest run of alike units of ``m`` syllables, for
    each of the ``m`` alignments that has one. A copy joins the run when it matches the
    copy before it or the one before that: one copy said on another pitch (a tone, a
    stress) does not split a run of ten."""
    n, out = peaks.size, []
    for offset in range(m):
        units, best = list(range(offset, n - m + 1, m)), None
        start = 0
        for k in range(1, len(units) + 1):
            joins = k < len(units) and peaks[units[k]:units[k] + m].min() > voiced_db and any(
                _same_unit(units[k - back], units[k], m, peaks, lengths, spectra, alike)
                for back in (1, 2) if k - back >= start)
            if not joins:
                copies = k - start
                if copies >= alike.least_copies and (best is None or copies > best[1]):
                    best = (units[start], copies)
                start = k
        if best is not None:
            out.append(best)
    return out
