"""A scan's result: findings plus the seed's metrics, as JSON or as a terminal table."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import orjson

from .detect import Analysis, Finding
from .detect.finding import SEVERITY_RANK
from .model import Span
from .terminal import pad, plural, safe, seconds, shorten


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
        max_compression_ratio / segments_over_compression: whisper's zlib signal, per
            30 s window of text as whisper scores it (per segment without timing).
    """

    segments: int
    consecutive_repeated_segments: int
    max_repetition: Repetition
    flagged_seconds: float
    duration: float | None
    max_compression_ratio: float
    segments_over_compression: int

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
            "windows_over_compression_ratio": self.segments_over_compression,
        }


@dataclass(frozen=True, slots=True)
class Report:
    """What ``degen.scan`` returns.

    >>> import degen
    >>> r = degen.scan("[0.0][S01]" + "フ" * 170 + "[3.0]")
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

    @property
    def degenerate(self) -> bool:
        return any(f.at_least(self.fail_on) for f in self.findings)

    @property
    def flagged(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.at_least(self.fail_on))

    def to_dict(self) -> dict:
        doc = {"file": utf8_safe(self.source), "format": self.format, "degenerate": self.degenerate,
               "metrics": self.metrics.to_dict(), "findings": [f.to_dict() for f in self.findings],
               "advice": [utf8_safe(line) for line in self.advice]}
        if self.skipped_lines is not None:
            doc["skipped_lines"] = self.skipped_lines
        return doc

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
                 utterance_seconds: Sequence[float] | None = None) -> Report:
    """The report of ``analysis``; ``utterance_seconds``: each segment's length, for an
    utterance-per-line file, whose flagged time is its flagged utterances' lengths (a
    union of spans that all start at 0 s would be the longest of them)."""
    flagged = [f for f in analysis.findings if SEVERITY_RANK[f.severity] >= SEVERITY_RANK[fail_on]]
    if utterance_seconds is None:
        flagged_seconds = union_seconds([f.span for f in flagged if f.span is not None])
    else:
        indices = {i for f in flagged for i in range(f.segments[0], f.segments[1] + 1)}
        flagged_seconds = float(sum(utterance_seconds[i] for i in indices))
    worst = Repetition(analysis.max_repetition_unit, analysis.max_repetition)
    metrics = Metrics(analysis.segments, analysis.consecutive_repeated_segments, worst, flagged_seconds,
                      duration, analysis.max_compression_ratio, analysis.segments_over_compression)
    return Report(source, fmt, analysis.findings, metrics, fail_on, advice, skipped_lines)


CLOCK_LIMIT = 1e7  # seconds (~115 days): beyond any recording, shown as a plain number


def clock(value: float | None) -> str:
    """``mm:ss.s`` or ``h:mm:ss.s``; a time no recording has (inf, NaN, a corrupt
    309-digit stamp) as a short number instead of a 300-digit clock."""
    if value is None:
        return "--:--"
    if not math.isfinite(value) or abs(value) >= CLOCK_LIMIT:
        return f"{seconds(value)}s"
    minutes, secs = divmod(max(0.0, value), 60)
    hours, minutes = divmod(int(minutes), 60)
    return f"{hours}:{minutes:02d}:{secs:04.1f}" if hours else f"{minutes:02d}:{secs:04.1f}"


def summary_line(report: Report) -> str:
    """The one-line verdict (control characters in names escaped)."""
    m = report.metrics
    worst = f"{safe(m.max_repetition_unit)} x{m.max_repetition}" if m.max_repetition_unit else "none"
    verdict = "DEGENERATE" if report.degenerate else "clean"
    duration = f" of {seconds(m.duration)}s" if m.duration else ""
    skipped = f", {plural(report.skipped_lines, 'line')} skipped as not transcript" if report.skipped_lines else ""
    return (f"{safe(report.source)} [{report.format}] {verdict}: segments {m.segments}, consecutive repeated "
            f"segments {m.consecutive_repeated_segments}, worst repetition: {worst}, "
            f"flagged {seconds(m.flagged_seconds)}s{duration}, {plural(len(report.findings), 'finding')}{skipped}")


_COLORS = {"high": "red", "medium": "yellow", "low": "cyan"}


def render_text(report: Report, style=lambda text, **kw: text, quiet: bool = False, verbose: bool = False) -> str:
    """The human report; ``style`` is click.style on a colour terminal. Columns are
    padded by display width (a CJK character takes two columns); text from the
    transcript is escaped. ``quiet`` gives the verdict line only; ``verbose`` adds each
    finding's segments, score and evidence."""
    lines = [style(summary_line(report), bold=True, fg="red" if report.degenerate else "green")]
    if quiet:
        return lines[0]
    if report.findings:
        lines.append(f"  {'TIME':<19} {'SPEAKER':<8} {'SEVERITY':<8} {'KIND':<17} {'UNIT x COUNT':<24} EXCERPT")
    for f in report.findings:
        when = "-" if f.span is None else f"{clock(f.span.start)}-{clock(f.span.end)}"
        what = f"{_short(f.unit, 18)} x{f.count}" if f.unit else (f"x{f.count}" if f.count else "")
        row = (f"  {pad(when, 19)} {pad(_short(f.speaker or '-', 8), 8)} {f.severity:<8} {f.kind:<17} "
               f"{pad(what, 24)} {_short(f.excerpt, 48)}")
        lines.append(style(row, fg=_COLORS[f.severity]))
        if verbose:
            lines.append(f"      segments {f.segments[0]}-{f.segments[1]}, stream {f.stream or '-'}, score "
                         f"{f.score:.2f}, evidence: {', '.join(f.evidence) or 'none'}")
    lines.extend(f"  advice: {safe(a)}" for a in report.advice)
    return "\n".join(lines)


def _short(text: str | None, columns: int) -> str:
    return shorten(safe(" ".join((text or "").split())), columns)


def utf8_safe(text: str) -> str:
    """A file name that is not UTF-8 (held as lone surrogates, which orjson refuses) with
    its odd bytes written \\xNN."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
