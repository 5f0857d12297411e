"""Token streams of a large transcript, built block by block of segments.

``tokens.build_streams`` turns the whole text into one array of uint32 code points plus
flags, masks and 8-byte positions: about 25 bytes a character at its peak, four times a
300 MB file. Here the same streams are built from blocks of whole segments (about
``BLOCK`` characters each), so only one block's code points and masks exist at a time;
the streams, keys and normalised text that come out are equal, array for array, to what
``tokens.build_streams`` gives (``tests/detect/test_memory_streams.py`` holds them to it).

A block ends just after a separator, so no token crosses it: words and stretches of
punctuation or other text stop at separators, and an apostrophe joins a word only between
two word characters. Two things are global and carried over: the numbering of the punct
stream's stretches of other text, and the word hash's exponent (``tokens._hash_runs``
aligns every word to one exponent fixed by the whole text's hash blocks).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..model import Packed, give_back_free_memory, lengths as text_lengths
from . import tokens
from .tokens import SEP, Stream, Streams

BLOCK = 1 << 20  # characters a block; a block's arrays take about 25 bytes a character
SMALLEST = 8 * BLOCK  # below this the whole-text build is used: its peak is small anyway


def build_streams(texts: list[str]) -> Streams | None:
    """The streams of ``texts`` built block by block, or None when the text is small or
    has grapheme clusters (the whole-text build handles those)."""
    if sum(text_lengths(texts)) < SMALLEST:
        return None
    norm, cuts = _normalized(texts)
    parts = [_block(norm[a:b], a, last=k + 2 == len(cuts)) for k, (a, b) in enumerate(zip(cuts, cuts[1:]))]
    if any(p is None for p in parts):
        return None
    return _assemble(norm, parts, len(texts))


def _segment_blocks(texts: list[str]):
    """(first, stop) segment indices of blocks of about ``BLOCK`` characters (one empty
    block for no text: the streams still need their arrays)."""
    yield from _tiles(texts, BLOCK, empty=True)


def _tiles(texts: list[str], chars: int, empty: bool = False):
    """(first, stop) segment ranges of about ``chars`` characters (separators counted),
    tiling the transcript in order."""
    first, size = 0, 0
    for i, length in enumerate(text_lengths(texts)):
        size += length + 1
        if size >= chars:
            yield first, i + 1
            first, size = i + 1, 0
    if first < len(texts) or (empty and not texts):
        yield first, len(texts)


def _normalized(texts: list[str]) -> tuple[str, list[int]]:
    """The normalised joined text, and where each block starts in it (plus its end).
    Normalising block by block gives the whole text's normalisation: the separator is a
    starter that composes with nothing, so NFKC never reaches across it, and case folding
    is per character."""
    pieces, cuts = [], [0]
    blocks = list(_segment_blocks(texts))
    for k, (i, j) in enumerate(blocks):
        block = SEP.join(texts[i:j])
        if block.count(SEP) != max(j - i - 1, 0):  # a text holds the separator itself
            block = SEP.join(t.replace(SEP, " ") for t in texts[i:j])
        piece = tokens.normalize(block + (SEP if k + 1 < len(blocks) else ""))
        pieces.append(piece)
        cuts.append(cuts[-1] + len(piece))
    return "".join(pieces), cuts


def _collect(name, ids, starts, ends, joiner):
    return ids, starts, ends


def _block(norm: str, offset: int, last: bool) -> dict | None:
    """One block's tokens, keys and separators, positions still local to the block."""
    codes = np.frombuffer(norm.encode("utf-32-le"), dtype=np.uint32)
    is_sep = codes == tokens._SEP
    flags = tokens.classify(codes)
    flags[is_sep] = 0
    if ((flags & (tokens.MARK | tokens.CLUSTER)) != 0).any():
        return None
    chars = tokens._chars(norm, codes, flags, _collect)
    punct = tokens._punct(codes, flags, is_sep, _collect)
    words = tokens._word_runs(codes, flags)  # hashed later, whole
    keys = _keys(codes, flags, is_sep, last)
    return {"offset": offset, "chars": chars, "punct": punct, "words": words, "keys": keys,
            "seps": np.flatnonzero(is_sep) + offset}


