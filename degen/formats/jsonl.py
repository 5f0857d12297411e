"""JSON Lines: one JSON object a line, in two shapes.

    jsonl     one segment a line: {"start": 0.0, "end": 2.5, "text": "...", "speaker"?: ...}
              (any time keys that ``jsonitems`` knows: start_ms/end_ms, begin/end ...)
    manifest  one utterance a line, as in NeMo manifests: {"audio_filepath": ..., "duration":
              3.2, "text" or "pred_text": ...}. Each line is its own recording, so the
              transcript says ``meta["independent"] = True``: detection judges each alone.
              ``pred_text`` (the model's output) is read when present, else ``text``.

Each line's object is kept whole in its segment's ``extra["json"]`` (and nothing else), so
every field is written back; the spacing of the first line is copied.
"""

from __future__ import annotations

import json
import math
import re
from itertools import repeat

import orjson

from ..errors import FormatError
from ..model import Columns, Segment, Span, Transcript
from . import jsonfmt, jsonitems
from .lines import split_lines
from .timecode import MAX_SECONDS, check_seconds

MANIFEST_TEXT_KEYS = ("pred_text", "text", "transcript", "sentence")


def _objects(text: str):
    """(line number, object) for each non-blank line; a FormatError naming the bad line."""
    for number, line in enumerate(split_lines(text), 1):
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


def looks_like(text: str, rows: int = 2) -> bool:
    """True when the first non-blank line is a JSON object on its own and more lines follow
    (a bad later line is then named by the reader, not reported as trailing content);
    ``rows``: the non-blank lines wanted among the first 50 (1 for a file named .jsonl).
    The first line is read whole, however long (a manifest line may hold an hour's text)."""
    found = [line for line in _leading_lines(text, rows)[:50] if line.strip()]
    if len(found) < rows:
        return False
    try:
        return isinstance(jsonfmt.parse_json(found[0]), dict)
    except FormatError:
        return False


def shape_of(item: dict) -> str:
    if any(s in item and e in item for s, e, _ in jsonitems.TIME_KEYS):
        return "jsonl"
    if any(k in item for k in MANIFEST_TEXT_KEYS):
        return "manifest"
    raise FormatError("unknown JSON Lines shape: no start/end times and no 'text' or 'pred_text'",
                      where="line 1", hint="expected one segment or one utterance (NeMo manifest) a line")


# A \u escape: after an even run of backslashes (``\\u`` is an escaped backslash, then u).
_ESCAPE = re.compile(r"(?<!\\)(?:\\\\)*\\u[0-9a-fA-F]{4}")


def line_style(text: str) -> dict:
    head = text.lstrip() if text[:1].isspace() else text  # no copy of a whole file that starts at once
    end = head.find("\n")
    first = head if end < 0 else head[:end]
    # Escaped to ASCII: the first line holds a \u escape and no raw non-ASCII character.
    style = {"spaced": '": ' in first, "ascii": first.isascii() and _ESCAPE.search(first) is not None}
    if first.endswith("\r"):  # written back with the line ends it had
        style["newline"] = "\r\n"
    return style


def sniff(text: str) -> str:
    """'jsonl' or 'manifest', from the first line."""
    for number, line in enumerate(_leading_lines(text), 1):
        if line.strip():
            return shape_of(parse_line(line, number))
    raise FormatError("the transcript is empty")


def _leading_lines(text: str, wanted: int = 1, size: int = 1 << 16) -> list[str]:
    """The first lines of ``text`` as ``split_lines`` splits it, at least ``wanted`` of
    them not blank when the text has as many, without splitting the whole text: a head's
    lines but its last (which may go on past the head) are the text's own."""
    while size < len(text):
        lines = split_lines(text[:size])[:-1]
        if sum(1 for line in lines if line.strip()) >= wanted:
            return lines
        size *= 4
    return split_lines(text)


def text_key(item: dict) -> str | None:
    """The key a manifest line's text is under: the first of ``MANIFEST_TEXT_KEYS`` it holds."""
    return next((k for k in MANIFEST_TEXT_KEYS if k in item), None)


def _manifest_segment(item: dict, number: int) -> Segment:
    where = f"line {number}"
    key = text_key(item)
    body = item.get(key)
    if not isinstance(body, str):
        raise FormatError(f"'{key}' is a {type(body).__name__}, not a string", where=where, field=key)
    duration, offset = item.get("duration"), item.get("offset", 0.0)
    span = None
    if duration is not None:
        start = check_seconds(jsonitems.number(offset, where, "offset"), where, "offset")
        span = Span(start, start + check_seconds(jsonitems.number(duration, where, "duration"), where, "duration"))
    return Segment(span, _speaker(item), body, True, {"json": item, "text_key": key})


