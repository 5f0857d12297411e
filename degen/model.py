"""Values the rest of degen passes around: Span, Segment, Transcript.

All are frozen. Queries return new objects; nothing is mutated in place. Only the
standard library is imported here.
"""

from __future__ import annotations

import operator
from array import array
from bisect import bisect_right
from itertools import accumulate, chain
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Iterator, Mapping


@dataclass(frozen=True, slots=True, order=True)
class Span:
    """A stretch of time in seconds, ``start <= end`` expected but not enforced.

    A degenerate model can write an end before its start; readers keep such a value so
    that the timing detector can report it instead of the reader refusing the file.

    >>> Span(1.0, 3.0) | Span(2.0, 5.0)
    Span(start=1.0, end=5.0)
    >>> bool(Span(2.0, 2.0))
    False
    """

    start: float
    end: float

    @property
    def duration(self) -> float:
        return max(0.0, self.end - self.start)

    def __bool__(self) -> bool:
        return self.end > self.start

    def overlap(self, other: "Span") -> float:
        """Seconds shared with ``other`` (0 when disjoint)."""
        return max(0.0, min(self.end, other.end) - max(self.start, other.start))

    def __or__(self, other: "Span") -> "Span":
        return Span(min(self.start, other.start), max(self.end, other.end))

    def __and__(self, other: "Span") -> "Span":
        start, end = max(self.start, other.start), min(self.end, other.end)
        return Span(start, max(start, end))

    def contains(self, t: float) -> bool:
        return self.start <= t <= self.end

    def shift(self, offset: float) -> "Span":
        return Span(self.start + offset, self.end + offset)

    def clamp(self, outer: "Span") -> "Span":
        start = min(max(self.start, outer.start), outer.end)
        end = min(max(self.end, start), outer.end)
        return Span(start, end)


@dataclass(frozen=True, slots=True)
class Segment:
    """One stretch of text, with its time and speaker when the format has them.

    Attributes:
        span: time in seconds, or None for formats without timing (plain text).
        speaker: a label such as ``"S01"``, or None.
        text: the body, without speaker tag or timestamps.
        closed: False for a MOSS segment whose closing timestamp never came (the
            output hit its token cap); such a tail is where the worst loops live.
        extra: whatever else the reader found for this segment (unknown JSON fields,
            cue settings); writers put it back. Treat as read-only.
    """

    span: Span | None
    speaker: str | None
    text: str
    closed: bool = True
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def start(self) -> float | None:
        return self.span.start if self.span is not None else None

    @property
    def end(self) -> float | None:
        return self.span.end if self.span is not None else None

    def with_(self, **changes: Any) -> "Segment":
        return replace(self, **changes)


