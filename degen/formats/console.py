"""whisper.cpp, openai-whisper and faster-whisper console output: one cue a line,

    [00:00:00.000 --> 00:00:11.000]   And so my fellow Americans ...     (whisper.cpp)
    [00:01.000 --> 00:03.000]  text                                     (openai-whisper --verbose)
    [0.00s -> 2.00s] text                                               (faster-whisper's example)

amid log and progress lines (``whisper_init_...``, ``main: processing``, tqdm bars,
``Detected language: English``, ``whisper_print_timings``). Those are skipped, counted in
``meta["skipped_lines"]`` and written back where they were.
"""

from __future__ import annotations

import re

from ..errors import FormatError
from ..model import Segment, Span, Transcript
from . import lines
from .timecode import CLOCK, check_seconds, clock_seconds, format_clock

_STAMP = CLOCK.replace("(", "(?:").replace("(?:?:", "(?:")  # the same clock, without groups
_TIME = rf"(?:{_STAMP}|\d+(?:\.\d+)?s)"
_CUE = re.compile(rf"^(\s*\[\s*({_TIME})\s*(-->|->)\s*({_TIME})\s*\])(\s*)(.*)$")
_LOOSE = re.compile(r"^\s*\[\s*\d[\d:.,]*s?\s*-+>")  # a cue stamp, maybe broken
_CLOCK = re.compile(CLOCK)


def looks_like(text: str) -> bool:
    """True when the first line that opens with a time stamp is a console cue."""
    for line in text.splitlines()[:2000]:
        if line.lstrip().startswith("[") and line.lstrip()[1:2].isdigit():
            return bool(_LOOSE.match(line))
    return False


def _seconds(stamp: str, where: str) -> float:
    if stamp.endswith("s"):
        return check_seconds(float(stamp[:-1]), where)
    return clock_seconds(*_CLOCK.fullmatch(stamp).groups(), where)


def _style(stamp: str, arrow: str) -> dict:
    if stamp.endswith("s"):
        digits = len(stamp[:-1].partition(".")[2])
        return {"kind": "seconds", "digits": digits, "arrow": arrow}
    fraction = re.search(r"[.,](\d+)$", stamp)
    return {"kind": "clock", "hours": stamp.count(":") == 2, "digits": len(fraction.group(1)) if fraction else 0,
            "sep": stamp[fraction.start()] if fraction else ".", "arrow": arrow}


def loads(text: str) -> Transcript:
    rows, meta = lines.split(text)
    segments, before, skipped, style = [], [], 0, None
    for number, line in enumerate(rows, 1):
        match = _CUE.match(line)
        if not match:
            if _LOOSE.match(line):
                raise FormatError(f"bad cue stamp {line.strip()[:60]!r}", where=f"line {number}", field="time",
                                  hint="a cue reads [hh:mm:ss.mmm --> hh:mm:ss.mmm] text")
            before.append(line)
            skipped += bool(line.strip())
            continue
        stamp, start_raw, arrow, end_raw, sep, body = match.groups()
        where = f"line {number}"
        span = Span(_seconds(start_raw, where), _seconds(end_raw, where))
        style = style or _style(start_raw, arrow)
        extra = {"stamp": stamp, "raw_span": span, "sep": sep, "before": before}
        segments.append(Segment(span, None, body, True, extra))
        before = []
    if not segments:
        raise FormatError("no '[start --> end] text' line found", hint="is this whisper console output?")
    meta.update(trailer=before, skipped_lines=skipped, style=style)
    return Transcript(tuple(segments), "whisper_console", meta)


def _stamp_text(seconds: float, style: dict) -> str:
    if style["kind"] == "seconds":
        return f"{seconds:.{style['digits']}f}s"
    hours = style["hours"] or seconds >= 3600  # openai-whisper adds hours once they are due
    return format_clock(seconds, hours, style["digits"], style["sep"])


def dumps(transcript: Transcript) -> str:
    style = transcript.meta.get("style") or {"kind": "clock", "hours": True, "digits": 3, "sep": ".", "arrow": "-->"}

    def render(seg: Segment) -> str:
        span = seg.span if seg.span is not None else Span(0.0, 0.0)
        if seg.extra.get("raw_span") == span:
            stamp = seg.extra["stamp"]
        else:
            stamp = f"[{_stamp_text(span.start, style)} {style['arrow']} {_stamp_text(span.end, style)}]"
        return stamp + seg.extra.get("sep", "  ") + seg.text.replace("\n", " ")

    return lines.emit(transcript.segments, transcript.meta, render)
