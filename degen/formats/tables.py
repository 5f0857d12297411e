"""Tables of segments: whisper's TSV and CSV with start/end/text columns.

    start   end     text                    (openai-whisper --output_format tsv: milliseconds)
    0       11000   And so my fellow ...

    start,end,text                          (whisper.cpp -ocsv: milliseconds, quoted text)
    0,11000," And so my fellow ..."

    speaker,start,end,text,confidence       (any order; extra columns kept)

Times are milliseconds when the column says so (``start_ms``), when every time in a TSV is
an integer (whisper's), or when every time in a CSV is an integer and the median segment
would otherwise last 100 s or more; seconds otherwise;
``hh:mm:ss.mmm`` cells are read as clock times. A table whose header names no start, end and
text columns is refused (never read as plain text).
"""

from __future__ import annotations

import csv
import re

from ..errors import FormatError
from ..model import Segment, Span, Transcript
from . import lines
from .timecode import check_seconds, format_clock, parse_clock

START = ("start", "start_ms", "start_time", "starttime", "begin", "from", "start_s", "start_sec", "startms")
END = ("end", "end_ms", "end_time", "endtime", "stop", "to", "end_s", "end_sec", "endms")
TEXT = ("text", "transcript", "transcription", "sentence", "pred_text", "content", "utterance", "caption")
SPEAKER = ("speaker", "spk", "speaker_id", "speaker_label", "speaker_name")
_HEADER_FIELD = re.compile(r"^[A-Za-z_][\w .()/-]{0,40}$")
_MS_MEDIAN = 100  # integer times whose median duration is >= 100 are milliseconds, not seconds


def split_cells(line: str, delimiter: str) -> list[str]:
    if delimiter == "\t":  # whisper writes TSV without quoting: a quote is text
        return line.split("\t")
    if len(line) >= csv.field_size_limit():
        # The csv module refuses a field over 131,072 characters (its default, a guard for
        # unbounded streams); a row here is one line of a file already bounded in size
        # (io's input limit), and an hour of speech is a few hundred thousand characters.
        csv.field_size_limit(len(line) + 1)
    try:
        return next(csv.reader([line], delimiter=delimiter), [])
    except csv.Error as exc:
        raise FormatError(f"unreadable CSV row ({exc})", hint="check the quoting of its cells") from None


def delimiter_of(text: str) -> str | None:
    """The delimiter when ``text`` opens with a header row and data rows of as many cells,
    one of which holds a number or a time (a table of transcript segments has its times;
    lines of prose split at a comma, "Okay,so let us start", have none)."""
    rows = [line for line in lines.split_lines(text)[:50] if line.strip()]
    if len(rows) < 2:
        return None
    for delimiter in ("\t", ",", ";"):
        header = split_cells(rows[0], delimiter)
        data = [split_cells(row, delimiter) for row in rows[1:3]]
        if len(header) >= 2 and all(_HEADER_FIELD.match(c.strip('"')) and c == c.strip() for c in header) \
                and all(len(cells) == len(header) for cells in data) \
                and any(_NUMBER.match(c.strip().strip('"')) for cells in data for c in cells):
            return delimiter
    return None


_NUMBER = re.compile(r"^[+-]?\d[\d:.,]*$")  # 12, 0.5, 1000, 00:00:01.000, 0:01,5


def _name(cell: str) -> str:
    """``Start Time`` -> ``start_time``; ``start (ms)`` -> ``start_ms``; ``end (s)`` -> ``end``."""
    name = cell.strip().strip('"').strip().lower()
    name = re.sub(r"\s*\((?:s|sec|secs|seconds)\)$", "", name)
    name = re.sub(r"\s*\((?:ms|msec|milliseconds)\)$", "_ms", name)
    return re.sub(r"[\s-]+", "_", name)


def columns_of(header: list[str]) -> dict[str, int] | None:
    """Column indexes of start, end, text (and speaker), or None when one is missing."""
    names = [_name(c) for c in header]
    found = {}
    for role, keys in (("start", START), ("end", END), ("text", TEXT), ("speaker", SPEAKER)):
        found[role] = next((names.index(k) for k in keys if k in names), None)
    return found if None not in (found["start"], found["end"], found["text"]) else None


def refusal(header: list[str]) -> FormatError:
    return FormatError(f"table columns {', '.join(c.strip() for c in header)[:80]!r} have no start, end and text",
                       where="line 1", hint="name the columns start, end and text (speaker optional)")


