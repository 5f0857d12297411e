"""A speech result whose transcript is the value of one well-known key, read by ``jsonfmt``:

    transcription_json  {"transcription": ..., "translation": ..., "detected_language": ...}:
                        Replicate's whisper models (and the GitHub Action that commits their
                        results, simonw/action-transcription-demo), RunPod's whisper workers
                        and kin. The transcript is the value of "transcription", else of
                        "transcript", else of "translation" (a translate task's result with
                        nothing beside it). A "translation" beside a transcription is a second
                        decoding of the same audio into English: kept as read, never scanned.

The value is plain text (one untimed segment, as ``text_json``); SRT, WebVTT (with or
without its ``WEBVTT`` line) or whisper console lines, as Replicate's
``transcription="srt"``/``"vtt"`` give it: timed segments, written back in the same
style; or a nested JSON transcript (an object or a list), read as its own shape.

An object with a top-level "text" or "segments" is another shape (``text_json``;
``segments_json``: Replicate's "segments" are the transcription's, timed), and one list
of turns under "transcription" is ``turns_json`` (whisper.cpp's ``-oj``).

Written back: the document with its transcript key rewritten, every other key as read.
The file's own JSON layout is found at read time by writing the document as Python's
``json.dumps`` would (the indent, ASCII escapes or raw UTF-8, the final newline, read from
the file) and comparing: where that gives the file's bytes (the Action's ``json.dumps(output,
indent=2) + "\\n"``), the same call writes it back, so an unchanged transcript is written back
byte for byte. A file in any other layout is written as the other JSON shapes are (orjson,
indent 2): the same JSON, not the same bytes.
"""

from __future__ import annotations

import json
from typing import Any, Callable

import orjson

from ..errors import FormatError
from ..model import Segment, Transcript
from . import console, jsonturns, subtitles

SHAPE = "transcription_json"
KEYS = ("transcription", "transcript")  # the transcript, in this order of preference
TRANSLATION = "translation"  # the transcript only where no key above is there
_VTT_HEADER = "WEBVTT\n\n"


def key_of(doc: dict) -> str | None:
    """The key whose value is the transcript, or None when ``doc`` has none of them."""
    for key in KEYS:
        if key in doc:
            return key
    return TRANSLATION if TRANSLATION in doc else None


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({'true' if value else 'false'})"
    if isinstance(value, (int, float)):
        return f"a number ({value!r})"
    return f"a {type(value).__name__}"


# The text formats a transcript key may hold, and how each is written back.
_TEXT_WRITERS = {"srt": subtitles.dumps_srt, "vtt": subtitles.dumps_vtt, "whisper_console": console.dumps}


def read(doc: dict, source: str | bytes | None = None,
         read_json: Callable[[Any], Transcript] | None = None) -> Transcript:
    """The transcript under ``doc``'s key; ``source``, the file's text or bytes, finds the
    layout that writes it back alike. ``read_json`` reads a JSON transcript nested under
    the key (``jsonfmt.from_doc``: the caller's, so that this module imports none above it);
    without it a nested one is refused."""
    key = key_of(doc)
    value = doc[key]
    meta: dict[str, Any] = {"doc": doc, "key": key}
    if isinstance(value, str):
        inner, added = _timed_inside(value)
        if inner is None:
            segments = (Segment(None, None, value),) if value.strip() else ()
        else:
            segments = inner.segments
            meta["inner"] = {"format": inner.format, "meta": inner.meta, "added_header": added,
                             "tail": value[len(value.rstrip("\r\n")):]}
    elif isinstance(value, (dict, list)) and read_json is not None:
        inner, wrapped = _nested(value, key, read_json)
        segments = inner.segments
        meta["inner"] = {"format": inner.format, "meta": inner.meta, "json": True, "wrapped": wrapped}
    else:
        raise FormatError(f"'{key}' is {_kind(value)}, not a transcript", field=key,
                          hint=f"a transcription result holds its transcript under '{key}' as text (plain, SRT "
                               f"or WebVTT) or as segments")
    style = style_of(doc, source)
    if style is not None:
        meta["style"] = style
    return Transcript(tuple(segments), SHAPE, meta)


