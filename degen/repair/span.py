"""One span's repair: choose the next attempt, send it, judge it, until the evidence
confirms an answer (``decide``) or the schedule or the decode budget runs out.

    step ─▶ send (journaled; replayed on resume) ─▶ judge the whole answer and the part
    placed in the span ─▶ decide: confirmed? ─yes─▶ anchor speakers if needed ─▶ repaired
                                    └─no─▶ next step ... none left ─▶ unresolved, the
                                           original kept, the best answer reported
"""

from __future__ import annotations

import dataclasses
from concurrent.futures import Future

from ..errors import FormatError
from ..model import Segment, Transcript
from .clips import Scope, anchor_clip, clip_for
from .decide import Decision, Heard, Tried, best, decide
from .evidence import INF, Problem, Verdict, agreeing, claims, clean_texts, judge, longest_unwritten
from .pieces import pieces_note, send_pieces
from .plan import RepairSpan
from .policy import Step
from .result import Attempt, Outcome, Status
from .recurrence import Repetition
from .send import BudgetSpent, Sender, Sent
from .splice import Placed, parse_candidate, place


class SpanRepair:
    """The state of one span's repair (one thread works on it).

    Args:
        scope: what every span is judged against.
        sender: the run's requests (journal, budget, concurrency).
        rs: the span.
        transcriber: the server it is sent to.
        journaled: answers an earlier run finished, by step number.
        prior: segments repaired just before it in the same stretch (they count as clean).
        early: the first request (its number, its answer to come, the step as sent), sent
            ahead with the other spans of the stretch.
        repetition: where the span's audio repeats one word (``recurrence``), or None.
    """

    def __init__(self, scope: Scope, sender: Sender, rs: RepairSpan, transcriber, journaled: dict[int, Sent],
                 prior: tuple[Segment, ...] = (), early: tuple[int, Future, Step] | None = None,
                 repetition: Repetition | None = None):
        self.scope, self.sender, self.rs, self.transcriber = scope, sender, rs, transcriber
        self.prior, self.repetition = prior, repetition
        self.recorded, self.sent_as = dict(journaled), {}
        if early is not None and early[0] not in self.recorded:
            self.recorded[early[0]], self.sent_as[early[0]] = early[1].result(), early[2]
        self.skipped = sender.skipped(rs.key, len(scope.policy.steps)) | inapplicable(scope.policy.steps, repetition)
        self.core_voiced = scope.voiced_spans(rs.core)
        self.heard = Heard(repetition, scope.period(rs.core))
        self.original_units = loop_units(scope, rs)
        self.tried: tuple[Tried, ...] = ()

    @property
    def voiced(self) -> float:
        return sum(b - a for a, b in self.core_voiced)

    def run(self) -> Outcome:
        """Attempts until one is confirmed; else the span is unresolved."""
        while (choice := self.next_attempt()) is not None:
            number, step = choice
            try:
                sent = self.recorded.get(number) or self.send(number, step)
            except BudgetSpent as exc:
                return self.unresolved(f"decode budget spent: {exc}")
            attempt, placed = self.judge(step, sent)
            self._notice_ignored_penalty(step, sent)
            self.tried += (Tried(number, attempt.with_(why=rejected(attempt)), placed, sent.entry.body),)
            if attempt.error:
                return self.unresolved(f"server error: {attempt.error}")
            decision = decide(self.tried, self.heard, self.scope.policy.evidence, self.scope.language,
                              self.original_units)
            if decision is not None:
                return self.finish(decision)
        return self.unresolved(self._why_unconfirmed())

    def next_attempt(self) -> tuple[int, Step] | None:
        """The next step of the schedule, as it will really run; a step that would only
        repeat one already tried (a penalty the server drops), or that the journaled run
        skipped, is skipped."""
        done = {t.number for t in self.tried} | self.skipped
        ran = {t.attempt.step for t in self.tried}
        for number, step in enumerate(self.scope.policy.steps):
            if number in done:
                continue
            runs = self.sent_as.get(number) or self.sender.effective(self.transcriber, step,
                                                                         clip_for(self.scope, self.rs, step))
            if runs == step or runs not in ran:  # the same settings again are a fresh draw; a dropped penalty is not
                return number, runs
        return None

    def send(self, number: int, step: Step) -> Sent:
        return send_step(self.scope, self.sender, self.transcriber, self.rs, number, step, self.repetition)

    def judge(self, step: Step, sent: Sent) -> tuple[Attempt, Placed | None]:
        """The verdict on one answer: loops, cut, density, language and deletion against
        the voiced time of the clip and of the span, and the original's clean text kept."""
        entry, scope, rs = sent.entry, self.scope, self.rs
        base = sent_attempt(step, sent)
        if sent.error:
            return base.with_(error=sent.error), None
        if entry.unusable:
            return base.with_(verdict=Verdict(False, INF, f"unusable answer: {entry.unusable}", (Problem.UNUSABLE,))), None
        try:
            candidate = parse_candidate(entry.body, entry.format)
        except FormatError as exc:
            return base.with_(verdict=Verdict(False, INF, f"unusable answer: {exc.detail}", (Problem.UNUSABLE,))), None
        clip, config, evidence = sent.clip, scope.policy.config, scope.policy.evidence
        placed = place(candidate, rs, scope.original, clip, scope.suspect, self.prior)
        # The whole answer is judged too: a loop in the padding still means the decoder
        # degenerated, and clean speech in the padding or anchors that the answer does not
        # reproduce means it did not transcribe this audio.
        witnesses = clean_texts(scope.original, clip, scope.flagged, outside=rs.core) + clean_texts(self.prior, clip)
        recurs = self.repetition.copies if self.repetition is not None else 0
        whole = judge(candidate, clip.duration, config, evidence, voiced=scope.voiced(clip), witnesses=witnesses,
                      language=scope.language, recurs=recurs)
        unwritten = longest_unwritten(self.core_voiced, [s.span for s in placed.segments], evidence.stamp_slack) \
            if candidate.timed else 0.0  # an untimed answer is spread over the clip: nothing to compare
        kept = judge(Transcript(placed.segments), rs.core.duration, config, evidence,
                     voiced=self.voiced, unwritten=unwritten,
                     required=clean_texts(scope.original, rs.core, scope.flagged),
                     least_units=recurs, recurs=recurs)
        return base.with_(verdict=combine(whole, kept)), placed

    def finish(self, decision: Decision) -> Outcome:
        """Repaired: the accepted answer, re-asked with speaker anchors when it holds
        speakers no clean segment vouches for."""
        chosen = self.tried[decision.index]
        anchored = self._anchored(chosen)
        attempts = list(attempts_of(self.tried))
        if anchored is not None and anchored.placed is not None:
            attempts[decision.index] = chosen.attempt.with_(why=decision.why + "; replaced by the anchored answer")
            attempts.append(anchored.attempt.with_(accepted=True, why=decision.why + "; anchored: maps more speakers"))
            return Outcome(self.rs, Status.REPAIRED, decision.why, tuple(attempts), anchored.placed, self.voiced)
        attempts[decision.index] = chosen.attempt.with_(accepted=True, why=decision.why)
        if anchored is not None:
            attempts.append(anchored.attempt)
        return Outcome(self.rs, Status.REPAIRED, decision.why, tuple(attempts), chosen.placed, self.voiced)

    def unresolved(self, why: str) -> Outcome:
        """The original stays; the best answer, if any, is named in the report (and kept
        with ``accept_best``, as "unconfirmed")."""
        attempts = list(attempts_of(self.tried))
        k = best(self.tried, self.heard, self.scope.policy.evidence)
        if k is None:
            return Outcome(self.rs, Status.UNRESOLVED, why, tuple(attempts), None, self.voiced)
        attempts[k] = attempts[k].with_(why=f"best answer, not confirmed: {why}")
        if self.scope.policy.accept_best:
            attempts[k] = attempts[k].with_(accepted=True)
            return Outcome(self.rs, Status.UNCONFIRMED, why, tuple(attempts), self.tried[k].placed, self.voiced)
        return Outcome(self.rs, Status.UNRESOLVED, why, tuple(attempts), None, self.voiced, best=k,
                       candidate=self.tried[k].placed)

    def _why_unconfirmed(self) -> str:
        if not self.tried:
            return "no step of the schedule could run for this span"
        if not any(t.usable for t in self.tried):
            last = self.tried[-1].attempt.verdict
            return f"no answer was faithful ({last.reason if last else 'no answer'})"
        if self.heard.any:
            counts = [f"{n} by its {how}" for how, n in (("recurrence", self.repetition.copies if self.repetition
                                                          else None), ("period", self.heard.period)) if n is not None]
            return f"no two lines of evidence agree on the count (the audio repeats one sound {' and '.join(counts)})"
        return "no two answers agree on the count of the repetition"

    def _notice_ignored_penalty(self, step: Step, sent: Sent) -> None:
        plain = dataclasses.replace(step, repetition_penalty=None)
        plain_body = next((t.body for t in self.tried if t.attempt.step == plain), None)
        self.sender.notice_ignored_penalty(self.transcriber, step, sent.entry.body, plain_body)

    def _anchored(self, chosen: Tried) -> Tried | None:
        """When the accepted answer holds speakers no clean segment vouches for, ask once
        more with clean neighbours on both sides in the clip. Returns None when no such
        request was made; else the try, with ``placed`` set only when it is faithful too
        and maps more speakers."""
        scope, rs, placed = self.scope, self.rs, chosen.placed
        if placed is None or not placed.unmapped or chosen.attempt.step.pieces:
            return None  # (a pieces answer sent whole again would only loop again)
        clip = anchor_clip(scope, rs, self.prior)
        sent_clip = chosen.attempt.clip
        if clip is None or (sent_clip.start <= clip.start and clip.end <= sent_clip.end):
            return None  # no anchor beyond the audio already sent: the answer would not change
        number = len(scope.policy.steps) + chosen.number
        step = chosen.attempt.step
        try:
            sent = self.recorded.get(number) or self.sender.send(self.transcriber, rs.key, number, step, clip,
                                                                 scope.policy.token_budget(clip.duration))
        except BudgetSpent:
            return None
        attempt, better = self.judge(step, sent)
        attempt = attempt.with_(anchored=True)
        v = attempt.verdict
        ok = v is not None and (v.clean or agreeing(v, chosen.attempt.verdict, scope.policy.evidence))
        if not ok or better is None or len(better.unmapped) >= len(placed.unmapped):
            return Tried(number, attempt.with_(why=rejected(attempt) or "not kept: maps no more speakers"), None, None)
        return Tried(number, attempt, better, None)


