"""Loops of whole segments: the same (or nearly the same) text over consecutive
timestamps, and cycles A B C A B C of up to ``max_segment_period`` segments."""

from __future__ import annotations

import numpy as np

from ..model import Transcript
from .config import DetectConfig
from .finding import Finding
from .loops import _clip, _span
from .periodic import tandem_repeats
from .table import SegmentTable

NEAR_MIN_LENGTH = 4  # shorter texts differ too coarsely for a similarity ratio to mean much


def segment_ids(keys: list[str], near_ratio: float) -> np.ndarray:
    """An id per segment: equal keys share one, and so does a key nearly equal to the
    one just before it (a loop that drifts by a character stays one loop)."""
    # 64-bit string hashes as ids: equal keys, equal ids (distinct keys collide with
    # negligible probability); an empty segment repeats nothing, so it gets its own id.
    exact = np.fromiter(map(hash, keys), dtype=np.int64, count=len(keys))
    lengths = np.array(list(map(len, keys)), dtype=np.int64)
    empty = np.flatnonzero(lengths == 0)
    exact[empty] = np.iinfo(np.int64).min + empty
    if len(keys) < 2:
        return exact
    cutoff = 1.0 - near_ratio / 100.0
    # Only pairs long enough and of similar length can be near-equal; score those in one call.
    pairs = np.flatnonzero((exact[1:] != exact[:-1]) & (np.minimum(lengths[1:], lengths[:-1]) >= NEAR_MIN_LENGTH)
                           & (np.abs(lengths[1:] - lengths[:-1]) <= cutoff * (lengths[1:] + lengths[:-1])))
    near = np.zeros(len(keys), dtype=bool)
    if pairs.size:
        from rapidfuzz.distance import Indel  # imported here: most scans never compare two segments
        from rapidfuzz.process import cpdist
        dist = cpdist([keys[i] for i in pairs.tolist()], [keys[i + 1] for i in pairs.tolist()],
                      scorer=Indel.normalized_distance, workers=1)
        near[pairs[dist <= cutoff] + 1] = True
    ids = exact.copy()
    for i in np.flatnonzero(near).tolist():  # chain: a drifting loop keeps its first id
        ids[i] = ids[i - 1]
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
