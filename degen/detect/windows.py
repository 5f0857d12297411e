"""Stream loops, found window by window of segments; a small transcript is one window.

The whole-text streams of a 300 MB transcript take about three times the file (code
points, positions, ids, keys); a window of segments takes a few MB. Every stream loop
comes from a maximal tandem repeat, which depends only on the tokens it covers and the
one token on either side, so a window finds the same runs as the whole stream wherever
a run neither begins at the window's first token nor ends at its last one. Each window
keeps the runs that begin in its core (its own segments, the windows' cores tile the
transcript) and is grown until none of those touches its edges; those runs, judged on
the window's stream, are the whole stream's findings, in the same order.

A transcript of fewer than ``streams.SMALLEST`` characters is one window, its core the
whole transcript: nothing lies beyond its edges, so every run is kept as found.
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import numpy as np

from ..model import Packed, Transcript, give_back_free_memory, lengths as text_lengths
from .config import DetectConfig
from .finding import Finding
from .loops import find_runs, loop_findings, max_repetition
from .periodic import Runs
from .streams import SMALLEST, build_streams, tiles
from .table import SegmentTable
from .tokens import Stream

WINDOW = 1 << 19  # characters of a window's core
# Segments on either side of the core, doubled while a kept run may reach an edge. Every
# window tokenises and searches its context again: 256 manifest utterances (about 100
# characters each) on both sides were a tenth of the work; 64 rarely need widening.
CONTEXT = 64
# Characters past which a window stops growing (a speaker silent for hours between two
# turns) and the transcript is judged as one window instead.
LARGEST = 16 * WINDOW
STREAMS = ("chars", "words", "punct")
SPEAKER_STREAMS = ("chars", "words")  # a speaker's own streams: punct loops are never interrupted


class StreamLoops(NamedTuple):
    """What the token streams gave: their loop findings (in the order of the streams,
    then of the speakers' streams), the segment table, each segment's key, the seed's
    max-repetition metric, and how many windows were judged."""

    findings: list[Finding]
    table: SegmentTable
    keys: list[str]
    repetition: tuple[str | None, int]
    windows: int


def stream_loops(transcript: Transcript, config: DetectConfig, independent: bool = False) -> StreamLoops:
    """The loops of ``transcript``'s token streams, window by window; ``independent``
    (utterances judged each alone): runs cut at the texts' edges, and no stream of a
    speaker's own."""
    texts = transcript.columns().texts
    if sum(text_lengths(texts)) >= SMALLEST:
        found = _judged(transcript, texts, config, independent, list(cores(texts)))
        if found is not None:
            return found
    # One window: a small transcript, or one whose windows could not be judged alone.
    return _judged(transcript, texts, config, independent, [(0, len(texts))])


def cores(texts: list[str]):
    """(first, stop) segment ranges of about ``WINDOW`` characters, tiling the transcript."""
    yield from tiles(texts, WINDOW)


def _judged(transcript, texts, config, independent: bool, windows: list) -> StreamLoops | None:
    """The stream loops of the windows around ``windows`` (their cores), or None when one
    of several windows could not be judged alone."""
    table = SegmentTable.empty(transcript)
    interleaved = [] if independent else interleaved_speakers(table.speakers)
    speakers = np.array([s or "" for s in table.speakers], dtype=object) if interleaved else None
    state = _Found(interleaved, speakers, independent)
    for core in windows:
        if not _window(transcript, texts, core, table, speakers, state, config):
            return None
        if len(windows) > 1:
            # A window's arrays come and go through the heap; what they leave free in its
            # middle stays resident, window after window, unless given back (a few ms).
            give_back_free_memory()
    return StreamLoops(state.loops(), table, state.keys, state.repetition(), len(windows))


class _Found:
    """What the windows found, kept in the order the whole-stream analysis lists it."""

    def __init__(self, speakers: list[str], names: np.ndarray, alone: bool = False):
        self.speakers = speakers
        self.alone = alone  # utterances judged each on its own: runs cut at their edges
        # Each interleaved speaker's first and last segment: is there text of theirs
        # before or after a window?
        self.turns = {}
        for speaker in speakers:
            mine = np.flatnonzero(names == speaker)
            self.turns[speaker] = (int(mine[0]), int(mine[-1]))
        self.whole = {name: [] for name in STREAMS}
        self.by_speaker = {(s, name): [] for s in speakers for name in SPEAKER_STREAMS}
        self.best = {name: (None, 0) for name in STREAMS}
        self.keys = None

    def add_keys(self, keys: list[str]) -> None:
        """One window's keys: the list itself when it is the only one, else packed (a str
        object per key would take more than the keys' text)."""
        if self.keys is None:
            self.keys = keys
            return
        if not isinstance(self.keys, Packed):
            first, self.keys = self.keys, Packed()
            self.keys.extend(first)
        self.keys.extend(keys)

    def loops(self) -> list:
        out = [f for name in STREAMS for f in self.whole[name]]
        return out + [f for s in self.speakers for name in SPEAKER_STREAMS for f in self.by_speaker[s, name]]

    def repetition(self) -> tuple[str | None, int]:
        """Over streams in order, a strictly larger count wins (``max_repetition``'s rule)."""
        unit, count = None, 0
        for found_unit, found in self.best.values():
            if found > count:
                unit, count = found_unit, found
        return unit, count


def _window(transcript, texts, core, table, speakers, state: _Found, config) -> bool:
    """Judge the runs that begin in ``core``, widening the window until none of them
    can reach its edge. False when the window's text has grapheme clusters, or when it
    grew past ``LARGEST`` characters: the transcript is then judged as one window."""
    context = CONTEXT
    while True:
        lo, hi = max(0, core[0] - context), min(len(texts), core[1] + context)
        found = _judge_window(transcript, texts, lo, hi, core, table, speakers, state, config)
        if found is None:
            return False
        if found is not _WIDER:
            break
        if sum(map(len, texts[lo:hi])) > LARGEST:
            return False
        context *= 2
    loops, best, keys = found
    for key, found_loops in loops.items():
        (state.whole if isinstance(key, str) else state.by_speaker)[key].extend(found_loops)
    for name, (unit, count) in best.items():
        if count > state.best[name][1]:
            state.best[name] = (unit, count)
    state.add_keys(keys)
    return True


_WIDER = object()  # a kept run may reach the window's edge: widen it


def _judge_window(transcript, texts, lo, hi, core, table, speakers, state, config):
    whole = (lo, hi) == (0, len(texts))
    built = build_streams(texts if whole else texts[lo:hi])
    if built.chars.ends is not None and not whole:
        return None  # grapheme clusters: tokens may differ from the whole text's
    streams = built.all()
    if lo:  # the window's texts are segments lo.. of the transcript
        owners = np.arange(lo, hi, dtype=np.int64)
        streams = [dataclasses.replace(s, owners=owners) for s in streams]
    table.fill(lo, built)
    loops, best = {}, {}
    for stream in streams:
        runs = _kept(stream, find_runs(stream, config, state.alone), core, (lo > 0, hi < len(texts)),
                     config.max_period)
        if runs is None:
            return _WIDER
        loops[stream.name] = loop_findings(stream, runs, transcript, table, config)
        best[stream.name] = max_repetition([stream], [runs], transcript)
    for speaker in state.speakers:
        # A loop of one speaker may be interrupted by another's segments.
        mine = np.flatnonzero(speakers[lo:hi] == speaker)
        first, last = state.turns[speaker]
        for stream in (streams[0].subset(mine), streams[1].subset(mine)):
            runs = _kept(stream, find_runs(stream, config), core, (first < lo, last >= hi), config.max_period)
            if runs is None:
                return _WIDER
            found = crossing_turns(stream, runs)
            loops[speaker, stream.name] = loop_findings(stream, found, transcript, table, config, speaker)
    return loops, best, built.keys if (lo, hi) == core else built.keys[core[0] - lo:core[1] - lo]


def _kept(stream: Stream, runs: Runs, core, cut, max_period: int) -> Runs | None:
    """The runs that begin in the core's segments; None when the window may have cut
    one: it begins at the window's first token with text before the window, or a
    periodic stretch runs from the core to the window's last token with text after it
    (a run cut there may be too short to be found at all, so the tokens are compared)."""
    first, stop = np.searchsorted(stream.owners, core)  # the core's texts among the stream's
    begin, end = int(stream.bounds[first]), int(stream.bounds[stop])
    cut_before, cut_after = cut
    if begin == 0 and end == int(stream.bounds[-1]) and not cut_before and not cut_after:
        return runs  # the core is the whole window, nothing beyond it: every run is kept
    keep = (runs.start >= begin) & (runs.start < end)
    if cut_before and (runs.start[keep] == 0).any():
        return None
    if cut_after and end > begin and _periodic_tail(stream.ids[end - 1:], max_period):
        return None
    return Runs(runs.start[keep], runs.period[keep], runs.count[keep], runs.length[keep])


def _periodic_tail(tail: np.ndarray, max_period: int) -> bool:
    """Whether ``tail`` may be the start of a run of some period up to ``max_period``
    (true too when it is no longer than that: too short to tell)."""
    if tail.size <= max_period:
        return True
    return any(np.array_equal(tail[:-p], tail[p:]) for p in range(1, max_period + 1))


def interleaved_speakers(speakers) -> list[str]:
    """Speakers worth a stream of their own: only when turns alternate at all."""
    switches = (i for i in range(1, len(speakers)) if speakers[i] != speakers[i - 1])
    if next(switches, None) is None or next(switches, None) is None:  # stop at the second switch
        return []
    return [s for s in dict.fromkeys(speakers) if s is not None]


def crossing_turns(stream: Stream, runs: Runs) -> Runs:
    """The runs of one speaker's stream that touch an edge of a turn (a stretch of that
    speaker's consecutive segments), where another speaker's text sits in the whole
    stream. A run inside a turn, touching neither edge, has the same tokens and the same
    neighbours in the whole stream, so the whole stream has found the same run, and
    judging it again gives the same finding (same segments, same members, one speaker):
    a duplicate that de-duplication drops."""
    if not len(runs):
        return runs
    turn_starts = np.flatnonzero(np.diff(stream.owners) != 1) + 1  # segment indices in ``owners``
    edges = np.concatenate((stream.bounds[[0]], stream.bounds[turn_starts], stream.bounds[[-1]]))
    stop = runs.start + runs.length
    after = edges[np.minimum(np.searchsorted(edges, runs.start, side="left"), edges.size - 1)]
    touch = (after >= runs.start) & (after <= stop)
    return Runs(runs.start[touch], runs.period[touch], runs.count[touch], runs.length[touch])