def inapplicable(steps: tuple[Step, ...], repetition: Repetition | None) -> frozenset[int]:
    """Steps that cannot run for a span: pieces where its audio repeats no word."""
    return frozenset() if repetition is not None else frozenset(n for n, step in enumerate(steps) if step.pieces)


def first_step(steps: tuple[Step, ...], repetition: Repetition | None) -> int:
    """The number of the first step that will run for a span."""
    skipped = inapplicable(steps, repetition)
    return next((n for n in range(len(steps)) if n not in skipped), len(steps))


def send_step(scope: Scope, sender: Sender, transcriber, rs: RepairSpan, number: int, step: Step,
              repetition: Repetition | None) -> Sent:
    clip = clip_for(scope, rs, step)
    if step.pieces and repetition is not None:
        return send_pieces(sender, transcriber, rs.key, number, step, clip, repetition, scope.policy.token_budget,
                           loop_units(scope, rs), scope.voiced, scope.policy.config)
    return sender.send(transcriber, rs.key, number, step, clip, scope.policy.token_budget(clip.duration))


def sent_attempt(step: Step, sent: Sent) -> Attempt:
    """An attempt as sent, not yet judged."""
    entry = sent.entry
    return Attempt(step, sent.clip, entry.server, entry.token_budget, None, requests_sent=sent.requests,
                   replayed=sent.replayed, refused=entry.refused, seconds_sent=entry.seconds_sent,
                   pieces=pieces_note(entry), seed=entry.seed,
                   pieces_said=(entry.said, entry.copies) if entry.copies and entry.said is not None else None)


