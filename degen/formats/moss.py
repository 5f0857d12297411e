"""MOSS-Transcribe-Diarize raw markup: ``[start][Sxx]text[end]``, concatenated.

    [0.48][S01]Welcome everyone[1.66][12.26][S02]The new pipeline is ready[13.81]
    └start┘└spk┘└──── body ─────┘└end┘

Bodies may contain bracketed numbers (``第[2024]年``), so a closing timestamp is only a
bracketed number that ends the stretch before the next ``[start][Sxx]`` opening (or the
text). A last segment without one is *unclosed*: the decoder hit its token cap there.
"""

from __future__ import annotations

import regex

from ..errors import FormatError
from ..model import Segment, Span, Transcript

_NUM = r"(\d+(?:\.\d+)?)"
OPENING = regex.compile(r"\[" + _NUM + r"\]\[(S\d{2,})\]")
_CLOSING = regex.compile(r"\[" + _NUM + r"\](\s*)\Z")


def looks_like(text: str) -> bool:
    """True when ``text`` holds at least one MOSS segment opening."""
    return OPENING.search(text) is not None


def parse_segments(text: str) -> tuple[list[Segment], str]:
    """Split markup into segments; returns them and any text before the first opening."""
    openings = list(OPENING.finditer(text))
    if not openings:
        raise FormatError("no MOSS segment found (expected '[start][S01]text[end]')",
                          hint="check that this is MOSS-Transcribe-Diarize output")
    segments = []
    for i, m in enumerate(openings):
        stop = openings[i + 1].start() if i + 1 < len(openings) else len(text)
        body = text[m.end():stop]
        start_raw, speaker = m.group(1), m.group(2)
        start = float(start_raw)
        closing = _CLOSING.search(body)
        extra = {"raw_start": start_raw}
        if closing:
            extra["raw_end"], extra["sep"] = closing.group(1), closing.group(2)
            span = Span(start, float(closing.group(1)))
            segments.append(Segment(span, speaker, body[:closing.start()], True, extra))
        else:
            segments.append(Segment(Span(start, start), speaker, body, False, extra))
    return segments, text[:openings[0].start()]


def loads(text: str) -> Transcript:
    segments, prefix = parse_segments(text)
    return Transcript(tuple(segments), "moss", {"prefix": prefix})


def format_time(value: float, raw: str | None = None) -> str:
    """Two decimals as MOSS writes them, or the original digits when the value is unchanged."""
    if raw is not None and float(raw) == value:
        return raw
    return f"{value:.2f}"


def dump_segment(seg: Segment) -> str:
    span = seg.span if seg.span is not None else Span(0.0, 0.0)
    speaker = seg.speaker if seg.speaker and OPENING.fullmatch(f"[0][{seg.speaker}]") else "S01"
    head = f"[{format_time(span.start, seg.extra.get('raw_start'))}][{speaker}]{seg.text}"
    if not seg.closed:
        return head
    return head + f"[{format_time(span.end, seg.extra.get('raw_end'))}]" + seg.extra.get("sep", "")


def dumps_segments(segments) -> str:
    return "".join(dump_segment(s) for s in segments)


def dumps(transcript: Transcript) -> str:
    return transcript.meta.get("prefix", "") + dumps_segments(transcript.segments)
