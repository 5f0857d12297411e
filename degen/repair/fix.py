"""Fix: re-decode the flagged spans, judge, splice, and account for every attempt.

    plan ─▶ for each span (bounded pool): steps of the policy until a clean candidate
              └ journal each attempt ─▶ judge ─▶ keep clean / strictly better / original
    ─▶ apply replacements ─▶ rescan ─▶ FixResult (edits, attempts, before/after metrics)
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Callable, Sequence

from ..errors import FormatError, ServerError, ServerRejected
from ..model import Segment, Span, Transcript
from ..report import Report
from .audio import Audio
from .client import Request, Transcriber, max_new_tokens_for
from .journal import Journal
from .plan import Plan, RepairSpan, make_plan
from .policy import Policy, Step, Verdict, judge
from .splice import Placed, Replacement, apply, closed, parse_candidate, place


@dataclass(frozen=True)
class Attempt:
    """One request for one span, and what came of it."""

    step: Step
    clip: Span
    server: str
    max_new_tokens: int
    verdict: Verdict | None
    error: str | None = None
    accepted: bool = False
    anchored: bool = False

    def to_dict(self) -> dict:
        return {**self.step.to_dict(), "clip": [round(self.clip.start, 3), round(self.clip.end, 3)],
                "server": self.server, "max_new_tokens": self.max_new_tokens, "accepted": self.accepted,
                "anchored": self.anchored, "error": self.error,
                "verdict": self.verdict.to_dict() if self.verdict else None}


@dataclass(frozen=True)
class Edit:
    """A change made to the transcript, with its audit trail."""

    span: Span
    before: tuple[Segment, ...]
    after: tuple[Segment, ...]
    attempts: tuple[Attempt, ...]
    reason: str

    def to_dict(self) -> dict:
        seg = lambda s: {"start": s.span.start, "end": s.span.end, "speaker": s.speaker, "text": s.text}
        return {"start": round(self.span.start, 3), "end": round(self.span.end, 3), "reason": self.reason,
                "before": [seg(s) for s in self.before], "after": [seg(s) for s in self.after],
                "attempts": [a.to_dict() for a in self.attempts]}


@dataclass(frozen=True)
class Outcome:
    """What happened to one repair span: "repaired" (a clean candidate), "improved"
    (strictly better but not clean) or "unresolved" (the original kept)."""

    rs: RepairSpan
    status: str
    reason: str
    attempts: tuple[Attempt, ...]
    placed: Placed | None = None


@dataclass(frozen=True)
class FixResult:
    transcript: Transcript
    plan: Plan
    outcomes: tuple[Outcome, ...]
    edits: tuple[Edit, ...]
    before: Report
    after: Report
    audio_seconds: float
    seconds_decoded: float = 0.0

    @property
    def unresolved(self) -> tuple[Outcome, ...]:
        return tuple(o for o in self.outcomes if o.status != "repaired")

    def to_dict(self) -> dict:
        return {
            "spans_flagged": len(self.plan.spans),
            "repaired": sum(o.status == "repaired" for o in self.outcomes),
            "improved": sum(o.status == "improved" for o in self.outcomes),
            "unresolved": [{**o.rs.to_dict(), "status": o.status, "why": o.reason} for o in self.unresolved],
            "unrepairable": [f.to_dict() for f in self.plan.unrepairable],
            "seconds_decoded": round(self.seconds_decoded, 3), "audio_seconds": round(self.audio_seconds, 3),
            "before": self.before.metrics.to_dict(), "after": self.after.metrics.to_dict(),
            "plan": [rs.to_dict() for rs in self.plan.spans],
            "edits": [e.to_dict() for e in self.edits],
        }


@dataclass
class _Run:
    """Everything the span workers share."""

    original: Transcript
    audio: Audio
    transcribers: Sequence[Transcriber]
    policy: Policy
    journal: Journal
    progress: Callable[[Outcome, int, int], None] | None
    total: int = 0
    suspect: frozenset[int] = frozenset()  # indices of every segment the plan replaces
    done: int = 0
    penalty_ignored: set = field(default_factory=set)  # ids of transcribers that drop the penalty
    slots: threading.Semaphore = field(default_factory=lambda: threading.Semaphore(8))  # requests in flight
    lock: threading.Lock = field(default_factory=threading.Lock)


def repair(transcript: Transcript, audio: Audio, transcribers: Sequence[Transcriber], *, policy: Policy,
           findings, pad: float = 0.5, merge_gap: float = 1.0, max_span: float = 30.0, concurrency: int = 8,
           journal: Journal | None = None, progress: Callable[[Outcome, int, int], None] | None = None,
           before: Report, rescan: Callable[[Transcript], Report]) -> FixResult:
    """Repair ``findings`` in ``transcript`` (the public entry point is ``degen.fix``)."""
    audio.check_covers(transcript.end)
    plan = make_plan(transcript, findings, audio.duration, pad=pad, merge_gap=merge_gap, max_span=max_span)
    suspect = frozenset(i for rs in plan.spans if rs.segments for i in range(rs.segments[0], rs.segments[1] + 1))
    run = _Run(transcript, audio, transcribers, policy, journal or Journal(None, ""), progress, len(plan.spans),
               suspect, slots=threading.Semaphore(max(1, concurrency)))
    regions: dict[int, list[tuple[int, RepairSpan]]] = {}
    for i, rs in enumerate(plan.spans):
        regions.setdefault(rs.region, []).append((i, rs))
    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        futures = [pool.submit(_repair_region, run, chunks) for chunks in regions.values()]
        by_index = dict(pair for f in futures for pair in f.result())
    outcomes = tuple(by_index[i] for i in range(len(plan.spans)))
    kept = [o for o in outcomes if o.placed is not None]
    fixed = apply(transcript, [Replacement(o.rs, closed(o.placed.segments)) for o in kept])
    edits = tuple(Edit(o.rs.core, _before(transcript, o.rs), closed(o.placed.segments), o.attempts,
                       "; ".join(o.rs.reasons)) for o in kept)
    decoded = sum(a.clip.duration for o in outcomes for a in o.attempts)
    return FixResult(fixed, plan, outcomes, edits, before, rescan(fixed), audio.duration, decoded)


def _before(transcript: Transcript, rs: RepairSpan) -> tuple[Segment, ...]:
    return tuple(transcript.segments[rs.segments[0]:rs.segments[1] + 1]) if rs.segments else ()


def _original_verdict(run: _Run, rs: RepairSpan) -> Verdict:
    if rs.segments is None:  # nothing there to compare with: only a clean candidate will do
        return Verdict(False, 0.0, "missing")
    return judge(Transcript(_before(run.original, rs)), rs.core.duration, run.policy.config)


def _repair_region(run: _Run, chunks: list[tuple[int, RepairSpan]]) -> list[tuple[int, Outcome]]:
    """The spans of one flagged stretch, in order: each maps its speakers through the
    repaired segments of the one before. Their first requests do not depend on each
    other, so they go out together; judging and later steps follow in order."""
    first = run.policy.steps[0]
    with ThreadPoolExecutor(max_workers=len(chunks)) as pool:
        early = {index: pool.submit(_send, run, rs, _transcriber(run, index), first, 0, _clip(run, rs, first))
                 for index, rs in chunks if len(chunks) > 1 and not run.journal.attempts(rs.key)}
        out, prior = [], ()
        for index, rs in chunks:
            outcome = _repair_span(run, rs, index, prior, early.get(index))
            out.append((index, outcome))
            prior = outcome.placed.segments if outcome.placed else ()
    return out


def _transcriber(run: _Run, index: int) -> Transcriber:
    return run.transcribers[index % len(run.transcribers)]


def _repair_span(run: _Run, rs: RepairSpan, index: int, prior: tuple[Segment, ...] = (), early=None) -> Outcome:
    transcriber = _transcriber(run, index)
    recorded = {e["attempt"]: e for e in run.journal.attempts(rs.key)}
    if early is not None:  # the first step, sent ahead with the other spans of the stretch
        recorded.setdefault(0, early.result())
    attempts: list[Attempt] = []
    best: tuple[Verdict, Placed, int] | None = None
    answers: dict[Step, str | None] = {}
    for i, step in enumerate(run.policy.steps):
        step = _effective(run, transcriber, step)
        if step in answers:  # a penalty step on a server that ignores penalties: already tried
            continue
        entry = recorded.get(i) or _send(run, rs, transcriber, step, i, _clip(run, rs, step))
        _notice_ignored_penalty(run, transcriber, step, entry.get("body"), answers)
        answers[step] = entry.get("body")
        attempt, placed = _evaluate(run, rs, step, entry, prior)
        if attempt.error:
            attempts.append(attempt)
            outcome = Outcome(rs, "unresolved", f"server error: {attempt.error}", tuple(attempts))
            break
        if attempt.verdict.clean:
            attempt, placed = _with_anchors(run, rs, transcriber, step, attempt, placed, recorded, i, prior, attempts)
            attempts.append(_accepted(attempt))
            outcome = Outcome(rs, "repaired", "clean", tuple(attempts), placed)
            break
        attempts.append(attempt)
        if best is None or attempt.verdict.badness < best[0].badness:
            best = (attempt.verdict, placed, len(attempts) - 1)
    else:
        outcome = _fallback(run, rs, attempts, best)
    if run.progress:
        with run.lock:
            run.done += 1
            run.progress(outcome, run.done, run.total)
    return outcome


def _effective(run: _Run, transcriber, step: Step) -> Step:
    """The step as it will really run: without a penalty the server is known to ignore."""
    if step.repetition_penalty is not None and id(transcriber) in run.penalty_ignored:
        return Step(step.temperature, None, step.context)
    return step


def _notice_ignored_penalty(run: _Run, transcriber, step: Step, body, answers: dict) -> None:
    """A server that silently drops repetition_penalty (builds before ~Aug 2026) answers
    a penalised step exactly as the same step without it: remember, and stop sending it.
    (At temperature 0.1 a loop is near-deterministic, so identical bodies are telling.)"""
    plain = Step(step.temperature, None, step.context)
    if step.repetition_penalty is not None and body is not None and answers.get(plain) == body:
        with run.lock:
            run.penalty_ignored.add(id(transcriber))


def _with_anchors(run, rs, transcriber, step, attempt, placed, recorded, i, prior, attempts):
    """The clean answer, or an anchored one that maps more speakers (both recorded)."""
    anchored = _anchored(run, rs, transcriber, step, placed, list(recorded.values()),
                         len(run.policy.steps) + i, prior, attempt.clip)
    if anchored is None:
        return attempt, placed
    tried, better = anchored
    if better is None:
        attempts.append(tried)
        return attempt, placed
    attempts.append(attempt)
    return tried, better


def _accepted(attempt: Attempt) -> Attempt:
    return Attempt(attempt.step, attempt.clip, attempt.server, attempt.max_new_tokens, attempt.verdict,
                   attempt.error, True, attempt.anchored)


def _fallback(run: _Run, rs: RepairSpan, attempts: list[Attempt], best) -> Outcome:
    original = _original_verdict(run, rs)
    if best is not None and best[0].badness < original.badness:
        attempts[best[2]] = _accepted(attempts[best[2]])
        return Outcome(rs, "improved", f"no clean candidate; kept one less degenerate than the original "
                                       f"({best[0].reason})", tuple(attempts), best[1])
    why = best[0].reason if best else "no candidate"
    return Outcome(rs, "unresolved", f"no candidate was clean or better than the original ({why})", tuple(attempts))


def _anchored(run: _Run, rs: RepairSpan, transcriber, step: Step, placed: Placed, recorded, index: int,
              prior: tuple[Segment, ...], sent: Span):
    """When the clean candidate holds speakers no clean segment vouches for, ask once
    more with clean neighbours on both sides in the clip. Returns None when no such
    request was made, else (its attempt, its placement when it is clean and maps more
    speakers, or None)."""
    if not placed.unmapped:
        return None
    clip = _anchor_clip(run, rs, prior)
    if clip is None or (sent.start <= clip.start and clip.end <= sent.end):
        return None  # no anchor beyond the audio already sent: the answer would not change
    entry = next((e for e in recorded if e["attempt"] == index), None) or _send(run, rs, transcriber, step, index, clip)
    attempt, better = _evaluate(run, rs, step, entry, prior)
    attempt = Attempt(attempt.step, attempt.clip, attempt.server, attempt.max_new_tokens, attempt.verdict,
                      attempt.error, anchored=True)
    if attempt.verdict is None or not attempt.verdict.clean or len(better.unmapped) >= len(placed.unmapped):
        return attempt, None
    return attempt, better


def _anchor_clip(run: _Run, rs: RepairSpan, prior: tuple[Segment, ...]) -> Span | None:
    """The span widened on each side by up to ``anchor_seconds`` of clean speech: the
    segments repaired just before it, or clean original neighbours. A side whose clean
    speech lies too far away (the clip would pass ``max_anchored_clip``) is left out.
    None when neither side helps."""
    limit = run.policy.max_anchored_clip
    first, last = rs.segments if rs.segments else (rs.after + 1, rs.after)
    if run.policy.anchor_seconds <= 0:
        return None
    if prior:
        left = max(prior[0].span.start, rs.span.start - run.policy.anchor_seconds)
    else:
        left = _reach(run, first - 1, -1, lambda s: s.span.start, rs.span.start)
    right = _reach(run, last + 1, 1, lambda s: s.span.end, rs.span.end)
    if right - left > limit:  # keep the nearer side only
        left, right = (left, rs.span.end) if rs.span.start - left <= right - rs.span.end else (rs.span.start, right)
    if (left, right) == (rs.span.start, rs.span.end) or right - left > limit:
        return None
    return Span(left, right)


def _reach(run: _Run, index: int, step: int, edge, default: float) -> float:
    """How far clean segments from ``index`` outwards reach, up to ``anchor_seconds`` of
    them. Clean speech beyond other flagged stretches is too far to be worth sending:
    the walk stops at the first flagged segment (a later span of the same stretch maps
    through this one instead)."""
    segs, vouched, reach = run.original.segments, 0.0, default
    while 0 <= index < len(segs) and vouched < run.policy.anchor_seconds and index not in run.suspect:
        vouched += segs[index].span.duration
        reach = edge(segs[index])
        index += step
    return reach


def _clip(run: _Run, rs: RepairSpan, step: Step) -> Span:
    """The audio to send: the padded span, plus the step's context before it; after a
    span of the same stretch, reaching back into that span's audio (repaired by the time
    the answer is judged), which anchors the speakers."""
    start = rs.span.start - step.context
    if rs.core.start > rs.limit.start and run.policy.anchor_seconds > 0:
        start = min(start, max(rs.limit.start, rs.span.start - run.policy.anchor_seconds))
    return Span(max(0.0, start), rs.span.end)


def _send(run: _Run, rs: RepairSpan, transcriber: Transcriber, step: Step, index: int,
          clip: Span | None = None) -> dict:
    clip = clip or _clip(run, rs, step)
    tokens = max_new_tokens_for(clip.duration, run.policy.tokens_per_second, run.policy.min_new_tokens)
    request = Request(run.audio.clip(clip), step.temperature, tokens, step.repetition_penalty)
    entry = {"span": rs.key, "attempt": index, "clip": [clip.start, clip.end], "max_new_tokens": tokens,
             "server": getattr(transcriber, "base_url", type(transcriber).__name__)}
    try:
        with run.slots:
            response = transcriber.transcribe(request)
        entry.update(body=response.text, format=response.response_format, error=None)
    except ServerRejected:
        raise  # a wrong model, key or parameter: every span would fail the same way
    except ServerError as exc:
        entry.update(body=None, format=None, error=str(exc))
    run.journal.record(entry)
    return entry


def _evaluate(run: _Run, rs: RepairSpan, step: Step, entry: dict,
              prior: tuple[Segment, ...] = ()) -> tuple[Attempt, Placed | None]:
    clip = Span(*entry["clip"])
    base = dict(step=step, clip=clip, server=entry["server"], max_new_tokens=entry["max_new_tokens"])
    if entry.get("error"):
        return Attempt(verdict=None, error=entry["error"], **base), None
    try:
        candidate = parse_candidate(entry["body"], entry["format"])
    except FormatError as exc:
        return Attempt(verdict=Verdict(False, float("inf"), f"unusable answer: {exc.detail}"), **base), None
    placed = place(candidate, rs, run.original, clip, run.suspect, prior)
    # Judge the whole answer too: a loop in the padding or context still means the
    # decoder degenerated, even though that part would be dropped.
    whole = judge(candidate, clip.duration, run.policy.config)
    kept = judge(Transcript(placed.segments), rs.core.duration, run.policy.config)
    verdict = kept if whole.clean else Verdict(False, max(whole.badness, kept.badness), whole.reason)
    return Attempt(verdict=verdict, **base), placed
