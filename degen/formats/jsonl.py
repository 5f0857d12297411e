"""JSON Lines: one JSON object a line, in two shapes.

    jsonl     one segment a line: {"start": 0.0, "end": 2.5, "text": "...", "speaker"?: ...}
              (any time keys that ``jsonfmt`` knows: start_ms/end_ms, begin/end ...)
    manifest  one utterance a line, as in NeMo manifests: {"audio_filepath": ..., "duration":
              3.2, "text" or "pred_text": ...}. Each line is its own recording, so the
              transcript says ``meta["independent"] = True``: detection judges each alone.
              ``pred_text`` (the model's output) is read when present, else ``text``.

Each line's object is kept whole in its segment's ``extra["json"]`` (and nothing else), so
every field is written back; the spacing of the first line is copied.
"""

from __future__ import annotations

import json

from ..errors import FormatError
from ..model import Segment, Span, Transcript
from . import jsonfmt
from .timecode import check_seconds

MANIFEST_TEXT_KEYS = ("pred_text", "text", "transcript", "sentence")


def _objects(text: str):
    """(line number, object) for each non-blank line; a FormatError naming the bad line."""
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            yield number, parse_line(line, number)


def parse_line(line: str | bytes, number: int) -> dict:
    """The object on a non-blank line; a FormatError naming the line when it holds none."""
    try:
        item = jsonfmt.parse_json(line)
    except FormatError as exc:
        raise FormatError(exc.detail.replace("invalid JSON", "invalid JSON line"), where=f"line {number}",
                          hint="each line of a JSON Lines file is one JSON object") from None
    if not isinstance(item, dict):
        raise FormatError(f"line holds a {type(item).__name__}, not an object", where=f"line {number}")
    if _openers(line) > WRITABLE_DEPTH:  # only then can the writer refuse it (too deeply nested)
        jsonfmt.check_writable(item, f"line {number}")
    return item


# orjson writes back nesting up to 254 levels, and a line cannot nest deeper than it has
# brackets. Checking only such lines spares a serialisation of every line, which would
# also leave a UTF-8 copy inside each non-ASCII text it wrote (a tenth of a manifest's size).
WRITABLE_DEPTH = 254


def _openers(line: str | bytes) -> int:
    if isinstance(line, str):
        return line.count("[") + line.count("{")
    return line.count(b"[") + line.count(b"{")


def looks_like(text: str) -> bool:
    """True when the first non-blank line is a JSON object on its own and more lines follow
    (a bad later line is then named by the reader, not reported as trailing content)."""
    rows = [line for line in text.splitlines()[:50] if line.strip()]
    if len(rows) < 2:
        return False
    try:
        return isinstance(jsonfmt.parse_json(rows[0]), dict)
    except FormatError:
        return False


def shape_of(item: dict) -> str:
    if any(s in item and e in item for s, e, _ in jsonfmt.TIME_KEYS):
        return "jsonl"
    if any(k in item for k in MANIFEST_TEXT_KEYS):
        return "manifest"
    raise FormatError("unknown JSON Lines shape: no start/end times and no 'text' or 'pred_text'",
                      where="line 1", hint="expected one segment or one utterance (NeMo manifest) a line")


def _style(text: str) -> dict:
    first = text.lstrip().partition("\n")[0]
    return {"spaced": '": ' in first, "ascii": "\\u" in first}


def sniff(text: str) -> str:
    """'jsonl' or 'manifest', from the first line."""
    for _, item in _objects(text):
        return shape_of(item)
    raise FormatError("the transcript is empty")


def _manifest_segment(item: dict, number: int) -> Segment:
    where = f"line {number}"
    key = next((k for k in MANIFEST_TEXT_KEYS if k in item), None)
    body = item.get(key)
    if not isinstance(body, str):
        raise FormatError(f"'{key}' is a {type(body).__name__}, not a string", where=where, field=key)
    duration, offset = item.get("duration"), item.get("offset", 0.0)
    span = None
    if duration is not None:
        start = check_seconds(jsonfmt.number(offset, where, "offset"), where, "offset")
        span = Span(start, start + check_seconds(jsonfmt.number(duration, where, "duration"), where, "duration"))
    return Segment(span, _speaker(item), body, True, {"json": item, "text_key": key})


def _speaker(item: dict) -> str | None:
    key = next((k for k in jsonfmt.SPEAKER_KEYS if k in item), None)
    return None if key is None or item[key] is None else str(item[key])


def _load(text: str, shape: str) -> Transcript:
    segments = [segment_of(item, number, shape) for number, item in _objects(text)]
    if not segments:
        raise FormatError("the transcript is empty")
    meta = {"style": _style(text)}
    if shape == "manifest":
        meta["independent"] = True
        if any(s.span is None for s in segments):  # all timed or none: columns cannot mix
            segments = [s.with_(span=None) for s in segments]
    else:
        meta["layout"] = jsonfmt.layout([s.extra["json"] for s in segments[:1]])
    return Transcript(tuple(segments), shape, meta)


def segment_of(item: dict, number: int, shape: str) -> Segment:
    """Line ``number``'s object as a segment of a ``shape`` file ('jsonl' or 'manifest')."""
    found = shape_of(item)
    if found != shape:
        raise FormatError(f"this line is a {found} line, not a {shape} line", where=f"line {number}",
                          hint=f"every line must have the same shape; or use --format {found}")
    if shape == "jsonl":
        return jsonfmt.segment(item, f"line {number}")
    return _manifest_segment(item, number)


def loads_segments(text: str) -> Transcript:
    return _load(text, "jsonl")


def loads_manifest(text: str) -> Transcript:
    return _load(text, "manifest")


def _manifest_item(seg: Segment) -> dict:
    item = dict(seg.extra.get("json") or {})
    for start_key, end_key, _ in jsonfmt.TIME_KEYS:  # a segment's times (from another format): offset, duration
        if start_key in item and end_key in item:
            item.pop(start_key), item.pop(end_key)
    item[seg.extra.get("text_key", "pred_text" if "pred_text" in item else "text")] = seg.text
    old_offset = item.get("offset", 0.0)
    if seg.span is not None and (item.get("duration") is None or
                                 Span(old_offset, old_offset + item["duration"]) != seg.span):
        if seg.span.start or "offset" in item:
            item["offset"] = round(seg.span.start, 3)
        item["duration"] = round(seg.span.duration, 3)
    if seg.speaker is not None:
        item[next((k for k in jsonfmt.SPEAKER_KEYS if k in item), "speaker")] = seg.speaker
    return item


def dumps(transcript: Transcript) -> str:
    style = transcript.meta.get("style", {})
    separators = (", ", ": ") if style.get("spaced", True) else (",", ":")
    if transcript.format == "manifest":
        items = (_manifest_item(s) for s in transcript.segments)
    else:
        layout = transcript.meta.get("layout") or jsonfmt.layout([])
        items = (jsonfmt.dump_item(s, i, layout, False) for i, s in enumerate(transcript.segments))
    return "".join(json.dumps(item, ensure_ascii=style.get("ascii", False), separators=separators) + "\n"
                   for item in items)
