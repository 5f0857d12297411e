"""Fix: re-decode the flagged spans, judge each answer on the evidence, splice, account.

    plan (regions from the voiced audio) ─▶ for each span (bounded pool), until the
              evidence confirms an answer (``span.SpanRepair``, ``decide``):
              choose the next attempt ─▶ send it (journaled, in the pinned language,
              within the decode budget) ─▶ judge it against the voiced audio, the
              original's clean text, the language and the other answers
    ─▶ apply the confirmed answers ─▶ rescan ─▶ FixResult (edits, attempts, evidence, cost)

A span no answer is confirmed for keeps its original text and is reported unresolved,
its best answer named in the report: an answer that deletes speech, miscounts a
repetition or changes the language is never traded for a loop.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Callable, Sequence

from ..model import Segment, Transcript
from ..report import Report
from .audio import Audio
from .client import Transcriber
from .clips import Preview, Scope, anchor_clip, clip_for, inside_stretch, preview, witness  # noqa: F401
from .journal import Journal
from .language import Language
from .plan import INSERTING, RepairSpan, make_plan
from .policy import Policy, Step
from .result import Attempt, Edit, FixResult, Outcome, cost  # noqa: F401  (re-exported)
from .send import Sender, polled
from .span import SpanRepair, first_step, send_step, sent_attempt
from .splice import Replacement, apply, closed
from .vad import make_vad
from .voice import Voice, untranscribed, voice_of


def repair(transcript: Transcript, audio: Audio, transcribers: Sequence[Transcriber], *, policy: Policy,
           findings, pad: float = 0.5, merge_gap: float = 1.0, max_span: float = 30.0, concurrency: int = 8,
           journal: Journal | None = None, progress: Callable[[Outcome, int, int], None] | None = None,
           before: Report, rescan: Callable[[Transcript], Report], language: Language | None = None,
           voice: Voice | None = None) -> FixResult:
    """Repair ``findings`` in ``transcript`` (the public entry point is ``degen.fix``).

    ``language`` is sent with every request and answers in another are refused;
    ``voice`` (the file's voiced audio) sizes each span and weighs each answer.

    On KeyboardInterrupt the run is cancelled at once: requests not yet sent are
    dropped, answers still in flight are not waited for or journaled, and the
    interrupt is raised again (the journal holds every attempt finished before it)."""
    audio.check_covers(transcript.end)
    findings = list(findings)
    plan = make_plan(transcript, findings, audio.duration, pad=pad, merge_gap=merge_gap, max_span=max_span,
                     voice=voice)
    suspect = frozenset(i for rs in plan.spans if rs.segments for i in range(rs.segments[0], rs.segments[1] + 1))
    flagged = frozenset(i for f in findings if f.segments and f.kind not in INSERTING
                        for i in range(f.segments[0], f.segments[1] + 1))
    scope = Scope(transcript, audio, policy, suspect, flagged, make_vad(policy.evidence.vad), language, voice)
    sender = Sender(audio, journal or Journal(None, ""), concurrency, language=language.code if language else None,
                    budget=policy.max_decoded * audio.duration)
    tally = _Tally(progress, len(plan.spans), sender)
    regions: dict[int, list[tuple[int, RepairSpan]]] = {}
    for i, rs in enumerate(plan.spans):
        regions.setdefault(rs.region, []).append((i, rs))
    pool = ThreadPoolExecutor(max_workers=max(1, concurrency))
    try:
        futures = [pool.submit(_repair_region, scope, sender, transcribers, chunks, tally) for chunks in regions.values()]
        by_index = dict(pair for f in futures for pair in polled(f))
    except BaseException:
        sender.cancel()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    outcomes = tuple(by_index[i] for i in range(len(plan.spans)))
    kept = [o for o in outcomes if o.placed is not None]
    fixed = apply(transcript, [Replacement(o.rs, closed(o.placed.segments)) for o in kept])
    edits = tuple(Edit(o.rs.core, _before(transcript, o.rs), closed(o.placed.segments), o.attempts,
                       "; ".join(o.rs.reasons), o.voiced, o.reason) for o in kept)
    return FixResult(fixed, plan, outcomes, edits, before, rescan(fixed), audio.duration, **cost(outcomes),
                     language=language.describe() if language else None)


def findings_to_repair(transcript: Transcript, audio: Audio, policy: Policy, flagged) -> tuple[list, Voice]:
    """What a run repairs: the scan's flagged findings and the voiced audio no segment
    covers (``untranscribed``), with the file's voiced audio they were weighed against."""
    voice = voice_of(audio, make_vad(policy.evidence.vad))
    extra = untranscribed(transcript, voice, policy.evidence.max_unwritten, policy.evidence.stamp_slack)
    return list(flagged) + extra, voice


class _Tally:
    """Counts finished spans for the progress callback (silent once cancelled)."""

    def __init__(self, progress, total: int, sender: Sender):
        self.progress, self.total, self.sender = progress, total, sender
        self.done, self.lock = 0, threading.Lock()

    def __call__(self, outcome: Outcome) -> None:
        if self.progress is None or self.sender.cancelled.is_set():
            return
        with self.lock:
            self.done += 1
            self.progress(outcome, self.done, self.total)


def _before(transcript: Transcript, rs: RepairSpan) -> tuple[Segment, ...]:
    return tuple(transcript.segments[rs.segments[0]:rs.segments[1] + 1]) if rs.segments else ()


def _repair_region(scope: Scope, sender: Sender, transcribers, chunks: list[tuple[int, RepairSpan]],
                   tally: _Tally) -> list[tuple[int, Outcome]]:
    """The spans of one flagged stretch, in order: each maps its speakers through the
    repaired segments of the one before. Their first requests do not depend on each
    other, so they go out together; judging and later steps follow in order."""
    pick = lambda index: transcribers[index % len(transcribers)]
    steps = scope.policy.steps
    journaled = {index: sender.replayable(rs.key) for index, rs in chunks}  # before this run sends anything
    repeats = {index: scope.repetition(rs.core) for index, rs in chunks}
    firsts = {index: first_step(steps, repeats[index]) for index, _ in chunks}
    for index, rs in chunks:  # every span's first answer is sent, however far others escalate
        if firsts[index] < len(steps):
            sender.reserve(rs.key, firsts[index], clip_for(scope, rs, steps[firsts[index]]).duration)
    with ThreadPoolExecutor(max_workers=len(chunks)) as pool:
        early = {}
        for index, rs in chunks:
            number = firsts[index]
            if len(chunks) > 1 and number < len(steps) and number not in journaled[index]:
                runs = sender.effective(pick(index), steps[number], probe=False)
                early[index] = (number, pool.submit(send_step, scope, sender, pick(index), rs, number, runs,
                                                    repeats[index]), runs)
        out, prior = [], ()
        for index, rs in chunks:
            if inside_stretch(rs) and not prior and witness(scope, rs) is None:
                outcome = _unvouched(scope, rs, early.get(index))
            else:
                outcome = SpanRepair(scope, sender, rs, pick(index), journaled[index], prior, early.get(index),
                                     repeats[index]).run()
            tally(outcome)
            out.append((index, outcome))
            prior = outcome.placed.segments if outcome.placed else ()
    return out


def _unvouched(scope: Scope, rs: RepairSpan, early: tuple[int, Future, Step] | None) -> Outcome:
    """A part of a long stretch whose part before was not repaired, with no clean speech
    near enough: no answer for it could be checked against anything, so the original
    stays (a first answer already sent, with ``step``, is kept in the account, not judged)."""
    why = "the part before it was not repaired and no clean speech near it can vouch for an answer"
    attempts = ()
    if early is not None:
        _, future, step = early
        sent = future.result()
        attempts = (sent_attempt(step, sent).with_(error=sent.error, why="not judged: " + why),)
    return Outcome(rs, "unresolved", why, attempts, None, None)