class Packed(Sequence):
    """Many short strings held as a few long ones: a list of str, read only, for the
    columns of a large transcript.

    Each str object costs 49 to 74 bytes besides its characters, more than a segment's
    text takes in an SRT file; here a chunk of strings is one str and each string adds
    4 bytes (where it ends in its chunk). Indexing gives a str, a slice a list of str.

    >>> p = Packed()
    >>> p.extend(["ab", "", "c"]); p.extend(["def"])
    >>> len(p), p[2], p[-1], p[1:4], list(p) == ["ab", "", "c", "def"]
    (4, 'c', 'def', ['', 'c', 'def'], True)
    """

    def __init__(self, items: Iterable[str] = ()):
        self._chunks: list[str] = []
        self._firsts = array("q")  # the index of each chunk's first string
        self._ends = array("i")  # where each string ends in its chunk
        # The chunk last read: (its first string, the string after its last, its text), one
        # tuple read and replaced whole, so that threads reading at once (fix's spans read
        # segment texts) never pair one chunk's bounds with another's text.
        self._last: tuple[int, int, str] = (0, 0, "")
        self.extend(items)

    def extend(self, items: Iterable[str]) -> None:
        """Append ``items`` as one chunk (a few MB of text at most: a chunk is one str)."""
        items = list(items)
        if not items:
            return
        chunk = "".join(items)
        if len(chunk) >= 2 ** 31:
            raise ValueError("a chunk of strings must hold fewer than 2**31 characters")
        self._firsts.append(len(self._ends))
        self._chunks.append(chunk)
        self._ends.extend(accumulate(map(len, items)))

    def chunks(self) -> Iterable[list[str]]:
        """The strings, a chunk at a time."""
        for c in range(len(self._chunks)):
            yield self._chunk(c, self._firsts[c], self._stop(c))

    def replace_chunk(self, c: int, items: list[str]) -> None:
        """Put ``items`` in place of the strings of chunk ``c`` (as many of them)."""
        first, stop = self._firsts[c], self._stop(c)
        if len(items) != stop - first:
            raise ValueError("a chunk is replaced by as many strings as it holds")
        self._chunks[c] = "".join(items)
        self._last = (0, 0, "")  # the chunk last read may be this one
        self._ends[first:stop] = array("i", accumulate(map(len, items)))

    def __len__(self) -> int:
        return len(self._ends)

    def lengths(self) -> Iterator[int]:
        """``map(len, self)`` without making the strings."""
        for c in range(len(self._chunks)):
            ends = self._ends[self._firsts[c]:self._stop(c)]
            yield from map(operator.sub, ends, chain((0,), ends))

    def __getitem__(self, index):
        if type(index) is not int:
            return self._other_item(index)
        lo, hi, text = self._last
        if not lo <= index < hi:  # another chunk than the last one read
            index, (lo, hi, text) = self._find(index)
        ends = self._ends
        return text[ends[index - 1] if index > lo else 0:ends[index]]

    def _find(self, index: int) -> tuple[int, tuple[int, int, str]]:
        """``index`` made non-negative, and its chunk, made the one last read."""
        position = index + len(self) if index < 0 else index
        if not 0 <= position < len(self):
            raise IndexError("Packed index out of range")
        c = bisect_right(self._firsts, position) - 1
        self._last = last = (self._firsts[c], self._stop(c), self._chunks[c])
        return position, last

    def _other_item(self, index):
        if not isinstance(index, slice):
            return self[operator.index(index)]
        first, stop, step = index.indices(len(self))
        if step != 1:
            return list(self)[index]
        if first >= stop:
            return []
        lo, hi, text = self._last
        if not lo <= first < hi:
            _, (lo, hi, text) = self._find(first)
        if stop <= hi:  # in one chunk, as most slices are
            return self._strings(text, first, stop, lo)
        return [item for c in self._chunk_range(first, stop)
                for item in self._chunk(c, max(first, self._firsts[c]), min(stop, self._stop(c)))]

    def __iter__(self):
        for c in range(len(self._chunks)):
            yield from self._chunk(c, self._firsts[c], self._stop(c))

    def __eq__(self, other) -> bool:
        return isinstance(other, (Packed, list)) and len(self) == len(other) and all(
            a == b for a, b in zip(self, other))

    __hash__ = None

    def __repr__(self) -> str:
        return f"Packed({len(self)} strings in {len(self._chunks)} chunks)"

    def _stop(self, c: int) -> int:
        return self._firsts[c + 1] if c + 1 < len(self._firsts) else len(self._ends)

    def _chunk_range(self, first: int, stop: int) -> range:
        if first >= stop:
            return range(0)
        return range(bisect_right(self._firsts, first) - 1, bisect_right(self._firsts, stop - 1))

    def _chunk(self, c: int, first: int, stop: int) -> list[str]:
        """The strings ``first`` to ``stop`` (indices into the whole) of chunk ``c``."""
        return self._strings(self._chunks[c], first, stop, self._firsts[c])

    def _strings(self, text: str, first: int, stop: int, chunk_first: int) -> list[str]:
        """The strings ``first`` to ``stop`` of the chunk ``text``, whose first string is
        ``chunk_first``."""
        ends, out = self._ends, []
        start = ends[first - 1] if first > chunk_first else 0
        for end in ends[first:stop]:
            out.append(text[start:end])
            start = end
        return out


def lengths(texts) -> Iterator[int]:
    """``map(len, texts)``, quicker for a Packed column (its strings are not made)."""
    return texts.lengths() if isinstance(texts, Packed) else map(len, texts)


@dataclass(frozen=True)
class Columns:
    """A transcript as parallel columns: what detection reads, without building an
    object per segment (a 10-hour transcript has 100k+ segments).

    Attributes:
        texts, speakers: one entry per segment.
        starts, ends: seconds (NaN where a segment has no time).
        closed: False where a MOSS segment never got its closing timestamp.
    """

    texts: list[str]
    speakers: list[str | None]
    starts: Any
    ends: Any
    closed: Any

    @property
    def timed(self) -> bool:
        import numpy as np
        return bool(len(self.texts)) and not np.isnan(self.starts).any()


