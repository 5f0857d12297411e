"""LRC lyrics: ``[mm:ss.xx]line`` with ``[ar:Artist]``-style tags.

    [ar:Some Band]
    [00:12.00]First line
    [00:17.20][01:05.00]Chorus line      <- sung at 0:17.2 and again at 1:05
    [00:21.10]                           <- an empty line ends the one before

A line with several time tags repeats at each of them: one segment per time, in time order.
LRC gives starts only, so a line lasts until the next one starts (the last one until the
``[length:]`` tag, or for the median line duration; see ``timecode.infer_ends``). An
unchanged transcript is written back byte for byte; an edited one as one line a segment.
"""

from __future__ import annotations

import re

from ..errors import FormatError
from ..model import Segment, Span, Transcript
from . import lines
from .timecode import clock_seconds, format_clock, infer_ends

# [mm:ss.xx] only: the rare [mm:ss:xx] would read [00:01:02] Alice: (a stamped speaker turn).
_TIME = re.compile(r"\[(\d{1,3}):(\d{1,2})(?:\.(\d{1,3}))?\]")
_TIMED = re.compile(r"^\s*((?:\[\d{1,3}:\d{1,2}(?:\.\d{1,3})?\]\s*)+)(.*)$")
_TAG = re.compile(r"^\s*\[([A-Za-z#]+)\s*:(.*)\]\s*$")


def looks_like(text: str) -> bool:
    """True when the first line that opens with a time stamp is an LRC line."""
    for line in lines.split_lines(text)[:2000]:
        head = line.lstrip()
        if head.startswith("[") and head[1:2].isdigit():
            return bool(_TIMED.match(line))
    return False


def _length(tags: list[str]) -> float | None:
    for line in tags:
        tag = _TAG.match(line)
        if tag and tag.group(1).lower() == "length":
            stamp = re.fullmatch(r"\s*(?:(\d+):)?(\d{1,3}):(\d{1,2})(?:\.(\d{1,3}))?\s*", tag.group(2))
            if stamp:
                return clock_seconds(*stamp.groups(), "[length:]")
    return None


def loads(text: str) -> Transcript:
    rows, meta = lines.split(text)
    events, others = [], []  # (time, order, text, line number); lines that carry no time
    for number, line in enumerate(rows, 1):
        timed = _TIMED.match(line)
        if not timed:
            others.append(line)
            continue
        for stamp in _TIME.finditer(timed.group(1)):
            time = clock_seconds(None, *stamp.groups(), f"line {number}")
            events.append((time, len(events), timed.group(2), number))
    if not events:
        raise FormatError("no '[mm:ss.xx]text' line found", hint="is this an LRC file?")
    events.sort()
    ends = infer_ends([e[0] for e in events], _length(others))
    segments = [Segment(Span(time, end), None, body, True, {"line_no": number})
                for (time, _, body, number), end in zip(events, ends) if body.strip()]
    meta.update(source=text, read=_signature(segments), tags=[l for l in others if _TAG.match(l)])
    return Transcript(tuple(segments), "lrc", meta)


def _signature(segments) -> tuple:
    return tuple((s.span, s.speaker, s.text) for s in segments)


def _stamp(seconds: float) -> str:
    return "[" + format_clock(seconds, hours=False, digits=2) + "]"


def dumps(transcript: Transcript) -> str:
    meta, segs = transcript.meta, transcript.segments
    if meta.get("source") is not None and _signature(segs) == meta.get("read"):
        return meta["source"]
    out = list(meta.get("tags", ()))
    for seg, following in zip(segs, list(segs[1:]) + [None]):
        span = seg.span if seg.span is not None else Span(0.0, 0.0)
        out.append(_stamp(span.start) + seg.text.replace("\n", " "))
        next_start = following.span.start if following is not None and following.span is not None else None
        if next_start is None or abs(span.end - next_start) >= 0.005:
            out.append(_stamp(span.end))  # an empty line says where this one ended
    return lines.join(out, meta)
