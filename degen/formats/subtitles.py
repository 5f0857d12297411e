"""SRT and WebVTT cues. A speaker comes from a leading ``[S01]``, a WebVTT ``<v Name>``
voice tag, or a ``Name:`` prefix when most cues carry one (so that a lone "Note: ..."
line is not taken for a speaker)."""

from __future__ import annotations

import regex

from ..errors import FormatError
from ..model import Segment, Span, Transcript
from .lines import newline_of, split_lines
from .timecode import clock_seconds

_TIME = r"(?:(\d+):)?(\d{1,2}):(\d{2})[,.](\d{1,3})"
_CUE_TIME = regex.compile(r"^\s*" + _TIME + r"\s*-->\s*" + _TIME + r"(.*)$")
_TAG = regex.compile(r"^\[(S\d{2,})\]\s?")
_VOICE = regex.compile(r"^<v(?:\.[^ >]*)?\s+([^>]+)>")
_CLOCK_LINE = regex.compile(r"^\s*\d+:\d{2}[:.,\d]*\s*-")
_NAME = regex.compile(r"^([\p{L}][\p{L}\p{N}_ .'-]{0,30}?):\s")


def looks_like_srt(text: str) -> bool:
    """A cue number, then a line that opens with a time: SRT, even when its arrow is broken
    (the reader then names the bad line instead of it passing for plain text)."""
    return bool(regex.match(r"\A\s*\d+\s*\r?\n\s*\d+:\d{2}", text))


def looks_like_vtt(text: str) -> bool:
    return text.lstrip("\ufeff").startswith("WEBVTT")


def _seconds(groups: tuple, line_no: int) -> float:
    hours, minutes, seconds, millis = groups
    if int(minutes) > 59:
        raise FormatError(f"timecode minutes out of range ({minutes}:{seconds})", where=f"line {line_no}",
                          field="time")
    return clock_seconds(hours, minutes, seconds, millis, f"line {line_no}")


def line_blocks(lines):
    """Yield (first line number, lines) for each blank-line separated block of ``lines``
    (the text's lines, as ``lines.split_lines`` gives them: a cue's text may hold a
    U+0085 or U+2028, which ``str.splitlines`` would end a line at)."""
    block, first = [], 1
    for number, line in enumerate(lines, 1):
        if line.strip():
            if not block:
                first = number
            block.append(line)
        elif block:
            yield first, block
            block = []
    if block:
        yield first, block


def _cues(text: str, vtt: bool, header: list | None = None, trailer: list | None = None):
    blocks = line_blocks(split_lines(text))
    if vtt:
        blocks = split_header(blocks, [] if header is None else header)
    found = ((read_cue(first, lines, vtt), lines) for first, lines in blocks)
    return with_blocks_before(found, [] if trailer is None else trailer)


def with_blocks_before(found, trailer: list):
    """The cues of ``found`` ((cue or None, the block's lines)), each cue's extra holding
    under "before" the blocks that are no cue (WebVTT NOTE, STYLE, REGION) between it and
    the cue before, so that they are written back; those after the last cue go to ``trailer``."""
    before = []
    for cue, lines in found:
        if cue is None:
            before.append("\n".join(lines))
            continue
        if before:
            cue[2]["before"], before = before, []
        yield cue
    trailer.extend(before)


def split_header(blocks, header: list):
    """WebVTT ``blocks`` with the header (the first block's lines, up to a timing line
    that follows them without a blank line, as the WebVTT parser ends it) appended to
    ``header`` and taken out: the cue under it, if any, is read once, without an id."""
    for n, (first, lines) in enumerate(blocks):
        if n == 0:
            at = next((i for i, line in enumerate(lines) if i and "-->" in line), len(lines))
            header.append("\n".join(lines[:at]))
            first, lines = first + at, lines[at:]
            if not lines:
                continue
        yield first, lines


def read_cue(first: int, lines: list[str], vtt: bool):
    """(span, body, extra) of the block of ``lines`` starting at line ``first``; None for
    a WebVTT block that is no cue."""
    time_at = next((i for i, line in enumerate(lines) if "-->" in line), None)
    if time_at is None:
        broken = next((i for i, line in enumerate(lines) if _CLOCK_LINE.match(line)), None)
        if broken is not None and (not vtt or broken == 0):  # a cue whose arrow is broken
            time_at = broken
        elif vtt:  # header, NOTE, STYLE and REGION blocks
            return None
        else:
            raise FormatError("cue has no 'start --> end' line", where=f"line {first}",
                              hint="each SRT cue is: number, 'HH:MM:SS,mmm --> HH:MM:SS,mmm', text")
    match = _CUE_TIME.match(lines[time_at])
    if not match:
        raise FormatError(f"bad timecode line {lines[time_at].strip()!r}", where=f"line {first + time_at}",
                          field="time", hint="use HH:MM:SS,mmm --> HH:MM:SS,mmm")
    start = _seconds(match.groups()[0:4], first + time_at)
    end = _seconds(match.groups()[4:8], first + time_at)
    # An end before its start is kept, as every reader keeps it (model.Span): a degenerate
    # model wrote it, and the scan reports it (an 'inverted' finding) instead of refusing the file.
    ident = "\n".join(lines[:time_at])
    extra = {"id": ident, "settings": match.group(9), "timing": lines[time_at], "raw_span": Span(start, end)}
    return Span(start, end), "\n".join(lines[time_at + 1:]), extra


