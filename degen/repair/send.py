"""Send: the one piece of shared, changing state of a repair run.

Every request goes through a ``Sender``: it bounds the requests in flight, records each
finished one in the journal, gives each attempt its seed where the server applies one,
turns away steps that need a knob the server does not apply (its profile says so, or a
probe found it), counts what the server was really sent (retries included), and stops
sending once the run is cancelled (Ctrl-C). Everything else a span worker uses is an
immutable value.
"""

from __future__ import annotations

import dataclasses
import hashlib
import threading
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass

from ..errors import ServerError, ServerRejected
from ..model import Span
from .audio import Audio
from .client import Request, Transcriber
from .journal import Journal, JournalEntry
from .policy import Step, format_schedule

# Statuses that mean the server queued nothing: the audio was sent but never decoded.
REFUSED = (429, 503)
# Seconds of audio a probe for an unknown server sends per request (three requests, once
# per server): the middle of a clip already sent, where a span's loop sits.
PROBE_SECONDS = 8.0


def seed_for(key: str, number: int) -> int:
    """The seed of attempt ``number`` of span (or piece) ``key``: the same in every run of
    the same inputs, so a run repeats exactly; different for every attempt, so two draws
    at one temperature are independent."""
    return int.from_bytes(hashlib.sha256(f"{key}|{number}".encode()).digest()[:4], "big") >> 1


class Cancelled(Exception):
    """The run was cancelled; no further request is sent."""


class BudgetSpent(Exception):
    """The run has decoded as much audio as it may; the request was not sent."""


@dataclass(frozen=True)
class Sent:
    """One journaled answer (or error) for one attempt of one span."""

    entry: JournalEntry
    replayed: bool = False

    @property
    def error(self) -> str | None:
        return self.entry.error

    @property
    def clip(self) -> Span:
        return Span(*self.entry.clip)

    @property
    def requests(self) -> int:
        return int(self.entry.sent)


def transient(entry: JournalEntry) -> bool:
    """An error worth retrying on the next run (503, timeout, connection), never replayed."""
    return bool(entry.error)


