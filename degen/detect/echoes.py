"""Tail echoes: a streaming recogniser with endpoint detection that, after each utterance,
emits the tail of its last word again as extra segments::

    0:重要   1:要   2:要   3:非常重要   4:要   5:要

A person stressing a word says it whole ("important, important"); a decoder re-emitting
the end of its buffer writes a proper suffix of the utterance, again after the next
utterance. So the evidence is the shape repeated across utterances, not a count in one
place: ``echo_runs`` utterances, each followed by ``echo_copies`` or more segments that
are all the same proper suffix of it.
"""

from __future__ import annotations

import numpy as np

from ..model import Transcript
from .config import DetectConfig
from .finding import Finding
from .loops import _clip, _span, _text
from .table import SegmentTable


def _echo_runs(keys: list[str], speakers) -> list[tuple[int, int]]:
    """(utterance, last echo) for each utterance followed by copies of its own tail."""
    out, resume = [], 0
    for i in _echo_starts(keys, speakers):
        if i < resume:  # inside the echoes of the utterance before
            continue
        head, j = keys[i], i + 1
        while (j < len(keys) and keys[j] and keys[j] == keys[i + 1] and speakers[j] == speakers[i]
               and len(keys[j]) < len(head) and head.endswith(keys[j])):
            j += 1
        tail = keys[i + 1]
        # "对对对" then "对" is a backchannel said again, not a tail cut off a word.
        if head != tail * (len(head) // len(tail)):
            out.append((i, j - 1))
            resume = j
    return out


def _echo_starts(keys: list[str], speakers) -> list[int]:
    """Segments followed by a shorter one of the same speaker that ends them: only there
    can an echo start (lengths and speakers compared for all segments at once)."""
    if len(keys) < 2:
        return []
    lengths = np.fromiter(map(len, keys), dtype=np.int64, count=len(keys))
    # Neighbours' speakers compared as objects (str or None, ``==`` as a dict would), in
    # one array operation rather than a Python step per segment.
    voice = np.empty(len(speakers), dtype=object)
    voice[:] = speakers
    maybe = np.flatnonzero((lengths[1:] > 0) & (lengths[1:] < lengths[:-1]) & (voice[1:] == voice[:-1]))
    return [i for i in maybe.tolist() if keys[i].endswith(keys[i + 1])]


def echo_findings(transcript: Transcript, keys: list[str], table: SegmentTable,
                  config: DetectConfig) -> list[Finding]:
    """One ``segment_loop`` finding over the stretch from the first echoed utterance to the
    last echo, when at least ``echo_runs`` utterances are each echoed ``echo_copies`` times."""
    runs = [(u, e) for u, e in _echo_runs(keys, table.speakers) if e - u >= config.echo_copies]
    if len(runs) < config.echo_runs:
        return []
    first, last = runs[0][0], runs[-1][1]
    echoes = sum(e - u for u, e in runs)
    return [Finding(
        kind="segment_loop", severity="medium", span=_span(transcript, first, last), segments=(first, last),
        speaker=table.speaker_of(first, last), unit=_clip(_text(transcript, runs[0][0] + 1)), period=1,
        count=echoes, excerpt=_clip(_text(transcript, first)), score=len(runs) / config.echo_runs,
        evidence=("tail_echo",), stream="segments", extent=(float(first), float(last + 1)),
        covered=sum(len(keys[i]) for i in range(first, last + 1)))]