class StyleCount:
    """What decides the speaker style, counted cue by cue."""

    def __init__(self):
        self.tags = self.voices = False
        self.named = self.total = self.closed_voices = 0

    def add(self, body: str) -> None:
        self.total += 1
        self.named += _NAME.match(body) is not None
        self.tags = self.tags or _TAG.match(body) is not None
        self.voices = self.voices or _VOICE.match(body) is not None
        self.closed_voices += body.endswith("</v>")

    def style(self) -> str | None:
        """How the cues mark their speaker: 'tag', 'voice', 'name' (most cues) or None."""
        return "tag" if self.tags else "voice" if self.voices else \
            "name" if self.total and self.named * 2 > self.total else None

    def meta(self) -> dict:
        """The speaker style, and whether most voice spans are closed (``</v>``, written back so)."""
        style = self.style()
        closed = style == "voice" and self.closed_voices * 2 > self.total
        return {"speaker_style": style, **({"voice_end": True} if closed else {})}


def speaker_of(body: str, pattern, style: str | None) -> tuple[str | None, str]:
    """(speaker, text) of a cue's body."""
    match = pattern.match(body) if pattern else None
    speaker = match.group(1).strip() if match else None
    text = body[match.end():].lstrip(" ") if match else body
    if style == "voice" and text.endswith("</v>"):
        text = text[:-4]
    return speaker, text


def _split_speakers(cues: list) -> tuple[list[Segment], dict]:
    """The cues' segments, and the meta saying how they mark their speakers."""
    count = StyleCount()
    for _, body, _ in cues:
        count.add(body)
    style = count.style()
    pattern = SPEAKER_PATTERNS.get(style)
    segments = []
    for span, body, extra in cues:
        speaker, text = speaker_of(body, pattern, style)
        segments.append(Segment(span, speaker, text, True, extra))
    return segments, count.meta()


SPEAKER_PATTERNS = {"tag": _TAG, "voice": _VOICE, "name": _NAME}


def newline_meta(text: str) -> dict:
    """``{"newline": "\\r\\n"}`` when the text's first line ends with CRLF (a file made
    on Windows, written back alike), ``{"newline": "\\r"}`` when its lines end in a lone CR
    (classic Mac OS), else nothing."""
    end = text.find("\n")
    if end > 0 and text[end - 1] == "\r":
        return {"newline": "\r\n"}
    return {"newline": "\r"} if newline_of(text) == "\r" else {}


def loads_srt(text: str) -> Transcript:
    segments, meta = _split_speakers(list(_cues(text, vtt=False)))
    return Transcript(tuple(segments), "srt", {**meta, **newline_meta(text)})


def loads_vtt(text: str) -> Transcript:
    if not looks_like_vtt(text):
        raise FormatError("missing 'WEBVTT' header", where="line 1", hint="a WebVTT file starts with WEBVTT")
    header, trailer = [], []
    segments, meta = _split_speakers(list(_cues(text, vtt=True, header=header, trailer=trailer)))
    meta = {**meta, "header": (header or ["WEBVTT"])[0], **newline_meta(text)}
    if trailer:
        meta["trailer"] = trailer
    return Transcript(tuple(segments), "vtt", meta)


def format_stamp(seconds: float, sep: str) -> str:
    millis = round(max(0.0, seconds) * 1000)
    hours, rest = divmod(millis, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    return f"{hours:02d}:{minutes:02d}:{rest // 1000:02d}{sep}{rest % 1000:03d}"


def _body(seg: Segment, style: str | None, voice_end: bool = False) -> str:
    if seg.speaker is None:
        return seg.text
    if style == "voice":
        return f"<v {seg.speaker}>{seg.text}" + ("</v>" if voice_end else "")
    if style == "name":
        return f"{seg.speaker}: {seg.text}"
    return f"[{seg.speaker}] {seg.text}"


def _dump(transcript: Transcript, sep: str, number: bool) -> list[str]:
    style = transcript.meta.get("speaker_style")
    # SRT cues are renumbered, from the first cue's number (an excerpt may start at 2626).
    first_id = transcript.segments[0].extra.get("id", "1") if len(transcript) else "1"
    first = int(first_id) if first_id.isdigit() else 1
    blocks = []
    for index, seg in enumerate(transcript.segments, 1):
        span = seg.span if seg.span is not None else Span(0.0, 0.0)
        ident = str(first + index - 1) if number else seg.extra.get("id", "")
        timing = seg.extra["timing"] if seg.extra.get("raw_span") == span else \
            f"{format_stamp(span.start, sep)} --> {format_stamp(span.end, sep)}{seg.extra.get('settings', '')}"
        body = _body(seg, style, transcript.meta.get("voice_end", False)).strip("\n") or " "
        blocks.extend(seg.extra.get("before", ()))
        blocks.append("\n".join(part for part in (ident, timing, body) if part))
    return blocks + list(transcript.meta.get("trailer", ()))


def _ended(text: str, transcript: Transcript) -> str:
    newline = transcript.meta.get("newline", "\n")
    return text.replace("\n", newline) if newline != "\n" else text


def dumps_srt(transcript: Transcript) -> str:
    return _ended("\n\n".join(_dump(transcript, ",", True)) + "\n", transcript)


def dumps_vtt(transcript: Transcript) -> str:
    header = transcript.meta.get("header", "WEBVTT")
    return _ended("\n\n".join([header] + _dump(transcript, ".", False)) + "\n", transcript)
