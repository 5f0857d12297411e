"""Loop detection over windows of segments.

The whole-text streams of a 300 MB transcript take about three times the file (code
points, positions, ids, keys); a window of segments takes a few MB. Every stream loop
comes from a maximal tandem repeat, which depends only on the tokens it covers and the
one token on either side, so a window finds the same runs as the whole stream wherever
a run neither begins at the window's first token nor ends at its last one. Each window
keeps the runs that begin in its core (its own segments, the windows' cores tile the
transcript) and is grown until none of those touches its edges; those runs, judged on
the window's stream, are the whole stream's findings, in the same order.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..model import Packed, give_back_free_memory, lengths as text_lengths
from .streams import SMALLEST, build_streams, tiles
from .tokens import Stream, Streams

WINDOW = 1 << 19  # characters of a window's core
# Segments on either side of the core, doubled while a kept run may reach an edge. Every
# window tokenises and searches its context again: 256 manifest utterances (about 100
# characters each) on both sides were a tenth of the work; 64 rarely need widening.
CONTEXT = 64


def stream_loops(transcript, config, independent: bool = False):
    """(stream loops, segment table, segment keys, (max repetition unit, count)) of a
    large transcript, found window by window, equal to what ``detect.analyze`` finds on
    whole streams; None when the transcript is small or has grapheme clusters.
    ``independent`` (utterances judged each alone): no stream of a speaker's own."""
    texts = transcript.columns().texts
    if sum(text_lengths(texts)) < SMALLEST:
        return None
    from . import _interleaved_speakers  # the package imports this module through tokens
    table = _empty_table(transcript)
    interleaved = [] if independent else _interleaved_speakers(table.speakers)
    speakers = np.array([s or "" for s in table.speakers], dtype=object) if interleaved else None
    state = _Found(interleaved, speakers, independent)
    for core in _cores(texts):
        if not _window(transcript, texts, core, table, speakers, state, config):
            return None
        # A window's arrays come and go through the heap; what they leave free in its
        # middle stays resident, window after window, unless given back (a few ms).
        give_back_free_memory()
    return state.loops(), table, state.keys, state.repetition()


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
        self.whole = {name: [] for name in ("chars", "words", "punct")}
        self.by_speaker = {(s, name): [] for s in speakers for name in ("chars", "words")}
        self.best = {name: (None, 0) for name in self.whole}
        self.keys = Packed()  # a str object per key would take more than the keys' text

    def loops(self) -> list:
        out = [f for name in self.whole for f in self.whole[name]]
        return out + [f for s in self.speakers for name in ("chars", "words") for f in self.by_speaker[s, name]]

    def repetition(self) -> tuple[str | None, int]:
        """The whole analysis' rule: over streams in order, a strictly larger count wins."""
        unit, count = None, 0
        for found_unit, found in self.best.values():
            if found > count:
                unit, count = found_unit, found
        return unit, count


def _cores(texts: list[str]):
    """(first, stop) segment ranges of about ``WINDOW`` characters, tiling the transcript."""
    yield from tiles(texts, WINDOW)


def _window(transcript, texts, core, table, speakers, state: _Found, config) -> bool:
    """Judge the runs that begin in ``core``, widening the window until none of them
    can reach its edge. False when the window's text has grapheme clusters, or when it
    grew past ``LARGEST`` characters (a speaker silent for hours between two turns): the
    whole-text analysis then takes over."""
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
    state.keys.extend(keys)
    return True


_WIDER = object()  # a kept run may reach the window's edge: widen it
LARGEST = 16 * WINDOW


def _judge_window(transcript, texts, lo, hi, core, table, speakers, state, config):
    from .loops import find_runs, loop_findings, max_repetition
    from . import _crossing_turns
    built = build_streams(texts[lo:hi])
    if built.chars.ends is not None:
        return None  # grapheme clusters: tokens may differ from the whole text's
    owners = np.arange(lo, hi, dtype=np.int64)
    streams = [dataclasses.replace(s, owners=owners) for s in built.all()]
    _fill_table(table, lo, built)
    loops, best = {}, {}
    for stream in streams:
        runs = _kept(stream, find_runs(stream, config, state.alone), core, (lo > 0, hi < len(texts)),
                     config.max_period)
        if runs is None:
            return _WIDER
        loops[stream.name] = loop_findings(stream, runs, transcript, table, config)
        best[stream.name] = max_repetition([stream], [runs], transcript)
    for speaker in state.speakers:
        mine = np.flatnonzero(speakers[lo:hi] == speaker)
        first, last = state.turns[speaker]
        for stream in (streams[0].subset(mine), streams[1].subset(mine)):
            runs = _kept(stream, find_runs(stream, config), core, (first < lo, last >= hi), config.max_period)
            if runs is None:
                return _WIDER
            found = _crossing_turns(stream, runs)
            loops[speaker, stream.name] = loop_findings(stream, found, transcript, table, config, speaker)
    return loops, best, built.keys[core[0] - lo:core[1] - lo]


def _kept(stream: Stream, runs, core, cut, max_period: int) -> object:
    """The runs that begin in the core's segments; None when the window may have cut
    one: it begins at the window's first token with text before the window, or a
    periodic stretch runs from the core to the window's last token with text after it
    (a run cut there may be too short to be found at all, so the tokens are compared)."""
    from .periodic import Runs
    first, stop = np.searchsorted(stream.owners, core)  # the core's texts among the stream's
    begin, end = int(stream.bounds[first]), int(stream.bounds[stop])
    keep = (runs.start >= begin) & (runs.start < end)
    cut_before, cut_after = cut
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


def _empty_table(transcript):
    """The segment table with its speech units still to fill, window by window."""
    from .table import DERIVED_END_FORMATS, SegmentTable
    cols = transcript.columns()
    n = len(cols.texts)
    # The columns' speaker list itself, read only: a tuple copy is 8 bytes a segment more.
    # Speech units as int32 (a segment has far fewer than 2**31): 4 bytes a segment less.
    return SegmentTable(cols.starts, cols.ends, cols.closed, np.zeros(n, dtype=np.int32), np.zeros(n, dtype=bool),
                        cols.speakers, cols.timed, transcript.format not in DERIVED_END_FORMATS)


def _fill_table(table, lo: int, built: Streams) -> None:
    """Speech units of the window's segments, as ``SegmentTable.build`` counts them."""
    from .table import unit_counts
    units, cjk = unit_counts(built)
    table.units[lo:lo + units.size] = units
    table.cjk[lo:lo + cjk.size] = cjk