def _unit(header: list[str], cols: dict, rows: list[list[str]], delimiter: str) -> str:
    if _name(header[cols["start"]]).endswith("ms"):
        return "ms"
    cells = [r[cols["start"]].strip() for r in rows[:200]] + [r[cols["end"]].strip() for r in rows[:200]]
    if any(":" in c for c in cells):
        return "clock"
    if cells and all(re.fullmatch(r"-?\d+", c) for c in cells):
        if delimiter == "\t":
            return "ms"  # whisper's TSV
        durations = sorted(int(r[cols["end"]]) - int(r[cols["start"]]) for r in rows[:200])
        if durations[len(durations) // 2] >= _MS_MEDIAN:
            return "ms"
    return "s"


def _time(cell: str, unit: str, where: str, field: str) -> float:
    cell = cell.strip()
    if unit == "clock":
        return parse_clock(cell, where)
    try:
        value = float(cell)
    except ValueError:
        raise FormatError(f"time {cell!r} is not a number", where=where, field=field) from None
    return check_seconds(value / 1000 if unit == "ms" else value, where, field)


def _load(text: str, name: str) -> Transcript:
    rows, meta = lines.split(text)
    delimiter = "\t" if name == "tsv" else delimiter_of(text) or ","
    numbered = [(n, line) for n, line in enumerate(rows, 1) if line.strip()]
    if not numbered:
        raise FormatError("the transcript is empty")
    header = split_cells(numbered[0][1], delimiter)
    cols = columns_of(header)
    if cols is None:
        raise refusal(header)
    table = [(n, split_cells(line, delimiter)) for n, line in numbered[1:]]
    for n, cells in table:
        if len(cells) != len(header):
            raise FormatError(f"{len(cells)} cells where the header has {len(header)}", where=f"line {n}",
                              hint="quote cells that hold the delimiter")
    unit = _unit(header, cols, [c for _, c in table], delimiter)
    segments = []
    for n, cells in table:
        where = f"line {n}"
        span = Span(_time(cells[cols["start"]], unit, where, "start"), _time(cells[cols["end"]], unit, where, "end"))
        speaker = cells[cols["speaker"]] if cols["speaker"] is not None else None
        segments.append(Segment(span, speaker or None, cells[cols["text"]], True, {"row": cells, "raw_span": span}))
    first = numbered[1][1] if len(numbered) > 1 else ""
    quoted = first.startswith('"') or f'{delimiter}"' in first  # whisper.cpp quotes every text cell
    meta.update(header=[numbered[0][1]], delimiter=delimiter, columns=cols, width=len(header), unit=unit,
                quote_text=quoted)
    return Transcript(tuple(segments), name, meta)


def loads_tsv(text: str) -> Transcript:
    return _load(text, "tsv")


def loads_csv(text: str) -> Transcript:
    return _load(text, "csv")


def _time_cell(seconds: float, unit: str) -> str:
    if unit == "ms":
        return str(round(seconds * 1000))
    if unit == "clock":
        return format_clock(seconds)
    return f"{seconds:.3f}".rstrip("0").rstrip(".") if seconds != int(seconds) else str(int(seconds))


def _row(seg: Segment, meta: dict) -> list[str]:
    cols, unit = meta["columns"], meta["unit"]
    row = list(seg.extra.get("row") or [""] * meta["width"])
    span = seg.span if seg.span is not None else Span(0.0, 0.0)
    if seg.extra.get("raw_span") != span:
        row[cols["start"]], row[cols["end"]] = _time_cell(span.start, unit), _time_cell(span.end, unit)
    row[cols["text"]] = seg.text.replace("\n", " ")
    if cols["speaker"] is not None:
        row[cols["speaker"]] = seg.speaker or ""
    return row


def dumps(transcript: Transcript) -> str:
    meta = dict(transcript.meta)
    if "columns" not in meta:  # written fresh from another format
        tsv = transcript.format == "tsv"
        spoken = not tsv and any(s.speaker is not None for s in transcript.segments)
        meta.update(header=["start\tend\ttext" if tsv else "start,end,text" + (",speaker" if spoken else "")],
                    delimiter="\t" if tsv else ",", columns={"start": 0, "end": 1, "text": 2,
                                                              "speaker": 3 if spoken else None},
                    width=4 if spoken else 3, unit="ms" if tsv else "s", quote_text=False)
    delimiter = meta["delimiter"]

    def render(seg: Segment) -> str:
        row = _row(seg, meta)
        if delimiter == "\t":
            return "\t".join(cell.replace("\t", " ") for cell in row)
        text_col, force = meta["columns"]["text"], meta.get("quote_text", False)
        return delimiter.join(_quote(c, delimiter, force and i == text_col) for i, c in enumerate(row))

    return lines.emit(transcript.segments, meta, render)


def _quote(cell: str, delimiter: str, force: bool) -> str:
    if force or any(ch in cell for ch in (delimiter, '"', "\n", "\r")) or cell != cell.strip():
        return '"' + cell.replace('"', '""') + '"'
    return cell