class Sender:
    """Requests for the spans of one run (thread-safe)."""

    def __init__(self, audio: Audio, journal: Journal, concurrency: int, *, language: str | None = None,
                 budget: float = float("inf")):
        self.audio, self.journal, self.language = audio, journal, language
        self.slots = threading.Semaphore(max(1, concurrency))
        self.cancelled = threading.Event()
        self._lock = threading.Lock()
        self._ignores_penalty: set[int] = set()
        self._last_clip: dict[int, Span] = {}  # transcriber -> the clip it was last sent (a probe's audio)
        self.budget, self.spent = budget, 0.0
        self._firsts: dict[str, tuple[int, float]] = {}  # span key -> (its first step, seconds held for it)

    def reserve(self, key: str, number: int, seconds: float) -> None:
        """Hold ``seconds`` of the budget for a span's first request: every span gets one
        answer, however far the others escalate."""
        with self._lock:
            self._firsts[key] = (number, seconds)

    def _charge(self, key: str, number: int, seconds: float) -> None:
        span = key.partition("~")[0]  # a piece of a pieces step counts for its span
        with self._lock:
            first = self._firsts.get(span)
            if first is not None and first[0] == number:
                self._firsts[span] = (number, 0.0)  # its reservation is being used
            else:
                held = sum(s for _, s in self._firsts.values())
                if self.spent + held + seconds > self.budget:
                    raise BudgetSpent(f"{self.spent:.1f}s of audio decoded, {self.budget:.1f}s allowed")
            self.spent += seconds

    def replayable(self, key: str) -> dict[int, Sent]:
        """Journaled answers of a span by attempt number; transient errors are left out so
        that the attempt is sent again."""
        return {e.attempt: Sent(e, replayed=True) for e in self.journal.attempts(key) if not transient(e)}

    def skipped(self, key: str, steps: int) -> frozenset[int]:
        """Steps an earlier run passed over for this span (it had learned that they would
        only repeat another), so that a resumed run takes the same path."""
        numbers = {e.attempt for e in self.journal.attempts(key)}
        last = max((n for n in numbers if n < steps), default=-1)
        return frozenset(n for n in range(last) if n not in numbers)

    def send(self, transcriber: Transcriber, key: str, number: int, step: Step, clip: Span, budget: int) -> Sent:
        if self.cancelled.is_set():
            raise Cancelled()
        self._charge(key, number, clip.duration)
        server = getattr(transcriber, "server", None)  # an HttpTranscriber's profile (servers.ServerState)
        seed = seed_for(key, number) if server is not None and server.relies("seed") else None
        request = Request(self.audio.clip(clip), step.temperature, budget, step.repetition_penalty,
                          language=self.language, seed=seed, seconds=clip.duration)
        entry = JournalEntry(key, number, (clip.start, clip.end), step.to_dict(),
                             getattr(transcriber, "base_url", type(transcriber).__name__), budget, self.language,
                             seed=seed)
        with self._lock:
            self._last_clip[id(transcriber)] = clip
        try:
            with self.slots:
                if self.cancelled.is_set():
                    raise Cancelled()
                response = transcriber.transcribe(request)
            entry = entry.with_(body=response.text, format=response.response_format,
                                sent=int(getattr(response, "requests_sent", 1)),
                                unusable=getattr(response, "unusable", None))
        except ServerRejected:
            raise  # a wrong model, key or parameter: every span would fail the same way
        except ServerError as exc:
            tries = getattr(exc, "requests_sent", None) or getattr(transcriber, "retries", 0) + 1
            entry = entry.with_(error=str(exc), sent=int(tries), refused=getattr(exc, "status", None) in REFUSED)
        if self.cancelled.is_set():
            raise Cancelled()  # the answer came after Ctrl-C: the journal is closed
        self.journal.record(entry)
        return Sent(entry)

    def effective(self, transcriber: Transcriber, step: Step, probe: bool = True) -> Step:
        """The step as it will really run: without a repetition_penalty the server does not
        apply. Its profile says so (``servers``), or, for a server degen does not know, a
        probe finds it once; a server seen answering a penalised step byte for byte as the
        same step without it is taken at its word too. The span skips the step where what
        is left only repeats a step already tried (``SpanRepair.next_attempt``); the
        report's ``servers`` entry names the step and why. ``probe`` False: a server not
        known either way is sent the step as it is (a probe needs a clip that loops, and
        before the first answers none is known)."""
        if step.repetition_penalty is None:
            return step
        server = getattr(transcriber, "server", None)
        works = True
        if server is not None:
            works = server.relies("repetition_penalty")
            if works is None and not probe:
                return step
            if works is None and hasattr(transcriber, "probe_penalty"):
                works = transcriber.probe_penalty(self._probe_request(transcriber))
        with self._lock:
            works = bool(works) and id(transcriber) not in self._ignores_penalty
        if works:
            return step
        plain = dataclasses.replace(step, repetition_penalty=None)
        if server is not None:
            server.skip(format_schedule([step]), f"repetition_penalty {server.why('repetition_penalty')}; sent as "
                                                 f"{format_schedule([plain])}, or skipped where a span tried that")
        return plain

    def _probe_request(self, transcriber: Transcriber) -> Request:
        """A probe's clip: the middle ``PROBE_SECONDS`` of the clip last sent to this server
        (the start of the file when nothing was sent yet)."""
        with self._lock:
            clip = self._last_clip.get(id(transcriber)) or Span(0.0, min(self.audio.duration, PROBE_SECONDS))
        middle, half = (clip.start + clip.end) / 2, min(clip.duration, PROBE_SECONDS) / 2
        probe = Span(max(0.0, middle - half), min(self.audio.duration, middle + half))
        return Request(self.audio.clip(probe), 0.0, max(64, int(probe.duration * 12)), language=self.language,
                       seconds=probe.duration)

    def notice_ignored_penalty(self, transcriber: Transcriber, step: Step, body, plain_body) -> None:
        """A penalised step answered byte for byte as the same step without the penalty, on
        a server whose profile is a guess (its model's name) or that no profile covers: on
        this audio the penalty changed nothing, and later penalised steps would only repeat
        the plain ones (at temperature 0.1 a loop is near-deterministic, so identical bodies
        are telling): stop sending it. A server that named itself keeps its profile's word."""
        server = getattr(transcriber, "server", None)
        if server is not None and server.confident:
            return
        if step.repetition_penalty is not None and body is not None and body == plain_body:
            with self._lock:
                self._ignores_penalty.add(id(transcriber))
            if server is not None:
                server.learn("repetition_penalty", False, "an answer with it was byte-identical to the same "
                                                          "step's without it")

    def cancel(self) -> None:
        """Send nothing more, and record nothing more (the journal is flushed as it is)."""
        self.cancelled.set()
        self.journal.close()


# Seconds between looks at a future the main thread waits for.
POLL = 0.25


def polled(future):
    """``future.result()``, waited for in short slices. Python runs signal handlers only in
    the main thread, when it next runs Python code; the kernel may hand Ctrl-C to a worker
    thread, and a main thread blocked on a lock until a whole region is repaired (minutes)
    would hold the interrupt that long. Each slice's end lets it through."""
    while True:
        try:
            return future.result(timeout=POLL)
        except FutureTimeout:
            continue
