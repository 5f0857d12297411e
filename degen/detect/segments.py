"""Loops of whole segments: the same (or nearly the same) text over consecutive
timestamps, and cycles A B C A B C of up to ``max_segment_period`` segments."""

from __future__ import annotations

import math
from itertools import pairwise

import numpy as np

from ..model import Transcript, lengths as key_lengths
from .config import DetectConfig
from .finding import Finding, Kind, Severity
from .highlight import sayings
from .places import excerpt_of, span_of, text_of
from .periodic import tandem_repeats
from .table import SegmentTable

NEAR_MIN_LENGTH = 4  # shorter texts differ too coarsely for a similarity ratio to mean much
FEW_PAIRS = 64  # up to this many pairs to score, a set test first may spare loading rapidfuzz
ROUNDING = 1e-9  # slack for a ratio computed two ways (ours and rapidfuzz's one minus a similarity)


def segment_ids(keys: list[str], near_ratio: float) -> np.ndarray:
    """An id per segment: equal keys share one, and so does a key nearly equal to the
    one just before it (a loop that drifts by a character stays one loop)."""
    # 64-bit string hashes as ids: equal keys, equal ids (distinct keys collide with
    # negligible probability); an empty segment repeats nothing, so it gets its own id.
    exact = np.fromiter(map(hash, keys), dtype=np.int64, count=len(keys))
    lengths = np.fromiter(key_lengths(keys), dtype=np.int64, count=len(keys))
    empty = np.flatnonzero(lengths == 0)
    exact[empty] = np.iinfo(np.int64).min + empty
    if len(keys) < 2:
        return exact
    cutoff = 1.0 - near_ratio / 100.0
    # Only pairs long enough and of similar length can be near-equal; score those in one call.
    pairs = np.flatnonzero((exact[1:] != exact[:-1]) & (np.minimum(lengths[1:], lengths[:-1]) >= NEAR_MIN_LENGTH)
                           & (np.abs(lengths[1:] - lengths[:-1]) <= cutoff * (lengths[1:] + lengths[:-1])))
    if pairs.size <= FEW_PAIRS:  # a short transcript: keep only the pairs the bound below allows
        pairs = np.array([i for i in pairs.tolist() if _may_be_near(keys[i], keys[i + 1], cutoff)], dtype=np.int64)
    near = np.zeros(len(keys), dtype=bool)
    near[_near_pairs(keys, pairs, cutoff) + 1] = True
    ids = exact.copy()
    for i in np.flatnonzero(near).tolist():  # chain: a drifting loop keeps its first id
        ids[i] = ids[i - 1]
    return ids


PAIR_BLOCK = 1 << 14  # pairs scored at a time: the keys of a large transcript may be made when read


def _near_pairs(keys: list[str], pairs: np.ndarray, cutoff: float) -> np.ndarray:
    """Those of ``pairs`` (i for keys i and i + 1) within ``cutoff`` normalised Indel
    distance, scored a block at a time (a packed column makes a str per key read)."""
    if not pairs.size:
        return pairs
    from rapidfuzz.distance import Indel  # imported here: most scans never compare two segments
    from rapidfuzz.process import cpdist
    near = []
    for first in range(0, pairs.size, PAIR_BLOCK):
        block = pairs[first:first + PAIR_BLOCK]
        dist = cpdist([keys[i] for i in block.tolist()], [keys[i + 1] for i in block.tolist()],
                      scorer=Indel.normalized_distance, workers=1)
        near.append(block[dist <= cutoff])
    return np.concatenate(near)


def _may_be_near(a: str, b: str, cutoff: float) -> bool:
    """False when ``a`` and ``b`` cannot be within ``cutoff`` normalised Indel distance:
    each character one has and the other lacks costs an insertion or a deletion of its
    own, so it is a lower bound. Exact, and enough to leave rapidfuzz (~12 ms to import)
    unloaded when a short transcript's segments all differ. The slack is for rounding: at
    the cutoff itself rapidfuzz's figure (one minus a similarity) may round below ours."""
    return len(set(a) ^ set(b)) / (len(a) + len(b)) <= cutoff + ROUNDING


def consecutive_repeats(keys: list[str]) -> int:
    """Segments whose key equals the one just before (a run of n counts n-1)."""
    return sum(1 for a, b in pairwise(keys) if b and a == b)  # no copy of the keys (a slice would be one)


