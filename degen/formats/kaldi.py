"""Kaldi and NIST scoring files: STM (a segment a line) and CTM (a word a line).

    ;; CATEGORY "1" "Audio Analytics" ""                       (STM header lines, kept aside)
    SI114J-00045-P10005 1 SI114J-00045 0.00 13.04 <o,Q5,B2,P1> as i said before ...
        file channel speaker start end [<labels>] text

    nsc-part2-chn0-spk00002671maf-026710134 1 0.00 1.05 spring [0.98]
        utterance channel start duration word [confidence]

A CTM's consecutive words of one utterance and channel are one segment, from the first
word's start to the last word's end; when every segment is an utterance of its own (times
restart from each utterance's start), they are judged each alone, as a manifest's rows. Lines are written back as read; a segment whose text
or time a repair changed is written anew (in a CTM, its words spread evenly over its time).
"""

from __future__ import annotations

import re

from ..errors import FormatError
from ..model import Segment, Span, Transcript
from . import lines
from .timecode import check_seconds

_NUMBER = r"-?\d+(?:\.\d+)?"
_STM = re.compile(rf"^(\S+)\s+(\S+)\s+(\S+)\s+({_NUMBER})\s+({_NUMBER})(?:\s+(<[^<>\s]*>))?(?:\s+(.*?))?\s*$")
_CTM = re.compile(rf"^(\S+)\s+(\S+)\s+({_NUMBER})\s+({_NUMBER})\s+(\S+)((?:\s+\S+)?)\s*$")
_COMMENT = ";;"
SNIFF_LINES = 50  # data lines a sniff looks at: each must fit


def _data(text: str) -> list[str]:
    return [ln for ln in lines.split_lines(text)[:4 * SNIFF_LINES] if ln.strip() and not ln.lstrip().startswith(_COMMENT)]


def looks_like_stm(text: str) -> bool:
    """Every data line (of the first ones) is ``file channel speaker start end ...``,
    start before end, and the text after the times is not all numbers (a table)."""
    rows = _data(text)[:SNIFF_LINES]
    return bool(rows) and all(_stm_row(row) for row in rows)


def _stm_row(row: str) -> bool:
    m = _STM.match(row)
    if not m or _CTM.match(row) and not m.group(6):  # five fields and a word: a CTM line
        return False
    return float(m.group(4)) <= float(m.group(5)) and not re.fullmatch(rf"[\d\s.:-]*", m.group(7) or "")


def looks_like_ctm(text: str) -> bool:
    """Every data line (of the first ones) is ``utterance channel start duration word
    [confidence]``, with a duration that is not negative, and some word is not a number."""
    rows = _data(text)[:SNIFF_LINES]
    found = [_CTM.match(row) for row in rows]
    return bool(rows) and all(m and float(m.group(4)) >= 0 for m in found) and \
        any(not re.fullmatch(_NUMBER, m.group(5)) for m in found)


def _data_rows(rows: list[str], pattern, what: str, trailer: list, hint: str):
    """(``line N``, row, its match, the blank and comment rows just before it) for each
    data row; the blank and comment rows after the last one are left in ``trailer``."""
    for number, row in enumerate(rows, 1):
        if not row.strip() or row.lstrip().startswith(_COMMENT):
            trailer.append(row)
            continue
        m = pattern.match(row)
        if not m:
            raise FormatError(f"not {what} line: {row.strip()[:60]!r}", where=f"line {number}", hint=hint)
        yield f"line {number}", row, m, list(trailer)
        trailer.clear()


def loads_stm(text: str) -> Transcript:
    rows, meta = lines.split(text)
    segments, trailer = [], []
    for where, row, m, before in _data_rows(rows, _STM, "an STM", trailer,
                                            "an STM line reads: file channel speaker start end [<labels>] text"):
        span = Span(check_seconds(float(m.group(4)), where), check_seconds(float(m.group(5)), where))
        extra = {"before": before, "file": m.group(1), "channel": m.group(2), "labels": m.group(6) or "",
                 "raw": row, "raw_span": span, "raw_text": m.group(7) or "", "raw_speaker": m.group(3)}
        segments.append(Segment(span, m.group(3), m.group(7) or "", True, extra))
    if not segments:
        raise FormatError("no STM segment line found", hint="an STM line reads: file channel speaker start end text")
    meta["trailer"] = trailer
    return Transcript(tuple(segments), "stm", meta)


def dumps_stm(transcript: Transcript) -> str:
    def render(seg: Segment) -> str:
        x = seg.extra
        if x.get("raw") and (x["raw_span"], x["raw_text"], x["raw_speaker"]) == (seg.span, seg.text, seg.speaker):
            return x["raw"]
        span = seg.span or Span(0.0, 0.0)
        speaker = "_".join((seg.speaker or "-").split()) or "-"  # a field: no spaces in it
        head = [x.get("file", "-"), x.get("channel", "1"), speaker, f"{span.start:.2f}", f"{span.end:.2f}"]
        return " ".join(head + [p for p in (x.get("labels", ""), seg.text.replace("\n", " ")) if p])

    return lines.emit(transcript.segments, transcript.meta, render)


def loads_ctm(text: str) -> Transcript:
    rows, meta = lines.split(text)
    segments, trailer, words, key = [], [], [], None

    def close():
        if words:
            start = words[0][0]
            end = max(s + d for s, d, _, _ in words)
            body = " ".join(w for _, _, w, _ in words)
            extra = {"before": held[0], "utterance": key[0], "channel": key[1], "words": tuple(words),
                     "raw_span": Span(start, end), "raw_text": body}
            segments.append(Segment(Span(start, end), None, body, True, extra))

    held = [[]]
    for where, row, m, before in _data_rows(rows, _CTM, "a CTM", trailer,
                                            "a CTM line reads: utterance channel start duration word [confidence]"):
        start, duration = check_seconds(float(m.group(3)), where), check_seconds(float(m.group(4)), where)
        if (m.group(1), m.group(2)) != key or before:  # a new utterance, or lines kept aside between
            close()
            words, key, held = [], (m.group(1), m.group(2)), [before]
        words.append((start, duration, m.group(5), row))
    close()
    if not segments:
        raise FormatError("no CTM word line found", hint="a CTM line reads: utterance channel start duration word")
    meta["trailer"] = trailer
    if len({s.extra["utterance"] for s in segments}) == len(segments) > 1:
        meta["independent"] = True  # an utterance a segment, each timed from its own start
    return Transcript(tuple(segments), "ctm", meta)


def dumps_ctm(transcript: Transcript) -> str:
    def render(seg: Segment) -> list[str]:
        x = seg.extra
        if x.get("words") and (x["raw_span"], x["raw_text"]) == (seg.span, seg.text):
            return [w[3] for w in x["words"]]
        span = seg.span or Span(0.0, 0.0)
        words = seg.text.split() or [""]
        step = (span.end - span.start) / len(words)
        name, channel = x.get("utterance", "utterance"), x.get("channel", "1")
        return [f"{name} {channel} {span.start + i * step:.2f} {step:.2f} {w}" for i, w in enumerate(words) if w]

    return lines.emit(transcript.segments, transcript.meta, render)
