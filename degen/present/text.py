"""The scan report as a person reads it: a one-line verdict and a table of findings."""

from __future__ import annotations

import math

from ..detect.finding import Severity
from ..report import Report
from .terminal import pad, plural, safe, seconds, shorten


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


_COLORS = {Severity.HIGH: "red", Severity.MEDIUM: "yellow", Severity.LOW: "cyan"}


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
