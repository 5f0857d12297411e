"""Plain text: one segment per non-empty line, no timing; a leading ``[S01]`` is a speaker.

A streaming recogniser's console (sherpa-ncnn, sherpa-onnx) numbers its results::

    Started! Please speak
    0:重要
    1:要

When the non-empty lines from the first ``0:`` or ``1:`` on all carry a counter that goes
up by one, the counter is layout, not text: it is kept aside and written back (counting on
from where it started when a repair changes the number of lines), and the lines before it
are a preamble, skipped and counted in ``meta["skipped_lines"]``.
"""

from __future__ import annotations

import regex

from ..model import Segment, Transcript
from . import lines

_TAG = regex.compile(r"^\[(S\d{2,})\]\s?")
_COUNTER = regex.compile(r"^(\d{1,7})([:：])")
_MIN_NUMBERED = 3  # fewer numbered lines could be a list in prose
_MAX_PREAMBLE = 5  # banner lines a console prints before its first result


def _numbered_from(rows: list[str]) -> int | None:
    """The index of the first counted line, when the text is a numbered result list."""
    filled = [(i, line) for i, line in enumerate(rows) if line.strip()]
    for k, (i, line) in enumerate(filled[:_MAX_PREAMBLE + 1]):
        first = _COUNTER.match(line)
        if first and int(first.group(1)) in (0, 1):
            rest = filled[k:]
            expected = range(int(first.group(1)), int(first.group(1)) + len(rest))
            counters = [_COUNTER.match(row) for _, row in rest]
            if len(rest) >= _MIN_NUMBERED and all(m and int(m.group(1)) == n for m, n in zip(counters, expected)):
                return i
            return None
    return None


def loads(text: str) -> Transcript:
    rows, meta = lines.split(text)
    numbered = _numbered_from(rows)
    segments, blank = [], []
    if numbered is not None:
        blank = rows[:numbered]
        meta.update(skipped_lines=sum(1 for row in blank if row.strip()),
                    counter=int(_COUNTER.match(rows[numbered]).group(1)),
                    counter_sep=_COUNTER.match(rows[numbered]).group(2))
        rows = rows[numbered:]
    for line in rows:
        if not line.strip():
            blank.append(line)  # kept, so that the layout is written back
            continue
        tag = _COUNTER.match(line) if numbered is not None else _TAG.match(line)
        speaker = tag.group(1) if tag and numbered is None else None
        extra = {"before": blank, "head": tag.group(0)} if tag else {"before": blank}
        segments.append(Segment(None, speaker, line[tag.end():] if tag else line, True, extra))
        blank = []
    meta["trailer"] = blank
    return Transcript(tuple(segments), "text", meta)


def dumps(transcript: Transcript) -> str:
    counter = transcript.meta.get("counter")
    number = iter(range(counter if counter is not None else 0, 1 << 62))

    def render(seg: Segment) -> str:
        if counter is not None:
            return f"{next(number)}{transcript.meta.get('counter_sep', ':')}" + seg.text.replace("\n", " ")
        head = seg.extra.get("head", "")
        if seg.speaker is None or head.strip() != f"[{seg.speaker}]":
            head = f"[{seg.speaker}] " if seg.speaker else ""
        return head + seg.text.replace("\n", " ")

    return lines.emit(transcript.segments, transcript.meta, render)
