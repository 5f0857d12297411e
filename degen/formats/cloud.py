"""Two cloud speech services' JSON results, read by ``jsonfmt``:

    aws_transcribe  Amazon Transcribe job output: {"jobName", "results": {"transcripts":
                    [{"transcript": ...}], "items": [{"start_time": "0.54", "end_time":
                    "0.67", "alternatives": [{"content": "To", ...}], "type":
                    "pronunciation"}, {"type": "punctuation", ...}]}}. Times are strings of
                    seconds; a punctuation item has none. The items are grouped into a
                    segment a sentence (closed by a ``.``, ``?`` or ``!`` item, or where the
                    speaker changes), or a segment an ``audio_segments`` entry where the job
                    wrote them (newer jobs: {"id", "transcript", "start_time", "end_time",
                    "items": [item ids]}; also how another format's segments are written);
                    without items, the transcript is one untimed segment.
    azure_speech    Microsoft (Azure) speech results: the Speech SDK's, a list (or one) of
                    {"RecognitionStatus", "DisplayText", "Offset", "Duration"} with times in
                    100 ns ticks (the text in "NBest"[0]["Display"] when there is no
                    DisplayText), or batch transcription's {"recognizedPhrases": [{"offsetInTicks",
                    "durationInTicks", "nBest": [{"display": ...}], "speaker"?}]}. A result
                    with no text (NoMatch, a silence timeout) is no segment: it is kept aside
                    in place and written back as read.

Every item is kept whole and the document in ``meta["doc"]``, so an unchanged transcript
writes back what was read; a segment a repair changed is written anew with only the fields
we can vouch for (its words spread evenly over its time in Transcribe's items).
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import FormatError
from ..model import Segment, Span, Transcript
from .timecode import check_seconds

AWS, AZURE = "aws_transcribe", "azure_speech"
TICKS = 10_000_000  # 100 ns ticks a second
SENTENCE_END = frozenset(".?!。？！")
_TRAILING = re.compile(r"^(.*?)([.,?!;:。？！、，]*)$")
_ISO = re.compile(r"^PT(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?$")


def shape(doc: Any) -> str | None:
    """AWS or AZURE when ``doc`` is one of their results, else None."""
    if isinstance(doc, dict):
        results = doc.get("results")
        if isinstance(results, dict) and isinstance(results.get("transcripts"), list) \
                and ("items" in results or "jobName" in doc):
            return AWS
        if isinstance(doc.get("recognizedPhrases"), list) or _azure_item(doc):
            return AZURE
    elif isinstance(doc, list) and doc and all(isinstance(x, dict) and _azure_item(x) for x in doc):
        return AZURE
    return None


def _azure_item(item: dict) -> bool:
    return ("RecognitionStatus" in item or "recognitionStatus" in item) and \
        any(k in item for k in ("Offset", "offsetInTicks", "offset"))


def _seconds(value: Any, where: str, key: str) -> float:
    """Seconds given as a number or a numeric string (Transcribe writes "0.54"), or as an
    ISO 8601 duration (``PT1.2S``)."""
    given = value
    if isinstance(value, str):
        iso = _ISO.match(value)
        if iso and value != "PT":
            h, m, s = (float(p or 0) for p in iso.groups())
            return check_seconds(h * 3600 + m * 60 + s, where, key)
        try:
            value = float(value)
        except ValueError:
            value = None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise FormatError(f"time {given!r} is not a number", where=where, field=key,
                          hint="Transcribe times are seconds; Azure's Offset/Duration are 100 ns ticks")
    return check_seconds(float(value), where, key)


# --- Amazon Transcribe


def read_aws(doc: dict) -> Transcript:
    results = doc["results"]
    items = results.get("items") or []
    if not isinstance(items, list):
        raise FormatError(f"'items' is a {type(items).__name__}, not a list", field="results.items")
    transcripts = results["transcripts"]
    top = transcripts[0].get("transcript") if transcripts and isinstance(transcripts[0], dict) else None
    if not items:
        segments = (Segment(None, None, top, True, {}),) if isinstance(top, str) and top.strip() else ()
        return Transcript(segments, AWS, {"doc": doc, "text_mode": "keep"})
    audio = results.get("audio_segments")
    if isinstance(audio, list) and audio:
        segments = [_aws_audio_segment(entry, f"audio segment {i}") for i, entry in enumerate(audio)]
        return Transcript(tuple(segments), AWS, {"doc": doc, "text_mode": _mode(top, segments), "audio": True})
    speakers = _aws_speakers(results)
    segments, group = [], []
    for i, item in enumerate(items):
        word, start, end = _aws_item(item, f"item {i}")
        speaker = item.get("speaker_label") or (speakers.get(start) if start is not None else None)
        if group and start is not None and speaker != group[-1][4] and group[-1][4] is not None:
            segments.append(_aws_segment(group))
            group = []
        group.append((i, word, start, end, speaker if start is not None else (group[-1][4] if group else None)))
        if item.get("type") == "punctuation" and word in SENTENCE_END:
            segments.append(_aws_segment(group))
            group = []
    if group:
        segments.append(_aws_segment(group))
    segments = [s for s in segments if s is not None]
    return Transcript(tuple(segments), AWS, {"doc": doc, "text_mode": _mode(top, segments)})


def _mode(top: Any, segments: list[Segment]) -> str:
    """"items" when the transcript is the segments' text joined (a repair rewrites it), else "keep"."""
    return "items" if isinstance(top, str) and top == " ".join(s.text for s in segments) else "keep"


