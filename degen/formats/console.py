"""whisper.cpp, openai-whisper and faster-whisper console output: one cue a line,

    [00:00:00.000 --> 00:00:11.000]   And so my fellow Americans ...     (whisper.cpp)
    [00:01.000 --> 00:03.000]  text                                     (openai-whisper --verbose)
    [0.00s -> 2.00s] text                                               (faster-whisper's example)
    [289.36s - 292.36s] text                                            (seconds with a unit, a dash)
    [00:03:06,732 → 00:03:10,671] text                                  (WhisperX, others)
    80.40->84.40    text                                                (bare stamps, text on the line)

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
_TIME = rf"(?:{_STAMP}|\d+(?:\.\d+)?s?)"
_ARROW = r"(-->|->|→)"
# Bracketed, or bare with its text on the same line ("80.40->84.40  text", "00:00:00->00:00:29：text").
_CUE = re.compile(rf"^(\s*\[\s*({_TIME})\s*{_ARROW}\s*({_TIME})\s*\])(\s*)(.*)$")
_BARE_TIME = rf"(?:{_STAMP}|\d+\.\d+s?)"  # no bare integers: "2 -> 3 players" is prose
_BARE = re.compile(rf"^(\s*({_BARE_TIME})\s*{_ARROW}\s*({_BARE_TIME})\s*(?=[:：\s]))([:：]?\s*)(\S.*)$")
# In brackets, seconds with their unit may be joined by a bare dash; without the unit,
# ``[208.27 - 219.67] Speaker 0:`` is a speaker-labelled range (speakers.py).
_DASHED = re.compile(r"^(\s*\[\s*(\d+(?:\.\d+)?s)\s*(-)\s*(\d+(?:\.\d+)?s)\s*\])(\s*)(.*)$")
_LOOSE = re.compile(r"^\s*\[\s*\d[\d:.,]*(?:s?\s*(?:-+>|→)|s\s*-\s*\d)")  # a bracketed cue stamp, maybe broken
_CLOCK = re.compile(CLOCK)
_ANSI = re.compile(r"\x1b\[[0-9;]*m")  # whisper.cpp --print-colors: token confidence as colour


def looks_like(text: str) -> bool:
    """True when the first line that opens with a time stamp is a console cue."""
    for line in lines.split_lines(text)[:2000]:
        head = line.lstrip().lstrip("[")
        if head[:1].isdigit():
            return bool(_LOOSE.match(line) or _BARE.match(line))
    return False


def _match(line: str):
    return _CUE.match(line) or _DASHED.match(line) or _BARE.match(line)


def _seconds(stamp: str, where: str) -> float:
    clock = _CLOCK.fullmatch(stamp)
    if clock:
        return clock_seconds(*clock.groups(), where)
    return check_seconds(float(stamp.rstrip("s")), where)


def _style(stamp: str, arrow: str) -> dict:
    if not _CLOCK.fullmatch(stamp):
        digits = len(stamp.rstrip("s").partition(".")[2])
        return {"kind": "seconds", "digits": digits, "arrow": arrow, "unit": "s" if stamp.endswith("s") else ""}
    fraction = re.search(r"[.,](\d+)$", stamp)
    return {"kind": "clock", "hours": stamp.count(":") == 2, "digits": len(fraction.group(1)) if fraction else 0,
            "sep": stamp[fraction.start()] if fraction else ".", "arrow": arrow}


def loads(text: str) -> Transcript:
    rows, meta = lines.split(text)
    segments, before, skipped, style = [], [], 0, None
    for number, line in enumerate(rows, 1):
        match = _match(line)
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
        style = style or {**_style(start_raw, arrow), "brackets": stamp.lstrip().startswith("[")}
        extra = {"stamp": stamp, "raw_span": span, "sep": sep, "before": before}
        plain = _ANSI.sub("", body)
        if plain != body:
            extra.update(coloured=body, plain=plain)
        segments.append(Segment(span, None, plain, True, extra))
        before = []
    if not segments:
        raise FormatError("no '[start --> end] text' line found", hint="is this whisper console output?")
    meta.update(trailer=before, skipped_lines=skipped, style=style)
    return Transcript(tuple(segments), "whisper_console", meta)


def _stamp_text(seconds: float, style: dict) -> str:
    if style["kind"] == "seconds":
        return f"{seconds:.{style['digits']}f}" + style.get("unit", "s")
    hours = style["hours"] or seconds >= 3600  # openai-whisper adds hours once they are due
    return format_clock(seconds, hours, style["digits"], style["sep"])


def dumps(transcript: Transcript) -> str:
    style = transcript.meta.get("style") or {"kind": "clock", "hours": True, "digits": 3, "sep": ".", "arrow": "-->"}

    def render(seg: Segment) -> str:
        span = seg.span if seg.span is not None else Span(0.0, 0.0)
        if seg.extra.get("raw_span") == span:
            stamp = seg.extra["stamp"]
        else:
            stamp = f"{_stamp_text(span.start, style)} {style['arrow']} {_stamp_text(span.end, style)}"
            stamp = f"[{stamp}]" if style.get("brackets", True) else stamp
        text = seg.extra["coloured"] if seg.extra.get("plain", None) == seg.text else seg.text.replace("\n", " ")
        return stamp + seg.extra.get("sep", "  ") + text

    return lines.emit(transcript.segments, transcript.meta, render)
