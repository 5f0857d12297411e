"""Splice: put a re-decoded clip back into the transcript.

    clip times      0 ......................... 18.2     (relative, speakers from S01)
    + offset        412.0 ..................... 430.2
    keep            segments whose middle lies in the core; clamp into the core
    speakers        clip S01 -> original S03 by time overlap with the segments replaced
                    and their neighbours; no overlap at all -> a label nobody uses
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from rapidfuzz import fuzz

from .. import formats
from ..detect.tokens import content
from ..errors import FormatError
from ..model import Segment, Span, Transcript
from .evidence import folded
from .nonspeech import strip_tags
from .plan import RepairSpan

ROUND = 3  # milliseconds: times written back are not longer than the inputs'
EDGE = 0.05  # seconds: a start this close to the clip's start was cut by it


@dataclass(frozen=True)
class Placed:
    segments: tuple[Segment, ...]
    unmapped: tuple[str, ...]  # clip speakers no clean original segment vouches for


def parse_candidate(body: str, response_format: str) -> Transcript:
    """The server's answer as a Transcript (times relative to the clip), its non-speech
    tags taken out (``meta["nonspeech_tags"]`` counts them): ``[BLANK_AUDIO]`` is no word."""
    try:
        answer = formats.loads(body)
    except FormatError as exc:
        raise FormatError(f"the server's {response_format} answer is not a transcript: {exc.detail}",
                          path="<server>") from None
    return without_tags(answer)


def without_tags(answer: Transcript) -> Transcript:
    """``answer`` with every non-speech tag removed and the segments left empty dropped."""
    segments, tags = [], 0
    for seg in answer:
        text, found = strip_tags(seg.text)
        tags += found
        if not found:
            segments.append(seg)
        elif content(text):
            segments.append(seg.with_(text=text))
    if not tags:
        return answer
    return Transcript(segments, answer.format, {**answer.meta, "nonspeech_tags": tags})


def _timed(candidate: Transcript, seconds: float) -> list[Segment]:
    """Untimed answers (plain OpenAI json) spread over the clip by text length."""
    if candidate.timed:
        return list(candidate)
    total = sum(len(s.text) for s in candidate) or 1
    out, t = [], 0.0
    for s in candidate:
        d = seconds * len(s.text) / total
        out.append(Segment(Span(t, t + d), s.speaker, s.text))
        t += d
    return out


def place(candidate: Transcript, rs: RepairSpan, original: Transcript, clip: Span | None = None,
          suspect: frozenset[int] = frozenset(), prior: tuple[Segment, ...] = ()) -> Placed:
    """Candidate segments in transcript time, clamped into the core, speakers mapped.

    ``clip`` is the audio actually sent (the padded span, or a wider one with context
    or anchors); the candidate's times are relative to its start. ``suspect`` are the
    indices of flagged segments: their speaker labels came from a looping decoder and
    count only where no clean segment says otherwise. ``prior`` are segments already
    repaired just before this span (a long loop is repaired in order): they count as clean.
    """
    clip = clip or rs.span
    shifted = []
    for seg in _timed(candidate, clip.duration):
        start = seg.span.start + clip.start
        end = seg.span.end + clip.start if seg.closed else max(start, rs.core.end)
        shifted.append((Span(start, end), seg))
    written = _written(shifted, prior)
    kept = [(span.clamp(rs.limit), seg) for k, (span, seg) in enumerate(shifted)
            if k not in written and _keeps(span, seg, rs, clip, prior)]
    mapping, unmapped = map_speakers(shifted, kept, original, clip, suspect, prior)
    # In the answer's own order: a model writes what was said in order, while its stamps
    # wobble (a sentence stamped a second early could sort before the one said before it).
    out, cursor = [], rs.limit.start
    for span, seg in kept:
        start = round(max(span.start, cursor), ROUND)
        end = round(max(span.end, start), ROUND)
        # An unclosed segment stays marked so that the policy sees the cut; `closed()`
        # gives it the core's end before it is written.
        out.append(Segment(Span(start, end), mapping.get(seg.speaker, seg.speaker), seg.text, seg.closed))
        cursor = end
    return Placed(tuple(out), tuple(unmapped))


def _keeps(span: Span, seg: Segment, rs: RepairSpan, clip: Span, prior: tuple[Segment, ...]) -> bool:
    """Whether a candidate segment belongs to this span (one the part before already
    wrote, ``_written``, is left out first). Its middle must lie in the core; at a seam
    inside a long stretch (the clips of neighbouring parts overlap) a sentence is written
    once, by one side:
      - a segment the clip's start or end cuts into (the model can only stamp it at the
        edge, which moves its middle) belongs to the part that hears all of it;
      - one the part before left out (its middle fell past that part's end there, and
        before this core here) is written here."""
    middle = (span.start + span.end) / 2
    if rs.core.start > rs.limit.start and span.start <= clip.start + EDGE:
        return False
    if rs.core.end < rs.limit.end and seg.closed and span.end >= clip.end - EDGE:
        return False
    if rs.core.start <= middle <= rs.core.end:
        return True
    last = prior[-1].span if prior else None
    return (last is not None and rs.limit.start <= middle < rs.core.start
            and span.start >= last.start and span.end > last.end + EDGE)


def _written(shifted: list[tuple[Span, Segment]], prior: tuple[Segment, ...]) -> set[int]:
    """The candidate segments that the part before already wrote (its clip and this one
    overlap, and a sentence at the seam may fall in either core): its sentences and these,
    matched in order by text, each pair stamped at about the same time (each answer may
    put a start ``SAME_TIME`` off). In order, one for one: a sentence said twice ("Yeah."
    "Yeah.") is two sentences, and where the part before wrote only the first, the second
    is still written here."""
    if not prior:
        return set()
    theirs = [(p.span, folded(p.text)) for p in prior]
    out, at = set(), 0
    for k, (span, seg) in enumerate(shifted):
        mine = folded(seg.text)
        if not mine:
            continue
        match = next((j for j in range(at, len(theirs)) if fuzz.ratio(mine, theirs[j][1]) >= SAME_TEXT
                      and (theirs[j][0].overlap(span) > 0 or abs(theirs[j][0].start - span.start) <= 2 * SAME_TIME)),
                     None)
        if match is not None:
            out.add(k)
            at = match + 1
    return out


# rapidfuzz ratio from which two segments at a seam are the same sentence written twice,
# and how far apart (seconds) two answers may stamp its start.
SAME_TEXT = 90.0
SAME_TIME = 1.0


def closed(segments) -> tuple[Segment, ...]:
    return tuple(s if s.closed else s.with_(closed=True) for s in segments)


def _overlaps(shifted, around) -> dict[tuple, float]:
    seconds: dict[tuple, float] = defaultdict(float)
    for span, seg in shifted:
        for o in around:
            seconds[(seg.speaker, o.speaker)] += span.overlap(o.span)
    return seconds


def map_speakers(shifted, kept, original: Transcript, clip: Span, suspect: frozenset[int] = frozenset(),
                 prior: tuple[Segment, ...] = ()) -> tuple[dict, list[str]]:
    """Clip speaker -> original speaker, greedily by seconds of overlap: first with clean
    segments the clip covers (neighbours, anchors), then with the flagged ones.

    Returns the mapping and the clip speakers no clean segment vouched for when the clip
    holds several speakers (one speaker over one looping speaker's segments is safe)."""
    around = [(i, s) for i, s in enumerate(original) if s.span is not None and s.span.overlap(clip) > 0]
    clean = [s for i, s in around if i not in suspect] + [s for s in prior if s.span.overlap(clip) > 0]
    flagged = [s for i, s in around if i in suspect]
    mapping: dict = {}
    taken: set = set()
    trusted: set = set()
    for pool, vouched in ((clean, True), (flagged, False)):
        for (mine, theirs), seconds in sorted(_overlaps(shifted, pool).items(), key=lambda kv: -kv[1]):
            if seconds > 0 and mine not in mapping and theirs not in taken:
                mapping[mine] = theirs
                taken.add(theirs)
                if vouched:
                    trusted.add(mine)
    speakers = {seg.speaker for _, seg in kept} - {None}
    fresh = sorted(s for s in speakers if s not in mapping)
    used = set(original.speakers)
    for mine in fresh:
        mapping[mine] = fresh_label(used)
        used.add(mapping[mine])
    doubtful = fresh if len(speakers) <= 1 else sorted(speakers - trusted)
    return mapping, doubtful


def fresh_label(used: set) -> str:
    """A speaker label that collides with none in use (S01, S02, ... style)."""
    n = 1
    while f"S{n:02d}" in used:
        n += 1
    return f"S{n:02d}"


@dataclass(frozen=True)
class Replacement:
    """New segments for a RepairSpan (what an Edit records, without the audit trail)."""

    rs: RepairSpan
    segments: tuple[Segment, ...]


def apply(original: Transcript, replacements: list[Replacement]) -> Transcript:
    """A new transcript with every replacement made. Replacements never overlap (the
    plan merges spans), so one pass in order suffices; where two spans of one stretch
    meet, a later segment starts no earlier than the one before it ends."""
    replace_at = {r.rs.segments[0]: r for r in replacements if r.rs.segments}
    insert_after: dict[int, list[Replacement]] = defaultdict(list)
    for r in sorted((r for r in replacements if not r.rs.segments), key=lambda r: r.rs.core.start):
        insert_after[r.rs.after].append(r)
    out = [seg for r in insert_after.get(-1, []) for seg in r.segments]
    i = 0
    while i < len(original):
        r = replace_at.get(i)
        if r is not None:
            previous = out[-1].span.end if out and r.rs.bounds and out[-1].span is not None else None
            for seg in r.segments:
                if previous is not None and seg.span.start < previous:
                    seg = seg.with_(span=Span(previous, max(previous, seg.span.end)))
                out.append(seg)
                previous = None
            i, last = r.rs.segments[1] + 1, r.rs.segments[1]
        else:
            out.append(original[i])
            last = i
            i += 1
        for ins in insert_after.get(last, []):
            out.extend(ins.segments)
    return original.with_segments(out)
