"""Timing that speech cannot produce: text too dense for its time, zero-length or
inverted segments, machine-regular durations, a tail cut at the token cap, and a
transcript that stops long before its audio does."""

from __future__ import annotations

import numpy as np

from ..model import Span, Transcript
from .config import DetectConfig
from .finding import Finding, Kind, Severity
from .highlight import word_timed
from .places import excerpt_of, span_of
from .table import SegmentTable


def _groups(mask: np.ndarray, min_len: int = 1, alone: bool = False):
    """(first, last) of each run of True in ``mask`` at least ``min_len`` long; with
    ``alone``, (i, i) for every True (utterances of a manifest: neighbours owe each other
    nothing, and each is judged as if alone)."""
    if alone:
        yield from ((i, i) for i in np.flatnonzero(mask).tolist())
        return
    padded = np.concatenate(([False], mask, [False])).astype(np.int8)
    edges = np.diff(padded)
    for a, b in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)):
        if b - a >= min_len:
            yield int(a), int(b - 1)


def _finding(kind, severity, transcript, table, first, last, score=1.0, evidence=()) -> Finding:
    return Finding(kind=kind, severity=severity, span=span_of(transcript, first, last), segments=(first, last),
                   speaker=table.speaker_of(first, last), count=last - first + 1,
                   excerpt=excerpt_of(transcript, first), score=score, evidence=evidence,
                   stream="timing", extent=(float(first), float(last + 1)))


def timing_findings(transcript: Transcript, table: SegmentTable, config: DetectConfig,
                    audio_duration: float | None, independent: bool = False) -> list[Finding]:
    """Timing findings; ``independent`` (one utterance per segment): one finding per
    utterance, never a run of neighbours, and no run of equal durations."""
    out = []
    if table.timed:
        out += _rates(transcript, table, config, independent)
        durations = table.end - table.start
        for first, last in _groups((durations == 0) & table.closed, alone=independent):
            out.append(_finding(Kind.ZERO_LENGTH, Severity.LOW, transcript, table, first, last))
        for first, last in _groups(durations < 0, alone=independent):
            out.append(_finding(Kind.INVERTED, Severity.MEDIUM, transcript, table, first, last))
        same = np.concatenate(([False], (np.abs(np.diff(durations)) <= config.uniform_tolerance) & (durations[1:] > 0)))
        for first, last in _groups(same if table.measured and not independent else same & False,
                                   config.uniform_duration_run - 1):
            out.append(_finding(Kind.UNIFORM_DURATIONS, Severity.LOW, transcript, table, first - 1, last))
    for first, last in _groups(~table.closed, alone=independent):
        out.append(_finding(Kind.UNCLOSED, Severity.MEDIUM, transcript, table, first, last, evidence=("unclosed",)))
    truncated = _truncation(transcript, table, config, audio_duration)
    return out + ([truncated] if truncated else [])


def _rates(transcript: Transcript, table: SegmentTable, config: DetectConfig, alone: bool = False) -> list[Finding]:
    seconds = np.maximum(table.end - table.start, config.rate_min_seconds)
    limits = np.where(table.cjk, config.max_cjk_rate, config.max_word_rate)
    ratio = table.units / seconds / limits
    dense = (ratio > 1.0) & (table.units >= config.rate_min_units) & table.closed
    if dense.any() and not alone:  # cues that time one word of the line they show are not too dense
        candidates = np.flatnonzero(dense)
        dense[candidates[word_timed(transcript.columns().texts, table, limits, config.rate_min_seconds,
                                    candidates)]] = False
    out = []
    for first, last in _groups(dense, alone=alone):
        worst = float(ratio[first:last + 1].max())
        out.append(_finding(Kind.RATE, Severity.HIGH if worst >= config.high_factor else Severity.MEDIUM, transcript, table, first, last,
                            score=worst, evidence=("dense",)))
    return out


def _truncation(transcript: Transcript, table: SegmentTable, config: DetectConfig,
                audio_duration: float | None) -> Finding | None:
    if not audio_duration or not table.timed or not len(transcript):
        return None
    last_end = float(np.nanmax(table.end))
    missing = audio_duration - last_end
    if missing <= max(config.truncation_seconds, config.truncation_share * audio_duration):
        return None
    n = len(transcript) - 1
    return Finding(kind=Kind.TRUNCATED, severity=Severity.MEDIUM, span=Span(last_end, audio_duration),
                   segments=(n, n), speaker=None, count=None,
                   excerpt=f"transcript ends at {last_end:.1f}s of {audio_duration:.1f}s of audio",
                   score=missing / max(config.truncation_seconds, 1e-9), evidence=("early_stop",),
                   stream="timing", extent=(float(n + 1), float(n + 1)))