def attempts_of(tried) -> tuple[Attempt, ...]:
    return tuple(t.attempt for t in tried)


def rejected(attempt: Attempt) -> str:
    if attempt.error:
        return "server error"
    v = attempt.verdict
    if v is None:
        return ""
    if v.clean and v.fits:
        return "faithful on its own; its count not yet confirmed" if v.repeats else ""
    if v.clean:
        return f"held back: {v.fit:.2f}x the text ordinary speech writes in {_voiced(v)}; another answer was sought"
    return f"rejected: {v.reason}"


def _voiced(v: Verdict) -> str:
    return "the audio" if v.voiced is None else f"{v.voiced:.1f}s of voiced audio"


def loop_units(scope: Scope, rs: RepairSpan) -> tuple[str, ...]:
    """The short units the input's own text repeats in the span, as ``claims`` writes
    them (words with their spaces, "you know"; CJK graphemes, 然后), most copies first: the
    word the pieces may be named by, and a witness to it. (Detection's loop units are
    folded keys, "youknow": written into the transcript, a key is no word.)"""
    if rs.segments is None:
        return ()
    text = " ".join(s.text for s in scope.original.segments[rs.segments[0]:rs.segments[1] + 1])
    return tuple(unit for unit, _ in sorted(claims(text, scope.policy.evidence), key=lambda uc: -uc[1]))


def combine(whole: Verdict, kept: Verdict) -> Verdict:
    problems = tuple(dict.fromkeys(whole.problems + kept.problems))
    reasons = [r for r in dict.fromkeys(whole.reason.split("; ") + kept.reason.split("; ")) if r != "clean"]
    badness = INF if whole.badness == INF or kept.badness == INF else max(whole.badness, kept.badness)
    return Verdict(not problems, badness, "; ".join(reasons) or "clean", problems,
                   whole.repeats or kept.repeats, kept.voiced, kept.fit, kept.fits)