def _speaker(item: dict) -> str | None:
    key = next((k for k in jsonitems.SPEAKER_KEYS if k in item), None)
    return None if key is None or item[key] is None else str(item[key])


def _load(text: str, shape: str) -> Transcript:
    if shape == "manifest":
        found = _manifest_columns(text)
        if found is not None:
            return found
    try:
        numbered = [(number, segment_of(item, number, shape)) for number, item in _objects(text)]
    except FormatError as exc:
        raise _for_manifest(exc) if shape == "manifest" else exc from None
    segments = [seg for _, seg in numbered]
    if not segments:
        raise FormatError("the transcript is empty")
    meta = {"style": line_style(text)}
    if shape == "manifest":
        meta.update(independent=True, **line_meta(number for number, _ in numbered))
        if any(s.span is None for s in segments):  # all timed or none: columns cannot mix
            segments = [s.with_(span=None) for s in segments]
    else:
        meta["layout"] = jsonitems.layout([s.extra["json"] for s in segments[:1]])
    return Transcript(tuple(segments), shape, meta)


# Reading a manifest a column at a time. Line by line, each line's object went through
# shape_of, _manifest_segment, _speaker and a Segment with its Span: about 8 us a line,
# where orjson parses it in 0.7. Here every line is parsed first, then each field is
# taken for all lines at once and checked as a column (types by one set, times by one
# array comparison); the segments are made only when asked for, by _manifest_segment.
# Whatever is not plainly a manifest line anywhere (not an object, time keys that make it
# a segment line, a text that is not a string, a time that is not a finite number in
# range, a line nested deep enough to need the writer's check) sends the lines back to
# the line-by-line reader, which then names the line and gives the usual error.

_MISSING = object()  # a key the object does not hold (a JSON null is None)


def _manifest_columns(text: str) -> Transcript | None:
    """A manifest's transcript as columns, equal to what the line-by-line reader makes;
    None when it must read the lines one by one (see ``manifest_rows``)."""
    lines = split_lines(text)
    numbers = [number for number, line in enumerate(lines, 1) if line.strip()]
    found = manifest_rows([lines[number - 1] for number in numbers])
    del lines
    if found is None:
        return None
    items, (texts, speakers, starts, ends) = found
    import numpy as np
    untimed = bool(np.isnan(starts).any())  # NaN where a line has no duration
    if untimed:  # all timed or none, as the line-by-line reader makes them
        starts, ends = np.full(len(texts), math.nan), np.full(len(texts), math.nan)
    columns = Columns(texts, speakers, starts, ends, np.ones(len(texts), dtype=bool))
    return Transcript(format="manifest", meta={"style": line_style(text), "independent": True, **line_meta(numbers)},
                      columns=columns, build=_manifest_builder(items, untimed))


def _manifest_builder(items: list[dict], untimed: bool):
    def build(i: int) -> Segment:
        seg = _manifest_segment(items[i], i + 1)  # read before: cannot fail
        return seg.with_(span=None) if untimed else seg
    return build


def manifest_rows(lines: list[str] | list[bytes]):
    """(objects, (texts, speakers, starts, ends)) of non-blank manifest lines: the
    objects parsed, and each line's text, speaker, and start and end (float arrays, NaN
    where a line has no duration) as ``_manifest_segment`` reads them; None when a line
    is not plainly a manifest line (read the lines one by one then: that names it)."""
    if not lines or any(_openers(line) > WRITABLE_DEPTH for line in lines if len(line) > WRITABLE_DEPTH):
        return None  # a line with more brackets than the depth orjson writes must be checked (by parse_line)
    try:
        items = list(map(orjson.loads, lines))
    except orjson.JSONDecodeError:
        return None
    if set(map(type, items)) != {dict}:
        return None
    keys = set().union(*items)
    if any(s in keys and e in keys for s, e, _ in jsonitems.TIME_KEYS):
        return None  # some line may be a segment line: shape_of judges it
    texts = _firsts(items, MANIFEST_TEXT_KEYS, keys)
    if texts is None or set(map(type, texts)) != {str}:
        return None  # a line without a text, or with one that is not a string
    times = _manifest_times(items, keys)
    if times is None:
        return None
    return items, (texts, _speakers(items, keys), *times)


def _firsts(items: list[dict], names: tuple[str, ...], keys: set) -> list | None:
    """Each object's value under the first of ``names`` it holds (``_MISSING`` where it
    holds none); None when no object holds any (``keys``: all the objects' keys)."""
    held = [k for k in names if k in keys]
    if not held:
        return None
    if len(held) == 1:
        return list(map(dict.get, items, repeat(held[0]), repeat(_MISSING)))
    return [next((item[k] for k in held if k in item), _MISSING) for item in items]


def _speakers(items: list[dict], keys: set) -> list[str | None]:
    """``_speaker`` of each object."""
    found = _firsts(items, jsonitems.SPEAKER_KEYS, keys)
    if found is None:
        return [None] * len(items)
    return [v if type(v) is str else None if v is None or v is _MISSING else str(v) for v in found]


