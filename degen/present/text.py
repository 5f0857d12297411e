"""The scan report as a person reads it: a one-line verdict, a table of the findings that
count (those at or above ``--fail-on``) and the advice, fitted to the terminal's width:
excerpts, units and audio paths are cut, rows are never wrapped.
"""

from __future__ import annotations

import math

from ..detect.finding import Severity
from ..report import Report
from .terminal import clip, pad, plural, safe, seconds, shorten, width as text_width, wrap


CLOCK_LIMIT = 1e7  # seconds (~115 days): beyond any recording, shown as a plain number

# Without a terminal width (the library's render_text), columns are as wide as this at most.
NATURAL = {"UNIT x COUNT": 24, "EXCERPT": 48, "AUDIO": 40}
# How far each cut column may shrink before the next one is cut, in the order they give way
# (then the excerpt goes entirely): an excerpt of 16 columns still shows a loop's unit
# several times; a unit of 10 its first word or three CJK characters and its count.
SHRINK = (("EXCERPT", 16), ("AUDIO", 16), ("UNIT x COUNT", 10), ("EXCERPT", 0), ("AUDIO", 8))
INDENT = "  "


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
    """The one-line verdict (control characters in names escaped). The finding count is
    of the findings at or above ``fail_on``; those below are counted apart."""
    m = report.metrics
    worst = f"{safe(m.max_repetition_unit)} x{m.max_repetition}" if m.max_repetition_unit else "none"
    verdict = "DEGENERATE" if report.degenerate else "clean"
    duration = f" of {seconds(m.duration)}s" if m.duration else ""
    skipped = f", {plural(report.skipped_lines, 'line')} skipped as not transcript" if report.skipped_lines else ""
    # An utterance-per-line file: each line its own recording, so no two lines repeat one another.
    counts = (f"utterances {m.segments}" if report.independent else
              f"segments {m.segments}, consecutive repeated segments {m.consecutive_repeated_segments}")
    below = len(report.findings) - len(report.flagged)
    hidden = f" ({below} below --fail-on {report.fail_on})" if below else ""
    return (f"{safe(report.source)} [{report.format}] {verdict}: {counts}, worst repetition: {worst}, "
            f"flagged {seconds(m.flagged_seconds)}s{duration}, {plural(len(report.flagged), 'finding')}{hidden}"
            f"{skipped}")


_COLORS = {Severity.HIGH: "red", Severity.MEDIUM: "yellow", Severity.LOW: "cyan"}


def render_text(report: Report, style=lambda text, **kw: text, quiet: bool = False, verbose: bool = False,
                width: int | None = None) -> str:
    """The human report; ``style`` is click.style on a colour terminal. Columns are
    padded by display width (a CJK character takes two columns); text from the
    transcript is escaped. ``quiet`` gives the verdict line only; ``verbose`` adds each
    finding's segments, score and evidence; ``width``: the terminal's columns, which no
    table row, advice or detail line exceeds (None: natural widths)."""
    lines = [style(summary_line(report), bold=True, fg="red" if report.degenerate else "green")]
    if quiet:
        return lines[0]
    shown = report.flagged
    places = dict(zip(map(id, report.findings), report.places)) if report.places is not None else None
    rows = [_cells(f, places[id(f)] if places is not None else None) for f in shown]
    if rows and all(r["SPEAKER"] == "-" for r in rows):  # no speakers (a manifest, plain text): no column
        for r in rows:
            del r["SPEAKER"]
    if rows:
        header, body = table(list(rows[0]), [list(r.values()) for r in rows], width)
        lines.append(header)
        for f, row in zip(shown, body):
            lines.append(style(row, fg=_COLORS[f.severity]))
            if verbose:
                lines.extend(wrap(f"segments {f.segments[0]}-{f.segments[1]}, stream {f.stream or '-'}, score "
                                  f"{f.score:.2f}, evidence: {', '.join(f.evidence) or 'none'}", width,
                                  "      ", "        "))
    below = len(report.findings) - len(shown)
    if below:
        lines.extend(wrap(f"{plural(below, 'finding')} below --fail-on {report.fail_on} not listed "
                          f"(--fail-on low lists every finding; --json holds them all)", width, INDENT, INDENT))
    lines.extend(advice_lines(report.advice, width))
    return "\n".join(lines)


def advice_lines(advice, width: int | None) -> list[str]:
    """Each piece of advice wrapped to ``width``, its continuation lines indented under its text."""
    return [line for a in advice for line in wrap(safe(a), width, f"{INDENT}advice: ", " " * 10)]


def _cells(f, where: dict | None) -> dict[str, str]:
    """A finding's table cells, by column; a manifest's finding is named by its line and
    audio file (its time is clip-relative: every utterance starts at 0 s)."""
    what = f"{_one_line(f.unit)} x{f.count}" if f.unit else (f"x{f.count}" if f.count else "")
    if where is not None:
        cells = {"LINE": str(where["line"]), "AUDIO": _one_line(where["audio_filepath"] or "-")}
    else:
        cells = {"TIME": "-" if f.span is None else f"{clock(f.span.start)}-{clock(f.span.end)}"}
    cells.update({"SPEAKER": _one_line(f.speaker or "-"), "SEVERITY": f.severity, "KIND": str(f.kind),
                  "UNIT x COUNT": what, "EXCERPT": _one_line(f.excerpt)})
    return cells


def table(names: list[str], rows: list[list[str]], width: int | None) -> tuple[str, list[str]]:
    """The header and rows of a table whose columns are as wide as their cells, the cut
    columns (``NATURAL``) shrunk in ``SHRINK`` order until a row fits ``width``."""
    widths = {n: max(text_width(n), *(text_width(r[k]) for r in rows)) for k, n in enumerate(names)}
    for name, most in NATURAL.items():
        if name in widths:
            widths[name] = min(widths[name], most)
    if width is not None:
        for name, floor in SHRINK:
            over = _row_width(widths) - width
            if over > 0 and name in widths:
                widths[name] = max(floor, widths[name] - over)
    shown = [n for n in names if widths[n] > 0]
    header = INDENT + " ".join(pad(n, widths[n]) for n in shown).rstrip()
    body = [INDENT + " ".join(pad(_cut(n, r[names.index(n)], widths[n]), widths[n]) for n in shown).rstrip()
            for r in rows]
    if width is not None:  # a terminal narrower than the columns that are never cut
        header, body = clip(header, width), [clip(row, width) for row in body]
    return header, body





def _row_width(widths: dict[str, int]) -> int:
    shown = [w for w in widths.values() if w > 0]
    return len(INDENT) + sum(shown) + len(shown) - 1


def _cut(name: str, cell: str, columns: int) -> str:
    """A cell cut to ``columns``: a unit keeps its count (``我们需要… x25``), an audio path
    its end (the file name), anything else its start."""
    if text_width(cell) <= columns:
        return cell
    if name == "UNIT x COUNT" and " x" in cell:
        unit, count = cell.rsplit(" x", 1)
        return f"{shorten(unit, max(1, columns - len(count) - 2))} x{count}"
    if name == "AUDIO":
        return "…" + shorten(cell[::-1], columns - 1)[:-1][::-1] if columns > 1 else "…"
    return shorten(cell, columns)


def _one_line(text: str | None) -> str:
    return safe(" ".join((text or "").split()))
