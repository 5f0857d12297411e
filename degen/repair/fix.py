"""Fix: re-decode the flagged spans, judge each answer on the evidence, splice, account.

    plan ─▶ for each span (bounded pool), until an answer is faithful:
              choose the next attempt ─▶ send it (journaled) ─▶ judge it against the
              voiced audio, the original's clean text and the other answers
    ─▶ apply the accepted answers ─▶ rescan ─▶ FixResult (edits, attempts, evidence, cost)

A span whose answers are all unfaithful keeps its original text and is reported
unresolved: an answer that deletes speech is never traded for a loop.
"""

from __future__ import annotations

import dataclasses
import math
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, Sequence

from ..errors import FormatError
from ..model import Segment, Transcript
from ..report import Report
from .audio import Audio
from .client import Transcriber
from .clips import Preview, Scope, anchor_clip, clip_for, inside_stretch, preview, witness  # noqa: F401
from .evidence import Verdict, agreeing, clean_texts, judge, longest_unwritten
from .journal import Journal
from .plan import RepairSpan, make_plan
from .pieces import pieces_note, send_pieces
from .policy import Policy, Step
from .rhythm import Repetition
from .result import Attempt, Edit, FixResult, Outcome, cost  # noqa: F401  (re-exported)
from .send import Sender, Sent, polled
from .splice import Placed, Replacement, apply, closed, parse_candidate, place
from .vad import make_vad

INF = float("inf")


@dataclass(frozen=True)
class Tried:
    """An attempt with its number in the schedule and its placement in the transcript."""

    number: int
    attempt: Attempt
    placed: Placed | None
    body: str | None


def repair(transcript: Transcript, audio: Audio, transcribers: Sequence[Transcriber], *, policy: Policy,
           findings, pad: float = 0.5, merge_gap: float = 1.0, max_span: float = 30.0, concurrency: int = 8,
           journal: Journal | None = None, progress: Callable[[Outcome, int, int], None] | None = None,
           before: Report, rescan: Callable[[Transcript], Report]) -> FixResult:
    """Repair ``findings`` in ``transcript`` (the public entry point is ``degen.fix``).

    On KeyboardInterrupt the run is cancelled at once: requests not yet sent are
    dropped, answers still in flight are not waited for or journaled, and the
    interrupt is raised again (the journal holds every attempt finished before it)."""
    audio.check_covers(transcript.end)
    findings = list(findings)
    plan = make_plan(transcript, findings, audio.duration, pad=pad, merge_gap=merge_gap, max_span=max_span)
    suspect = frozenset(i for rs in plan.spans if rs.segments for i in range(rs.segments[0], rs.segments[1] + 1))
    flagged = frozenset(i for f in findings if f.segments for i in range(f.segments[0], f.segments[1] + 1))
    scope = Scope(transcript, audio, policy, suspect, flagged, make_vad(policy.evidence.vad))
    sender = Sender(audio, journal or Journal(None, ""), concurrency)
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
    return FixResult(fixed, plan, outcomes, edits, before, rescan(fixed), audio.duration, **cost(outcomes))


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
    journaled = {index: sender.replayable(rs.key) for index, rs in chunks}  # before this run sends anything
    repeats = {index: scope.repetition(rs.core) for index, rs in chunks}
    with ThreadPoolExecutor(max_workers=len(chunks)) as pool:
        early = {}
        for index, rs in chunks:
            number = _first_step(scope.policy, repeats[index])
            if len(chunks) > 1 and number not in journaled[index]:
                early[index] = (number, pool.submit(_send, scope, sender, pick(index), rs, number,
                                                    scope.policy.steps[number], repeats[index]))
        out, prior = [], ()
        for index, rs in chunks:
            if inside_stretch(rs) and not prior and witness(scope, rs) is None:
                outcome = _unvouched(scope, rs, early.get(index))
            else:
                outcome = _repair_span(scope, sender, rs, pick(index), journaled[index], prior, early.get(index),
                                       repeats[index])
            tally(outcome)
            out.append((index, outcome))
            prior = outcome.placed.segments if outcome.placed else ()
    return out


def _inapplicable(policy: Policy, repetition: Repetition | None) -> frozenset[int]:
    """Steps that cannot run for a span: pieces where its audio repeats no word."""
    return frozenset() if repetition is not None else \
        frozenset(n for n, step in enumerate(policy.steps) if step.pieces)


def _first_step(policy: Policy, repetition: Repetition | None) -> int:
    """The number of the first step that will run for a span."""
    skipped = _inapplicable(policy, repetition)
    return next((n for n in range(len(policy.steps)) if n not in skipped), len(policy.steps))


