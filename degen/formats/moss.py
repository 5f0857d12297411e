"""MOSS-Transcribe-Diarize raw markup: ``[start][Sxx]text[end]``, concatenated.

    [0.48][S01]Welcome everyone[1.66][12.26][S02]The new pipeline is ready[13.81]
    └start┘└spk┘└──── body ─────┘└end┘

Bodies may contain bracketed numbers (``第[2024]年``), so a closing timestamp is only a
bracketed number that ends the stretch before the next ``[start][Sxx]`` opening (or the
text). A last segment without one is *unclosed*: the decoder hit its token cap there.
"""

from __future__ import annotations

import re

from ..errors import FormatError
from ..model import Segment, Span, Transcript

_NUM = r"([0-9]+(?:\.[0-9]+)?)"
OPENING = re.compile(r"\[" + _NUM + r"\]\[(S[0-9]{2,})\]")  # ASCII only: re splits faster


def looks_like(text: str) -> bool:
    """True when ``text`` holds at least one MOSS segment opening."""
    return OPENING.search(text) is not None


def parse_segments(text: str, listed: list | None = None) -> tuple[list[Segment], str]:
    """Split markup into segments; returns them and any text before the first opening.

    ``listed`` are the response's ``segments`` items, kept in each segment's extra
    (in order) so that writing back loses none of their fields.
    """
    parts = OPENING.split(text)  # [prefix, start, speaker, body, start, speaker, body, ...]
    if len(parts) == 1:
        raise FormatError("no MOSS segment found (expected '[start][S01]text[end]')",
                          hint="check that this is MOSS-Transcribe-Diarize output")
    listed = listed or []
    segments = []
    for i in range(1, len(parts), 3):
        start_raw, speaker, body = parts[i], parts[i + 1], parts[i + 2]
        start = float(start_raw)
        stripped = body.rstrip()
        cut = stripped.rfind("[") if stripped.endswith("]") else -1
        end_raw = stripped[cut + 1:-1] if cut >= 0 else ""
        extra = {"raw_start": start_raw}
        k = i // 3
        if k < len(listed) and isinstance(listed[k], dict):
            extra["json"], extra["tagged"] = listed[k], True
        if end_raw and end_raw.isascii() and end_raw.replace(".", "", 1).isdigit():
            extra["raw_end"], extra["sep"] = end_raw, body[len(stripped):]
            segments.append(Segment(Span(start, float(end_raw)), speaker, body[:cut], True, extra))
        else:
            segments.append(Segment(Span(start, start), speaker, body, False, extra))
    return segments, parts[0]


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