def _aws_audio_segment(entry: Any, where: str) -> Segment:
    if not isinstance(entry, dict) or not isinstance(entry.get("transcript"), str):
        raise FormatError("audio segment needs 'transcript', 'start_time' and 'end_time'", where=where,
                          field="transcript")
    span = Span(_seconds(entry.get("start_time"), where, "start_time"), _seconds(entry.get("end_time"), where, "end_time"))
    speaker = entry.get("speaker_label")
    speaker = None if speaker is None else str(speaker)
    extra = {"audio": entry, "raw_span": span, "raw_text": entry["transcript"], "raw_speaker": speaker}
    return Segment(span, speaker, entry["transcript"], True, extra)


def _aws_item(item: Any, where: str) -> tuple[str, float | None, float | None]:
    if not isinstance(item, dict):
        raise FormatError(f"item is a {type(item).__name__}, not an object", where=where)
    alternatives = item.get("alternatives")
    if not isinstance(alternatives, list) or not alternatives or not isinstance(alternatives[0], dict) \
            or not isinstance(alternatives[0].get("content"), str):
        raise FormatError("item has no alternatives[0].content", where=where, field="alternatives",
                          hint="a Transcribe item reads {start_time, end_time, alternatives: [{content}], type}")
    if item.get("type") == "punctuation" or "start_time" not in item:
        return alternatives[0]["content"], None, None
    return (alternatives[0]["content"], _seconds(item["start_time"], where, "start_time"),
            _seconds(item.get("end_time"), where, "end_time"))


def _aws_speakers(results: dict) -> dict[float, str]:
    """Start time -> speaker label from the older ``speaker_labels`` block."""
    out = {}
    labels = results.get("speaker_labels")
    for seg in (labels.get("segments") if isinstance(labels, dict) else None) or []:
        for item in (seg.get("items") if isinstance(seg, dict) else None) or []:
            try:
                out[float(item["start_time"])] = str(item["speaker_label"])
            except (KeyError, TypeError, ValueError):
                continue
    return out


def _aws_segment(group: list) -> Segment | None:
    timed = [(s, e) for _, _, s, e, _ in group if s is not None]
    if not timed:
        return None
    text = ""
    for _, word, start, _, _ in group:
        text += word if start is None or not text else " " + word
    span = Span(timed[0][0], max(e for _, e in timed))
    speaker = next((sp for _, _, s, _, sp in group if s is not None and sp is not None), None)
    extra = {"items": tuple(i for i, *_ in group), "raw_span": span, "raw_text": text, "raw_speaker": speaker}
    return Segment(span, speaker, text, True, extra)


def _aws_new_items(seg: Segment) -> list[dict]:
    """A changed segment's words as items, spread evenly over its time, with the marks
    that end them as punctuation items (as Transcribe writes them: where a sentence ends)."""
    span = seg.span or Span(0.0, 0.0)
    words = [_TRAILING.match(w).groups() for w in seg.text.split()]
    step = (span.end - span.start) / max(1, len(words))
    out = []
    for k, (word, marks) in enumerate(words):
        if word:
            item = {"start_time": f"{span.start + k * step:.3f}", "end_time": f"{span.start + (k + 1) * step:.3f}",
                    "alternatives": [{"content": word}], "type": "pronunciation"}
            if seg.speaker is not None:
                item["speaker_label"] = seg.speaker
            out.append(item)
        out.extend({"alternatives": [{"content": m}], "type": "punctuation"} for m in marks)
    return out


def dump_aws(transcript: Transcript) -> dict:
    meta = transcript.meta
    doc = dict(meta.get("doc") or {"results": {"transcripts": [{"transcript": ""}], "items": []}})
    results = dict(doc.get("results") or {})
    old = results.get("items") or []
    audio = meta.get("audio") or not meta.get("doc")  # another format's segments are kept as audio segments
    items, entries = [], []
    for seg in transcript.segments:
        x = seg.extra
        same = (x.get("raw_span"), x.get("raw_text"), x.get("raw_speaker")) == (seg.span, seg.text, seg.speaker)
        if same and x.get("items") is not None and meta.get("doc"):
            items.extend(old[i] for i in x["items"])
        elif same and x.get("audio") is not None and meta.get("doc"):
            entries.append(x["audio"])
            continue
        else:
            own = _aws_new_items(seg)
            if audio:
                first = len(old) + len(items)  # ids after every old one: no clash with kept segments' items
                own = [{"id": first + k, **item} for k, item in enumerate(own)]
                span = seg.span or Span(0.0, 0.0)
                entries.append({"id": len(entries), "transcript": seg.text, "start_time": f"{span.start:.3f}",
                                "end_time": f"{span.end:.3f}", "items": [item["id"] for item in own],
                                **({"speaker_label": seg.speaker} if seg.speaker is not None else {})})
            items.extend(own)
    text = " ".join(s.text for s in transcript.segments)
    if audio:
        results["audio_segments"] = entries
        kept = {i for entry in entries if isinstance(entry.get("items"), list) for i in entry["items"]
                if isinstance(i, int)}  # the items of the audio segments kept; a changed one's go with it
        items = [it for it in old if not isinstance(it, dict) or it.get("id", -1) in kept or "id" not in it] + items
    if old or items:
        results["items"] = items
    if meta.get("text_mode") != "keep" or not old:
        results["transcripts"] = [{**(results.get("transcripts") or [{}])[0], "transcript": text}]
    doc["results"] = results
    return doc


