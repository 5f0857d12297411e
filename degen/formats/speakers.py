"""Speaker-labelled text, with or without a time stamp per turn:

    SPEAKER_00: So the plan is ...          inline turns (``Name: text`` too; ``：`` as well)
    [SPEAKER_01] Right.                     bracketed labels
    Speaker 1  0:03                         a label line, then the turn's text (Otter.ai)
    So the plan is ...
    **[00:01:02] Alice:** We shipped it.    markdown meeting notes
    [208.27 - 219.67] Speaker 0: Prije ...  a time range, then the label (VibeVoice)
    (PERSON7) Aha, so now I can do that.    parenthesised labels (ELITR minutes)
    Unknown speaker : 28:20.12 - 31:34.58 : text   a label, then a time range (LinTO)

A free ``Name:`` counts only when at least two names each open two or more turns and are
not prose words ("Note: ..." in a paragraph is not a speaker). Lines after a turn belong to
it; lines before the first turn are kept and written back. Turns are timed when every one
carries a stamp: from its range, or until the next turn starts (``timecode.infer_ends``).
Labels are written one way per file: with ``(PERSON7)`` turns, a line that opens with
``[PERSON2]`` is text that mentions someone.
"""

from __future__ import annotations

from collections import Counter
from functools import cache

import regex

from ..errors import FormatError
from ..model import Segment, Span, Transcript
from . import lines
from .timecode import CLOCK, check_seconds, clock_seconds, format_clock, infer_ends

_GENERIC = r"(?:SPEAKER[_ ]?\d{1,3}|[Ss]peaker ?\d{1,3}|[Ss]pk_?\d{1,3}|PERSON\d{1,3})"
_NAME = (r"(?:[\p{Lu}][\p{L}\p{M}\p{N}'.\-]*(?: [\p{Lu}][\p{L}\p{M}\p{N}'.\-]*){0,2}"
         r"|[\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}]{1,6})")
_LABEL = rf"(?P<label>{_GENERIC}|{_NAME})"
_TIME = rf"(?:{CLOCK.replace('(', '(?:').replace('(?:?:', '(?:')}|\d+\.\d+)"  # a clock, or seconds
# One stamp or a range ("[208.27 - 219.67] Speaker 0: ..." as VibeVoice writes it).
_STAMP = rf"[\[(]?(?P<stamp>{_TIME})(?:\s*[-–]\s*(?P<stop>{_TIME}))?[\])]?"
_LEAD = r"(?P<lead>\s*(?:>\s*)?(?:[-*]\s+)?\"?(?:\*\*)?)"  # quote, bullet, a pasted quote mark, bold
# Pattern sources, compiled by _compiled on first use.
_BRACKET = (rf"^{_LEAD}(?:{_STAMP}\s*)?(?:\[(?P<label>{_GENERIC}|{_NAME})\]|\((?P<label>{_GENERIC}|{_NAME})\))"
            rf"(?P<colon>:?\s?)(?P<text>.*)$")
_INLINE = rf"^{_LEAD}(?:{_STAMP}\s*)?{_LABEL}(?P<colon>(?:\*\*)?\s*[:：](?:\*\*)?\s?)(?P<text>.*)$"
_BLOCK = rf"^{_LEAD}{_LABEL}(?P<colon>(?:\*\*)?\s*[:：]?(?:\*\*)?)\s*(?:{_STAMP})?\s*$"
# Any short label is a speaker when a full time range follows it: the range is the evidence.
_RANGED = (rf"^{_LEAD}(?P<label>\p{{L}}[^:：\[\]()\n]{{0,38}}?)\s*[:：]\s*(?P<stamp>{_TIME})\s*[-–]\s*"
           rf"(?P<stop>{_TIME})\s*(?P<colon>[:：]\s*)(?P<text>.*)$")
# Words that open prose lines with a colon; never speakers.
_PROSE = frozenset("""note notes warning example summary agenda attendees date time location subject re
    source update edit ps todo action actions decision decisions outcome question answer tip step
    chapter section part title topic minutes next meeting chorus verse bridge refrain intro outro hook
    lyrics""".split())
