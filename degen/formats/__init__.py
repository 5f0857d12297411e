"""Transcript formats: a registry of pure ``loads(str)`` / ``dumps(Transcript)`` pairs,
with sniffing by content (the file extension is only a hint).

>>> from degen.formats import loads
>>> t = loads("[0.48][S01]Welcome everyone[1.66]")
>>> t.format, t.segments[0].speaker
('moss', 'S01')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..errors import FormatError
from ..model import Transcript
from . import jsonfmt, moss, plain, subtitles


@dataclass(frozen=True)
class Format:
    name: str
    loads: Callable[[str], Transcript]
    dumps: Callable[[Transcript], str]
    description: str


def _json_as(shape: str) -> Callable[[str], Transcript]:
    return lambda text: jsonfmt.from_doc(jsonfmt.parse_json(text), shape)


REGISTRY: dict[str, Format] = {f.name: f for f in (
    Format("moss", moss.loads, moss.dumps, "MOSS-Transcribe-Diarize raw markup [start][S01]text[end]"),
    Format("sglang_json", _json_as("sglang_json"), jsonfmt.dumps, "SGLang-Omni response_format=json"),
    Format("sglang_verbose", _json_as("sglang_verbose"), jsonfmt.dumps, "SGLang-Omni response_format=verbose_json"),
    Format("segments_json", _json_as("segments_json"), jsonfmt.dumps,
           "OpenAI/Whisper verbose_json, WhisperX, any object with a 'segments' list"),
    Format("segments_list", _json_as("segments_list"), jsonfmt.dumps, "a bare list of segments (MOSS segments.json)"),
    Format("text_json", _json_as("text_json"), jsonfmt.dumps, "OpenAI response_format=json with plain text"),
    Format("srt", subtitles.loads_srt, subtitles.dumps_srt, "SubRip subtitles"),
    Format("vtt", subtitles.loads_vtt, subtitles.dumps_vtt, "WebVTT subtitles"),
    Format("text", plain.loads, plain.dumps, "plain text, one segment per line, no timing"),
)}
# Convenience names people type.
ALIASES = {"json": None, "verbose_json": "sglang_verbose", "webvtt": "vtt", "txt": "text", "markup": "moss"}


def resolve(name: str) -> str | None:
    """A registry name for ``name``; None means 'any JSON shape'."""
    if name in REGISTRY:
        return name
    if name in ALIASES:
        return ALIASES[name]
    raise FormatError(f"unknown format {name!r}", hint="choose one of: " + ", ".join(sorted(REGISTRY)))


def _is_json(head: str) -> bool:
    return head[:1] == "{" or (head[:1] == "[" and not moss.OPENING.match(head))


def sniff(text: str, extension: str = "") -> str:
    """The registry name that fits ``text``; the extension breaks ties only."""
    head = text.lstrip("\ufeff \t\r\n")
    if not head:
        raise FormatError("the transcript is empty", hint="check that the server returned something")
    if _is_json(head):
        return jsonfmt.shape_of(jsonfmt.parse_json(text))
    if moss.OPENING.match(head) or (extension not in (".srt", ".vtt") and moss.looks_like(head[:4096])):
        return "moss"
    if subtitles.looks_like_vtt(head):
        return "vtt"
    if subtitles.looks_like_srt(head):
        return "srt"
    return "text"


def decode(data: bytes) -> str:
    """UTF-8 (with or without BOM) to str, or a FormatError that says where it broke."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise FormatError(f"invalid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})",
                          where=f"line {line}", hint="re-save the file as UTF-8") from None


def loads(text: str, format: str | None = None, extension: str = "") -> Transcript:
    """Parse ``text`` as ``format`` (a registry name or alias), or sniff it."""
    text = text.lstrip("\ufeff")
    name = resolve(format) if format else None
    if name is None:
        if _is_json(text.lstrip(" \t\r\n")):  # parse once: sniffing JSON means reading it
            return jsonfmt.from_doc(jsonfmt.parse_json(text))
        name = sniff(text, extension)
    return REGISTRY[name].loads(text)


def dumps(transcript: Transcript, format: str | None = None) -> str:
    """Write ``transcript`` in its own format, or in ``format``."""
    name = resolve(format) if format else transcript.format
    if name is None or name not in REGISTRY:
        raise FormatError(f"cannot write format {name!r}", hint="choose one of: " + ", ".join(sorted(REGISTRY)))
    if name != transcript.format:
        transcript = Transcript(transcript.segments, name, {})
    return REGISTRY[name].dumps(transcript)
