"""A self-contained HTML report: the seed's metrics, a timeline of the whole audio with
one lane per speaker, loops and timing anomalies highlighted, and the findings (and,
for ``fix``, every edit with its attempts). Inline SVG and CSS, a few lines of plain
JavaScript; no network. Tiny segments merge at overview scale, so a 10-hour,
100k-segment transcript stays a few MB.
"""

from __future__ import annotations

import dataclasses
import math
import re
from html import escape

from ..detect.finding import Kind, Severity
from ..model import Transcript
from ..report import Report
from .terminal import plural
from .text import CLOCK_LIMIT, clock, summary_line

WIDTH = 1200  # timeline width in px
LANE = 16  # lane height in px
LABEL = 70  # px for the speaker labels
COLORS = {Kind.CHAR_LOOP: "#d62728", Kind.PHRASE_LOOP: "#ff7f0e", Kind.SEGMENT_LOOP: "#9467bd", Kind.RATE: "#e377c2",
          Kind.UNCLOSED: "#8c564b", Kind.TRUNCATED: "#7f7f7f", Kind.ZERO_LENGTH: "#17becf", Kind.INVERTED: "#17becf",
          Kind.UNIFORM_DURATIONS: "#bcbd22", Kind.HALLUCINATION: "#2ca02c", Kind.UNTRANSCRIBED: "#7f7f7f"}
DEFAULT_COLOR = "#d62728"  # a kind this table does not know yet still shows
OPACITY = {Severity.HIGH: 0.55, Severity.MEDIUM: 0.4, Severity.LOW: 0.25}

# Latin first, then CJK faces each platform ships (macOS, Windows, Linux Noto/Source Han,
# WenQuanYi), so Chinese and Japanese transcripts render without tofu; generic last.
FONTS = ('system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,"Noto Sans","PingFang SC",'
         '"Hiragino Sans","Hiragino Kaku Gothic ProN","Microsoft YaHei","Yu Gothic","Malgun Gothic",'
         '"Noto Sans CJK SC","Noto Sans CJK JP","Source Han Sans SC","WenQuanYi Micro Hei",sans-serif')

CSS = """
body{font:14px/1.4 FONTS;margin:24px;color:#222}
h1{font-size:20px;margin:0 0 4px} h2{font-size:16px;margin:24px 0 8px}
.verdict{font-weight:600;padding:2px 8px;border-radius:4px;color:#fff}
.bad{background:#c0392b}.ok{background:#27ae60}
.metrics{display:flex;gap:24px;margin:12px 0;flex-wrap:wrap}
.metric b{display:block;font-size:20px}
svg{background:#fafafa;border:1px solid #ddd}
.seg{fill:#4a90d9}.lane-label{font-size:11px;fill:#555}
.hl{cursor:pointer}.hl:hover,.hl.active{stroke:#000;stroke-width:1.5}
table{border-collapse:collapse;width:100%;font-size:13px}
td,th{border-bottom:1px solid #eee;padding:3px 6px;text-align:left;vertical-align:top}
tr.active{background:#fff3c4} .excerpt{color:#555;max-width:480px;overflow:hidden;text-overflow:ellipsis}
.sw{display:inline-block;width:10px;height:10px;margin-right:4px}
#tip{position:fixed;pointer-events:none;background:#222;color:#fff;padding:4px 8px;border-radius:4px;
 font-size:12px;display:none;max-width:420px}
.legend{display:flex;gap:4px 16px;flex-wrap:wrap;font-size:12px;color:#444;margin:4px 0 6px}
.legend span{white-space:nowrap}.legend .seg-sw{background:#4a90d9;height:6px;vertical-align:middle}
""".replace("FONTS", FONTS)

JS = """
const tip=document.getElementById('tip');
document.querySelectorAll('.hl').forEach(el=>{
 el.addEventListener('mousemove',e=>{tip.style.display='block';tip.textContent=el.dataset.tip;
  tip.style.left=(e.clientX+12)+'px';tip.style.top=(e.clientY+12)+'px'});
 el.addEventListener('mouseleave',()=>{tip.style.display='none'});
 el.addEventListener('click',()=>select(el.dataset.f,true));});
document.querySelectorAll('tr[data-f]').forEach(tr=>tr.addEventListener('click',()=>select(tr.dataset.f,false)));
function select(id,scroll){document.querySelectorAll('.active').forEach(x=>x.classList.remove('active'));
 document.querySelectorAll('[data-f="'+id+'"]').forEach(x=>x.classList.add('active'));
 const row=document.getElementById('row-'+id); if(scroll&&row) row.scrollIntoView({block:'center'});}
"""


