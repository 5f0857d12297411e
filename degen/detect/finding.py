"""The result of detection: one typed value per problem found, named in a typed vocabulary."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from ..model import Span


class _Word(StrEnum):
    """A word of the findings' vocabulary: a str that is equal to, hashes, formats,
    serialises (json, orjson) and shows (repr) as the string it stands for, so findings,
    reports and anything that held the plain strings read as before."""

    def __repr__(self) -> str:
        return repr(self._value_)


class Severity(_Word):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"

    @property
    def rank(self) -> int:
        """1, 2, 3 from low to high (members compare as strings, where "high" < "low")."""
        return _RANK[self]


_RANK = {Severity.LOW: 1, Severity.MEDIUM: 2, Severity.HIGH: 3}


class Kind(_Word):
    CHAR_LOOP = "char_loop"
    PHRASE_LOOP = "phrase_loop"
    SEGMENT_LOOP = "segment_loop"
    HALLUCINATION = "hallucination"
    RATE = "rate"
    ZERO_LENGTH = "zero_length"
    INVERTED = "inverted"
    UNIFORM_DURATIONS = "uniform_durations"
    UNCLOSED = "unclosed"
    TRUNCATED = "truncated"
    UNTRANSCRIBED = "untranscribed"

    @property
    def is_loop(self) -> bool:
        return self in LOOP_KINDS

    @property
    def is_timing(self) -> bool:
        return self in TIMING_KINDS


LOOP_KINDS = (Kind.CHAR_LOOP, Kind.PHRASE_LOOP, Kind.SEGMENT_LOOP)
HALLUCINATION_KINDS = (Kind.HALLUCINATION,)
TIMING_KINDS = (Kind.RATE, Kind.ZERO_LENGTH, Kind.INVERTED, Kind.UNIFORM_DURATIONS, Kind.UNCLOSED, Kind.TRUNCATED,
                Kind.UNTRANSCRIBED)


@dataclass(frozen=True, slots=True)
class Finding:
    """One loop or timing anomaly.

    Attributes:
        kind: a ``Kind`` (one of LOOP_KINDS, HALLUCINATION_KINDS or TIMING_KINDS).
        severity: a ``Severity``. Either may be given as its string.
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

    kind: Kind
    severity: Severity
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

    def __post_init__(self):
        if type(self.kind) is not Kind:  # given as its string
            object.__setattr__(self, "kind", Kind(self.kind))
        if type(self.severity) is not Severity:
            object.__setattr__(self, "severity", Severity(self.severity))

    @property
    def is_loop(self) -> bool:
        return self.kind.is_loop

    def at_least(self, severity: str) -> bool:
        return self.severity.rank >= Severity(severity).rank

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
