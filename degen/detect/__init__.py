"""Detection: a transcript in, findings and the seed's metrics out.

    streams (chars, words, punct; whole transcript and per speaker)
        └─ tandem repeats ─▶ loop findings ┐
    segment keys ─▶ segment cycles ─────────┤
    segment keys ─▶ lexicon automaton ──────┼─▶ de-duplicate ─▶ Analysis
    segment table ─▶ timing findings ───────┘

The segment table also supplies the timing evidence every verdict weighs (too dense, too
sparse, equal durations, 30 s windows, zero length, an unclosed tail). Utterance-per-line
transcripts (``meta["independent"]``) are judged one utterance at a time.
"""

from __future__ import annotations

import bisect
import itertools
import math
import zlib
from dataclasses import dataclass
from typing import Iterable, Iterator

from ..model import Transcript
from .config import DEFAULT, SEVERITIES, DetectConfig
from .finding import HALLUCINATION_KINDS, LOOP_KINDS, SEVERITY_RANK, TIMING_KINDS, Finding
from .echoes import echo_findings
from .hallucination import Lexicon, default_lexicon, hallucination_findings, lexicon_for, load_lexicon
from .loops import find_runs, loop_findings, max_repetition
from .segments import consecutive_repeats, segment_findings
from .table import SegmentTable
from .timing import timing_findings
import numpy as np

from .periodic import Runs
from .streams import build_streams
from .tokens import Stream
from . import windowed

__all__ = ["DetectConfig", "DEFAULT", "SEVERITIES", "Finding", "Analysis", "analyze",
           "LOOP_KINDS", "TIMING_KINDS", "HALLUCINATION_KINDS", "compression_ratio", "Lexicon", "load_lexicon", "lexicon_for"]


@dataclass(frozen=True)
class Analysis:
    findings: tuple[Finding, ...]
    segments: int
    consecutive_repeated_segments: int
    max_repetition_unit: str | None
    max_repetition: int
    max_compression_ratio: float
    segments_over_compression: int


def compression_ratio(text: str) -> float:
    """Whisper's signal: UTF-8 bytes over zlib-compressed bytes."""
    data = text.encode("utf-8")
    return len(data) / len(zlib.compress(data)) if data else 0.0


def analyze(transcript: Transcript, config: DetectConfig = DEFAULT,
            audio_duration: float | None = None, lexicon: Lexicon | None = None, *,
            ratios: bool = True) -> Analysis:
    """Find every loop, known hallucination and timing anomaly in ``transcript``.

    Args:
        transcript: what to judge. ``meta["independent"]`` (utterance-per-line files)
            makes each segment judged on its own.
        config: thresholds.
        audio_duration: seconds of audio, to catch a transcript that stops early.
        lexicon: known hallucinations; when None, the file ``config.lexicon_path`` names,
            else the packaged ``hallucinations.tsv``.
        ratios: False skips whisper's compression ratio (0.0 and no window over it in the
            result), for a caller that needs only the findings: it never flags.

    >>> from degen.formats import loads
    >>> a = analyze(loads("[0.0][S01]" + "的" * 40 + "[2.0]"))
    >>> [(f.kind, f.unit, f.count) for f in a.findings]
    [('char_loop', '的', 40)]
    """
    texts = transcript.columns().texts
    independent = bool(transcript.meta.get("independent"))
    by_window = windowed.stream_loops(transcript, config, independent)  # a large text
    if by_window is not None:
        loops, table, keys, (unit, count) = by_window
    else:
        built = build_streams(texts)
        streams = built.all()
        runs = [find_runs(s, config, independent) for s in streams]
        table = SegmentTable.build(transcript, built)
        loops = [f for s, r in zip(streams, runs) for f in loop_findings(s, r, transcript, table, config)]
        speakers = np.array([s or "" for s in table.speakers], dtype=object)
        for speaker in ([] if independent else _interleaved_speakers(table.speakers)):
            # A loop of one speaker may be interrupted by another's segments.
            mine = np.flatnonzero(speakers == speaker)
            for stream in (built.chars.subset(mine), built.words.subset(mine)):
                found = _crossing_turns(stream, find_runs(stream, config))
                loops += loop_findings(stream, found, transcript, table, config, speaker)
        keys = built.keys
        unit, count = max_repetition(streams, runs, transcript)
    if not independent:  # utterances: their runs were cut at their edges (find_runs), so each is its own
        loops += segment_findings(transcript, keys, table, config)
        loops += echo_findings(transcript, keys, table, config)
    loops += hallucination_findings(transcript, keys, table, config,
                                    lexicon_for(config) if lexicon is None else lexicon, independent)
    loops = _dedupe(loops)
    timing = timing_findings(transcript, table, config, None if independent else audio_duration, independent)
    timing = _absorbed(timing, loops)
    highest, over = _highest_and_over(window_ratios(table, texts, independent) if ratios else (),
                                      config.compression_ratio)
    findings = sorted(loops + timing, key=lambda f: (f.segments, -SEVERITY_RANK[f.severity]))
    return Analysis(tuple(findings), len(transcript), consecutive_repeats(keys), unit, count, highest, over)


