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


def texts_of(transcript: Transcript, first: int, last: int, joiner: str) -> str:
    """The text of segments ``first`` to ``last``, as much as an excerpt can show: a loop
    split across segments starts in a segment that may hold one character of it (``我``)."""
    texts, size = [], 0
    for i in range(first, last + 1):
        texts.append(text_of(transcript, i))
        size += len(texts[-1])
        if size >= 2 * EXCERPT:
            break
    return (" " if joiner else "").join(texts)


def clip(text: str) -> str:
    """``text`` on one line, cut to ``EXCERPT`` characters. Only as much of it is split as
    the cut needs: a one-line file may hold megabytes, and each of its findings takes an
    excerpt (splitting the whole 1 MB line for each of 24 findings took 2.7 s)."""
    size = 4 * EXCERPT
    head = " ".join(text[:size].split())
    while len(head) <= EXCERPT and size < len(text):  # mostly spaces so far: look further
        size *= 4
        head = " ".join(text[:size].split())
    return head if len(head) <= EXCERPT else head[:EXCERPT - 1] + "…"


def excerpt_of(transcript: Transcript, i: int) -> str:
    """Segment ``i``'s text as a finding shows it."""
    return clip(text_of(transcript, i))


def line_findings(transcript: Transcript, candidates, may_hold, find, make) -> list:
    """The findings of a rule that reads one segment's text at a time, over the segments
    ``candidates`` (indices that a vectorised test left): ``may_hold(index, text)`` a
    cheap necessary test, ``find(text)`` the rule's match (a tuple) or None, and
    ``make(index, text, *match)`` its finding."""
    texts, out = transcript.columns().texts, []
    for i in candidates.tolist():
        text = texts[i]
        if may_hold(i, text):
            found = find(text)
            if found is not None:
                out.append(make(i, text, *found))
    return out


def text_lengths(transcript: Transcript) -> np.ndarray:
    """Each segment's text length in code points."""
    texts = transcript.columns().texts
    return np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
