"""Markdown meeting notes with time headers, or text with a time line above each block
(as faster-whisper users paste it): each section is one segment.

    # Weekly sync                       01:33:57
    ## 00:05:12 Budget                  quer mais parar, você se apaixona ...
    Alice: the numbers are in.          01:35:38
    Bob: good.                          ... ... ...

    ## [00:09:40]
    ...

A bare time line counts as a header only when the file has no markdown time headers and
its bare times never go back (a list of times in prose does not make sections).

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
_BARE = re.compile(rf"^\s*[\[(]?({_STAMP})[\])]?\s*$")  # a line holding only a time
_CLOCK = re.compile(CLOCK)


def _seconds(stamp: str, where: str) -> float:
    return clock_seconds(*_CLOCK.fullmatch(stamp).groups(), where)


def _headers(rows: list[str]) -> tuple[list[int], re.Pattern]:
    """The header lines and their pattern: markdown time headers, else bare time lines whose
    times never go back; fewer than two is none."""
    heads = [i for i, line in enumerate(rows) if _HEADER.match(line)]
    if len(heads) >= 2:
        return heads, _HEADER
    bare = [i for i, line in enumerate(rows) if _BARE.match(line)]
    try:
        times = [_seconds(_BARE.match(rows[i]).group(1), f"line {i + 1}") for i in bare]
    except FormatError:
        return heads, _HEADER
    if len(bare) >= 2 and all(a <= b for a, b in zip(times, times[1:])):
        return bare, _BARE
    return heads, _HEADER


def looks_like(text: str) -> bool:
    """Two or more markdown headers that open with a time, or bare time lines in order."""
    return len(_headers(lines.split_lines(text)[:4000])[0]) >= 2


def loads(text: str) -> Transcript:
    rows, meta = lines.split(text)
    heads, header = _headers(rows)
    if not heads:
        raise FormatError("no '## hh:mm:ss' header found", hint="is this a meeting-notes file?")
    meta["bare"] = header is _BARE
    starts, sections, before = [], [], rows[:heads[0]]
    for index, stop in zip(heads, heads[1:] + [len(rows)]):
        stamp = header.match(rows[index]).group(1)
        starts.append(_seconds(stamp, f"line {index + 1}"))
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
            clock = format_clock(start, hours=True, digits=0)
            head = head + [clock if transcript.meta.get("bare") else f"## {clock}"]
        elif start != seg.extra.get("raw_start"):
            new = format_clock(start, hours=stamp.count(":") == 2, digits=0)
            head[-1] = head[-1].replace(stamp, new, 1)
        segments.append(seg.with_(extra={"before": head}))
    return lines.emit(segments, transcript.meta, render)
