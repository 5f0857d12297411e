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
# The spaces between two segments are a plain \s* (a lookahead for "[" before each of them
# excluded nothing \s can match, and cost 6% of the split).
_SPLIT = re.compile(r"\[(?:" + _NUM + r"\](\s*)\[)?" + _NUM + r"\]\[(S[0-9]{2,})\]")
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
    pieces = _Pieces()
    for a, b in _chunks(text):
        pieces.add(_SPLIT.split(text[a:b]) if b - a < len(text) else _SPLIT.split(text))
    return pieces.finish(listed)


# Characters split at once. Splitting makes five strings a segment of which only the body
# lives on; split whole, a 300 MB file's dead stamps scatter its bodies over a few hundred
# MB of allocator arenas that can never be given back. A chunk's dead stamps leave room
# that the next chunk's strings fill.
CHUNK = 1 << 20


def _chunks(text: str):
    """(start, stop) of the chunks ``text`` is split in. Each cut falls at the start of an
    opening match that no match crosses, so the chunks' splits laid end to end are the
    split of the whole text."""
    start, size = 0, len(text)
    first = _SPLIT.search(text) if size > CHUNK else None
    while first is not None and size - start > CHUNK:
        cut = _cut_after(text, max(start + CHUNK, first.end()))  # the first chunk holds the first opening
        if cut is None:
            break
        yield start, cut
        start = cut
    yield start, size


_MATCHABLE = frozenset("0123456789.[]S")


def _cut_after(text: str, pos: int) -> int | None:
    """The start of the first opening match at or after ``pos`` that no other match
    crosses (None when there is none)."""
    found = _SPLIT.search(text, pos)
    while found is not None:
        cut = found.start()
        low = cut  # matches hold only stamp characters: any match crossing the cut starts after the last other one
        while low > 0 and (text[low - 1] in _MATCHABLE or text[low - 1].isspace()):
            low -= 1
        crossing = (_SPLIT.match(text, s) for s in range(low, cut) if text[s] == "[")
        if not any(m is not None and m.end() > cut for m in crossing):
            return cut
        found = _SPLIT.search(text, found.end())
    return None