def _send(scope: Scope, sender: Sender, transcriber, rs: RepairSpan, number: int, step: Step,
          repetition: Repetition | None) -> Sent:
    clip = clip_for(scope, rs, step)
    if step.pieces and repetition is not None:
        units = tuple(unit for unit, _ in sorted(_original_verdict(scope, rs).repeats, key=lambda uc: -uc[1]))
        return send_pieces(sender, transcriber, rs.key, number, step, clip, repetition, scope.policy.token_budget,
                           units, scope.voiced)
    return sender.send(transcriber, rs.key, number, step, clip, scope.policy.token_budget(clip.duration))


def _unvouched(scope: Scope, rs: RepairSpan, early: tuple[int, Future] | None) -> Outcome:
    """A part of a long stretch whose part before was not repaired, with no clean speech
    near enough: no answer for it could be checked against anything, so the original
    stays (a first answer already sent is kept in the account, not judged)."""
    why = "the part before it was not repaired and no clean speech near it can vouch for an answer"
    attempts = ()
    if early is not None:
        number, future = early
        sent = future.result()
        attempts = (_sent_attempt(scope.policy.steps[number], sent).with_(error=sent.error, why="not judged: " + why),)
    return Outcome(rs, "unresolved", why, attempts, None, None)


def _sent_attempt(step: Step, sent: Sent) -> Attempt:
    """An attempt as sent, not yet judged."""
    entry = sent.entry
    return Attempt(step, sent.clip, entry["server"], entry.get("token_budget", 0), None,
                   requests_sent=sent.requests, replayed=sent.replayed, refused=bool(entry.get("refused")),
                   seconds_sent=entry.get("seconds_sent"), pieces=pieces_note(entry))


def _repair_span(scope: Scope, sender: Sender, rs: RepairSpan, transcriber: Transcriber,
                 journaled: dict[int, Sent], prior: tuple[Segment, ...] = (),
                 early: tuple[int, Future] | None = None, repetition: Repetition | None = None) -> Outcome:
    """Choose the next attempt, send it, judge it; until one is accepted or none is left.
    ``journaled`` are answers an earlier run finished; ``early`` the first request (its
    step number and future), sent ahead with the other spans of the stretch;
    ``repetition`` where the span's audio repeats one word (pieces steps need it)."""
    recorded = dict(journaled)
    if early is not None and early[0] not in recorded:
        recorded[early[0]] = early[1].result()
    skipped = sender.skipped(rs.key, len(scope.policy.steps)) | _inapplicable(scope.policy, repetition)
    core_voiced = scope.voiced_spans(rs.core)
    tried: tuple[Tried, ...] = ()
    while (choice := _next_attempt(scope.policy, sender, transcriber, tried, skipped)) is not None:
        number, step = choice
        sent = recorded.get(number) or _send(scope, sender, transcriber, rs, number, step, repetition)
        attempt, placed = _judge(scope, rs, step, sent, prior, core_voiced, repetition)
        _notice_ignored_penalty(sender, transcriber, step, sent, tried)
        tried += (Tried(number, attempt.with_(why=_rejected(attempt)), placed, sent.entry.get("body")),)
        if attempt.error:
            return Outcome(rs, "unresolved", f"server error: {attempt.error}", _attempts(tried), None, _total(core_voiced))
        accepted = _accept(scope, tried)
        if accepted is not None:
            return _finish(scope, sender, rs, transcriber, tried, accepted, prior, recorded, core_voiced)
    best = _best_fit(tried)
    if best is not None:
        return _finish(scope, sender, rs, transcriber, tried, best, prior, recorded, core_voiced)
    return _fallback(scope, rs, tried, core_voiced)


def _total(spans: list[tuple[float, float]]) -> float:
    return sum(b - a for a, b in spans)


def _attempts(tried) -> tuple[Attempt, ...]:
    return tuple(t.attempt for t in tried)


def _next_attempt(policy: Policy, sender: Sender, transcriber, tried: tuple[Tried, ...],
                  skipped: frozenset[int] = frozenset()) -> tuple[int, Step] | None:
    """The next step of the schedule, as it will really run; a step that would only repeat
    one already tried (a penalty the server drops), or that the journaled run skipped, is
    skipped."""
    done = {t.number for t in tried} | skipped
    ran = {t.attempt.step for t in tried}
    for number, step in enumerate(policy.steps):
        if number in done:
            continue
        runs = sender.effective(transcriber, step)
        if runs == step or runs not in ran:  # the same settings again are a fresh draw; a dropped penalty is not
            return number, runs
    return None


def _notice_ignored_penalty(sender: Sender, transcriber, step: Step, sent: Sent, tried) -> None:
    plain = dataclasses.replace(step, repetition_penalty=None)
    plain_body = next((t.body for t in tried if t.attempt.step == plain), None)
    sender.notice_ignored_penalty(transcriber, step, sent.entry.get("body"), plain_body)


