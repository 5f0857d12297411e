"""Clips: which audio each request of a span sends, and what is known around it.

    |-- witness --|  |== span (padded) ==|          first request: the span and the nearest
    clean segment    flagged segments               clean segment (the answer must reproduce it)
    |------ anchors (clean speech) ------|== span ==|------ anchors ------|
                                                    a retry when the answer holds speakers
                                                    no clean segment vouches for
"""

from __future__ import annotations

from dataclasses import dataclass

from ..detect.tokens import content
from ..model import Segment, Span, Transcript
from .audio import Audio
from .plan import Plan, RepairSpan
from .period import period_copies
from .policy import Policy, Step
from .recurrence import Repetition, find_repetition
from .language import Language
from .vad import Vad
from .voice import Voice


@dataclass(frozen=True)
class Scope:
    """What every span is judged against (read-only, shared by the workers).

    Attributes:
        suspect: indices of every segment the plan replaces.
        flagged: indices of segments a finding covers (the rest of a span is clean text
            an answer must keep).
    """

    original: Transcript
    audio: Audio
    policy: Policy
    suspect: frozenset[int]
    flagged: frozenset[int]
    vad: Vad
    language: Language | None = None
    voice: Voice | None = None

    @property
    def audio_end(self) -> float:
        return self.audio.duration if self.audio is not None else float("inf")

    def voiced(self, span: Span) -> float:
        if self.voice is not None:
            return self.voice.seconds(span)
        return self.vad.voiced_seconds(self.audio.read(span), self.audio.sample_rate)

    def repetition(self, span: Span) -> Repetition | None:
        """Where the audio of ``span`` repeats one word, in transcript time (None too when
        no step of the policy decodes in pieces: nothing would use it)."""
        if self.audio is None or not self.policy.uses_pieces:
            return None
        found = find_repetition(self.audio.read(span), self.audio.sample_rate)
        return None if found is None else found.shifted(span.start)

    def period(self, span: Span) -> int | None:
        """The copies of one unit the audio of ``span`` repeats, counted by the sound
        matching itself one copy later (``period``): a second count beside the
        recurrence's."""
        if self.audio is None:
            return None
        return period_copies(self.audio.read(span), self.audio.sample_rate)

    def voiced_spans(self, span: Span) -> list[tuple[float, float]]:
        """Voiced stretches of ``span``, in transcript time."""
        if self.voice is not None:
            return self.voice.within(span)
        return [(span.start + a, span.start + b)
                for a, b in self.vad.voiced_spans(self.audio.read(span), self.audio.sample_rate)]


def anchor_clip(scope: Scope, rs: RepairSpan, prior: tuple[Segment, ...]) -> Span | None:
    """The span widened on each side by up to ``anchor_seconds`` of clean speech: the
    segments repaired just before it, or clean original neighbours. A side whose clean
    speech lies too far away (the clip would pass ``max_anchored_clip``) is left out.
    None when neither side helps."""
    policy = scope.policy
    if policy.anchor_seconds <= 0:
        return None
    first, last = rs.segments if rs.segments else (rs.after + 1, rs.after)
    if prior:
        left = max(prior[0].span.start, rs.span.start - policy.anchor_seconds)
    else:
        left = _reach(scope, first - 1, -1, lambda s: s.span.start, rs.span.start)
    right = _reach(scope, last + 1, 1, lambda s: s.span.end, rs.span.end)
    if right - left > policy.max_anchored_clip:  # keep the nearer side only
        left, right = (left, rs.span.end) if rs.span.start - left <= right - rs.span.end else (rs.span.start, right)
    if (left, right) == (rs.span.start, rs.span.end) or right - left > policy.max_anchored_clip:
        return None
    return Span(left, right)


