"""One JSON segment item: the keys its times, text and speaker go under, and how a
list spelled them (``layout``), so that a segment read from any JSON shape (``jsonfmt``,
``jsonturns``, ``jsonl``) and written back looks like the ones beside it.
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import FormatError
from ..model import Segment, Span
from .timecode import check_seconds

# (start key, end key, seconds per unit), tried in order.
TIME_KEYS = (("start", "end", 1.0), ("start_ms", "end_ms", 0.001), ("startMs", "endMs", 0.001),
             ("start_time", "end_time", 1.0), ("begin", "end", 1.0), ("from", "to", 1.0))
SPEAKER_KEYS = ("speaker", "spk", "speaker_id", "speaker_label")
TEXT_KEYS = ("text", "transcript", "sentence")
_TAG = re.compile(r"^\[(S\d{2,})\]")
_ID = re.compile(r"^(.*?)(\d+)$")


def number(value: Any, where: str, key: str) -> float:
    """A JSON time as a float, or a FormatError naming ``where`` and ``key``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise FormatError(f"time {value!r} is not a number", where=where, field=key,
                          hint="times must be seconds (or milliseconds in *_ms fields) as numbers")
    if value != value or value in (float("inf"), float("-inf")):
        raise FormatError(f"time {value!r} is not finite", where=where, field=key)
    return float(value)


def _time_keys(item: dict, where: str) -> tuple[str, str, float]:
    for start_key, end_key, scale in TIME_KEYS:
        if start_key in item and end_key in item:
            return start_key, end_key, scale
    raise FormatError("segment has no start/end times", where=where, field="start",
                      hint="each segment needs 'start' and 'end' (seconds) or 'start_ms'/'end_ms'")


def segment(item: Any, where: str, keys: tuple[str, str, float] | None = None) -> Segment:
    """One segment dict (kept whole in ``extra["json"]``) as a Segment."""
    if not isinstance(item, dict):
        raise FormatError(f"segment is a {type(item).__name__}, not an object", where=where)
    start_key, end_key, scale = keys or _time_keys(item, where)
    start = check_seconds(number(item.get(start_key), where, start_key) * scale, where, start_key)
    end = check_seconds(number(item.get(end_key), where, end_key) * scale, where, end_key)
    # An end before its start is kept (model.Span): the scan reports it as 'inverted'.
    text_key = next((k for k in TEXT_KEYS if k in item), "text")
    body = item.get(text_key, "")
    if not isinstance(body, str):
        raise FormatError(f"text is a {type(body).__name__}, not a string", where=where, field=text_key)
    speaker_key = next((k for k in SPEAKER_KEYS if k in item), None)
    speaker = item.get(speaker_key) if speaker_key else None
    tag = _TAG.match(body)
    if tag:  # SGLang-Omni keeps the speaker inside the text
        speaker, body = speaker or tag.group(1), body[tag.end():]
    speaker = None if speaker is None else str(speaker)
    extra = {"json": item, "tagged": bool(tag), "text_key": text_key}
    return Segment(Span(start, end), speaker, body, True, extra)


def layout(items: list) -> dict:
    """How the segments spelled their keys and ids, so new segments look like old ones."""
    first = items[0] if items and isinstance(items[0], dict) else {}
    keys = next(((s, e, k) for s, e, k in TIME_KEYS if s in first and e in first), TIME_KEYS[0])
    # Ids are renumbered on write, so the first one tells their style.
    first_id = first.get("id")
    id_style = None
    if isinstance(first_id, int) and not isinstance(first_id, bool):
        id_style = ("int", "", first_id, 0)
    elif isinstance(first_id, str) and _ID.match(first_id):
        m = _ID.match(first_id)
        id_style = ("str", m.group(1), int(m.group(2)), len(m.group(2)))
    speaker_key = next((k for k in SPEAKER_KEYS if k in first), None)
    return {"time_keys": keys, "id_style": id_style, "speaker_key": speaker_key}


def _make_id(style, index: int):
    kind, prefix, first, width = style
    return first + index if kind == "int" else f"{prefix}{first + index:0{width}d}"


def _time_value(seconds: float, scale: float, old: Any):
    value = round(seconds / scale, 3 if scale == 1.0 else 0)
    return int(value) if isinstance(old, int) and value == int(value) else value


def dump_item(seg: Segment, index: int, layout: dict, tag_text: bool) -> dict:
    old = seg.extra.get("json")
    start_key, end_key, scale = layout["time_keys"]
    # A segment a repair made anew has no old item: it carries only the fields we can
    # vouch for, never the old text's tokens, words or scores.
    item = dict(old) if old is not None else {}
    if layout["id_style"]:
        item["id"] = _make_id(layout["id_style"], index)
    span = seg.span if seg.span is not None else Span(0.0, 0.0)
    # Keep the original numbers when unchanged, so untouched segments stay byte-identical.
    if old is None or old.get(start_key) is None or _number_or_none(old.get(start_key)) * scale != span.start:
        item[start_key] = _time_value(span.start, scale, old.get(start_key) if old else None)
    if old is None or old.get(end_key) is None or _number_or_none(old.get(end_key)) * scale != span.end:
        item[end_key] = _time_value(span.end, scale, old.get(end_key) if old else None)
    tagged = seg.extra.get("tagged", tag_text)
    text_key = seg.extra.get("text_key", "text")
    item[text_key] = (f"[{seg.speaker}]" if tagged and seg.speaker else "") + seg.text
    speaker_key = layout.get("speaker_key")
    if seg.speaker is not None and not tagged:
        item[speaker_key or "speaker"] = seg.speaker
    return item


def _number_or_none(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else float("nan")