def _rejected(attempt: Attempt) -> str:
    if attempt.error:
        return "server error"
    v = attempt.verdict
    if v is None or (v.clean and v.fits):
        return ""
    if v.clean:
        return f"held back: {v.fit:.2f}x the text ordinary speech writes in {_voiced(v)}; another answer was sought"
    return f"rejected: {v.reason}"


def _accept(scope: Scope, tried: tuple[Tried, ...]) -> tuple[int, str] | None:
    """(index into ``tried``, why) when the newest answer is faithful: clean, or its
    repetition confirmed by an earlier answer made with other settings."""
    last = tried[-1].attempt
    v = last.verdict
    if v.clean and last.step.pieces:  # the amount is the audio's own count of copies, not a rate's guess
        return len(tried) - 1, (f"accepted: one piece per copy the audio repeats ({last.pieces}), no loop, "
                                f"fits {_voiced(v)}")
    if v.clean and v.fits:
        return len(tried) - 1, f"accepted: no loop, fits {_voiced(v)} and keeps the original's clean text"
    for k, earlier in enumerate(tried[:-1]):
        other = earlier.attempt
        independent = (other.step.temperature, other.step.repetition_penalty) != \
                      (last.step.temperature, last.step.repetition_penalty)
        if other.verdict is not None and independent and agreeing(other.verdict, v, scope.policy.evidence):
            said = ", ".join(f"{u} x{c}" for u, c in v.repeats)
            return len(tried) - 1, (f"accepted as speech: attempts {k + 1} and {len(tried)} agree on {said}, "
                                    f"which fits {_voiced(v)}")
    if v.clean and any(_same_amount(t.attempt.verdict, v) for t in tried[:-1]):
        return _best_fit(tried)  # two answers agree on how much was said: a slow or fast speaker
    return None


def _same_amount(a: Verdict | None, b: Verdict) -> bool:
    """Two clean answers whose amounts of text agree (within a tenth, or one unit's worth)."""
    return a is not None and a.clean and a.fit is not None and b.fit is not None and \
        abs(a.fit - b.fit) <= 0.1 * max(a.fit, b.fit)


def _best_fit(tried: tuple[Tried, ...]) -> tuple[int, str] | None:
    """Of clean answers none of which fit the voiced time closely (two agreed on the
    amount, or the schedule ran out): the one whose amount of text comes nearest to it
    (a thin answer may have dropped copies of a repeated word; a full one run a few on)."""
    clean = [(abs(math.log(t.attempt.verdict.fit)) if t.attempt.verdict.fit else 0.0, k)
             for k, t in enumerate(tried)
             if t.attempt.verdict is not None and t.attempt.verdict.clean and t.placed is not None]
    if not clean:
        return None
    k = min(clean)[1]
    v = tried[k].attempt.verdict
    return k, (f"accepted: no loop and keeps the original's clean text; of {len(clean)} such answers its "
               f"amount of text fits {_voiced(v)} best ({v.fit:.2f}x ordinary speech)")


def _voiced(v: Verdict) -> str:
    return "the audio" if v.voiced is None else f"{v.voiced:.1f}s of voiced audio"


def _finish(scope, sender, rs, transcriber, tried, accepted, prior, recorded, core_voiced) -> Outcome:
    index, why = accepted
    chosen = tried[index]
    anchored = _anchored(scope, sender, rs, transcriber, chosen, prior, recorded, core_voiced)
    attempts = list(_attempts(tried))
    if anchored is not None and anchored.placed is not None:
        attempts.append(anchored.attempt.with_(accepted=True, why=why + "; anchored: maps more speakers"))
        return Outcome(rs, "repaired", why, tuple(attempts), anchored.placed, _total(core_voiced))
    attempts[index] = chosen.attempt.with_(accepted=True, why=why)
    if anchored is not None:
        attempts.append(anchored.attempt)
    return Outcome(rs, "repaired", why, tuple(attempts), chosen.placed, _total(core_voiced))


def _fallback(scope: Scope, rs: RepairSpan, tried: tuple[Tried, ...], core_voiced) -> Outcome:
    """No faithful answer: keep the least degenerate one only when it loses nothing and is
    strictly better than the original; else the original stays."""
    original = _original_verdict(scope, rs)
    usable = [(t.attempt.verdict.badness, k) for k, t in enumerate(tried)
              if t.attempt.verdict is not None and not t.attempt.verdict.loses_text and t.placed is not None]
    attempts = list(_attempts(tried))
    if usable and min(usable)[0] < original.badness:
        k = min(usable)[1]
        why = f"no faithful answer; kept one less degenerate than the original ({tried[k].attempt.verdict.reason})"
        attempts[k] = attempts[k].with_(accepted=True, why="accepted: " + why)
        return Outcome(rs, "improved", why, tuple(attempts), tried[k].placed, _total(core_voiced))
    why = tried[-1].attempt.verdict.reason if tried and tried[-1].attempt.verdict else "no candidate"
    return Outcome(rs, "unresolved", f"no answer was faithful or better than the original ({why})",
                   tuple(attempts), None, _total(core_voiced))


