"""A scan's result: findings plus the seed's metrics, and its JSON form (the terminal
table is ``present.text``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import orjson

from .detect import Analysis, Finding
from .detect.finding import Severity
from .formats.jsonl import line_number
from .model import Span, Transcript


class Repetition(int):
    """The largest repeat count inside one segment, with its unit: reads like the JSON's
    ``{"unit": ..., "count": ...}`` (``.unit``, ``.count``) and still compares as the
    count, as it did when it was a plain int.

    >>> r = Repetition("的", 102)
    >>> r.unit, r.count, r == 102
    ('的', 102, True)
    """

    unit: str | None

    def __new__(cls, unit: str | None, count: int) -> "Repetition":
        value = super().__new__(cls, count)
        value.unit = unit
        return value

    @property
    def count(self) -> int:
        return int(self)

    def __reduce__(self):
        # int's own pickling would call __new__ with the count alone; a report crosses
        # process boundaries in `degen scan --jobs`, so it must survive the trip.
        return (Repetition, (self.unit, int(self)))

    def to_dict(self) -> dict:
        return {"unit": self.unit, "count": self.count}

    def __repr__(self) -> str:
        return f"Repetition(unit={self.unit!r}, count={self.count})"

    def __str__(self) -> str:  # formats as the count, as the int did
        return str(self.count)

    __format__ = lambda self, spec: format(self.count, spec)  # noqa: E731


@dataclass(frozen=True, slots=True)
class Metrics:
    """The seed's three numbers and a few more.

    Attributes:
        segments: how many segments.
        consecutive_repeated_segments: segments whose normalised text equals the one
            just before (a run of n equal segments counts n-1).
        max_repetition: the unit with the largest repeat count inside any one segment's
            text, and that count (``.unit``, ``.count``; ``max_repetition_unit`` is the
            unit too).
        flagged_seconds: seconds covered by findings that make the transcript degenerate;
            of an utterance-per-line file (its clips each start at 0 s), the flagged
            utterances' own lengths added up.
        duration: the audio's length when known, else the transcript's last end time; of
            an utterance-per-line file, all its utterances' lengths added up.
        max_compression_ratio / windows_over_compression_ratio: whisper's zlib signal:
            the highest ratio, and how many windows are over whisper's 2.4, per 30 s
            window of text as whisper scores it (per segment without timing; per
            utterance in an utterance-per-line file). Named as in the JSON.
    """

    segments: int
    consecutive_repeated_segments: int
    max_repetition: Repetition
    flagged_seconds: float
    duration: float | None
    max_compression_ratio: float
    windows_over_compression_ratio: int

    @property
    def max_repetition_unit(self) -> str | None:
        return self.max_repetition.unit

    def to_dict(self) -> dict:
        return {
            "segments": self.segments,
            "consecutive_repeated_segments": self.consecutive_repeated_segments,
            "max_repetition": self.max_repetition.to_dict(),
            "flagged_seconds": round(self.flagged_seconds, 3),
            "duration": None if self.duration is None else round(self.duration, 3),
            "max_compression_ratio": round(self.max_compression_ratio, 2),
            "windows_over_compression_ratio": self.windows_over_compression_ratio,
        }


@dataclass(frozen=True, slots=True)
class Report:
    """What ``degen.scan`` returns.

    >>> import degen
    >>> r = degen.scan_text("[0.0][S01]" + "フ" * 170 + "[3.0]")
    >>> r.degenerate, r.metrics.max_repetition
    (True, Repetition(unit='フ', count=170))
    """

    source: str
    format: str
    findings: tuple[Finding, ...]
    metrics: Metrics
    fail_on: str = "medium"
    advice: tuple[str, ...] = field(default=())
    skipped_lines: int | None = None  # lines a reader skipped as not transcript (log output ...)
    # Of a manifest: for each finding, the line and audio_filepath of its utterance
    # (``utterance_places``); None for a transcript of one recording.
    places: tuple[dict, ...] | None = None
    independent: bool = False  # an utterance-per-line file: each segment its own recording

    @property
    def degenerate(self) -> bool:
        return any(f.at_least(self.fail_on) for f in self.findings)

    @property
    def flagged(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.at_least(self.fail_on))

    def to_dict(self) -> dict:
        doc = {"file": utf8_safe(self.source), "format": self.format, "degenerate": self.degenerate,
               "metrics": self.metrics.to_dict(), "findings": self._findings(),
               "advice": [utf8_safe(line) for line in self.advice]}
        if self.skipped_lines is not None:
            doc["skipped_lines"] = self.skipped_lines
        return doc

    def _findings(self) -> list[dict]:
        found = [f.to_dict() for f in self.findings]
        if self.places is not None:
            found = [{**doc, "line": where["line"], "audio_filepath": utf8_safe(where["audio_filepath"])
                      if where["audio_filepath"] is not None else None} for doc, where in zip(found, self.places)]
        return found

    def to_json(self) -> str:
        return orjson.dumps(self.to_dict()).decode()


def union_seconds(spans: list[Span]) -> float:
    total, cursor = 0.0, float("-inf")
    for span in sorted(spans):
        start = max(span.start, cursor)
        if span.end > start:
            total += span.end - start
        cursor = max(cursor, span.end)
    return total


def build_report(source: str, fmt: str, analysis: Analysis, duration: float | None, fail_on: str,
                 advice: tuple[str, ...] = (), skipped_lines: int | None = None,
                 utterance_seconds: Sequence[float] | None = None, independent: bool = False,
                 places: tuple[dict, ...] | None = None) -> Report:
    """The report of ``analysis``; ``utterance_seconds``: each segment's length, for an
    utterance-per-line file, whose flagged time is its flagged utterances' lengths (a
    union of spans that all start at 0 s would be the longest of them). ``independent``:
    each segment is its own recording, so two neighbours that say the same sentence are
    no repeated segment (``consecutive_repeated_segments`` counts within a recording)."""
    flagged = [f for f in analysis.findings if f.severity.rank >= Severity(fail_on).rank]
    if utterance_seconds is None:
        flagged_seconds = union_seconds([f.span for f in flagged if f.span is not None])
    else:
        indices = {i for f in flagged for i in range(f.segments[0], f.segments[1] + 1)}
        flagged_seconds = float(sum(utterance_seconds[i] for i in indices))
    worst = Repetition(analysis.max_repetition_unit, analysis.max_repetition)
    repeated = 0 if independent else analysis.consecutive_repeated_segments
    metrics = Metrics(analysis.segments, repeated, worst, flagged_seconds,
                      duration, analysis.max_compression_ratio, analysis.segments_over_compression)
    return Report(source, fmt, analysis.findings, metrics, fail_on, advice, skipped_lines, places, independent)


def utf8_safe(text: str) -> str:
    """A file name that is not UTF-8 (held as lone surrogates, which orjson refuses) with
    its odd bytes written \\xNN."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def utterance_places(transcript: Transcript, findings) -> tuple[dict, ...]:
    """Where each finding of a manifest is: ``{"line": N, "audio_filepath": PATH or None}``
    of the utterance it starts in (an utterance-per-line finding never spans two), so that
    a user can find the flagged row (a clip-relative time names no row: every utterance
    starts at 0 s)."""
    return tuple(_place(transcript, f.segments[0]) for f in findings)


def _place(transcript: Transcript, index: int) -> dict:
    item = transcript[index].extra.get("json")
    audio = item.get("audio_filepath") if isinstance(item, dict) else None
    return {"line": line_number(transcript, index), "audio_filepath": audio if isinstance(audio, str) else None}
