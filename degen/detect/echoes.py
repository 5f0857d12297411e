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

from ..model import Packed, Transcript, lengths as text_lengths
from .config import DetectConfig
from .finding import Finding, Kind, Severity
from .places import excerpt_of, span_of
from .table import SegmentTable


def _echo_runs(keys: list[str], speakers, lengths: np.ndarray | None = None) -> list[tuple[int, int]]:
    """(utterance, last echo) for each utterance followed by copies of its own tail
    (``lengths``: each key's length, when known)."""
    if lengths is None:
        lengths = np.fromiter(text_lengths(keys), dtype=np.int64, count=len(keys))
    out, resume = [], 0
    for i in _echo_starts(keys, speakers, lengths):
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


def _echo_starts(keys: list[str], speakers, lengths: np.ndarray) -> list[int]:
    """Segments followed by a shorter one of the same speaker that ends them: only there
    can an echo start (lengths and speakers compared for all segments at once)."""
    if len(keys) < 2:
        return []
    # Neighbours' speakers compared as objects (str or None, ``==`` as a dict would), in
    # one array operation rather than a Python step per segment.
    voice = np.empty(len(speakers), dtype=object)
    voice[:] = speakers
    maybe = np.flatnonzero((lengths[1:] > 0) & (lengths[1:] < lengths[:-1]) & (voice[1:] == voice[:-1]))
    return _ending_the_next(keys, maybe.tolist())


def _ending_the_next(keys, maybe: list[int]) -> list[int]:
    """The ``i`` of ``maybe`` (ascending) whose key ends with the key after it. A packed
    column (model.Packed) is read a chunk of strings at a time: by index, each key costs
    a search for its chunk and a new string (half a second for the 1.7 million cues of a
    148 MB SRT file, where about half the cues are shorter than the one before)."""
    chunks = keys.chunks() if isinstance(keys, Packed) else [keys]
    out, first, k = [], 0, 0
    for chunk in chunks:
        last = first + len(chunk) - 1  # its last key's neighbour is in the next chunk
        while k < len(maybe) and maybe[k] < last:
            i = maybe[k] - first
            if chunk[i].endswith(chunk[i + 1]):
                out.append(maybe[k])
            k += 1
        if k < len(maybe) and maybe[k] == last:
            if chunk[-1].endswith(keys[last + 1]):
                out.append(last)
            k += 1
        first = last + 1
    return out


def echo_findings(transcript: Transcript, keys: list[str], table: SegmentTable,
                  config: DetectConfig) -> list[Finding]:
    """One ``segment_loop`` finding over the stretch from the first echoed utterance to the
    last echo, when at least ``echo_runs`` utterances are each echoed ``echo_copies`` times."""
    # Lengths read once (without making a packed column's strings): the candidates and
    # the text covered, from the first echoed utterance to the last echo (often most of
    # a long file: 1.3 million keys read by index in a 148 MB SRT file).
    lengths = np.fromiter(text_lengths(keys), dtype=np.int64, count=len(keys))
    runs = [(u, e) for u, e in _echo_runs(keys, table.speakers, lengths) if e - u >= config.echo_copies]
    if len(runs) < config.echo_runs:
        return []
    first, last = runs[0][0], runs[-1][1]
    echoes = sum(e - u for u, e in runs)
    return [Finding(
        kind=Kind.SEGMENT_LOOP, severity=Severity.MEDIUM, span=span_of(transcript, first, last), segments=(first, last),
        speaker=table.speaker_of(first, last), unit=excerpt_of(transcript, runs[0][0] + 1), period=1,
        count=echoes, excerpt=excerpt_of(transcript, first), score=len(runs) / config.echo_runs,
        evidence=("tail_echo",), stream="segments", extent=(float(first), float(last + 1)),
        covered=int(lengths[first:last + 1].sum()))]
