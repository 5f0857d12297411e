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
import numpy as np

from ..model import Columns, Segment, Span, Transcript
from .timecode import MAX_SECONDS, check_seconds

_NUM = r"([0-9]+(?:\.[0-9]+)?)"
OPENING = re.compile(r"\[" + _NUM + r"\]\[(S[0-9]{2,})\]")  # ASCII only: re splits faster


def looks_like(text: str) -> bool:
    """True when ``text`` holds at least one MOSS segment opening."""
    return OPENING.search(text) is not None


# One split does it all: each opening, with the closing stamp (and spaces) of the segment
# before it when there is one, so that no pass over the bodies is needed afterwards.
# "[" is factored out of the optional closing stamp, so the pattern starts with a literal
# that re searches for quickly (same matches, same groups; the split takes half the time).
_SPLIT = re.compile(r"\[(?:" + _NUM + r"\]((?:(?!\[)\s)*)\[)?" + _NUM + r"\]\[(S[0-9]{2,})\]")
_TAIL = re.compile(r"\[" + _NUM + r"\](\s*)\Z")
# A first segment whose start stamp is missing: "[S01]text[1.50][1.60][S02]...".
_HEADLESS = re.compile(r"\A(\s*)\[(S[0-9]{2,})\](.*)\Z", re.S)


def parse_columns(text: str, listed: list | None = None):
    """Split markup into columns (no object per segment); returns (Columns, a function
    building segment i, the text before the first opening).

    ``listed`` are the response's ``segments`` items (a list, or any sequence such as
    ``jsonfmt.PackedItems``), kept in each segment's extra (in order) so that writing back
    loses none of their fields.
    """
    # [prefix, end?, sep?, start, speaker, body, end?, sep?, start, speaker, body, ...]:
    # the end and sep in front of an opening close the segment before it.
    parts = _SPLIT.split(text)
    if len(parts) == 1:
        raise FormatError("no MOSS segment found (expected '[start][S01]text[end]')",
                          hint="check that this is MOSS-Transcribe-Diarize output")
    prefix = parts[0] + (f"[{parts[1]}]{parts[2]}" if parts[1] is not None else "")
    starts_raw, texts = parts[3::5], parts[5::5]
    names: dict[str, str] = {}  # one string per speaker, not one per segment (52 bytes each)
    speakers = [names.setdefault(s, s) for s in parts[4::5]]
    ends_raw = [e or "" for e in parts[6::5]]
    seps = [p or "" for p in parts[7::5]]
    head, first_end, first_sep = parts[0], parts[1], parts[2]
    open_end = first_end is None
    del parts  # five references a segment: not kept alive by ``build``
    headless = _HEADLESS.match(head)
    if headless:  # read it as a segment from 0 (to its closing stamp or the next start), not hide it
        prefix = headless.group(1)
        starts_raw.insert(0, "")
        speakers.insert(0, headless.group(2))
        texts.insert(0, headless.group(3))
        ends_raw.insert(0, first_end or starts_raw[1])
        seps.insert(0, first_sep or "")
    tail = _TAIL.search(texts[-1])
    if tail:
        texts[-1] = texts[-1][:tail.start()]
    ends_raw.append(tail.group(1) if tail else "")
    seps.append(tail.group(2) if tail else "")
    starts = np.fromiter((float(s or 0) for s in starts_raw) if headless else map(float, starts_raw),
                         dtype=np.float64, count=len(starts_raw))
    closed = np.fromiter(map(bool, ends_raw), dtype=bool, count=len(ends_raw))
    ends = starts.copy()
    if closed.any():
        ends[closed] = np.fromiter(map(float, filter(None, ends_raw)), dtype=np.float64)
    _check_range(starts, "start")
    _check_range(ends, "end")
    listed = listed or []
    columns = Columns(texts, speakers, starts, ends, closed)
    # The stamps as written, for a faithful write-back: packed into one string each (a
    # str object per stamp costs about 55 bytes, a third of a typical segment's share).
    starts_raw, ends_raw, seps = Packed(starts_raw), Packed(ends_raw), Packed(seps)

    def build(i: int) -> Segment:
        extra = {"raw_start": starts_raw[i]}
        if headless and i == 0:
            extra = {"raw_start": None, "headless": Span(float(starts[0]), float(ends[0])),
                     "open_end": open_end}
        j = i - 1 if headless else i  # the server's segment list never holds a headless segment
        item = listed[j] if 0 <= j < len(listed) else None
        if isinstance(item, dict):
            extra["json"], extra["tagged"] = item, True
        if ends_raw[i]:
            extra["raw_end"], extra["sep"] = ends_raw[i], seps[i]
        return Segment(Span(float(starts[i]), float(ends[i])), speakers[i], texts[i], bool(closed[i]), extra)

    return columns, build, prefix


class Packed:
    """A list of short strings as one string and offsets; ``packed[i]`` is the i-th."""

    __slots__ = ("_text", "_bounds")

    def __init__(self, items: list[str]):
        self._text = "".join(items)
        lengths = np.fromiter(map(len, items), dtype=np.int64, count=len(items))
        self._bounds = np.concatenate(([0], np.cumsum(lengths))).astype(
            np.int32 if len(self._text) < 2 ** 31 else np.int64)

    def __len__(self) -> int:
        return self._bounds.size - 1

    def __getitem__(self, i: int) -> str:
        return self._text[self._bounds[i]:self._bounds[i + 1]]


def _check_range(times: np.ndarray, field: str) -> None:
    """A one-line error for the first stamp that is not a usable time (a 309-digit
    stamp parses as inf), checked on the whole column at once."""
    bad = np.flatnonzero(~(np.abs(times) <= MAX_SECONDS))
    if len(bad):
        check_seconds(float(times[bad[0]]), f"segment {int(bad[0])}", field)


def parse_segments(text: str, listed: list | None = None) -> tuple[list[Segment], str]:
    """Markup as a list of segments, and any text before the first opening."""
    columns, build, prefix = parse_columns(text, listed)
    return [build(i) for i in range(len(columns.texts))], prefix


def loads(text: str) -> Transcript:
    columns, build, prefix = parse_columns(text)
    return Transcript(format="moss", meta={"prefix": prefix}, columns=columns, build=build)


def format_time(value: float, raw: str | None = None) -> str:
    """Two decimals as MOSS writes them, or the original digits when the value is unchanged."""
    if raw is not None and float(raw) == value:
        return raw
    return f"{value:.2f}"


def dump_segment(seg: Segment) -> str:
    span = seg.span if seg.span is not None else Span(0.0, 0.0)
    speaker = seg.speaker if seg.speaker and OPENING.fullmatch(f"[0][{seg.speaker}]") else "S01"
    if seg.extra.get("headless") == span:  # written as it came, without the stamps it lacked
        if seg.extra["open_end"]:
            return f"[{speaker}]{seg.text}"
        return f"[{speaker}]{seg.text}[{format_time(span.end, seg.extra.get('raw_end'))}]" + seg.extra.get("sep", "")
    head = f"[{format_time(span.start, seg.extra.get('raw_start'))}][{speaker}]{seg.text}"
    if not seg.closed:
        return head
    return head + f"[{format_time(span.end, seg.extra.get('raw_end'))}]" + seg.extra.get("sep", "")


def dumps_segments(segments) -> str:
    return "".join(dump_segment(s) for s in segments)


def dumps(transcript: Transcript) -> str:
    return transcript.meta.get("prefix", "") + dumps_segments(transcript.segments)