_MAX_PREAMBLE = 10  # non-blank lines allowed before the first turn (a title, a date, attendees)


@cache
def _compiled(source: str):
    """``source`` compiled, once: the patterns above take ~7 ms to compile, which a scan of
    a JSON or subtitle file would pay at start-up for nothing."""
    return regex.compile(source)


# A label and its time stamp open a line within this many characters, and a label line is no
# longer. The patterns are tried on that much of a line: on a whole 70,000-character line
# their label and stamp alternatives backtracked for seconds each, 48 s for one file.
_HEAD = 1000


def _classify(line: str):
    """('turn', match) for a label with text, ('label', match) for a label line, or None."""
    probe, long = line[:_HEAD], len(line) > _HEAD
    for kind, pattern in (("turn", _RANGED), ("turn", _BRACKET), ("label", _BLOCK), ("turn", _INLINE)):
        if long and pattern is _BLOCK:
            continue
        match = _compiled(pattern).match(probe)
        if match and long:  # a turn's text runs to the line's end: matched whole at once, on the same path
            match = _compiled(pattern).match(line)
        if match and pattern is _RANGED and match.group("label").strip().casefold() in _PROSE:
            continue  # "Time: 10:00 - 11:00: ..." is a note, not a speaker
        if match and (kind != "label" or match.group("colon").strip() or match.group("stamp")
                      or _compiled(_GENERIC).fullmatch(match.group("label"))):
            return kind, match
    return None


def _accepted(found: list, trust: bool = False) -> set[str]:
    """Labels that are speakers: generic ones, stamped ones, and free names that recur (any
    name that is not a prose word, when the file is said to be speaker text)."""
    counts = Counter(m.group("label") for _, _, m in found)
    if trust:
        return {name for name in counts if name.casefold() not in _PROSE}
    generic = {m.group("label") for _, _, m in found
               if _compiled(_GENERIC).fullmatch(m.group("label")) or m.group("stamp")}
    free = {name for name, n in counts.items() if n >= 2 and name not in generic and name.casefold() not in _PROSE}
    return generic | (free if len(free) >= 2 else set())


def _family(line: str, match) -> str:
    """How a label is written: '[' or '(' around it, or '' (followed by a colon, or alone)."""
    before = line[match.start("label") - 1:match.start("label")]
    return before if before in "[(" else ""


def _turns(rows: list[str], least: int = 2, trust: bool = False):
    """The turn lines (index, kind, match), or [] when the text is not speaker-labelled.
    Sniffing wants ``least`` = 2 turns (3 by free names), or 1 when every turn has a time
    range; a file said to be speaker text, 1."""
    found = [(i, *hit) for i, line in enumerate(rows) if (hit := _classify(line))]
    names = _accepted(found, trust)
    turns = [t for t in found if t[2].group("label") in names]
    families = Counter(_family(rows[i], m) for i, _, m in turns)
    if len(families) > 1:  # one way of writing labels per file: "[PERSON2] is on the call" is text
        main = families.most_common(1)[0][0]
        turns = [t for t in turns if _family(rows[t[0]], t[2]) == main]
    generic = sum(1 for t in turns if _compiled(_GENERIC).fullmatch(t[2].group("label")) or t[2].group("stamp"))
    if turns and all(t[2].group("stop") for t in turns):
        least = 1  # every turn carries a full time range: one such turn is evidence enough
    if len(turns) < least or (generic < least and len(turns) < least + 1):
        return []
    preamble = sum(1 for line in rows[:turns[0][0]] if line.strip())
    return turns if preamble <= _MAX_PREAMBLE else []


def looks_like(text: str) -> bool:
    return bool(_turns(lines.split_lines(text)[:400]))


