"""autocut's Markdown cut list: a subtitle a checklist line, ticked to keep it in the cut.

    Texts generated from [video.srt](video.srt). Mark the sentences to keep for autocut.
    - [ ] [823,28:11] 我会发现
    - [x] [824,28:13] 我会发现
        tick, the subtitle's number and its start (mm:ss or hh:mm:ss), its text

A line lasts until the next one starts (``timecode.infer_ends``: the stamps are to the
second). Other lines (the heading, blank lines) are kept aside and written back where they
were; a line whose text or start a repair changed is written anew with its tick and number.
"""

from __future__ import annotations

import re

from ..errors import FormatError
from ..model import Segment, Span, Transcript
from . import lines
from .timecode import CLOCK, clock_seconds, format_clock, infer_ends

_LINE = re.compile(rf"^(\s*[-*]\s+\[([ xX])\]\s+)\[(\d+),\s*({CLOCK.replace('(', '(?:').replace('(?:?:', '(?:')})\]\s?(.*?)\s*$")
_CLOCK = re.compile(CLOCK)
SNIFF_LINES = 50  # lines a sniff looks at


def looks_like(text: str) -> bool:
    """Two cut lines or more among the first lines, and most lines that hold text are."""
    rows = [ln for ln in lines.split_lines(text)[:SNIFF_LINES] if ln.strip()]
    cut = sum(1 for ln in rows if _LINE.match(ln))
    return cut >= 2 and cut * 2 > len(rows)


def loads(text: str) -> Transcript:
    rows, meta = lines.split(text)
    found, before = [], []
    for number, row in enumerate(rows, 1):
        m = _LINE.match(row)
        if not m:
            before.append(row)
            continue
        start = clock_seconds(*_CLOCK.fullmatch(m.group(4)).groups(), f"line {number}")
        found.append((start, m, row, before))
        before = []
    if not found:
        raise FormatError("no cut-list line found", hint="a cut-list line reads: - [ ] [1,00:02] text")
    ends = infer_ends([start for start, *_ in found])
    segments = []
    for (start, m, row, aside), end in zip(found, ends):
        span = Span(start, end)
        extra = {"before": aside, "raw": row, "raw_start": start, "raw_text": m.group(5), "mark": m.group(1),
                 "number": m.group(3), "hours": m.group(4).count(":") == 2}
        segments.append(Segment(span, None, m.group(5), True, extra))
    meta["trailer"] = before
    return Transcript(tuple(segments), "autocut_md", meta)


def dumps(transcript: Transcript) -> str:
    def render(seg: Segment) -> str:
        x = seg.extra
        start = seg.span.start if seg.span is not None else 0.0
        if x.get("raw") and (x["raw_start"], x["raw_text"]) == (start, seg.text):
            return x["raw"]
        stamp = format_clock(start, hours=x.get("hours", start >= 3600), digits=0)
        return f"{x.get('mark', '- [ ] ')}[{x.get('number', '0')},{stamp}] {seg.text.replace(chr(10), ' ')}"

    return lines.emit(transcript.segments, transcript.meta, render)
