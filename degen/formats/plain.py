"""Plain text: one segment per non-empty line, no timing; a leading ``[S01]`` is a speaker."""

from __future__ import annotations

import regex

from ..model import Segment, Transcript

_TAG = regex.compile(r"^\[(S\d{2,})\]\s?")


def loads(text: str) -> Transcript:
    segments = []
    for line in text.splitlines():
        if not line.strip():
            continue
        tag = _TAG.match(line)
        speaker = tag.group(1) if tag else None
        segments.append(Segment(None, speaker, line[tag.end():] if tag else line))
    return Transcript(tuple(segments), "text", {"final_newline": text.endswith("\n")})


def dumps(transcript: Transcript) -> str:
    lines = [(f"[{s.speaker}] " if s.speaker else "") + s.text.replace("\n", " ")
             for s in transcript.segments]
    end = "\n" if transcript.meta.get("final_newline", True) and lines else ""
    return "\n".join(lines) + end
