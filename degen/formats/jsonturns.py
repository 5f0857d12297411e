"""Two more JSON shapes, read by ``jsonfmt``:

    hf_chunks   Hugging Face ASR pipeline output: {"text": ..., "chunks": [{"timestamp":
                [0.0, 2.0], "text": ...}]}; a last chunk may end at null (it then ends at
                its start, or where the next chunk starts).
    turns_json  an object holding one list of turns under any key, as in meeting corpora:
                {"meeting_transcripts": [{"speaker": "A", "content": "..."}]}; timed when
                every turn has start/end times, or whisper.cpp's ``-oj`` offsets in ms:
                {"transcription": [{"offsets": {"from": 0, "to": 11000}, "text": ...}]}.

Items are kept whole in ``extra["json"]`` and the document in ``meta["doc"]``.
"""

from __future__ import annotations

from typing import Any

from ..errors import FormatError
from ..model import Segment, Span, Transcript
from .jsonitems import SPEAKER_KEYS, TIME_KEYS, dump_item, layout, number, segment
from .timecode import check_seconds, format_clock

TURN_TEXT_KEYS = ("text", "content", "transcript", "sentence", "utterance", "transcription")


def _text_key(item: dict) -> str | None:
    return next((k for k in TURN_TEXT_KEYS if isinstance(item.get(k), str)), None)


def list_key(doc: dict) -> str | None:
    """The key whose value is a list of turn objects, if there is exactly one such list."""
    keys = [k for k, v in doc.items() if isinstance(v, list) and v and isinstance(v[0], dict) and _text_key(v[0])]
    return keys[0] if len(keys) == 1 else None


def shape(doc: dict) -> str | None:
    chunks = doc.get("chunks")
    if isinstance(chunks, list) and chunks and isinstance(chunks[0], dict) and "timestamp" in chunks[0]:
        return "hf_chunks"
    if "segments" not in doc and list_key(doc):
        return "turns_json"
    return None


def _joined(doc: dict, texts: list[str]) -> str:
    top = doc.get("text")
    return "concat" if top == "".join(texts) else "space" if top == " ".join(t.strip() for t in texts) else "keep"


def read_hf_chunks(doc: dict) -> Transcript:
    items = doc["chunks"]
    spans = []
    for i, item in enumerate(items):
        where = f"chunk {i}"
        stamp = item.get("timestamp") if isinstance(item, dict) else None
        if not isinstance(stamp, (list, tuple)) or len(stamp) != 2 or not isinstance(item.get("text"), str):
            raise FormatError("chunk needs 'timestamp': [start, end] and 'text'", where=where, field="timestamp")
        start = check_seconds(number(stamp[0], where, "timestamp"), where)
        end = None if stamp[1] is None else check_seconds(number(stamp[1], where, "timestamp"), where)
        spans.append((start, end))
    segments = []
    for i, (item, (start, end)) in enumerate(zip(items, spans)):
        if end is None:  # the pipeline leaves the last end open
            end = max(start, spans[i + 1][0]) if i + 1 < len(spans) else start
        segments.append(Segment(Span(start, end), None, item["text"], True, {"json": item}))
    meta = {"doc": doc, "text_mode": _joined(doc, [s.text for s in segments])}
    return Transcript(tuple(segments), "hf_chunks", meta)


def _offsets(item: dict) -> bool:
    """whisper.cpp -oj: {"offsets": {"from": ms, "to": ms}, "timestamps": {...}, "text": ...}."""
    offsets = item.get("offsets")
    return isinstance(offsets, dict) and "from" in offsets and "to" in offsets


def read_turns(doc: dict) -> Transcript:
    key = list_key(doc)
    items = doc[key]
    whisper_cpp = all(isinstance(it, dict) and _offsets(it) for it in items)
    timed = whisper_cpp or all(isinstance(it, dict) and any(s in it and e in it for s, e, _ in TIME_KEYS)
                               for it in items)
    millis = _millis(items) if timed and not whisper_cpp else None
    segments = []
    for i, item in enumerate(items):
        where = f"{key} {i}"
        if not isinstance(item, dict) or not _text_key(item):
            raise FormatError("turn has no text", where=where, field="text")
        text_key = _text_key(item)
        if whisper_cpp:
            start, end = (check_seconds(number(item["offsets"][k], where, "offsets") / 1000, where)
                          for k in ("from", "to"))
            segments.append(Segment(Span(start, end), None, item[text_key], True, {"json": item, "text_key": text_key}))
            continue
        if timed:
            seg = segment(item, where, millis)
            segments.append(seg.with_(text=item[text_key], extra={**seg.extra, "text_key": text_key}))
            continue
        speaker_key = next((k for k in SPEAKER_KEYS if k in item), None)
        speaker = None if speaker_key is None or item[speaker_key] is None else str(item[speaker_key])
        segments.append(Segment(None, speaker, item[text_key], True, {"json": item, "text_key": text_key}))
    meta = {"doc": doc, "list_key": key, "timed": timed, "offsets": whisper_cpp}
    if millis:
        meta["millis"] = True
    return Transcript(tuple(segments), "turns_json", meta)