_NUMBERS = {int, float}  # bool is neither: orjson makes True and False bools


def _manifest_times(items: list[dict], keys: set):
    """(starts, ends) of the objects as ``_manifest_segment`` reads their offset and
    duration (NaN where there is no duration); None when a time it would check is not a
    finite number within ``MAX_SECONDS``."""
    import numpy as np
    n = len(items)
    if "duration" not in keys:
        return np.full(n, math.nan), np.full(n, math.nan)
    durations = list(map(dict.get, items, repeat("duration")))
    kinds = set(map(type, durations))
    timed = None
    if type(None) in kinds:  # a line without a duration (or with a null one) has no span
        kinds.discard(type(None))
        timed = np.fromiter(map(_is_not_none, durations), dtype=bool, count=n)
        durations = [d for d in durations if d is not None]
    offsets = [0.0] * len(durations)
    if "offset" in keys:  # checked only where there is a duration, as _manifest_segment does
        offsets = list(map(dict.get, items if timed is None else _kept(items, timed), repeat("offset"), repeat(0.0)))
    if not kinds <= _NUMBERS or not set(map(type, offsets)) <= _NUMBERS:
        return None
    duration, start = np.array(durations, dtype=float), np.array(offsets, dtype=float)
    if not (np.abs(duration) <= MAX_SECONDS).all() or not (np.abs(start) <= MAX_SECONDS).all():
        return None  # not finite (NaN compares false) or out of range: check_seconds names it
    if timed is None:
        return start, start + duration
    starts, ends = np.full(n, math.nan), np.full(n, math.nan)
    starts[timed], ends[timed] = start, start + duration
    return starts, ends


def _is_not_none(value) -> bool:
    return value is not None


def _kept(items: list, mask) -> list:
    return [item for item, keep in zip(items, mask.tolist()) if keep]


def segment_of(item: dict, number: int, shape: str) -> Segment:
    """Line ``number``'s object as a segment of a ``shape`` file ('jsonl' or 'manifest')."""
    found = shape_of(item)
    if found != shape:
        raise FormatError(f"this line is a {found} line, not a {shape} line", where=f"line {number}",
                          hint=f"every line must have the same shape; or use --format {found}")
    if shape == "jsonl":
        return jsonitems.segment(item, f"line {number}")
    return _manifest_segment(item, number)


def line_meta(numbers) -> dict:
    """``{"blank_lines": (...)}``: the line numbers of the blank lines among the utterances
    whose line ``numbers`` (ascending) are given, so that a report names each utterance's
    line in the file (``line_number``); nothing when there are none (the usual manifest)."""
    blank, expected = [], 1
    for number in numbers:
        blank.extend(range(expected, number))
        expected = number + 1
    return {"blank_lines": tuple(blank)} if blank else {}


def line_number(transcript: Transcript, index: int) -> int:
    """The line of the file that utterance ``index`` (0-based) of a manifest was read from."""
    number = index + 1
    for blank in transcript.meta.get("blank_lines", ()):
        if blank > number:
            break
        number += 1
    return number


def _for_manifest(exc: FormatError) -> FormatError:
    """A bad line of a manifest, with the way to judge the others: ``degen filter`` sets
    such lines aside (quarantined, with why) and judges the rest."""
    hint = "; ".join(h for h in (exc.hint, "degen filter MANIFEST --keep clean.jsonl --quarantine suspect.jsonl "
                                           "sets such lines aside and judges the others") if h)
    return FormatError(exc.detail, path=exc.path, where=exc.where, field=exc.field, hint=hint)


def loads_segments(text: str) -> Transcript:
    return _load(text, "jsonl")


def loads_manifest(text: str) -> Transcript:
    return _load(text, "manifest")


def _manifest_item(seg: Segment) -> dict:
    item = dict(seg.extra.get("json") or {})
    for start_key, end_key, _ in jsonitems.TIME_KEYS:  # a segment's times (from another format): offset, duration
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
        item[next((k for k in jsonitems.SPEAKER_KEYS if k in item), "speaker")] = seg.speaker
    return item


def dumps(transcript: Transcript) -> str:
    style = transcript.meta.get("style", {})
    separators = (", ", ": ") if style.get("spaced", True) else (",", ":")
    if transcript.format == "manifest":
        items = (_manifest_item(s) for s in transcript.segments)
    else:
        layout = transcript.meta.get("layout") or jsonitems.layout([])
        items = (jsonitems.dump_item(s, i, layout, False) for i, s in enumerate(transcript.segments))
    newline = style.get("newline", "\n")
    return "".join(json.dumps(item, ensure_ascii=style.get("ascii", False), separators=separators) + newline
                   for item in items)