def _axis(transcript: Transcript, duration: float | None) -> tuple[callable, float]:
    """Position function (segment -> (start, end) on the axis) and the axis length.

    A corrupt time (inf, NaN, a 309-digit stamp) must not stretch the axis to nothing:
    the axis spans the plausible times and anything beyond is drawn at its end."""
    if _timed_axis(transcript):
        total = max(_plausible(duration), _plausible(transcript.end), 1e-9)
        if total == 1e-9:
            total = max((_plausible(s.span.end) for s in transcript), default=1e-9) or 1e-9

        def where(i, s):
            start = _clamp(s.span.start, total)
            return start, max(_clamp(s.span.end, total), start)
        return where, total
    return (lambda i, s: (float(i), i + 1.0)), float(max(len(transcript), 1))


def _timed_axis(transcript: Transcript) -> bool:
    """Whether the timeline is drawn in time: not for untimed text, nor for a manifest,
    whose every utterance starts at 0 s (its lines are drawn one after another)."""
    return transcript.timed and not transcript.meta.get("independent")


def _plausible(value: float | None) -> float:
    return value if value is not None and math.isfinite(value) and 0 <= value < CLOCK_LIMIT else 0.0


def _clamp(value: float, total: float) -> float:
    return 0.0 if math.isnan(value) else min(max(value, 0.0), total)


def _lanes(transcript: Transcript) -> dict:
    """Lane per speaker, in natural order (S01, S02 ... S10; no speaker last), not in
    order of first appearance."""
    speakers = sorted(dict.fromkeys(s.speaker for s in transcript), key=_speaker_key)
    return {spk: k for k, spk in enumerate(speakers)}


def _speaker_key(speaker: str | None):
    if speaker is None:
        return (1, ())
    parts = re.split(r"(\d+)", speaker)
    return (0, tuple((0, int(p), "") if p.isdigit() else (1, 0, p.casefold()) for p in parts if p))


def timeline(transcript: Transcript, findings, duration: float | None, title: str, prefix: str = "") -> str:
    """An SVG timeline: a lane per speaker, findings as highlighted bands."""
    where, total = _axis(transcript, duration)
    lanes = _lanes(transcript)
    scale = (WIDTH - LABEL) / total
    height = LANE * max(len(lanes), 1) + 24
    parts = [f'<svg width="{WIDTH}" height="{height}" role="img" aria-label="{escape(title)}" class="timeline">']
    for spk, k in lanes.items():
        parts.append(f'<text class="lane-label" x="4" y="{k * LANE + 12}">{escape(str(spk or "-"))}</text>')
    for k, x0, x1 in _merged_rects(transcript, where, lanes, scale):
        parts.append(f'<rect class="seg" x="{LABEL + x0:.1f}" y="{k * LANE + 3}" width="{max(x1 - x0, 0.6):.1f}" '
                     f'height="{LANE - 6}"/>')
    for n, f in enumerate(findings):
        a, b = f.segments
        start, _ = where(a, transcript[a])
        _, end = where(b, transcript[b])
        if f.kind in (Kind.TRUNCATED, Kind.UNTRANSCRIBED) and f.span is not None and _timed_axis(transcript):
            start, end = _clamp(f.span.start, total), _clamp(f.span.end, total)
        x, w = LABEL + start * scale, max((end - start) * scale, 2.0)
        tip = f"{f.kind} {f.unit or ''} x{f.count or ''} | {clock(f.span.start) if f.span else '#' + str(a)}" \
              f" | {f.excerpt}"
        parts.append(f'<rect class="hl" data-f="{prefix}{n}" data-tip="{escape(tip)}" x="{x:.1f}" y="0" '
                     f'width="{w:.1f}" height="{height - 24}" fill="{COLORS.get(f.kind, DEFAULT_COLOR)}" '
                     f'fill-opacity="{OPACITY[f.severity]}"><title>{escape(tip)}</title></rect>')
    for k in range(11):  # ticks; the last label ends at the edge instead of running past it
        t = total * k / 10
        label = clock(t) if _timed_axis(transcript) else f"#{int(t)}"
        anchor = "end" if k == 10 else "start"
        x = WIDTH - 2 if k == 10 else LABEL + t * scale
        parts.append(f'<text class="lane-label tick" text-anchor="{anchor}" x="{x:.0f}" '
                     f'y="{height - 6}">{label}</text>')
    parts.append("</svg>")
    return "".join(parts)