class _Pieces:
    """Columns gathered from the chunks' splits, each chunk's stamps packed as it comes.

    A split reads [head, end?, sep?, start, speaker, body, end?, sep?, start, ...]: the end
    and sep in front of an opening close the segment before it. A chunk after the first
    begins at an opening, so its split begins with "", then the closing stamp of the
    previous chunk's last segment: every chunk's parts sit at the same offsets modulo 5.
    """

    def __init__(self):
        self.texts: list[str] = []
        self.speakers: list[str] = []
        self.names: dict[str, str] = {}  # one string per speaker, not one per segment (52 bytes each)
        self.starts_raw, self.ends_raw, self.seps = _PackedBuilder(), _PackedBuilder(), _PackedBuilder()
        self.starts: list[np.ndarray] = []
        # The closing stamps' values, parsed while their strings are at hand (reading them
        # back out of ``ends_raw`` slices each one anew): one array per ``ends_raw.add``.
        self.end_values: list[np.ndarray] = []
        self.head = None  # (text before the first opening, its closing stamp, sep)
        self.first_start = ""

    def add(self, parts: list) -> None:
        if self.head is None:
            if len(parts) == 1:
                raise FormatError("no MOSS segment found (expected '[start][S01]text[end]')",
                                  hint="check that this is MOSS-Transcribe-Diarize output")
            self.head, self.first_start = (parts[0], parts[1], parts[2]), parts[3]
            ends, seps = parts[6::5], parts[7::5]
        else:
            ends, seps = parts[1::5], parts[2::5]
        starts_raw = parts[3::5]
        self.starts.append(np.fromiter(map(float, starts_raw), dtype=np.float64, count=len(starts_raw)))
        self.starts_raw.add(starts_raw)
        self._add_ends([e or "" for e in ends])
        self.seps.add([s or "" for s in seps])
        names = self.names
        self.speakers += [names.setdefault(s, s) for s in parts[4::5]]
        self.texts += parts[5::5]

    def _add_ends(self, ends: list[str], first: bool = False) -> None:
        """Closing stamps ("" where a segment has none), at the end or ``first``."""
        values = np.fromiter(map(float, filter(None, ends)), dtype=np.float64)
        if first:
            self.ends_raw.insert_first(ends[0])
            self.end_values.insert(0, values)
        else:
            self.ends_raw.add(ends)
            self.end_values.append(values)

    def finish(self, listed):
        head, first_end, first_sep = self.head
        prefix = head + (f"[{first_end}]{first_sep}" if first_end is not None else "")
        texts, speakers = self.texts, self.speakers
        headless = _HEADLESS.match(head)
        if headless:  # read it as a segment from 0 (to its closing stamp or the next start), not hide it
            prefix = headless.group(1)
            self.starts_raw.insert_first("")
            self.starts.insert(0, np.zeros(1))
            speakers.insert(0, headless.group(2))
            texts.insert(0, headless.group(3))
            self._add_ends([first_end or self.first_start], first=True)
            self.seps.insert_first(first_sep or "")
        tail = _TAIL.search(texts[-1])
        if tail:
            texts[-1] = texts[-1][:tail.start()]
        self._add_ends([tail.group(1) if tail else ""])
        self.seps.add([tail.group(2) if tail else ""])
        starts = np.concatenate(self.starts)
        ends_raw = self.ends_raw.finish()
        closed = ends_raw.lengths() > 0
        ends = starts.copy()
        if closed.any():
            ends[closed] = np.concatenate(self.end_values)  # the non-empty stamps, in order
        _check_range(starts, "start")
        _check_range(ends, "end")
        columns = Columns(texts, speakers, starts, ends, closed)
        return columns, _builder(columns, self.starts_raw.finish(), ends_raw, self.seps.finish(),
                                 listed or [], headless is not None, first_end is None), prefix


def _builder(columns: Columns, starts_raw: "Packed", ends_raw: "Packed", seps: "Packed", listed,
             headless: bool, open_end: bool):
    texts, speakers, starts, ends, closed = (columns.texts, columns.speakers, columns.starts, columns.ends,
                                             columns.closed)

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

    return build


class Packed:
    """A list of short strings as one string and offsets; ``packed[i]`` is the i-th."""

    __slots__ = ("_text", "_bounds")

    def __init__(self, items: list[str] = (), *, text: str | None = None, lengths: np.ndarray | None = None):
        if text is None:
            text = "".join(items)
            lengths = np.fromiter(map(len, items), dtype=np.int64, count=len(items))
        self._text = text
        self._bounds = np.concatenate(([0], np.cumsum(lengths))).astype(
            np.int32 if len(self._text) < 2 ** 31 else np.int64)

    def __len__(self) -> int:
        return self._bounds.size - 1

    def __getitem__(self, i: int) -> str:
        return self._text[self._bounds[i]:self._bounds[i + 1]]

    def __iter__(self):
        text, bounds = self._text, self._bounds.tolist()
        return (text[a:b] for a, b in zip(bounds, bounds[1:]))

    def lengths(self) -> np.ndarray:
        return np.diff(self._bounds)


class _PackedBuilder:
    """Lists of strings packed as they come, made one ``Packed`` at the end."""

    def __init__(self):
        self._texts: list[str] = []
        self._lengths: list[np.ndarray] = []

    def add(self, items: list[str]) -> None:
        self._texts.append("".join(items))
        self._lengths.append(np.fromiter(map(len, items), dtype=np.int64, count=len(items)))

    def insert_first(self, item: str) -> None:
        self._texts.insert(0, item)
        self._lengths.insert(0, np.array([len(item)], dtype=np.int64))

    def finish(self) -> Packed:
        lengths = np.concatenate(self._lengths) if self._lengths else np.zeros(0, dtype=np.int64)
        return Packed(text="".join(self._texts), lengths=lengths)


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
