"""An application log whose level lines interleave the committed results, as
whisper_streaming's server prints them (times in milliseconds; ``whisper_online.py``
puts the emission time in seconds first)::

    DEBUG   transcribing 2.12 seconds from 0.00
    DEBUG   >>>>COMPLETE NOW: (0.0, 1.26, ' Test test')
    0 1260  Test test
    INFO    Connected to client on ('83.135.241.177', 20058)
    12.3456 2380 2400  test

The log lines (and anything else that is no result) are skipped, counted in
``meta["skipped_lines"]`` and written back where they were.
"""

from __future__ import annotations

import re

from ..errors import FormatError
from ..model import Segment, Span, Transcript
from . import lines
from .timecode import check_seconds

_RESULT = re.compile(r"^((?:\d+\.\d+\s+)?)(\d+)\s+(\d+)(\s+)(\S.*)$")
# A log record: a level word first, or after a bracketed or plain time stamp and a logger name.
_LEVEL = re.compile(r"^(?:[\[\d][^A-Za-z]*\]?\s*)?(?:[\w.]+\s+)?(DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\b")
# A record's level word comes within its first characters; matching only those keeps a
# long line of digits and spaces (a loop) from making the pattern backtrack for minutes.
LEVEL_REACH = 200
MS = 0.001
MIN_LOG_SHARE = 0.2  # of the non-blank lines: a few level words in a transcript's text make no log


def looks_like(text: str) -> bool:
    """Log records make a fair share of the lines, and some line is a result."""
    rows = [r for r in lines.split_lines(text)[:2000] if r.strip()]
    logged = sum(1 for r in rows if _is_record(r))
    return bool(rows) and logged >= MIN_LOG_SHARE * len(rows) and any(_RESULT.match(r) for r in rows)


def _is_record(row: str) -> bool:
    return _LEVEL.match(row, 0, LEVEL_REACH) is not None


def loads(text: str) -> Transcript:
    rows, meta = lines.split(text)
    segments, before, skipped = [], [], 0
    for number, row in enumerate(rows, 1):
        m = None if _is_record(row) else _RESULT.match(row)
        if not m:
            before.append(row)
            skipped += bool(row.strip())
            continue
        where = f"line {number}"
        span = Span(check_seconds(int(m.group(2)) * MS, where), check_seconds(int(m.group(3)) * MS, where))
        extra = {"before": before, "raw": row, "raw_span": span, "emitted": m.group(1), "sep": m.group(4)}
        segments.append(Segment(span, None, m.group(5), True, extra | {"raw_text": m.group(5)}))
        before = []
    if not segments:
        raise FormatError("no result line 'start_ms end_ms text' found among the log lines",
                          hint="is this whisper_streaming's output?")
    meta.update(trailer=before, skipped_lines=skipped)
    return Transcript(tuple(segments), "streaming_log", meta)


def dumps(transcript: Transcript) -> str:
    def render(seg: Segment) -> str:
        x = seg.extra
        if x.get("raw") and (x["raw_span"], x["raw_text"]) == (seg.span, seg.text):
            return x["raw"]
        span = seg.span or Span(0.0, 0.0)
        return f"{x.get('emitted', '')}{round(span.start / MS)} {round(span.end / MS)}{x.get('sep', ' ')}" \
               + seg.text.replace("\n", " ")

    return lines.emit(transcript.segments, transcript.meta, render)