class Transcript:
    """An ordered run of segments plus what a faithful write-back needs.

    Immutable: queries return new objects. Readers of large files may hand over
    columns and a ``build(i)`` function instead of segments; the segments are then made
    only when asked for (a scan never asks for all of them).

    Attributes:
        segments: in reading order.
        format: the registry name of the format it was read from (``"moss"``, ``"srt"`` ...).
        meta: format-specific data kept for writing back (top-level JSON fields, the
            original raw text). Treat as read-only.
    """

    __slots__ = ("_segments", "_columns", "_build", "format", "meta")

    def __init__(self, segments=(), format: str = "text", meta: Mapping[str, Any] | None = None, *,
                 columns: Columns | None = None, build=None):
        set_ = object.__setattr__
        set_(self, "_segments", tuple(segments) if columns is None else None)
        set_(self, "_columns", columns)
        set_(self, "_build", build)
        set_(self, "format", format)
        set_(self, "meta", meta if meta is not None else {})

    def __setattr__(self, name, value):
        raise AttributeError("Transcript is immutable; use with_segments()")

    def __repr__(self) -> str:
        return f"Transcript({len(self)} segments, format={self.format!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Transcript) and self.format == other.format and self.segments == other.segments

    __hash__ = None

    @property
    def segments(self) -> tuple[Segment, ...]:
        if self._segments is None:
            object.__setattr__(self, "_segments", tuple(self._build(i) for i in range(len(self._columns.texts))))
        return self._segments

    def columns(self) -> Columns:
        """The segments as columns (made once)."""
        if self._columns is None:
            import numpy as np
            segs = self._segments
            nan = float("nan")
            object.__setattr__(self, "_columns", Columns(
                [s.text for s in segs], [s.speaker for s in segs],
                np.array([s.span.start if s.span is not None else nan for s in segs], dtype=float),
                np.array([s.span.end if s.span is not None else nan for s in segs], dtype=float),
                np.array([s.closed for s in segs], dtype=bool)))
        return self._columns

    def __len__(self) -> int:
        return len(self._segments) if self._segments is not None else len(self._columns.texts)

    def __iter__(self):
        return iter(self.segments)

    def __getitem__(self, index):
        if self._segments is None and isinstance(index, int):
            size = len(self)
            position = index + size if index < 0 else index
            if not 0 <= position < size:
                raise IndexError(f"segment index {index} out of range for {size} segments")
            return self._build(position)  # one segment, without building them all
        return self.segments[index]

    @property
    def timed(self) -> bool:
        """True when every segment has a time span."""
        if self._segments is None:
            return self._columns.timed
        return bool(self._segments) and all(s.span is not None for s in self._segments)

    @property
    def end(self) -> float | None:
        """The latest end time, or None without timing."""
        if self._segments is None:
            import numpy as np
            ends = self._columns.ends
            return float(np.nanmax(ends)) if len(ends) and not np.isnan(ends).all() else None
        ends = [s.span.end for s in self._segments if s.span is not None]
        return max(ends) if ends else None

    @property
    def speakers(self) -> tuple[str, ...]:
        names = self._columns.speakers if self._segments is None else [s.speaker for s in self._segments]
        return tuple(s for s in dict.fromkeys(names) if s is not None)

    @property
    def text(self) -> str:
        texts = self._columns.texts if self._segments is None else [s.text for s in self._segments]
        return "".join(texts)

    def with_segments(self, segments: Iterable[Segment]) -> "Transcript":
        return Transcript(tuple(segments), self.format, self.meta)


def give_back_free_memory() -> None:
    """Return the C heap's free pages to the system (glibc only; elsewhere nothing).

    Reading or scanning a large transcript frees, at a few known points, hundreds of MB of
    blocks that glibc keeps mapped: arrays up to its adaptive mmap threshold (up to 32 MB)
    come from the heap, whose free middle is never returned on its own. A trim takes a few
    milliseconds and only matters after a large input, so callers use it there only.
    """
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


_TRIM: list = []


def _malloc_trim():
    if not _TRIM:
        try:
            import ctypes
            _TRIM.append(ctypes.CDLL("libc.so.6").malloc_trim)
        except (OSError, AttributeError):  # not glibc (macOS, musl, Windows)
            _TRIM.append(None)
    return _TRIM[0]