# --- Microsoft (Azure) speech


def read_azure(doc: Any) -> Transcript:
    batch = isinstance(doc, dict) and "recognizedPhrases" in doc
    items = doc["recognizedPhrases"] if batch else doc if isinstance(doc, list) else [doc]
    segments, aside = [], []
    for i, item in enumerate(items):
        where = f"result {i}"
        if not isinstance(item, dict):
            raise FormatError(f"result is a {type(item).__name__}, not an object", where=where)
        text = _azure_text(item)
        if text is None:
            aside.append(item)
            continue
        start, end = _azure_times(item, where)
        speaker = item.get("speaker")
        speaker = None if speaker is None else str(speaker)
        extra = {"json": item, "before": aside, "raw_span": Span(start, end), "raw_text": text,
                 "raw_speaker": speaker}
        segments.append(Segment(Span(start, end), speaker, text, True, extra))
        aside = []
    meta = {"doc": doc, "layout": "batch" if batch else "list" if isinstance(doc, list) else "one", "trailer": aside}
    return Transcript(tuple(segments), AZURE, meta)


def _azure_text(item: dict) -> str | None:
    for key in ("DisplayText", "displayText"):
        if isinstance(item.get(key), str):
            return item[key]
    best = item.get("NBest", item.get("nBest"))
    if isinstance(best, list) and best and isinstance(best[0], dict):
        text = best[0].get("Display", best[0].get("display"))
        return text if isinstance(text, str) else None
    return None


def _azure_times(item: dict, where: str) -> tuple[float, float]:
    """Start and end in seconds. Ticks are added before dividing (9.88 s, not 9.8799999);
    batch results also give ``offset`` as an ISO duration (``PT1.2S``)."""
    for start_key, length_key in (("Offset", "Duration"), ("offsetInTicks", "durationInTicks")):
        if start_key in item:
            start, length = (_number(item.get(k, 0), where, k) for k in (start_key, length_key))
            return (check_seconds(start / TICKS, where, start_key),
                    check_seconds((start + length) / TICKS, where, length_key))
    if "offset" in item:
        start = _seconds(item["offset"], where, "offset")
        return start, check_seconds(start + _seconds(item.get("duration", "PT0S"), where, "duration"), where, "duration")
    raise FormatError("result has no Offset", where=where, field="Offset",
                      hint="an Azure result needs Offset and Duration (100 ns ticks)")


def _number(value: Any, where: str, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or abs(value) == float("inf"):
        raise FormatError(f"time {value!r} is not a number", where=where, field=key,
                          hint="Azure's Offset and Duration are 100 ns ticks")
    return float(value)


def _azure_new_item(seg: Segment, batch: bool) -> dict:
    """A changed segment's result: status, times, text, and its speaker."""
    span = seg.span or Span(0.0, 0.0)
    start, length = round(span.start * TICKS), round((span.end - span.start) * TICKS)
    if batch:
        item = {"recognitionStatus": "Success", "offsetInTicks": float(start), "durationInTicks": float(length),
                "nBest": [{"display": seg.text}]}
        if seg.speaker is not None:
            item["speaker"] = int(seg.speaker) if seg.speaker.isdigit() else seg.speaker
        return item
    return {"RecognitionStatus": "Success", "DisplayText": seg.text, "Offset": start, "Duration": length}


def dump_azure(transcript: Transcript) -> Any:
    meta = transcript.meta
    layout = meta.get("layout", "list")
    out = []
    for seg in transcript.segments:
        x = seg.extra
        out.extend(x.get("before", ()))
        if "json" in x and "raw_text" in x and (x["raw_span"], x["raw_text"], x["raw_speaker"]) == (seg.span, seg.text, seg.speaker):
            out.append(x["json"])
        else:
            out.append(_azure_new_item(seg, layout == "batch"))
    out.extend(meta.get("trailer", ()))
    if layout == "batch":
        doc = dict(meta.get("doc") or {})
        doc["recognizedPhrases"] = out
        return doc
    return out[0] if layout == "one" and len(out) == 1 else out
