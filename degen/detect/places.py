"""Where a finding lies and what it shows: the time span of a stretch of segments, a
segment's text and a short excerpt of it, all read from the transcript's columns (building
a segment costs more: its extra fields)."""

from __future__ import annotations

import numpy as np

from ..model import Span, Transcript

EXCERPT = 60  # characters of text a finding shows, about one line of a terminal report


def span_of(transcript: Transcript, first: int, last: int) -> Span | None:
    """From the first segment's start to the last one's end (None where either has no
    time)."""
    cols = transcript.columns()
    a, b = cols.starts[first], cols.ends[last]  # NaN where a segment has no time
    if np.isnan(a) or np.isnan(b):
        return None
    return Span(float(a), max(float(a), float(b)))


def text_of(transcript: Transcript, i: int) -> str:
    """Segment ``i``'s text."""
    return transcript.columns().texts[i]


def clip(text: str) -> str:
    """``text`` on one line, cut to ``EXCERPT`` characters."""
    text = " ".join(text.split())
    return text if len(text) <= EXCERPT else text[:EXCERPT - 1] + "…"


def excerpt_of(transcript: Transcript, i: int) -> str:
    """Segment ``i``'s text as a finding shows it."""
    return clip(text_of(transcript, i))