def legend(findings, timed: bool) -> str:
    """What the marks mean: lanes, one swatch per finding kind shown, band shade by
    severity, and the axis unit."""
    swatch = lambda color, opacity=1.0: (f'<span class="sw" style="background:{color};opacity:{opacity}">'
                                         f'</span>')
    items = ['<span><span class="sw seg-sw"></span>speech, one lane per speaker</span>']
    for kind in dict.fromkeys(f.kind for f in findings):
        items.append(f"<span>{swatch(COLORS.get(kind, DEFAULT_COLOR))}{escape(kind)}</span>")
    if findings:
        shades = "".join(swatch("#d62728", OPACITY[level]) for level in reversed(Severity))
        items.append(f"<span>{shades}band shade: severity high / medium / low (click a band for its row)</span>")
    axis = "ticks: time from the start (mm:ss or h:mm:ss)" if timed else "ticks: segment number (no timing)"
    items.append(f"<span>{axis}</span>")
    return f'<div class="legend">{"".join(items)}</div>'


def _merged_rects(transcript: Transcript, where, lanes: dict, scale: float):
    """Per lane, segments closer than a pixel merge into one rectangle."""
    open_rect: dict[int, list[float]] = {}
    for i, s in enumerate(transcript):
        k = lanes[s.speaker]
        a, b = where(i, s)
        x0, x1 = a * scale, b * scale
        current = open_rect.get(k)
        if current is not None and x0 - current[1] < 1.0:
            current[1] = max(current[1], x1)
            continue
        if current is not None:
            yield k, current[0], current[1]
        open_rect[k] = [x0, x1]
    for k, (x0, x1) in open_rect.items():
        yield k, x0, x1


def _metrics(report: Report) -> str:
    m = report.metrics
    worst = f"{escape(m.max_repetition_unit)} x{m.max_repetition}" if m.max_repetition_unit else "none"
    cells = [("segments", m.segments), ("consecutive repeated segments", m.consecutive_repeated_segments),
             ("worst repetition", worst), ("flagged", f"{m.flagged_seconds:.1f} s"),
             ("duration", f"{m.duration:.1f} s" if m.duration else "-"), ("findings", len(report.findings))]
    return '<div class="metrics">' + "".join(f'<div class="metric"><b>{v}</b>{k}</div>' for k, v in cells) + "</div>"


def _findings_table(findings, prefix: str = "", places=None) -> str:
    """The findings, each named by its time, or (``places``: a manifest's) by its line and
    audio file: an utterance's time is clip-relative and names no row."""
    rows = []
    for n, f in enumerate(findings):
        if places is not None:
            where = f'<td>{places[n]["line"]}</td><td>{escape(places[n]["audio_filepath"] or "-")}</td>'
        else:
            where = "<td>-</td>" if f.span is None else f"<td>{clock(f.span.start)}–{clock(f.span.end)}</td>"
        rows.append(f'<tr data-f="{prefix}{n}" id="row-{prefix}{n}">{where}<td>{escape(f.speaker or "-")}</td>'
                    f'<td><span class="sw" style="background:{COLORS.get(f.kind, DEFAULT_COLOR)}"></span>{f.kind}</td>'
                    f'<td>{f.severity}</td><td>{escape(f.unit or "")}</td><td>{f.count or ""}</td>'
                    f'<td class="excerpt">{escape(f.excerpt)}</td></tr>')
    place = "<th>line</th><th>audio</th>" if places is not None else "<th>time</th>"
    head = f"<tr>{place}<th>speaker</th><th>kind</th><th>severity</th><th>unit</th><th>count</th><th>excerpt</th></tr>"
    return f'<table class="findings">{head}{"".join(rows)}</table>' if rows else "<p>No findings.</p>"


