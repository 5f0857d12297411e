"""Results of a repair: attempts, edits, outcomes per span, and the whole run's account.

These are the values ``degen fix`` reports (``FixResult.to_dict`` is the JSON report).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import StrEnum

from ..model import Segment, Span, Transcript  # noqa: F401
from ..report import Report
from .evidence import Verdict
from .plan import Plan, RepairSpan
from .policy import Step
from .splice import Placed


@dataclass(frozen=True)
class Attempt:
    """One request for one span, and what came of it.

    Attributes:
        token_budget: the tokens this request was allowed to write (sent in the server's
            own field where it has one; the server may clamp it further).
        verdict: the judge's finding (None after a server error).
        why: why the answer was accepted or rejected, in words.
        requests_sent: HTTP requests it took, retries included (what the server was sent).
        replayed: taken from the journal of an earlier run, not sent by this one.
        refused: the server answered 429/503 to the end: sent, never decoded.
        seconds_sent: the audio this attempt sent, when it is not its clip once per request
            (a pieces step sends its clip in several parts).
        pieces: for a pieces step, how many requests it took and how the repeated word was
            named (or why the pieces were unusable).
        pieces_said: for a pieces step, (times the pieces said the named word, all
            counted; pieces of the repeated stretch).
        seed: the seed sent, where the server applies one.
    """

    step: Step
    clip: Span
    server: str
    token_budget: int
    verdict: Verdict | None
    error: str | None = None
    accepted: bool = False
    anchored: bool = False
    why: str = ""
    requests_sent: int = 1
    replayed: bool = False
    refused: bool = False
    seconds_sent: float | None = None
    pieces: str | None = None
    seed: int | None = None
    pieces_said: tuple[int, int] | None = None

    @property
    def seconds(self) -> float:
        return self.seconds_sent if self.seconds_sent is not None else self.clip.duration * self.requests_sent

    def with_(self, **changes) -> "Attempt":
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict:
        return {**self.step.to_dict(), "clip": [round(self.clip.start, 3), round(self.clip.end, 3)],
                "server": self.server, "token_budget": self.token_budget, "accepted": self.accepted,
                "anchored": self.anchored, "why": self.why, "error": self.error,
                "requests_sent": self.requests_sent, "replayed": self.replayed, "refused": self.refused,
                **({"pieces_named": self.pieces} if self.pieces else {}),
                **({"seed": self.seed} if self.seed is not None else {}),
                "verdict": self.verdict.to_dict() if self.verdict else None}


@dataclass(frozen=True)
class Edit:
    """A change made to the transcript, with its audit trail and evidence."""

    span: Span
    before: tuple[Segment, ...]
    after: tuple[Segment, ...]
    attempts: tuple[Attempt, ...]
    reason: str
    voiced: float | None = None
    why: str = ""

    def to_dict(self) -> dict:
        seg = lambda s: {"start": s.span.start, "end": s.span.end, "speaker": s.speaker, "text": s.text}
        return {"start": round(self.span.start, 3), "end": round(self.span.end, 3), "reason": self.reason,
                "why": self.why, "voiced_seconds": None if self.voiced is None else round(self.voiced, 2),
                "before": [seg(s) for s in self.before], "after": [seg(s) for s in self.after],
                "attempts": [a.to_dict() for a in self.attempts]}


class Status(StrEnum):
    """What became of a repair span (``Outcome.status``); only REPAIRED exits 0."""

    REPAIRED = "repaired"
    UNRESOLVED = "unresolved"
    UNCONFIRMED = "unconfirmed"


@dataclass(frozen=True)
class Outcome:
    """What happened to one repair span: "repaired" (an answer the evidence confirms),
    "unresolved" (the original kept; ``best`` names the attempt the evidence leaned to,
    when one was faithful on its own) or "unconfirmed" (that best answer kept anyway, as
    ``accept_best`` asks)."""

    rs: RepairSpan
    status: Status
    reason: str
    attempts: tuple[Attempt, ...]
    placed: Placed | None = None
    voiced: float | None = None
    best: int | None = None
    candidate: Placed | None = None  # the best answer of an unresolved span, not spliced

    def evidence(self) -> dict:
        """Per span: voiced seconds, the repetitions each attempt found, and why."""
        return {"core": [round(self.rs.core.start, 3), round(self.rs.core.end, 3)], "status": self.status,
                "why": self.reason, "voiced_seconds": None if self.voiced is None else round(self.voiced, 2),
                **({"best_attempt": self.best + 1, "best_text": " ".join(s.text for s in self.candidate.segments)}
                   if self.best is not None and self.candidate is not None else {}),
                "attempts": [{"temperature": a.step.temperature, "repetition_penalty": a.step.repetition_penalty,
                              "repeats": [f"{u} x{c}" for u, c in (a.verdict.repeats if a.verdict else ())],
                              "accepted": a.accepted, "why": a.why} for a in self.attempts]}


@dataclass(frozen=True)
class FixResult:
    """The repaired transcript and the account of how it was made.

    ``seconds_decoded`` is the audio this run sent (each request counted, retries
    included); ``seconds_refused`` the part of it the server refused (429/503) without
    decoding; ``seconds_replayed`` the audio of answers taken from an earlier run's journal.
    """

    transcript: Transcript
    plan: Plan
    outcomes: tuple[Outcome, ...]
    edits: tuple[Edit, ...]
    before: Report
    after: Report
    audio_seconds: float
    seconds_decoded: float = 0.0
    seconds_refused: float = 0.0
    seconds_replayed: float = 0.0
    requests_sent: int = 0
    language: str | None = None  # what every request asked for, and where it came from
    servers: tuple[dict, ...] = ()  # per server: its profile, how it was found, the knobs applied

    @property
    def unresolved(self) -> tuple[Outcome, ...]:
        return tuple(o for o in self.outcomes if o.status != Status.REPAIRED)

    def to_dict(self) -> dict:
        return {
            "spans_flagged": len(self.plan.spans),
            "repaired": sum(o.status == Status.REPAIRED for o in self.outcomes),
            "unconfirmed": sum(o.status == Status.UNCONFIRMED for o in self.outcomes),
            "unresolved": [{**o.rs.to_dict(), "status": o.status, "why": o.reason} for o in self.unresolved],
            "unrepairable": [f.to_dict() for f in self.plan.unrepairable],
            "seconds_decoded": round(self.seconds_decoded, 3), "seconds_refused": round(self.seconds_refused, 3),
            "seconds_replayed": round(self.seconds_replayed, 3), "requests_sent": self.requests_sent,
            "audio_seconds": round(self.audio_seconds, 3), "language": self.language,
            "servers": list(self.servers),
            "before": self.before.metrics.to_dict(), "after": self.after.metrics.to_dict(),
            "plan": [rs.to_dict() for rs in self.plan.spans],
            "evidence": [o.evidence() for o in self.outcomes],
            "edits": [e.to_dict() for e in self.edits],
        }


def cost(outcomes) -> dict:
    attempts = [a for o in outcomes for a in o.attempts]
    fresh = [a for a in attempts if not a.replayed]
    return {"seconds_decoded": sum(a.seconds for a in fresh),
            "seconds_refused": sum(a.seconds for a in fresh if a.refused),
            "seconds_replayed": sum(a.clip.duration for a in attempts if a.replayed),
            "requests_sent": sum(a.requests_sent for a in fresh)}
