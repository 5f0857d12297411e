"""Policy: which decoding settings to try, in what order, and with what token budget.

How an answer is judged lives in ``evidence`` (loops, voiced time, text kept); the
policy carries the thresholds for it. Built in one place (``Policy.from_options``) for
the library and the command line alike.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ..detect import DEFAULT, DetectConfig
from ..errors import ConfigError
from ..options import SCHEDULE
from .evidence import EvidenceConfig, Verdict, judge  # noqa: F401  (Verdict, judge: re-exported)


@dataclass(frozen=True, slots=True)
class Step:
    """One decoding try.

    Attributes:
        temperature: sent explicitly (the server's own default is greedy, 0.0).
        repetition_penalty: sent only when set, and only where the server applies it
            (``servers``: SGLang-Omni 0.1.9 drops it for Whisper); elsewhere the step runs
            without it, or is skipped where that repeats a step already tried.
        context: seconds of audio before the span to send too; their text is dropped.
        pieces: where the audio repeats one word (``recurrence.find_repetition``), send the
            repeated stretch as short pieces cut between its copies, and the rest of the
            clip around it as requests of their own (``pieces.py``); a span whose audio
            does not repeat skips this step.
    """

    temperature: float
    repetition_penalty: float | None = None
    context: float = 0.0
    pieces: bool = False

    def to_dict(self) -> dict:
        out = {"temperature": self.temperature, "repetition_penalty": self.repetition_penalty,
               "context": self.context}
        return {**out, "pieces": True} if self.pieces else out


def _steps(temperatures=(0.1, 0.1, 0.2), penalty=None) -> tuple[Step, ...]:
    return tuple(Step(t, penalty) for t in temperatures)




MAX_CONTEXT_SECONDS = 60.0  # audio before a span that a step may send: more is another span's


def parse_schedule(text: str) -> tuple[Step, ...]:
    """Steps from ``"0.1+pieces,0.1,0.1/p1.1,0.7+c4"``: a temperature, optionally
    ``/pPENALTY``, ``+cSECONDS`` of context, and ``+pieces``."""
    steps = []
    for item in filter(None, (part.strip() for part in text.split(","))):
        pieces = item.endswith("+pieces")
        item = item.removesuffix("+pieces")
        head, _, context = item.partition("+c")
        temperature, _, penalty = head.partition("/p")
        try:
            steps.append(Step(float(temperature), float(penalty) if penalty else None,
                              float(context) if context else 0.0, pieces))
        except ValueError:
            raise ConfigError(f"bad step {item!r} in {text!r}: write TEMPERATURE[/pPENALTY][+cSECONDS][+pieces], "
                              f"e.g. 0.1+pieces,0.1,0.1/p1.1,0.7+c4") from None
    return tuple(steps)


def format_schedule(steps) -> str:
    return ",".join(f"{s.temperature:g}" + (f"/p{s.repetition_penalty:g}" if s.repetition_penalty else "")
                    + (f"+c{s.context:g}" if s.context else "") + ("+pieces" if s.pieces else "") for s in steps)


# The default escalation. Temperature 0.1 is the remedy that cleared MOSS's loops on a
# full re-run; re-submitted alone, a confident loop mostly survives it (logits divided by
# 0.1 are multiplied by 10). On 43 recordings of the real-loop corpus's dev split (Whisper
# base and tiny.en, seed 1, one whole request each), among the 22 whose repeated word the
# model writes at any setting, the count came back within a quarter of what was said at
# 0.1 on 1, at 0.1 with repetition_penalty 1.1 on 15, at 0.4 with it on 8, at 0.7 on 5;
# 0.1 gave the greedy loop back on 18. So the penalty comes first, then a higher
# temperature (a penalty alone did not break a laughter loop), then 0.1 and audio before
# the span.
#
# A span whose audio itself repeats one word starts with pieces: re-decoded whole, real
# repeated speech loops again at most settings, while pieces of one copy each cannot loop;
# their count is the recurrence's, confirmed by the pieces, the period or a whole answer (``decide``).
# Written once, as text, in ``options.SCHEDULE``: the command line shows it without
# loading this module.
ESCALATION = parse_schedule(SCHEDULE)


@dataclass(frozen=True)
class Policy:
    """How to re-decode a span.

    The default schedule is ``ESCALATION`` (above). A second draw at the same
    settings is a fresh sample; only where the server takes a seed (vLLM) is it an
    independent one.

    Attributes:
        steps: tried in order until one is clean.
        budget_per_second: the token budget of one request (sent in the server's own
            field, ``max_new_tokens`` or vLLM's ``max_completion_tokens``, which the server
            further clamps to its own cap) per
            second of clip. MOSS wrote ~6.5 output tokens per audio second in the seed's
            50-minute run; 12 leaves room for fast speech and cuts a loop off at about
            twice the expected output.
        budget_floor: the smallest budget, for short clips.
        anchor_seconds: when a clean candidate holds speakers that no clean original
            segment vouches for (a loop can hide a speaker change), one more request is
            sent with this much clean speech on each side as anchors for the mapping
            (0 turns it off). Measured on the seed-like session (bench/fix_cost.py): 0 s
            re-decodes 1.0x the planned audio but puts a wrong existing label on 5
            segments; 8 s costs 2.3x and leaves 15 fresh labels where no anchor spoke;
            15 s costs 2.6x (19.8% of a full re-run) and leaves 4.
        max_anchored_clip: the longest clip such a request may send.
        witness_seconds: every clip reaches out to the nearest clean segment within this
            many seconds of the span (before it, else after it), and an answer must
            reproduce it: an answer for other audio, or nonsense, cannot. 10 s reaches
            the neighbour of almost every span in conversation; 0 turns it off.
        witness_graphemes: the shortest text that counts as a witness ("Yeah." may be
            written "Yes." by a fresh decode; a sentence is not mistaken).
        config: the detectors used to judge candidates.
        evidence: the judge's own thresholds (voiced time, text kept, agreement).
        max_decoded: the audio a run may send, as a share of the file, every request
            counted: once the first answer of every span is in, escalation stops there.
            Re-running the whole file once is what degen saves a user from; whisper's own
            fallback decodes more than that whenever a window loops.
        accept_best: keep a span's best answer even when its evidence does not confirm it
            (status "unconfirmed", still an exit 1): for a user who would rather read the
            best guess than the loop.
    """

    steps: tuple[Step, ...] = ESCALATION
    budget_per_second: float = 12.0
    budget_floor: int = 128
    anchor_seconds: float = 15.0
    max_anchored_clip: float = 120.0
    witness_seconds: float = 10.0
    witness_graphemes: int = 8
    config: DetectConfig = DEFAULT
    evidence: EvidenceConfig = EvidenceConfig()
    max_decoded: float = 1.0
    accept_best: bool = False

    def __post_init__(self):
        if not self.steps:
            raise ConfigError("the policy needs at least one decoding step")
        for step in self.steps:
            if not 0 <= step.temperature <= 2 or step.context < 0:
                raise ConfigError(f"temperature {step.temperature} is outside 0..2 (or context < 0)")
            if step.context > MAX_CONTEXT_SECONDS:  # 1e308 sent all the audio before the span
                raise ConfigError(f"context {step.context:g} s is over {MAX_CONTEXT_SECONDS:g} s: a step's audio "
                                  f"before the span is a few seconds (the default step uses 4)")
            if step.repetition_penalty is not None and not 0 < step.repetition_penalty <= 2:
                raise ConfigError(f"repetition_penalty {step.repetition_penalty} is outside (0, 2]")
        if not self.max_decoded > 0:
            raise ConfigError(f"max_decoded {self.max_decoded} must be above 0 (a share of the audio)")

    @property
    def uses_pieces(self) -> bool:
        """Whether any step decodes in pieces (only then is a span's audio searched for a
        repeated word)."""
        return any(step.pieces for step in self.steps)

    def token_budget(self, seconds: float) -> int:
        """Tokens one request for ``seconds`` of audio may write: sized to the clip, so a
        retry that loops again is cut short instead of running to the server's cap."""
        return max(self.budget_floor, int(seconds * self.budget_per_second + 0.999))

    @classmethod
    def from_options(cls, schedule: "str | tuple[Step, ...] | None" = None, *,
                     repetition_penalty: float | None = None, config: DetectConfig = DEFAULT,
                     anchor_seconds: float | None = None, evidence: EvidenceConfig | None = None,
                     max_decoded: float | None = None, accept_best: bool = False) -> "Policy":
        """The one place a policy is built from user options.

        Args:
            schedule: steps, or their text (``"0.1,0.1/p1.1,0.7+c4"``), or plain
                temperatures as a tuple of floats; the default escalation when None.
            repetition_penalty: when given, every step sends it (replacing its own).
            config, anchor_seconds, evidence, max_decoded, accept_best: as in the class.
        """
        if isinstance(schedule, str):
            steps = parse_schedule(schedule)
        elif schedule and not isinstance(schedule[0], Step):
            steps = _steps(tuple(schedule))
        else:
            steps = tuple(schedule) if schedule else ESCALATION
        if repetition_penalty is not None:
            steps = tuple(dataclasses.replace(s, repetition_penalty=repetition_penalty) for s in steps)
        extra = {} if anchor_seconds is None else {"anchor_seconds": anchor_seconds}
        if max_decoded is not None:
            extra["max_decoded"] = max_decoded
        return cls(steps=steps, config=config, evidence=evidence or EvidenceConfig(), accept_best=accept_best,
                   **extra)
