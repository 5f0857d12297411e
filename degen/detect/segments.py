"""Loops of whole segments: the same (or nearly the same) text over consecutive
timestamps, and cycles A B C A B C of up to ``max_segment_period`` segments."""

from __future__ import annotations

import numpy as np
from rapidfuzz.distance import Indel

from ..model import Transcript
from .config import DetectConfig
from .finding import Finding
from .loops import _clip, _span
from .periodic import tandem_repeats
from .table import SegmentTable
from .tokens import segment_key

NEAR_MIN_LENGTH = 4  # shorter texts differ too coarsely for a similarity ratio to mean much


def segment_ids(keys: list[str], near_ratio: float) -> np.ndarray:
    """An id per segment: equal keys share one, and so does a key nearly equal to the
    one just before it (a loop that drifts by a character stays one loop)."""
    vocab: dict[str, int] = {}
    ids = np.empty(len(keys), dtype=np.int64)
    cutoff = 1.0 - near_ratio / 100.0
    for i, key in enumerate(keys):
        if not key:
            ids[i] = -1 - i  # an empty segment repeats nothing
            continue
        prev = keys[i - 1] if i else ""
        if (prev and key != prev and min(len(key), len(prev)) >= NEAR_MIN_LENGTH
                and Indel.normalized_distance(key, prev, score_cutoff=cutoff) <= cutoff):
            ids[i] = ids[i - 1]
        else:
            ids[i] = vocab.setdefault(key, len(vocab))
    return ids


def consecutive_repeats(keys: list[str]) -> int:
    """Segments whose key equals the one just before (a run of n counts n-1)."""
    return sum(1 for a, b in zip(keys, keys[1:]) if b and a == b)


def segment_findings(transcript: Transcript, keys: list[str], table: SegmentTable,
                     config: DetectConfig) -> list[Finding]:
    ids = segment_ids(keys, config.near_duplicate_ratio)
    runs = tandem_repeats(ids, config.max_segment_period, config.min_repeats_evidence)
    out = []
    for start, period, count in zip(runs.start.tolist(), runs.period.tolist(), runs.count.tolist()):
        first, last = start, start + period * count - 1
        one_speaker = len({table.speakers[i] for i in range(first, last + 1)}) == 1
        threshold = config.min_segment_repeats if period == 1 and one_speaker else config.min_repeats
        evidence = table.evidence(first, last, config)
        if count < threshold and not evidence:
            continue
        score = count / threshold if count >= threshold else count / config.min_repeats_evidence
        severe = count >= 2 * threshold or (count >= threshold and evidence)
        unit = " | ".join(_clip(transcript[i].text) for i in range(first, first + period))
        out.append(Finding(
            kind="segment_loop", severity="high" if severe else "medium",
            span=_span(transcript, first, last), segments=(first, last),
            speaker=table.speaker_of(first, last), unit=unit, period=period, count=count,
            excerpt=_clip(transcript[first].text), score=score, evidence=evidence,
            stream="segments", extent=(float(first), float(last + 1)),
            covered=sum(len(keys[i]) for i in range(first, last + 1)),
        ))
    return out
