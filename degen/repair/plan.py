"""Plan: flagged findings become repair spans aligned to whole segments.

    segments   |--a--|  |--b--||--c (loop)--||--d (loop)--|   |--e--|
    findings                    [====== loop ======]
    core                        |--------------------------|     segments replaced
    span (padded)             |------------------------------|   audio re-decoded

Spans closer than ``merge_gap`` merge; a span longer than ``max_span`` splits at
segment boundaries (the server decodes long audio worse and a loop is cut shorter).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..detect import Finding
from ..detect.finding import Kind
from ..errors import ConfigError
from ..model import Span, Transcript
from ..options import DEFAULT as OPTIONS
from .voice import Voice


@dataclass(frozen=True, slots=True)
class RepairSpan:
    """One stretch of audio to re-decode.

    Attributes:
        span: the audio sent, padded and clamped to the file.
        core: the time whose segments are replaced.
        segments: (first, last) segment indices replaced, inclusive, or None to insert
            new text after ``after`` (a transcript cut short has nothing to replace).
        after: for an insertion, the index of the segment before it (-1 at the start).
        reasons: what was found there, e.g. "char_loop 的 x102".
        region: spans split from one long flagged stretch share a region number; they
            are decoded in order, each mapping speakers through the one before.
    """

    span: Span
    core: Span
    segments: tuple[int, int] | None
    reasons: tuple[str, ...]
    after: int = -1
    region: int = 0
    bounds: Span | None = None  # the whole flagged stretch this span was split from

    @property
    def limit(self) -> Span:
        """How far replaced text may reach: a segment straddling the cut between two
        spans of one stretch stays whole (both sides are being replaced)."""
        return self.bounds or self.core

    @property
    def key(self) -> str:
        """Stable id for the journal."""
        return f"{self.core.start:.3f}-{self.core.end:.3f}"

    def to_dict(self) -> dict:
        return {"start": round(self.span.start, 3), "end": round(self.span.end, 3),
                "core": [round(self.core.start, 3), round(self.core.end, 3)],
                "segments": list(self.segments) if self.segments else None, "reasons": list(self.reasons)}


@dataclass(frozen=True)
class Plan:
    spans: tuple[RepairSpan, ...]
    unrepairable: tuple[Finding, ...]  # found where the transcript has no timing

    @property
    def seconds(self) -> float:
        return sum(s.span.duration for s in self.spans)


def segment_end(transcript: Transcript, index: int, audio_duration: float) -> float:
    """End time of a segment; an unclosed one runs to the next start or the audio end."""
    seg = transcript[index]
    if seg.closed:
        return seg.span.end
    return transcript[index + 1].span.start if index + 1 < len(transcript) else audio_duration


def _describe(f: Finding) -> str:
    return f"{f.kind} {f.unit} x{f.count}" if f.unit else f.kind


# Extra audio after a cut inside a long stretch: a segment that straddles the cut belongs
# to the span holding its middle, and the clip must reach its end for the model to time it.
SEAM_SECONDS = 5.0


INSERTING = (Kind.TRUNCATED, Kind.UNTRANSCRIBED)  # findings of speech with no segment: new text goes in


def make_plan(transcript: Transcript, findings, audio_duration: float, *, pad: float = OPTIONS.pad,
              merge_gap: float = OPTIONS.merge_gap, max_span: float = OPTIONS.max_span,
              voice: Voice | None = None) -> Plan:
    """Turn ``findings`` (already filtered to those worth repairing) into repair spans.

    With ``voice`` (the file's voiced audio), each flagged stretch reaches out to the
    nearest clean segments whose time the audio confirms, and to the end of the speech
    when none follows: the loop's own stamps are the least reliable times of the file."""
    if pad < 0 or merge_gap < 0 or max_span <= 0:
        raise ConfigError("pad and merge gap must be >= 0 and max span > 0")
    raw, unrepairable = [], []
    flagged = {i for f in findings if f.kind not in INSERTING for i in range(f.segments[0], f.segments[1] + 1)}
    for f in findings:
        if f.span is None or not transcript.timed:
            unrepairable.append(f)
        elif f.kind in INSERTING:
            raw.append(RepairSpan(f.span, f.span, None, (_describe(f),), after=_before(transcript, f.span.start)))
        else:
            first, last = f.segments
            core = Span(transcript[first].span.start, segment_end(transcript, last, audio_duration))
            if voice is not None and voice.informative:
                (first, last), core = _heard(transcript, first, last, core, flagged, voice, audio_duration)
            raw.append(RepairSpan(core, core, (first, last), (_describe(f),)))
    spans = []
    for region, merged in enumerate(_merge(sorted(raw, key=lambda r: r.core.start), merge_gap)):
        for rs in _split(merged, transcript, max_span) if merged.core.duration > max_span else [merged]:
            after = pad if rs.core.end >= merged.core.end else max(pad, SEAM_SECONDS)
            padded = Span(max(0.0, rs.core.start - pad), min(audio_duration, rs.core.end + after))
            spans.append(RepairSpan(padded, rs.core, rs.segments, rs.reasons, rs.after, region, merged.core))
    return Plan(tuple(spans), tuple(unrepairable))


def _before(transcript: Transcript, t: float) -> int:
    """The index of the last segment that starts before ``t`` (-1 when none does)."""
    return max((i for i, s in enumerate(transcript) if s.span is not None and s.span.start < t), default=-1)


# Seconds kept before the first and after the last voiced sound of a region: a word's
# onset and release are quieter than the VAD's margin.
VOICED_LEAD = 0.15


def _heard(transcript: Transcript, first: int, last: int, core: Span, flagged: set[int], voice: Voice,
           audio_duration: float) -> tuple[tuple[int, int], Span]:
    """The stretch the loop's segments stand in for, as the audio has it: from the end of
    the nearest clean segment before them whose time the audio confirms to the start of
    the nearest such segment after them (or the end of the speech), the segments between
    replaced, and the core trimmed to the voiced sound in it (never short of the loop's
    own segments)."""
    segs = transcript.segments
    trusted = lambda i: i not in flagged and segs[i].closed and voice.confirms(segs[i].span)
    before = next((i for i in range(first - 1, -1, -1) if trusted(i)), -1)
    after = next((i for i in range(last + 1, len(segs)) if trusted(i)), len(segs))
    left = segs[before].span.end if before >= 0 else 0.0
    right = segs[after].span.start if after < len(segs) else min(audio_duration, voice.speech_end() + VOICED_LEAD)
    first, last = before + 1, after - 1
    voiced = voice.within(Span(left, max(left, right)))
    start, end = segs[first].span.start, segment_end(transcript, last, audio_duration)
    if voiced:
        start = min(start, max(left, voiced[0][0] - VOICED_LEAD))
        end = max(end, min(right, voiced[-1][1] + VOICED_LEAD))
    return (first, last), Span(min(start, core.start), max(end, core.end))


def _merge(spans: list[RepairSpan], gap: float) -> list[RepairSpan]:
    out: list[RepairSpan] = []
    for rs in spans:
        prev = out[-1] if out else None
        if prev is not None and rs.core.start - prev.core.end < gap:
            segs = [s for s in (prev.segments, rs.segments) if s]
            merged = (min(s[0] for s in segs), max(s[1] for s in segs)) if segs else None
            reasons = prev.reasons + tuple(r for r in rs.reasons if r not in prev.reasons)
            out[-1] = RepairSpan(prev.core | rs.core, prev.core | rs.core, merged, reasons,
                                 prev.after if merged is None else -1)
        else:
            out.append(rs)
    return out


def _split(rs: RepairSpan, transcript: Transcript, max_span: float) -> list[RepairSpan]:
    if rs.segments is None:  # a missing tail: fixed windows, nothing to align to
        n = int(rs.core.duration // max_span) + 1
        step = rs.core.duration / n
        return [RepairSpan(Span(rs.core.start + i * step, rs.core.start + (i + 1) * step),
                           Span(rs.core.start + i * step, rs.core.start + (i + 1) * step),
                           None, rs.reasons, rs.after) for i in range(n)]
    first, last = rs.segments
    # Chunks tile the stretch (speech a loop hid may sit between its segments): each
    # runs from its first segment's start to the next chunk's start.
    tile_end = lambda i: transcript[i + 1].span.start if i < last else rs.core.end
    chunks, begin = [], first
    for i in range(first, last + 1):
        if i > begin and tile_end(i) - transcript[begin].span.start > max_span:
            chunks.append((begin, i - 1))
            begin = i
    chunks.append((begin, last))
    out = []
    for a, b in chunks:
        core = Span(transcript[a].span.start, max(transcript[a].span.start, tile_end(b)))
        out.append(RepairSpan(core, core, (a, b), rs.reasons))
    tail = out[-1].core
    if tail.duration > max_span:  # speech the audio holds past the last segment: windows of new text
        cut = max(tail.start + max_span, min(tail.end, segment_end(transcript, last, tail.end)))
        out[-1] = RepairSpan(Span(tail.start, cut), Span(tail.start, cut), out[-1].segments, rs.reasons)
        if tail.end > cut:
            rest = RepairSpan(Span(cut, tail.end), Span(cut, tail.end), None, rs.reasons, after=last)
            out += _split(rest, transcript, max_span) if rest.core.duration > max_span else [rest]
    return out