@dataclass(frozen=True)
class Preview:
    """What a plan will send: each span's first clip (witness and stretch anchoring
    included) and, when its answer needs speaker anchors, the clip of that request."""

    clips: tuple[tuple[RepairSpan, Span, Span | None], ...]
    repeats: tuple[Repetition | None, ...]  # per span: where its audio repeats a word

    @property
    def first_seconds(self) -> float:
        return sum(first.duration for _, first, _ in self.clips)

    @property
    def anchored_seconds(self) -> float:
        return sum(a.duration for _, _, a in self.clips if a is not None)


def preview(transcript: Transcript, plan: Plan, audio: Audio, policy: Policy) -> Preview:
    """The requests a run of ``plan`` starts with (for ``--dry-run``): later steps of the
    schedule resend a span only when its answer is rejected."""
    suspect = frozenset(i for rs in plan.spans if rs.segments for i in range(rs.segments[0], rs.segments[1] + 1))
    scope = Scope(transcript, audio, policy, suspect, frozenset(), None)  # type: ignore[arg-type]
    out, repeats = [], []
    for rs in plan.spans:
        first = clip_for(scope, rs, policy.steps[0])
        anchored = anchor_clip(scope, rs, ())
        useful = anchored is not None and not (first.start <= anchored.start and anchored.end <= first.end)
        out.append((rs, first, anchored if useful else None))
        repeats.append(scope.repetition(rs.core))
    return Preview(tuple(out), tuple(repeats))


def _reach(scope: Scope, index: int, step: int, edge, default: float) -> float:
    """How far clean segments from ``index`` outwards reach, up to ``anchor_seconds`` of
    them. Clean speech beyond other flagged stretches is too far to be worth sending:
    the walk stops at the first flagged segment (a later span of the same stretch maps
    through this one instead)."""
    segs, vouched, reach = scope.original.segments, 0.0, default
    while 0 <= index < len(segs) and vouched < scope.policy.anchor_seconds and index not in scope.suspect:
        vouched += segs[index].span.duration
        reach = edge(segs[index])
        index += step
    return reach


def clip_for(scope: Scope, rs: RepairSpan, step: Step) -> Span:
    """The audio to send: the padded span, plus the step's context before it; after a
    span of the same stretch, reaching back into that span's audio (repaired by the time
    the answer is judged), which anchors the speakers; and out to the nearest clean
    segment (the witness an answer must reproduce)."""
    start, end = rs.span.start - step.context, rs.span.end
    if inside_stretch(rs) and scope.policy.anchor_seconds > 0:
        start = min(start, max(rs.limit.start, rs.span.start - scope.policy.anchor_seconds))
    known = witness(scope, rs)
    if known is not None:
        start, end = min(start, known.start - WITNESS_PAD), max(end, known.end + WITNESS_PAD)
    return Span(max(0.0, start), min(scope.audio_end, end))


def inside_stretch(rs: RepairSpan) -> bool:
    """A span split from a long stretch, after its first part."""
    return rs.core.start > rs.limit.start


# Seconds of audio kept around a witness segment, so that the model hears all of it.
WITNESS_PAD = 0.2


def witness(scope: Scope, rs: RepairSpan) -> Span | None:
    """The nearest clean segment before the span (else after it) worth checking the
    answer against: unflagged, with at least ``witness_graphemes`` of text, within
    ``witness_seconds`` of the span."""
    policy, segs = scope.policy, scope.original.segments
    first, last = rs.segments if rs.segments else (rs.after + 1, rs.after)
    sides = ((last + 1, 1),) if inside_stretch(rs) else ((first - 1, -1), (last + 1, 1))
    for index, step in sides:
        while 0 <= index < len(segs) and index not in scope.suspect:
            seg = segs[index]
            gap = rs.span.start - seg.span.start if step < 0 else seg.span.end - rs.span.end
            if seg.span is None or gap > policy.witness_seconds:
                break
            if seg.closed and len(content(seg.text)) >= policy.witness_graphemes:
                return seg.span
            index += step
    return None
