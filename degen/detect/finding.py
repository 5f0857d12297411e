"""The result of detection: one typed value per problem found."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..model import Span

LOOP_KINDS = ("char_loop", "phrase_loop", "segment_loop")
HALLUCINATION_KINDS = ("hallucination",)
TIMING_KINDS = ("rate", "zero_length", "inverted", "uniform_durations", "unclosed", "truncated", "untranscribed")
SEVERITY_RANK = {"low": 1, "medium": 2, "high": 3}


@dataclass(frozen=True, slots=True)
class Finding:
    """One loop or timing anomaly.

    Attributes:
        kind: one of LOOP_KINDS, HALLUCINATION_KINDS or TIMING_KINDS.
        severity: "low", "medium" or "high".
        span: time in seconds covered, or None without timing.
        segments: (first, last) segment indices, inclusive.
        speaker: the speaker of those segments ("S01+S02" when several), or None.
        unit: the repeating unit as it reads in the transcript (loops only).
        period: the unit's length in tokens of its stream (loops only).
        count: whole copies of the unit (loops), or segments involved (timing).
        excerpt: a short piece of the text where it happens.
        score: how far past its threshold (1.0 = at the threshold).
        evidence: independent signals that back the verdict ("dense", "unclosed" ...).
        stream: where it was found ("chars", "words", "punct", "segments", "timing").
        extent: position on a shared axis (segment index + fraction) for de-duplication.
        covered: graphemes of text the finding covers, to rank overlapping findings.
    """

    kind: str
    severity: str
    span: Span | None
    segments: tuple[int, int]
    speaker: str | None = None
    unit: str | None = None
    period: int | None = None
    count: int | None = None
    excerpt: str = ""
    score: float = 1.0
    evidence: tuple[str, ...] = ()
    stream: str = ""
    extent: tuple[float, float] = field(default=(0.0, 0.0), compare=False)
    covered: int = field(default=0, compare=False)

    @property
    def is_loop(self) -> bool:
        return self.kind in LOOP_KINDS

    def at_least(self, severity: str) -> bool:
        return SEVERITY_RANK[self.severity] >= SEVERITY_RANK[severity]

    def to_dict(self) -> dict:
        return {
            "kind": self.kind,
            "start": None if self.span is None else round(self.span.start, 3),
            "end": None if self.span is None else round(self.span.end, 3),
            "speaker": self.speaker,
            "unit": self.unit,
            "period": self.period,
            "count": self.count,
            "segments": list(self.segments),
            "severity": self.severity,
            "score": round(self.score, 2),
            "evidence": list(self.evidence),
            "excerpt": self.excerpt,
        }