WINDOW_SECONDS = 30.0  # whisper scores each 30 s decoding window, so do we


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


def _highest_and_over(ratios: Iterable[float], threshold: float) -> tuple[float, int]:
    """The highest ratio and how many exceed ``threshold``, in one pass (no list of a
    million utterances' ratios)."""
    highest, over = 0.0, 0
    for r in ratios:
        highest, over = max(highest, r), over + (r > threshold)
    return highest, over


RATIO_PIECE = 4096  # segments joined and encoded at a time for a window's compression ratio


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


def _interleaved_speakers(speakers: tuple[str | None, ...]) -> list[str]:
    """Speakers worth a stream of their own: only when turns alternate at all."""
    switches = (i for i in range(1, len(speakers)) if speakers[i] != speakers[i - 1])
    if next(switches, None) is None or next(switches, None) is None:  # stop at the second switch
        return []
    return [s for s in dict.fromkeys(speakers) if s is not None]


def _crossing_turns(stream: Stream, runs: Runs) -> Runs:
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


_STREAM_PREFERENCE = {"segments": 0, "lexicon": 1, "words": 2, "chars": 3, "punct": 4}


def _dedupe(findings: list[Finding]) -> list[Finding]:
    """One finding per place: where two overlap by half the shorter, keep the more
    severe one, then the one that covers more text, then the segment-level, lexicon,
    word-level, character-level one in that order (the most readable unit)."""
    ranked = sorted(findings, key=lambda f: (-SEVERITY_RANK[f.severity], -f.covered,
                                             _STREAM_PREFERENCE[f.stream]))
    kept: list[Finding] = []
    near: dict[int, list[Finding]] = {}  # kept findings of few steps, by the unit steps of the axis they touch
    wide: list[Finding] = []  # kept findings of many steps (few of them), asked every time
    for f in ranked:
        steps = _steps(f.extent)
        nearby = itertools.chain(wide, *(near.get(step, ()) for step in steps))
        if not any(_overlap(f.extent, k.extent) for k in nearby):
            kept.append(f)
            if len(steps) > WIDE_STEPS:
                wide.append(f)
            else:
                for step in steps:
                    near.setdefault(step, []).append(f)
    return kept


# A finding over more unit steps than this is not filed under each of them: a tail echo
# or a hallucinated whole file may cover a million segments.
WIDE_STEPS = 64


def _steps(extent: tuple[float, float]) -> range:
    """The unit steps [k, k + 1) of the axis that meet the open interval ``extent``: two
    extents that share any length share one of them (comparing every pair of findings was
    quadratic: 7 s for the 3,000 findings of a 100,000-line manifest)."""
    return range(math.floor(extent[0]), math.ceil(extent[1]))


def _overlap(a: tuple[float, float], b: tuple[float, float]) -> bool:
    shared = min(a[1], b[1]) - max(a[0], b[0])
    shorter = min(a[1] - a[0], b[1] - b[0])
    return shared > 0 and shared >= 0.5 * shorter


def _absorbed(timing: list[Finding], loops: list[Finding]) -> list[Finding]:
    """Drop timing findings that lie inside a loop: the loop carries them as evidence.
    A finding lies inside one when, of the loops that start at or before it, the one that
    ends last ends at or after it (one binary search each; asking every loop was
    quadratic in a transcript that loops throughout)."""
    spans = sorted(l.segments for l in loops)
    firsts = [first for first, _ in spans]
    reach = list(itertools.accumulate((last for _, last in spans), max))  # furthest end so far
    def inside(f: Finding) -> bool:
        k = bisect.bisect_right(firsts, f.segments[0])
        return k > 0 and reach[k - 1] >= f.segments[1]
    return [f for f in timing if not inside(f)]