def loads(text: str, sniffed: bool = False) -> Transcript:
    """Speaker turns; ``sniffed`` keeps to the labels that sniffing counted, otherwise (the
    format was named) every ``Name:`` that is not a prose word opens a turn."""
    rows, meta = lines.split(text)
    turns = _turns(rows, least=1, trust=not sniffed)
    if not turns:
        raise FormatError("no speaker turns found ('SPEAKER_00: text', '[Alice] text', 'Speaker 1' blocks)",
                          hint="use --format text for unlabelled text")
    bounds = [t[0] for t in turns] + [len(rows)]
    segments = []
    before = rows[:bounds[0]]
    for (index, kind, match), stop in zip(turns, bounds[1:]):
        body = rows[index + 1:stop]
        tail = len(body)
        while tail and not body[tail - 1].strip():
            tail -= 1
        text_lines = ([match.group("text")] if kind == "turn" else []) + body[:tail]
        if kind == "label":
            while text_lines and not text_lines[0].strip():  # blank lines after a label line
                before, text_lines = before + [""], text_lines[1:]
        stamp, stop = match.group("stamp"), match.group("stop")
        extra = {"before": before, "line": rows[index][:match.start("text")] if kind == "turn" else rows[index],
                 "kind": kind, "label": match.group("label"), "stamp": stamp, "stop": stop}
        where = f"line {index + 1}"
        times = (_seconds(stamp, where) if stamp else None, _seconds(stop, where) if stop else None)
        segments.append((times, Segment(None, match.group("label"), "\n".join(text_lines), True, extra)))
        before = body[tail:]
    starts = [start for (start, _), _ in segments]
    if all(s is not None for s in starts):
        stops = [stop for (_, stop), _ in segments]
        ends = stops if all(e is not None for e in stops) else infer_ends(starts)
        segments = [(t, seg.with_(span=Span(s, e), extra={**seg.extra, "raw_span": Span(s, e)}))
                    for (t, seg), s, e in zip(segments, starts, ends)]
    meta.update(trailer=before, template=segments[0][1].extra)
    return Transcript(tuple(seg for _, seg in segments), "speaker_text", meta)


def _seconds(stamp: str, where: str) -> float:
    clock = regex.fullmatch(CLOCK, stamp)
    return clock_seconds(*clock.groups(), where) if clock else check_seconds(float(stamp), where)


def _restamp(raw: str, seconds: float) -> str:
    """``seconds`` written like ``raw`` was (clock or plain seconds, as many decimals)."""
    digits = len(raw.rpartition(".")[2]) if "." in raw else 0
    if ":" not in raw:
        return f"{seconds:.{digits}f}"
    return format_clock(seconds, hours=raw.count(":") == 2, digits=digits)


def _head(seg: Segment, template: dict) -> str:
    """The label line (or the part of a turn line before its text), rebuilt if speaker or time changed."""
    extra = seg.extra if "label" in seg.extra and "line" in seg.extra else template
    line, label, stamp, stop = extra["line"], extra["label"], extra["stamp"], extra.get("stop")
    span = seg.span
    if extra is seg.extra and seg.speaker == label and (span is None or span == extra.get("raw_span")):
        return line
    if stamp and span is not None:
        if stop:  # the stop first: replacing the start could change the text it is found in
            at = line.rindex(stop)
            line = line[:at] + _restamp(stop, span.end) + line[at + len(stop):]
        line = line.replace(stamp, _restamp(stamp, span.start), 1)
    if seg.speaker and label in line:
        line = line.replace(label, seg.speaker, 1)
    return line


def dumps(transcript: Transcript) -> str:
    template = transcript.meta.get("template") or {"line": "SPEAKER_00: ", "label": "SPEAKER_00", "stamp": None,
                                                  "stop": None, "kind": "turn"}

    def render(seg: Segment) -> list[str]:
        head = _head(seg, template)
        kind = seg.extra.get("kind", template["kind"])
        body = seg.text.split("\n")
        return [head + body[0]] + body[1:] if kind == "turn" else [head] + body

    return lines.emit(transcript.segments, transcript.meta, render)
