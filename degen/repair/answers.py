"""Answers: how much of one degen reads, and how its times are made to fit the clip.

A server that caps nothing can answer a loop with megabytes of text, and read whole it
would keep a run busy and its memory full. What the clip could hold bounds the read: every
token the request allows (or the server's own cap per 30 s window where it takes no
budget), a generous size per token, and a floor. Times past the clip (vLLM adds each
chunk's offset to the model's own times and clamps nothing) are clamped, and a clip
longer than a server's timed format allows is cut at its quietest moments.
"""

from __future__ import annotations

import math

import orjson

# The longest answer read, from what the clip could hold: every token it may write (the
# request's budget, or the server's own cap per 30 s window where it takes no budget)
# at 64 bytes each (its text twice in verbose_json, escaped CJK at 6 bytes a character,
# token ids and a segment's keys every few tokens), plus a floor for the JSON around it.
BYTES_PER_TOKEN = 64
ANSWER_FLOOR_BYTES = 64 * 1024
ERROR_BYTES = 64 * 1024  # of an error body: enough for any server's message
WINDOW_SECONDS = 30.0


def answer_limit(seconds: float, budget: int, own_cap: int | None) -> int:
    windows = max(1, math.ceil(seconds / WINDOW_SECONDS))
    tokens = max(budget, (own_cap or 0) * windows)
    return ANSWER_FLOOR_BYTES + BYTES_PER_TOKEN * tokens


def clamped(text: str, seconds: float) -> str:
    """A JSON answer with its segments' times held inside the clip (vLLM adds each 30 s
    chunk's offset to the model's own times and clamps nothing)."""
    try:
        body = orjson.loads(text)
    except orjson.JSONDecodeError:
        return text
    segments = body.get("segments") if isinstance(body, dict) else None
    changed = False
    for seg in segments if isinstance(segments, list) else ():
        for key in ("start", "end"):
            value = seg.get(key) if isinstance(seg, dict) else None
            if isinstance(value, (int, float)) and not 0 <= value <= seconds:
                seg[key], changed = min(max(float(value), 0.0), seconds), True
    return orjson.dumps(body).decode() if changed else text


def wav_seconds(audio: bytes) -> float | None:
    """The length of a WAV upload from its header (None when it is not one)."""
    import io
    import wave
    try:
        with wave.open(io.BytesIO(audio)) as w:
            return w.getnframes() / w.getframerate()
    except (wave.Error, EOFError, ZeroDivisionError):
        return None


def quiet_cuts(samples, rate: int, longest: float) -> list[float]:
    """Where to cut a clip into pieces of at most ``longest`` seconds: at the quietest
    50 ms near each even cut (a word is rarely cut there), never making a piece too long."""
    import numpy as np
    seconds = samples.size / rate
    if seconds <= longest:
        return []
    longest -= 0.1  # the server compares with its 30 s strictly; rounding must not tip it
    pieces = int(np.ceil(seconds / (0.9 * longest)))
    frame = max(1, int(0.05 * rate))
    levels = np.sqrt(np.convolve(samples.astype(np.float64) ** 2, np.ones(frame) / frame, mode="same"))
    cuts, previous, reach = [], 0.0, 0.1 * longest
    for i in range(1, pieces):
        ideal = i * seconds / pieces
        low, high = max(ideal - reach, previous + 1.0), min(ideal + reach, previous + longest)
        a, b = int(low * rate), max(int(low * rate) + 1, int(high * rate))
        cut = (a + int(np.argmin(levels[a:b]))) / rate
        cuts.append(cut)
        previous = cut
    return cuts