# Seconds within which a turn's clock stamp agrees with its start: stamps are written to
# the second (``24:28`` for 1468.58 s).
STAMP_SLACK = 1.0


def _millis(items: list) -> tuple[str, str, float] | None:
    """("start", "end", 0.001) when the turns' ``start``/``end`` are milliseconds: every
    turn's clock stamp (``"timestamp": "24:28"``) agrees with its start read as
    milliseconds, and some stamp disagrees with it read as seconds. A podcast's turns
    read as seconds were 18,000 s long, and every one too slow for its words."""
    from .timecode import parse_clock
    agree_ms = disagree_s = 0
    for item in items:
        stamp, start = item.get("timestamp"), item.get("start")
        if not isinstance(stamp, str) or isinstance(start, bool) or not isinstance(start, (int, float)) \
                or "end" not in item:
            return None
        try:
            clock = parse_clock(stamp, "timestamp")
        except FormatError:
            return None
        agree_ms += abs(start / 1000 - clock) <= STAMP_SLACK
        disagree_s += abs(start - clock) > STAMP_SLACK
    return ("start", "end", 0.001) if agree_ms == len(items) and disagree_s else None


def dump_doc(transcript: Transcript) -> dict:
    """The document to write for ``hf_chunks`` or ``turns_json``."""
    meta, segs = transcript.meta, transcript.segments
    doc = dict(meta.get("doc") or {})
    if transcript.format == "hf_chunks":
        chunks = []
        for seg in segs:
            item = dict(seg.extra.get("json") or {})
            span = seg.span if seg.span is not None else Span(0.0, 0.0)
            old = item.get("timestamp")
            if not (isinstance(old, (list, tuple)) and old[0] == span.start and old[1] in (span.end, None)):
                item["timestamp"] = [round(span.start, 3), round(span.end, 3)]
            item["text"] = seg.text
            chunks.append(item)
        doc["chunks"] = chunks
        mode = meta.get("text_mode", "concat")
        if mode != "keep":
            doc["text"] = "".join(s.text for s in segs) if mode == "concat" else " ".join(s.text.strip() for s in segs)
        return doc
    key = meta.get("list_key", "turns")
    old = doc.get(key) or []
    shape = layout(old)
    if meta.get("millis"):  # milliseconds under start/end: a repaired turn is written in them too
        shape = {**shape, "time_keys": ("start", "end", 0.001)}
    turns = []
    for i, seg in enumerate(segs):
        if seg.span is not None and meta.get("offsets"):
            item = _with_offsets(dict(seg.extra.get("json") or {}), seg.span)
        elif seg.span is not None and meta.get("timed", True):
            item = dump_item(seg, i, shape, False)
        else:
            item = dict(seg.extra.get("json") or {})
            if seg.speaker is not None:
                item[next((k for k in SPEAKER_KEYS if k in item), "speaker")] = seg.speaker
        item[seg.extra.get("text_key", "text")] = seg.text
        turns.append(item)
    doc[key] = turns
    return doc


def _with_offsets(item: dict, span: Span) -> dict:
    offsets = item.get("offsets") or {}
    if offsets.get("from") != round(span.start * 1000) or offsets.get("to") != round(span.end * 1000):
        item["offsets"] = {"from": round(span.start * 1000), "to": round(span.end * 1000)}
        item["timestamps"] = {"from": format_clock(span.start, sep=","), "to": format_clock(span.end, sep=",")}
    return item


def plain(value: Any) -> Any:
    """A Python literal's tuples as lists (what JSON would have had)."""
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


_CLOSE = {"[": "]", "{": "}", "(": ")"}


def unclosed(text: str) -> str | None:
    """The brackets a pasted Python literal leaves open (cut at an item boundary, as bug
    reports often are), or None when it is cut inside a string or is not one."""
    stack, quote, escaped = [], None, False
    for ch in text:
        if quote:
            escaped, quote = (False, quote) if escaped else (ch == "\\", None if ch == quote else quote)
        elif ch in "'\"":
            quote = ch
        elif ch in _CLOSE:
            stack.append(_CLOSE[ch])
        elif ch in ")]}":
            if not stack or stack.pop() != ch:
                return None
    return None if quote or not stack else "".join(reversed(stack))


def python_literal(text: str) -> tuple[Any, str] | None:
    """A printed Python dict or list as JSON values, and the closers a cut paste needed."""
    import ast
    closers = ""
    for attempt in range(2):
        try:
            return plain(ast.literal_eval(text.rstrip().rstrip(",") + closers if closers else text)), closers
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            closers = unclosed(text.rstrip().rstrip(",")) if attempt == 0 else None
            if not closers:
                return None
    return None