def _timed_inside(value: str) -> tuple[Transcript | None, bool]:
    """The cues of an SRT, WebVTT or console text (None: plain text), and whether a
    ``WEBVTT`` line was put before them: WebVTT without it (Replicate's ``write_vtt``) is
    read as if it had one, and written back without it."""
    head = value.lstrip()[:65536]
    head = head.replace("\r\n", "\n").replace("\r", "\n") if "\r" in head else head
    added = False
    if subtitles.looks_like_vtt(head):
        reader, text = subtitles.loads_vtt, value
    elif subtitles.looks_like_srt(head):
        reader, text = subtitles.loads_srt, value
    elif console.looks_like(head):
        reader, text = console.loads, value
    elif "-->" in head.partition("\n")[0] and subtitles.looks_like_vtt(_VTT_HEADER + head):
        reader, text, added = subtitles.loads_vtt, _VTT_HEADER + value, True
    else:
        return None, False
    try:
        found = reader(text)
    except FormatError:  # a cue-like opening, yet no cue read: plain text after all
        return None, False
    return (found, added) if len(found) and found.timed else (None, False)


def _nested(value: Any, key: str, read_json: Callable[[Any], Transcript]) -> tuple[Transcript, bool]:
    """A JSON transcript nested under ``key``, read as its own shape; a list of turns is
    read as ``{key: [...]}`` (whisper.cpp's items under "transcription"). Errors name the key."""
    wrapped = isinstance(value, list) and jsonturns.list_key({key: value}) == key
    try:
        return read_json({key: value} if wrapped else value), wrapped
    except FormatError as exc:
        where = f"in '{key}'" + (f", {exc.where}" if exc.where else "")
        raise FormatError(exc.detail, where=where, field=exc.field, hint=exc.hint) from None


def dump_doc(transcript: Transcript, dump_json: Callable[[Transcript], str]) -> Any:
    """The document with its transcript key rewritten from the segments; ``dump_json``
    writes a nested JSON transcript (``jsonfmt.dumps``)."""
    meta = transcript.meta
    doc = dict(meta.get("doc") or {})
    key = meta.get("key", KEYS[0])
    segments = transcript.segments
    inner = meta.get("inner")
    if inner is None:
        doc[key] = " ".join(s.text for s in segments)
    elif inner.get("json"):
        written = orjson.loads(dump_json(Transcript(segments, inner["format"], inner["meta"])))
        doc[key] = written[key] if inner.get("wrapped") else written
    else:
        text = _TEXT_WRITERS[inner["format"]](Transcript(segments, inner["format"], inner["meta"]))
        if inner.get("added_header") and text.startswith(_VTT_HEADER):
            text = text[len(_VTT_HEADER):]
        doc[key] = text.rstrip("\r\n") + inner["tail"]
    return doc


def style_of(doc: Any, source: str | bytes | None) -> dict | None:
    """The arguments of ``json.dumps`` (and the final newline) that write ``doc`` as
    ``source``, or None when no such call gives its very bytes."""
    if source is None:
        return None
    text = source.decode("utf-8", "replace") if isinstance(source, (bytes, bytearray, memoryview)) else source
    if text.startswith("\ufeff"):
        return None  # a byte-order mark is not written back
    indent = None
    if text[:1] in "{[" and text[1:2] == "\n":
        second = text[2:text.find("\n", 2)] if "\n" in text[2:] else text[2:]
        indent = len(second) - len(second.lstrip(" "))
        if not indent:
            return None
    spaced = '": ' in text[:4096] or indent is not None
    style = {"indent": indent, "ascii": text.isascii(), "spaced": spaced}
    written = _dumps(doc, style)
    end = text[len(written):]
    if not text.startswith(written) or end not in ("", "\n"):
        return None
    style["end"] = end
    return style


def _dumps(doc: Any, style: dict) -> str:
    separators = (",", ": ") if style["indent"] is not None else (", ", ": ") if style["spaced"] else (",", ":")
    return json.dumps(doc, indent=style["indent"], ensure_ascii=style["ascii"], separators=separators)


def dumps_styled(doc: Any, style: dict) -> str:
    """``doc`` in the layout ``style_of`` found."""
    return _dumps(doc, style) + style.get("end", "")
