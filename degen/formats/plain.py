"""Plain text: one segment per non-empty line, no timing; a leading ``[S01]`` is a speaker."""

from __future__ import annotations

import regex

from ..model import Segment, Transcript
from . import lines

_TAG = regex.compile(r"^\[(S\d{2,})\]\s?")


def loads(text: str) -> Transcript:
    rows, meta = lines.split(text)
    segments, blank = [], []
    for line in rows:
        if not line.strip():
            blank.append(line)  # kept, so that the layout is written back
            continue
        tag = _TAG.match(line)
        speaker = tag.group(1) if tag else None
        extra = {"before": blank, "head": tag.group(0)} if tag else {"before": blank}
        segments.append(Segment(None, speaker, line[tag.end():] if tag else line, True, extra))
        blank = []
    meta["trailer"] = blank
    return Transcript(tuple(segments), "text", meta)


def dumps(transcript: Transcript) -> str:
    def render(seg: Segment) -> str:
        head = seg.extra.get("head", "")
        if seg.speaker is None or head.strip() != f"[{seg.speaker}]":
            head = f"[{seg.speaker}] " if seg.speaker else ""
        return head + seg.text.replace("\n", " ")

    return lines.emit(transcript.segments, transcript.meta, render)