def _original_verdict(scope: Scope, rs: RepairSpan) -> Verdict:
    if rs.segments is None:  # nothing there to compare with: only a faithful answer will do
        return Verdict(False, 0.0, "missing")
    return judge(Transcript(_before(scope.original, rs)), rs.core.duration, scope.policy.config,
                 scope.policy.evidence)


def _judge(scope: Scope, rs: RepairSpan, step: Step, sent: Sent, prior: tuple[Segment, ...],
           core_voiced: list[tuple[float, float]], repetition: Repetition | None = None) -> tuple[Attempt, Placed | None]:
    """The verdict on one answer: loops, cut, density and deletion against the voiced
    time of the clip and of the span, and the original's clean text kept."""
    entry = sent.entry
    base = _sent_attempt(step, sent)
    if sent.error:
        return base.with_(error=sent.error), None
    if entry.get("unusable"):
        return base.with_(verdict=Verdict(False, INF, f"unusable answer: {entry['unusable']}", ("unusable",))), None
    try:
        candidate = parse_candidate(entry["body"], entry["format"])
    except FormatError as exc:
        return base.with_(verdict=Verdict(False, INF, f"unusable answer: {exc.detail}", ("unusable",))), None
    clip, config, evidence = sent.clip, scope.policy.config, scope.policy.evidence
    placed = place(candidate, rs, scope.original, clip, scope.suspect, prior)
    # The whole answer is judged too: a loop in the padding still means the decoder
    # degenerated, and clean speech in the padding or anchors that the answer does not
    # reproduce means it did not transcribe this audio.
    witnesses = clean_texts(scope.original, clip, scope.flagged, outside=rs.core) + clean_texts(prior, clip)
    whole = judge(candidate, clip.duration, config, evidence, voiced=scope.voiced(clip), witnesses=witnesses)
    unwritten = longest_unwritten(core_voiced, [s.span for s in placed.segments], evidence.stamp_slack) \
        if candidate.timed else 0.0  # an untimed answer is spread over the clip: nothing to compare
    kept = judge(Transcript(placed.segments), rs.core.duration, config, evidence,
                 voiced=_total(core_voiced), unwritten=unwritten,
                 required=clean_texts(scope.original, rs.core, scope.flagged),
                 least_units=repetition.copies if repetition is not None else 0)
    return base.with_(verdict=_combine(whole, kept)), placed


def _combine(whole: Verdict, kept: Verdict) -> Verdict:
    problems = tuple(dict.fromkeys(whole.problems + kept.problems))
    reasons = [r for r in dict.fromkeys(whole.reason.split("; ") + kept.reason.split("; ")) if r != "clean"]
    badness = INF if whole.badness == INF or kept.badness == INF else max(whole.badness, kept.badness)
    return Verdict(not problems, badness, "; ".join(reasons) or "clean", problems,
                   whole.repeats or kept.repeats, kept.voiced, kept.fit, kept.fits)


def _anchored(scope, sender, rs, transcriber, chosen: Tried, prior, recorded, core_voiced) -> Tried | None:
    """When the accepted answer holds speakers no clean segment vouches for, ask once more
    with clean neighbours on both sides in the clip. Returns None when no such request
    was made; else the try, with ``placed`` set only when it is faithful too and maps
    more speakers."""
    placed = chosen.placed
    if placed is None or not placed.unmapped or chosen.attempt.step.pieces:
        return None  # (a pieces answer sent whole again would only loop again)
    clip = anchor_clip(scope, rs, prior)
    sent_clip = chosen.attempt.clip
    if clip is None or (sent_clip.start <= clip.start and clip.end <= sent_clip.end):
        return None  # no anchor beyond the audio already sent: the answer would not change
    number = len(scope.policy.steps) + chosen.number
    step = chosen.attempt.step
    sent = recorded.get(number) or sender.send(transcriber, rs.key, number, step, clip,
                                               scope.policy.token_budget(clip.duration))
    attempt, better = _judge(scope, rs, step, sent, prior, core_voiced)
    attempt = attempt.with_(anchored=True)
    v = attempt.verdict
    ok = v is not None and (v.clean or agreeing(v, chosen.attempt.verdict, scope.policy.evidence))
    if not ok or better is None or len(better.unmapped) >= len(placed.unmapped):
        return Tried(number, attempt.with_(why=_rejected(attempt) or "not kept: maps no more speakers"), None, None)
    return Tried(number, attempt, better, None)


