"""The numbers that shape a repair's spans and its pace, in one place: ``degen.fix``,
``repair.fix.repair``, ``make_plan`` and the command line take their defaults and help from
here, and the default decoding schedule and the server kinds are written here as text. Kept
free of heavy imports: ``degen fix --help`` reads it without loading numpy."""

from __future__ import annotations

from dataclasses import dataclass, field, fields


# The default escalation, as ``--temperatures`` writes it (why these steps: the comment
# above ``repair.policy.ESCALATION``, which is parsed from this).
SCHEDULE = "0.1+pieces,0.1/p1.1,0.7,0.4/p1.1,0.1,0.7+c4"
# The server profiles' names (``repair.servers.PROFILES``, which must hold exactly these).
SERVER_KINDS = ("sglang-omni-moss", "sglang-omni-whisper", "vllm", "faster-whisper-server", "speaches", "whisper.cpp",
                "openai", "unknown")


def _option(default, help: str):
    return field(default=default, metadata={"help": help})


@dataclass(frozen=True)
class RepairOptions:
    """How spans are cut from the audio and how many are in flight."""

    pad: float = _option(0.5, "Seconds of audio around a span (at most 30: one decoding window).")
    merge_gap: float = _option(1.0, "Spans closer than this many seconds are sent as one.")
    max_span: float = _option(30.0, "Longest span sent, in seconds; longer ones split at segment boundaries "
                                    "(30 s is one Whisper window).")
    concurrency: int = _option(8, "Spans in flight at once (long audio peaked at 8 in the seed's measurements).")

    @classmethod
    def help(cls, name: str) -> str:
        """The command line's help for field ``name``."""
        return next(f.metadata["help"] for f in fields(cls) if f.name == name)


DEFAULT = RepairOptions()
