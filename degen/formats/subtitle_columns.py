"""SRT and WebVTT read as columns, from pieces of text: for large files.

``subtitles.loads_srt`` makes a Segment per cue with a dict of what writing back needs (its
number, its timing line as written, its span): about 800 bytes a cue, ten times a cue's
share of the file. Here a cue leaves only its text, its times and a byte saying how its
timing line was written; its number and timing line are made again, equal to what was
read, when its segment is built. Only what no rule reproduces (a renumbered cue, a timing
line with settings or odd spacing) is kept as read, in a dict.

The transcript equals ``loads_srt``'s (or ``loads_vtt``'s): the same segments, extras
included, and the same meta (``tests/formats/test_stream_formats.py`` holds it to that).
"""

from __future__ import annotations

import re
from array import array
from typing import Iterable

import numpy as np

from ..model import Columns, Packed, Segment, Span, Transcript
from .lines import split_lines
from .subtitles import SPEAKER_PATTERNS, StyleCount, format_stamp, line_blocks, read_cue, speaker_of, split_header

# Timing lines a stamp writer gives back exactly: hours in two digits or more without a
# leading zero, two-digit minutes and seconds (the reader refuses minutes or seconds over
# 59), three-digit milliseconds, one space around the arrow, nothing after. ASCII digits
# only: ``\d`` would take any digit.
_D = "[0-9]"
_STAMP = rf"(?:[1-9]{_D}{{2,}}|{_D}{{2}}):{_D}{{2}}:{_D}{{2}}"
_FULL = {sep: re.compile(rf"{_STAMP}{re.escape(sep)}{_D}{{3}} --> {_STAMP}{re.escape(sep)}{_D}{{3}}") for sep in ",."}
_SHORT = re.compile(rf"{_D}{{2}}:{_D}{{2}}\.{_D}{{3}} --> {_D}{{2}}:{_D}{{2}}\.{_D}{{3}}")  # WebVTT without hours
FULL, SHORT, AS_READ = 0, 1, 2  # how a cue's timing line was written
CHUNK = 1 << 16  # cue texts packed at a time (model.Packed: a str object per text would outweigh the file)


def read(pieces: Iterable[str], vtt: bool, newline: dict | None = None) -> Transcript:
    """The transcript of the subtitle text given as ``pieces``, each ending at a line end
    (the pieces joined are the file's text), whose first line ends as ``newline`` says
    (``subtitles.newline_meta`` of it). Raises what ``loads_srt`` would raise."""
    cues, header, before = _Cues(vtt), [], []
    blocks = _piece_blocks(pieces)
    for first, lines in split_header(blocks, header) if vtt else blocks:
        cue = read_cue(first, lines, vtt)
        if cue is None:  # kept as subtitles.with_blocks_before keeps it (a loop of its own here: no generator a cue)
            before.append("\n".join(lines))
            continue
        if before:
            cue[2]["before"], before = before, []
        cues.add(*cue)
    return cues.transcript((header or ["WEBVTT"])[0], before, newline or {})


def _piece_blocks(pieces: Iterable[str]):
    """(first line number, lines) of each blank-line separated block, as
    ``subtitles._blocks`` gives them for the pieces joined."""
    return line_blocks(line for piece in pieces for line in split_lines(piece))


class _Cues:
    """The cues read so far, as columns."""

    def __init__(self, vtt: bool):
        self.vtt, self.sep = vtt, "." if vtt else ","
        self.texts = Packed()
        self.pending: list[str] = []  # texts not packed yet
        self.starts, self.ends = array("d"), array("d")
        self.forms = bytearray()
        self.as_read: dict[int, tuple[str, str]] = {}  # timing line and settings, where no rule gives them back
        self.ids: dict[int, str] = {}  # cue numbers that do not count on from the first
        self.first_id = ""
        self.before: dict[int, list[str]] = {}  # blocks that are no cue (WebVTT NOTE ...) before a cue
        self.style = StyleCount()

    def add(self, span: Span, body: str, extra: dict) -> None:
        i = len(self.forms)  # the cues added so far (texts are packed or pending)
        if i == 0:
            self.first_id = extra["id"]
        if extra["id"] != _number(self.first_id, i):
            self.ids[i] = extra["id"]
        if "before" in extra:
            self.before[i] = extra["before"]
        timing = extra["timing"]
        form = FULL if _FULL[self.sep].fullmatch(timing) else SHORT if self.vtt and _SHORT.fullmatch(timing) \
            else AS_READ
        if form == AS_READ:
            self.as_read[i] = (timing, extra["settings"])
        self.forms.append(form)
        self.starts.append(span.start)
        self.ends.append(span.end)
        self.pending.append(body)
        self.style.add(body)
        if len(self.pending) == CHUNK:
            self.texts.extend(self.pending)
            self.pending = []

    def transcript(self, header: str, trailer: list[str], newline: dict) -> Transcript:
        self.texts.extend(self.pending)
        self.pending = []
        style = self.style.style()
        speakers = self._split_speakers(style)
        columns = Columns(self.texts, speakers, np.frombuffer(self.starts, dtype=np.float64),
                          np.frombuffer(self.ends, dtype=np.float64), np.ones(len(self.texts), dtype=bool))
        meta = self.style.meta()
        if self.vtt:
            meta["header"] = header
        if trailer:
            meta["trailer"] = trailer
        meta.update(newline)
        return Transcript(format="vtt" if self.vtt else "srt", meta=meta, columns=columns, build=self._builder(columns))

    def _split_speakers(self, style: str | None) -> list[str | None]:
        """Each cue's speaker, its text stripped of the speaker's mark, a chunk at a time."""
        pattern, names = SPEAKER_PATTERNS.get(style), {}
        if pattern is None:
            return [None] * len(self.texts)
        speakers = []
        for c, texts in enumerate(self.texts.chunks()):
            for i, body in enumerate(texts):
                speaker, texts[i] = speaker_of(body, pattern, style)
                speakers.append(names.setdefault(speaker, speaker))  # one string per speaker
            self.texts.replace_chunk(c, texts)
        return speakers

    def _builder(self, columns: Columns):
        texts, speakers, starts, ends = columns.texts, columns.speakers, columns.starts, columns.ends
        forms, as_read, ids, first_id, sep = self.forms, self.as_read, self.ids, self.first_id, self.sep
        before = self.before

        def build(i: int) -> Segment:
            start, end = float(starts[i]), float(ends[i])
            if forms[i] == AS_READ:
                timing, settings = as_read[i]
            else:
                cut = 3 if forms[i] == SHORT else 0  # without "00:"
                timing, settings = f"{format_stamp(start, sep)[cut:]} --> {format_stamp(end, sep)[cut:]}", ""
            extra = {"id": ids.get(i, _number(first_id, i)) if i else first_id, "settings": settings,
                     "timing": timing, "raw_span": Span(start, end)}
            if i in before:
                extra["before"] = before[i]
            return Segment(Span(start, end), speakers[i], texts[i], True, extra)

        return build


def _number(first_id: str, i: int) -> str:
    """The number cue ``i`` has when cues count on from the first one's (no number when
    the first has none)."""
    if first_id.isascii() and first_id.isdigit() and len(first_id) < 18:
        return str(int(first_id) + i)
    return ""