def _page(title: str, body: str) -> str:
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
            f'<style>{CSS}</style></head><body>{body}<div id="tip"></div><script>{JS}</script></body></html>')


def _header(report: Report, heading: str) -> str:
    verdict = '<span class="verdict bad">degenerate</span>' if report.degenerate else '<span class="verdict ok">clean</span>'
    return f"<h1>{escape(heading)} {verdict}</h1><div>{escape(summary_line(report))}</div>{_metrics(report)}"


def render_scan(report: Report, transcript: Transcript) -> str:
    """The scan report as one HTML page."""
    body = (_header(report, f"degen scan: {report.source}") + "<h2>Timeline</h2>" +
            legend(report.findings, _timed_axis(transcript)) +
            timeline(transcript, report.findings, report.metrics.duration, "timeline") +
            "<h2>Findings</h2>" + _findings_table(report.findings, places=report.places) +
            ("<h2>Advice</h2><ul>" + "".join(f"<li>{escape(a)}</li>" for a in report.advice) + "</ul>"
             if report.advice else ""))
    return _page(f"degen scan {report.source}", body)


def render_fix(result, original: Transcript, output: str | None = None) -> str:
    """The repair as one HTML page: before and after timelines, edits and attempts.

    Args:
        result: what ``degen.fix`` returned.
        original: the transcript before repair.
        output: the repaired file's path, to name it on the page.
    """
    share = result.seconds_decoded / result.audio_seconds if result.audio_seconds else 0.0
    after = dataclasses.replace(result.after, source=str(output)) if output else result.after
    edits = []
    for n, e in enumerate(result.edits):
        attempts = "".join(
            f"<tr><td>{a.step.temperature:g}</td><td>{a.step.repetition_penalty or '-'}</td>"
            f"<td>{a.clip.start:.1f}–{a.clip.end:.1f}{' (anchored)' if a.anchored else ''}</td>"
            f"<td>{'accepted' if a.accepted else 'no'}</td>"
            f"<td>{escape(a.error or (a.verdict.reason if a.verdict else ''))}</td></tr>" for a in e.attempts)
        before = escape(" / ".join(s.text for s in e.before))[:300]
        after_text = escape(" / ".join(s.text for s in e.after))[:300]
        edits.append(f'<h3 id="edit-{n}">{clock(e.span.start)}–{clock(e.span.end)}: {escape(e.reason)}</h3>'
                     f'<p><b>before</b> {before}<br><b>after</b> {after_text}</p><table><tr><th>temperature</th>'
                     f'<th>penalty</th><th>clip (s)</th><th>result</th><th>why</th></tr>{attempts}</table>')
    unresolved = "".join(f"<li>{o.rs.core.start:.1f}–{o.rs.core.end:.1f} s: {escape(o.reason)}</li>"
                         for o in result.unresolved)
    flagged = len(result.plan.spans)
    shown = list(result.before.findings) + list(result.after.findings)
    body = (_header(after, f"degen fix: {output}" if output else "degen fix") +
            f"<p>{plural(flagged, 'span')} flagged, {flagged - len(result.unresolved)} repaired, "
            f"{len(result.unresolved)} unresolved; re-decoded {result.seconds_decoded:.1f} s of "
            f"{result.audio_seconds:.1f} s of audio ({share:.1%}).</p>" + legend(shown, original.timed) +
            "<h2>Before</h2>" + timeline(original, result.before.findings, result.audio_seconds, "before", "b") +
            "<h2>After</h2>" + timeline(result.transcript, result.after.findings, result.audio_seconds, "after", "a") +
            "<h2>Findings before</h2>" + _findings_table(result.before.findings, "b") +
            (f"<h2>Unresolved</h2><ul>{unresolved}</ul>" if unresolved else "") +
            "<h2>Edits</h2>" + ("".join(edits) or "<p>No edits.</p>"))
    return _page(f"degen fix {output}" if output else "degen fix", body)
