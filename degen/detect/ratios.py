"""Whisper's compression ratio: UTF-8 bytes over zlib-compressed bytes, per 30 s window
of text, reported beside the findings (whisper's fallback signal; it flags nothing)."""

from __future__ import annotations

import zlib
from typing import Iterable, Iterator

import numpy as np

from .table import SegmentTable

WINDOW_SECONDS = 30.0  # whisper scores each 30 s decoding window, so do we
RATIO_PIECE = 4096  # segments joined and encoded at a time for a window's compression ratio


def compression_ratio(text: str) -> float:
    """Whisper's signal: UTF-8 bytes over zlib-compressed bytes."""
    data = text.encode("utf-8")
    return len(data) / len(zlib.compress(data)) if data else 0.0


def window_ratios(table: SegmentTable, texts: list[str], independent: bool = False) -> Iterator[float]:
    """Whisper's compression ratio per 30 s window of text; per segment without timing,
    and per utterance of an utterance-per-line file (whisper decoded each on its own, and
    all of them start at 0 s: as one window they made one meaningless figure)."""
    if independent or not table.timed:
        return map(compression_ratio, texts)
    window = np.floor(table.start / WINDOW_SECONDS)
    cuts = np.flatnonzero(np.diff(window)) + 1
    edges = [0, *cuts.tolist(), len(texts)]
    return (joined_ratio(texts, a, b) for a, b in zip(edges, edges[1:]))


def highest_and_over(ratios: Iterable[float], threshold: float) -> tuple[float, int]:
    """The highest ratio and how many exceed ``threshold``, in one pass (no list of a
    million utterances' ratios)."""
    highest, over = 0.0, 0
    for r in ratios:
        highest, over = max(highest, r), over + (r > threshold)
    return highest, over


def joined_ratio(texts: list[str], first: int, stop: int) -> float:
    """``compression_ratio`` of ``texts[first:stop]`` joined, the text fed to zlib a piece
    at a time: deflate writes the same bytes however its input is split (no flush is asked
    for before the end), and a window that holds a whole manifest (every utterance starts
    at 0 s) is never joined, encoded and compressed whole at once."""
    if stop - first <= RATIO_PIECE:  # one piece (a usual 30 s window): compressed at once
        return compression_ratio("".join(texts[first:stop]))
    packer, size, packed = zlib.compressobj(), 0, 0
    for a in range(first, stop, RATIO_PIECE):
        data = "".join(texts[a:min(a + RATIO_PIECE, stop)]).encode("utf-8")
        size += len(data)
        packed += len(packer.compress(data))
    packed += len(packer.flush())
    return size / packed if size else 0.0
