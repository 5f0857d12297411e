"""The numbers that shape a repair's spans and its pace, in one place: ``degen.fix``,
``repair.fix.repair``, ``make_plan`` and the command line take their defaults and help from
here. Kept free of heavy imports: ``degen fix --help`` reads it without loading numpy."""

from __future__ import annotations

from dataclasses import dataclass, field, fields


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
