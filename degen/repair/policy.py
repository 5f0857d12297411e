"""Policy: which decoding settings to try, and whether a candidate is good enough.

A candidate is accepted when the same detectors that flagged the span find nothing in
it, nothing was cut at the token cap, and its text density is one speech can hold. If no
attempt is clean, the least degenerate one is kept only when it is strictly better than
the original; otherwise the original stays and the span is reported unresolved. The
transcript never gets worse.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..detect import DEFAULT, DetectConfig, analyze
from ..detect.script import cjk_count
from ..detect.tokens import content
from ..errors import ConfigError
from ..model import Transcript


@dataclass(frozen=True, slots=True)
class Step:
    """One decoding try.

    Attributes:
        temperature: sent explicitly (the server's own default is greedy, 0.0).
        repetition_penalty: sent only when set (servers before ~Aug 2026 drop it).
        context: seconds of audio before the span to send too; their text is dropped.
    """

    temperature: float
    repetition_penalty: float | None = None
    context: float = 0.0

    def to_dict(self) -> dict:
        return {"temperature": self.temperature, "repetition_penalty": self.repetition_penalty,
                "context": self.context}


def _steps(temperatures=(0.1, 0.1, 0.2), penalty=None) -> tuple[Step, ...]:
    return tuple(Step(t, penalty) for t in temperatures)


# The default escalation, cheapest remedy first. Temperature 0.1 is the remedy that
# cleared MOSS's loops on a full re-run; re-submitted alone, a confident loop often
# survives it (logits divided by 0.1 are multiplied by 10), so the next steps add what
# broke real loops (README, "What repairs a real loop"): a repetition penalty, higher
# temperatures (a penalty alone did not break a laughter loop), and audio before the span.
ESCALATION = (Step(0.1), Step(0.1, 1.1), Step(0.4, 1.1), Step(0.7), Step(0.7, context=4.0))


def parse_schedule(text: str) -> tuple[Step, ...]:
    """Steps from ``"0.1,0.1/p1.1,0.7+c4"``: a temperature, optionally ``/pPENALTY`` and
    ``+cSECONDS`` of context."""
    steps = []
    for item in filter(None, (part.strip() for part in text.split(","))):
        head, _, context = item.partition("+c")
        temperature, _, penalty = head.partition("/p")
        try:
            steps.append(Step(float(temperature), float(penalty) if penalty else None,
                              float(context) if context else 0.0))
        except ValueError:
            raise ConfigError(f"bad step {item!r} in {text!r}: write TEMPERATURE[/pPENALTY][+cSECONDS], "
                              f"e.g. 0.1,0.1/p1.1,0.7+c4") from None
    return tuple(steps)


def format_schedule(steps) -> str:
    return ",".join(f"{s.temperature:g}" + (f"/p{s.repetition_penalty:g}" if s.repetition_penalty else "")
                    + (f"+c{s.context:g}" if s.context else "") for s in steps)


@dataclass(frozen=True)
class Policy:
    """How to re-decode a span.

    The default schedule is ``ESCALATION`` (above). A second draw at the same
    temperature is a fresh sample: the server has no seed.

    Attributes:
        steps: tried in order until one is clean.
        tokens_per_second: ``max_new_tokens`` per second of clip. MOSS wrote ~6.5 output
            tokens per audio second in the seed's 50-minute run; 12 leaves room for fast
            speech and cuts a loop off at about twice the expected output.
        min_new_tokens: the floor for short clips.
        anchor_seconds: when a clean candidate holds speakers that no clean original
            segment vouches for (a loop can hide a speaker change), one more request is
            sent with this much clean speech on each side as anchors for the mapping
            (0 turns it off). Measured on the seed-like session (bench/fix_cost.py): 0 s
            re-decodes 1.0x the planned audio but puts a wrong existing label on 5
            segments; 8 s costs 2.3x and leaves 15 fresh labels where no anchor spoke;
            15 s costs 2.6x (19.8% of a full re-run) and leaves 4.
        max_anchored_clip: the longest clip such a request may send.
        config: the detectors used to judge candidates.
    """

    steps: tuple[Step, ...] = ESCALATION
    tokens_per_second: float = 12.0
    min_new_tokens: int = 128
    anchor_seconds: float = 15.0
    max_anchored_clip: float = 120.0
    config: DetectConfig = DEFAULT

    def __post_init__(self):
        if not self.steps:
            raise ConfigError("the policy needs at least one decoding step")
        for step in self.steps:
            if not 0 <= step.temperature <= 2 or step.context < 0:
                raise ConfigError(f"temperature {step.temperature} is outside 0..2 (or context < 0)")
            if step.repetition_penalty is not None and not 0 < step.repetition_penalty <= 2:
                raise ConfigError(f"repetition_penalty {step.repetition_penalty} is outside (0, 2]")

    @classmethod
    def from_options(cls, temperatures: tuple[float, ...] | None = None, repetition_penalty: float | None = None,
                     config: DetectConfig = DEFAULT, anchor_seconds: float | None = None,
                     steps: tuple[Step, ...] | None = None) -> "Policy":
        """Plain temperatures (each with ``repetition_penalty`` when given), or ``steps``."""
        extra = {} if anchor_seconds is None else {"anchor_seconds": anchor_seconds}
        chosen = steps or (_steps(temperatures, repetition_penalty) if temperatures else ESCALATION)
        return cls(steps=chosen, config=config, **extra)


@dataclass(frozen=True, slots=True)
class Verdict:
    """How a candidate (or the original) reads: ``badness`` counts graphemes inside
    loops, cut off at the cap, or beyond what the time can hold; 0 is clean."""

    clean: bool
    badness: float
    reason: str

    def to_dict(self) -> dict:
        return {"clean": self.clean, "badness": round(self.badness, 2), "reason": self.reason}


def judge(transcript: Transcript, seconds: float, config: DetectConfig = DEFAULT) -> Verdict:
    """Judge a stretch of transcript that covers ``seconds`` of audio."""
    analysis = analyze(transcript, config)
    loops = [f for f in analysis.findings if f.is_loop and f.at_least(config.fail_on)]
    badness = float(sum(f.covered for f in loops))
    reasons = [f"{f.kind} {f.unit} x{f.count}" for f in loops[:2]]
    unclosed = [s for s in transcript if not s.closed]
    if unclosed:
        badness += sum(len(content(s.text)) for s in unclosed)
        reasons.append("cut at the token cap")
    units, limit = _density(transcript, config)
    excess = units - limit * max(seconds, config.rate_min_seconds)
    if units >= config.rate_min_units and excess > 0:
        badness += excess
        reasons.append(f"too dense ({units / max(seconds, 1e-9):.1f} units/s)")
    return Verdict(not reasons, badness, "; ".join(reasons) or "clean")


def _density(transcript: Transcript, config: DetectConfig) -> tuple[int, float]:
    text = content("".join(s.text for s in transcript))
    cjk = cjk_count(text)
    if cjk * 2 >= len(text):
        return len(text), config.max_cjk_rate
    words = sum(len(s.text.split()) for s in transcript)
    return words, config.max_word_rate