def _keys(codes, flags, is_sep, last: bool) -> list[str]:
    """The block's segment keys, as ``tokens.build_streams`` makes them."""
    if not last:  # the separator that ends the block starts no segment here
        codes, flags, is_sep = codes[:-1], flags[:-1], is_sep[:-1]
    return tokens._keys(codes, flags, is_sep)


class _Codes:
    """Code points of ``norm`` by slice, made when a slice is asked for."""

    def __init__(self, norm: str):
        self.norm = norm

    def __getitem__(self, where: slice) -> np.ndarray:
        return np.frombuffer(self.norm[where].encode("utf-32-le"), dtype=np.uint32)


def _assemble(norm: str, parts: list[dict], n: int) -> Streams:
    """The blocks' pieces laid end to end, one field at a time, each block's share of it
    dropped as soon as it is copied (holding every block's arrays and the joined ones at
    once would double the streams' memory)."""
    position = np.int32 if len(norm) < 2**31 - 1 else np.int64
    seps = _joined(parts, "seps")
    owners = np.arange(n, dtype=np.int64)

    def stream(name, ids, starts, ends, joiner):
        cuts = np.searchsorted(starts, seps.astype(starts.dtype))
        lengths = np.diff(np.concatenate(([0], cuts, [starts.size])))
        return Stream(name, ids, tokens._bounds(lengths), owners, norm, starts, ends, joiner)

    for p in parts:  # one field per key, positions made global
        offset = position(p["offset"])
        (p["chars_ids"], p["chars_starts"], _), p["chars"] = p["chars"], None
        (p["punct_ids"], p["punct_starts"], p["punct_ends"]), p["punct"] = p["punct"], None
        (p["word_starts"], p["word_ends"]), p["words"] = p["words"], None
        for key in ("chars_starts", "punct_starts", "punct_ends", "word_starts", "word_ends"):
            p[key] = (p[key] + offset).astype(position, copy=False)
    empty = parts[0]["chars_ids"]  # uint32 when no block has a character, as the whole build
    chars_ids = _joined([p for p in parts if p["chars_ids"].size], "chars_ids") if any(
        p["chars_ids"].size for p in parts) else empty
    chars = stream("chars", chars_ids, _joined(parts, "chars_starts"), None, "")
    word_starts, word_ends = _joined(parts, "word_starts"), _joined(parts, "word_ends")
    words = stream("words", tokens._hash_runs(_Codes(norm), word_starts, word_ends), word_starts, word_ends, " ")
    punct_ids = _punct_ids(parts)
    punct = stream("punct", punct_ids, _joined(parts, "punct_starts"), _joined(parts, "punct_ends"), "")
    keys = [k for p in parts for k in p.pop("keys")]
    return Streams(chars, words, punct, keys, chars.ids)


def _joined(parts: list[dict], key: str) -> np.ndarray:
    """The blocks' arrays under ``key`` as one, each block's dropped from ``parts``. The
    blocks' arrays came from the heap (each is small), and their pages go back to the
    system now: left free in the middle of the heap they would stay resident."""
    joined = np.concatenate([p.pop(key) for p in parts])
    give_back_free_memory()
    return joined


def _punct_ids(parts: list[dict]) -> np.ndarray:
    """The punct ids, each block's stretches of other text numbered on from the last
    block's (ids -1, -2, ... in order over the whole text)."""
    out, before = [], 0
    for p in parts:
        ids = p.pop("punct_ids")
        out.append(np.where(ids < 0, ids - before, ids))
        before += int((ids < 0).sum())
    return np.concatenate(out)


# ---------------------------------------------------------------------------------------
# Loop detection over windows of segments.
#
# The whole-text streams of a 300 MB transcript take about three times the file (code
# points, positions, ids, keys); a window of segments takes a few MB. Every stream loop
# comes from a maximal tandem repeat, which depends only on the tokens it covers and the
# one token on either side, so a window finds the same runs as the whole stream wherever
# a run neither begins at the window's first token nor ends at its last one. Each window
# keeps the runs that begin in its core (its own segments, the windows' cores tile the
# transcript) and is grown until none of those touches its edges; those runs, judged on
# the window's stream, are the whole stream's findings, in the same order.

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
    yield from _tiles(texts, WINDOW)


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
    built = tokens.build_streams(texts[lo:hi])
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