def segment_findings(transcript: Transcript, keys: list[str], table: SegmentTable,
                     config: DetectConfig) -> list[Finding]:
    """Runs of repeated segments and cycles of up to ``max_segment_period`` segments.

    Many copies are a loop on count alone. Few copies (from ``min_repeats_long``) of a
    long unit are a loop only when the timing says machine: equal durations, whole 30 s
    windows, zero length, text too dense or too sparse for its time. A phrase that
    bounces between speakers is judged the same way: drills and read-backs carry their
    own plausible timing, a decoder's alternation does not.
    """
    ids = segment_ids(keys, config.near_duplicate_ratio)
    runs = tandem_repeats(ids, config.max_segment_period, 2)
    # Fewer copies than every branch of _verdict asks for is never a finding: skip those
    # (most runs are a short line said twice) before reading any evidence.
    fewest = min(config.min_segment_repeats, config.min_repeats, config.min_repeats_evidence,
                 config.min_repeats_long)
    keep = runs.count >= fewest
    out = []
    for start, period, count in zip(runs.start[keep].tolist(), runs.period[keep].tolist(), runs.count[keep].tolist()):
        first, last = start, start + period * count - 1
        if period == 1 and _said_fewer(transcript, first, last, fewest):
            continue  # one line shown word by word (highlight.py), not said again
        verdict = _verdict(keys, table, config, first, last, period, count)
        if verdict is None:
            continue
        severity, score, evidence = verdict
        unit = " | ".join(excerpt_of(transcript, i) for i in range(first, first + period))
        out.append(Finding(
            kind=Kind.SEGMENT_LOOP, severity=severity,
            span=span_of(transcript, first, last), segments=(first, last),
            speaker=table.speaker_of(first, last), unit=unit, period=period, count=count,
            excerpt=excerpt_of(transcript, first), score=score, evidence=evidence,
            stream="segments", extent=(float(first), float(last + 1)),
            covered=sum(len(keys[i]) for i in range(first, last + 1)),
        ))
    return out


def _said_fewer(transcript: Transcript, first: int, last: int, fewest: int) -> bool:
    """Equal segments first..last are cues showing one line word by word, and say it fewer
    than ``fewest`` times."""
    said = sayings([text_of(transcript, i) for i in range(first, last + 1)])
    return said is not None and len(said) < fewest


def _copies_alike(table: SegmentTable, config: DetectConfig, first: int, period: int, count: int) -> bool:
    """Most copies timed alike, segment by segment, to the timestamp rounding, in one
    unbroken stretch of at least ``min_repeats_long``: a decoder replaying itself (the
    copy where the loop begins may differ). People never repeat themselves that exactly,
    and a few coinciding durations scattered through a drill are not a stretch."""
    if not table.timed or not table.measured or count < config.min_repeats_long:
        return False
    stop = first + period * count
    durations = (table.end[first:stop] - table.start[first:stop]).reshape(count, period)  # the slice only
    if (durations <= 0).any():
        return False
    same = (np.abs(np.diff(durations, axis=0)) <= config.uniform_tolerance).all(axis=1)
    longest, run = 1, 1
    for alike in same.tolist():
        run = run + 1 if alike else 1
        longest = max(longest, run)
    return longest >= max(config.min_repeats_long, math.ceil(config.alike_share * count))


def _verdict(keys, table: SegmentTable, config: DetectConfig, first: int, last: int, period: int,
             count: int) -> tuple[Severity, float, tuple[str, ...]] | None:
    """(severity, score, evidence) of a run of ``count`` copies of ``period`` segments."""
    speakers = table.speakers[first:last + 1]
    one_speaker = len(set(speakers)) == 1
    alternating = period == 1 and not one_speaker
    threshold = config.min_segment_repeats if period == 1 and one_speaker else config.min_repeats
    if alternating:  # spread over turns: a drill or a read-back, unless timing says otherwise
        threshold *= config.turns_factor
    cjk = bool(table.cjk[first:first + period].any())
    long_unit = int(table.units[first:first + period].sum()) >= (config.long_unit_cjk if cjk else config.long_unit)
    evidence = table.evidence(first, last, config, uniform_min=config.min_repeats_long)
    if "uniform" not in evidence and _copies_alike(table, config, first, period, count):
        evidence += ("uniform",)
    if alternating:
        evidence += ("speaker_alternation",)
    machine = [e for e in evidence if e != "speaker_alternation"]
    if count >= threshold:
        severe = count >= config.high_factor * threshold or bool(machine)
        return (Severity.HIGH if severe else Severity.MEDIUM), count / threshold, evidence
    if machine and count >= config.min_repeats_evidence:
        return (Severity.HIGH if len(machine) > 1 else Severity.MEDIUM), count / config.min_repeats_evidence, evidence
    if machine and long_unit and count >= config.min_repeats_long:
        return (Severity.HIGH if len(machine) > 1 else Severity.MEDIUM), count / config.min_repeats_long, evidence
    if not table.timed and long_unit and one_speaker and count >= config.min_repeats_evidence:
        # Plain text: no timing to ask, and nobody says a whole long line 4 times running.
        return Severity.MEDIUM, count / config.min_repeats_evidence, evidence + ("untimed",)
    return None  # a repeated line with speech's own timing: a chorus, a read-back
