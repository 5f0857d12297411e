"""Values the rest of degen passes around: Span, Segment, Transcript.

All are frozen. Queries return new objects; nothing is mutated in place. Only the
standard library is imported here.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Mapping


@dataclass(frozen=True, slots=True, order=True)
class Span:
    """A stretch of time in seconds, ``start <= end`` expected but not enforced.

    A degenerate model can write an end before its start; readers keep such a value so
    that the timing detector can report it instead of the reader refusing the file.

    >>> Span(1.0, 3.0) | Span(2.0, 5.0)
    Span(start=1.0, end=5.0)
    >>> bool(Span(2.0, 2.0))
    False
    """

    start: float
    end: float

    @property
    def duration(self) -> float:
        return max(0.0, self.end - self.start)

    def __bool__(self) -> bool:
        return self.end > self.start

    def overlap(self, other: "Span") -> float:
        """Seconds shared with ``other`` (0 when disjoint)."""
        return max(0.0, min(self.end, other.end) - max(self.start, other.start))

    def __or__(self, other: "Span") -> "Span":
        return Span(min(self.start, other.start), max(self.end, other.end))

    def __and__(self, other: "Span") -> "Span":
        start, end = max(self.start, other.start), min(self.end, other.end)
        return Span(start, max(start, end))

    def contains(self, t: float) -> bool:
        return self.start <= t <= self.end

    def shift(self, offset: float) -> "Span":
        return Span(self.start + offset, self.end + offset)

    def clamp(self, outer: "Span") -> "Span":
        start = min(max(self.start, outer.start), outer.end)
        end = min(max(self.end, start), outer.end)
        return Span(start, end)


@dataclass(frozen=True, slots=True)
class Segment:
    """One stretch of text, with its time and speaker when the format has them.

    Attributes:
        span: time in seconds, or None for formats without timing (plain text).
        speaker: a label such as ``"S01"``, or None.
        text: the body, without speaker tag or timestamps.
        closed: False for a MOSS segment whose closing timestamp never came (the
            output hit its token cap); such a tail is where the worst loops live.
        extra: whatever else the reader found for this segment (unknown JSON fields,
            cue settings); writers put it back. Treat as read-only.
    """

    span: Span | None
    speaker: str | None
    text: str
    closed: bool = True
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def start(self) -> float | None:
        return self.span.start if self.span is not None else None

    @property
    def end(self) -> float | None:
        return self.span.end if self.span is not None else None

    def with_(self, **changes: Any) -> "Segment":
        return replace(self, **changes)


@dataclass(frozen=True, slots=True)
class Transcript:
    """An ordered tuple of segments plus what a faithful write-back needs.

    Attributes:
        segments: in reading order.
        format: the registry name of the format it was read from (``"moss"``, ``"srt"`` ...).
        meta: format-specific data kept for writing back (top-level JSON fields, the
            original raw text). Treat as read-only.
    """

    segments: tuple[Segment, ...]
    format: str = "text"
    meta: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def __len__(self) -> int:
        return len(self.segments)

    def __iter__(self):
        return iter(self.segments)

    def __getitem__(self, index):
        return self.segments[index]

    @property
    def timed(self) -> bool:
        """True when every segment has a time span."""
        return bool(self.segments) and all(s.span is not None for s in self.segments)

    @property
    def end(self) -> float | None:
        """The latest end time, or None without timing."""
        ends = [s.span.end for s in self.segments if s.span is not None]
        return max(ends) if ends else None

    @property
    def speakers(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for s in self.segments:
            if s.speaker is not None:
                seen.setdefault(s.speaker, None)
        return tuple(seen)

    @property
    def text(self) -> str:
        return "".join(s.text for s in self.segments)

    def with_segments(self, segments: Iterable[Segment]) -> "Transcript":
        return replace(self, segments=tuple(segments))
