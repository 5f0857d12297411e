"""Markdown meeting notes with time headers: each section is one segment.

    # Weekly sync
    ## 00:05:12 Budget
    Alice: the numbers are in.
    Bob: good.

    ## [00:09:40]
    ...

A section lasts until the next header's time (the last for the median section length, see
``timecode.infer_ends``). The header lines, with any title, are written back as they were.
"""

from __future__ import annotations

import re

from ..errors import FormatError
from ..model import Segment, Span, Transcript
from . import lines
from .timecode import CLOCK, clock_seconds, format_clock, infer_ends

_STAMP = CLOCK.replace("(", "(?:").replace("(?:?:", "(?:")  # the clock, without groups
_HEADER = re.compile(rf"^\s{{0,3}}#{{1,6}}\s+[\[(]?({_STAMP})[\])]?(?:\s.*)?$")
_CLOCK = re.compile(CLOCK)


def looks_like(text: str) -> bool:
    """Two or more markdown headers that open with a time."""
    return sum(1 for line in text.splitlines()[:4000] if _HEADER.match(line)) >= 2


def loads(text: str) -> Transcript:
    rows, meta = lines.split(text)
    heads = [i for i, line in enumerate(rows) if _HEADER.match(line)]
    if not heads:
        raise FormatError("no '## hh:mm:ss' header found", hint="is this a meeting-notes file?")
    starts, sections, before = [], [], rows[:heads[0]]
    for index, stop in zip(heads, heads[1:] + [len(rows)]):
        stamp = _HEADER.match(rows[index]).group(1)
        starts.append(clock_seconds(*_CLOCK.fullmatch(stamp).groups(), f"line {index + 1}"))
        body = rows[index + 1:stop]
        first, last = 0, len(body)
        while first < last and not body[first].strip():
            first += 1
        while last > first and not body[last - 1].strip():
            last -= 1
        sections.append((index, stamp, before + [rows[index]] + body[:first], "\n".join(body[first:last])))
        before = body[last:]
    ends = infer_ends(starts)
    segments = tuple(Segment(Span(start, end), None, text, True,
                             {"before": head, "stamp": stamp, "raw_start": start})
                     for (_, stamp, head, text), start, end in zip(sections, starts, ends))
    meta["trailer"] = before
    return Transcript(segments, "meeting_notes", meta)


def dumps(transcript: Transcript) -> str:
    def render(seg: Segment) -> list[str]:
        return seg.text.split("\n") if seg.text else []

    segments = []
    for seg in transcript.segments:
        start = seg.span.start if seg.span is not None else 0.0
        head = list(seg.extra.get("before", ()))
        stamp = seg.extra.get("stamp")
        if not head or stamp is None:  # a section a repair made anew
            head = head + [f"## {format_clock(start, hours=True, digits=0)}"]
        elif start != seg.extra.get("raw_start"):
            new = format_clock(start, hours=stamp.count(":") == 2, digits=0)
            head[-1] = head[-1].replace(stamp, new, 1)
        segments.append(seg.with_(extra={"before": head}))
    return lines.emit(segments, transcript.meta, render)
