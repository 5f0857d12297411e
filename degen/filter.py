"""Utterance-per-line data: judging one text on its own, filtering NeMo-style manifests
into kept and quarantined lines, and a batched map function for dataset engines.

    MANIFEST.jsonl ─line─▶ judge(text, duration) ─┬─ clean ─▶ KEEP        (the line, byte for byte)
                                                   └─ loop, or unreadable ─▶ QUARANTINE (+ "degen")

Every input line lands in exactly one output. Outputs are written to ``NAME.partial``
files and renamed into place when the whole manifest is done; a progress file
(``KEEP.degen-progress.json``) records the input offset and the output sizes at each
checkpoint, so an interrupted run resumes where it stopped.
"""

from __future__ import annotations

import base64
import hashlib
import numbers
import os
import re
from dataclasses import dataclass
from pathlib import Path

import orjson

from .detect import DEFAULT, DetectConfig
from .detect.finding import SEVERITY_RANK
from .errors import ConfigError, FormatError
from .model import Segment, Span, Transcript
from .report import Report

TEXT_FIELDS = ("text", "pred_text")  # NeMo: reference text, or a model's prediction
BOM = b"\xef\xbb\xbf"  # UTF-8's byte order mark
CHECKPOINT_LINES = 2000  # lines per batch and progress record: a resume redoes at most these
JUDGED_AT_ONCE = CHECKPOINT_LINES  # lines judged together (``utterances.judge_many``), split among workers


def judge(text: str, duration: float | None = None, config: DetectConfig = DEFAULT, name: str = "<text>") -> Report:
    """``degen.scan`` of one utterance, its duration (seconds of audio) as timing evidence.

    The text is never sniffed as a file format (an utterance may start with ``[`` or ``{``).

    >>> judge("okay " * 40, 4.0).degenerate, judge("okay, okay.", 4.0).degenerate
    (True, False)
    """
    from . import scan
    span = Span(0.0, float(duration)) if duration is not None else None
    transcript = Transcript([Segment(span, None, text)], "text", {"independent": True})
    return scan(transcript, config, audio_duration=duration, name=name)


def worst_severity(report: Report) -> str | None:
    """The highest severity among the findings, or None when there are none."""
    return _worst(report.findings)


def _worst(findings) -> str | None:
    return max((f.severity for f in findings), key=SEVERITY_RANK.__getitem__, default=None)


def verdict(report: Report) -> dict:
    """What a quarantined line or a dataset row carries about its text."""
    return {"degenerate": report.degenerate, "severity": worst_severity(report),
            "findings": [f.to_dict() for f in report.findings]}


def _duration(value) -> float | None:
    # numbers.Real: numpy's int64 and float32 too (a Ray Data batch's whole-second durations)
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and 0 < value < 1e7
    return float(value) if ok else None


KEPT, FLAGGED, UNREADABLE = "kept", "flagged", "unreadable"


def judge_line(raw: bytes, number: int, text_field: str | None, config: DetectConfig) -> tuple[str, bytes]:
    """(KEPT, FLAGGED or UNREADABLE; the line to write) for one manifest line
    (``number`` counts from 1). A kept line is written back byte for byte."""
    return judge_lines([(raw, number)], text_field, config)[0]


def judge_lines(numbered: list[tuple[bytes, int]], text_field: str | None,
                config: DetectConfig) -> list[tuple[str, bytes]]:
    """``judge_line`` of each (line, number), the texts judged together
    (``utterances.judge_many``: the same verdicts, without a whole analysis per line)."""
    from .utterances import judge_many
    rows = [_row(raw, number, text_field) for raw, number in numbered]
    judged = [k for k, row in enumerate(rows) if isinstance(row[0], dict)]
    reports = judge_many([rows[k][1] for k in judged], [_duration(rows[k][0].get("duration")) for k in judged],
                         config, [f"line {numbered[k][1]}" for k in judged])
    out: list = rows
    for k, report in zip(judged, reports):
        raw = numbered[k][0]
        if report is None or not report.degenerate:
            out[k] = (KEPT, raw if raw.endswith(b"\n") else raw + b"\n")
        else:
            out[k] = (FLAGGED, _flagged(rows[k][0], verdict(report), raw))
    return out


def _row(raw: bytes, number: int, text_field: str | None) -> tuple[dict, str] | tuple[str, bytes]:
    """(the line's object, its text) to judge; or (UNREADABLE, the line to quarantine)."""
    try:  # a byte order mark may open the file (Windows tools write one; the reader skips it)
        row = orjson.loads(raw[len(BOM):] if number == 1 and raw.startswith(BOM) else raw)
    except orjson.JSONDecodeError as exc:
        return UNREADABLE, _unreadable(raw, number, f"invalid JSON ({exc})")
    if not isinstance(row, dict):
        return UNREADABLE, _unreadable(raw, number, "not a JSON object")
    field = text_field or next((f for f in TEXT_FIELDS if f in row), TEXT_FIELDS[0])
    text = row.get(field)
    if not isinstance(text, str):
        problem = "missing" if text is None else f"not a string ({type(text).__name__})"
        return UNREADABLE, _flagged(row, {"degenerate": None, "error": f"line {number}: field '{field}' {problem}"}, raw)
    return row, text


def _flagged(row: dict, degen: dict, raw: bytes) -> bytes:
    exact = _exact(row, raw)
    if exact is not None:  # integers orjson cannot hold: written by the standard library
        import json
        return (json.dumps({**exact, "degen": degen}, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
    row = {**row, "degen": degen}  # a "degen" field already there is replaced
    return orjson.dumps(row, option=orjson.OPT_APPEND_NEWLINE)


_LONG_NUMBER = re.compile(rb"\d{19}")  # past 64 bits an integer has at least 19 digits


def _exact(row: dict, raw: bytes) -> dict | None:
    """The line's object read by the standard library, when orjson read an integer
    beyond 64 bits as a float (a quarantined line must keep the values it had); else None."""
    if not _LONG_NUMBER.search(raw):
        return None
    import json
    try:
        exact = json.loads(raw[len(BOM):] if raw.startswith(BOM) else raw)
    except ValueError:
        return None
    return exact if isinstance(exact, dict) and exact != row else None


def _unreadable(raw: bytes, number: int, problem: str) -> bytes:
    """A line that is not a JSON object: kept whole, as text, beside the error."""
    body = raw[:-1] if raw.endswith(b"\n") else raw
    try:
        kept = {"raw": body.decode("utf-8")}
    except UnicodeDecodeError:  # not even text: keep the bytes exactly
        kept = {"raw_base64": base64.b64encode(body).decode("ascii")}
    return orjson.dumps({"degen": {"degenerate": None, "error": f"line {number}: {problem}", **kept}},
                        option=orjson.OPT_APPEND_NEWLINE)


@dataclass
class Counts:
    """Lines seen, kept and quarantined (``unreadable`` of those not judged at all: not
    JSON, or no text); ``blank`` lines hold nothing and go to neither output."""

    lines: int = 0
    kept: int = 0
    quarantined: int = 0
    unreadable: int = 0
    blank: int = 0
    resumed_at: int = 0

    def line(self) -> str:
        resumed = f"; resumed after line {self.resumed_at}" if self.resumed_at else ""
        blank = f", {self.blank} blank" if self.blank else ""
        return (f"{self.lines} lines: {self.kept} kept, {self.quarantined} quarantined "
                f"({self.unreadable} unreadable or without text){blank}{resumed}")


def _identity(manifest: Path, text_field: str | None, config: DetectConfig) -> str:
    """What a progress record is valid for: the same input file, field and thresholds."""
    st = manifest.stat()
    with manifest.open("rb") as handle:
        head = handle.read(1 << 16)
    parts = (str(manifest.resolve()), str(st.st_size), str(st.st_mtime_ns), hashlib.sha256(head).hexdigest(),
             repr(text_field), repr(config))
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def progress_path(keep: Path) -> Path:
    return keep.with_name(keep.name + ".degen-progress.json")


def _partial(path: Path) -> Path:
    return path.with_name(path.name + ".partial")


def _load_progress(path: Path, identity: str, keep: Path, quarantine: Path) -> dict | None:
    """The last checkpoint, when it is for this run and both partial outputs still hold
    at least what it recorded (else the run starts over)."""
    try:
        record = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    if not isinstance(record, dict) or record.get("identity") != identity:
        return None
    for output, key in ((keep, "keep_bytes"), (quarantine, "quarantine_bytes")):
        part = _partial(output)
        if not part.is_file() or part.stat().st_size < record.get(key, 0):
            return None
    return record


def _open_outputs(keep: Path, quarantine: Path, record: dict | None):
    """The two partial outputs, cut back to the last checkpoint when resuming."""
    handles = []
    for path, size in ((keep, (record or {}).get("keep_bytes", 0)), (quarantine, (record or {}).get("quarantine_bytes", 0))):
        part = _partial(path)
        handle = part.open("r+b" if record and part.exists() else "wb")
        handle.truncate(size)
        handle.seek(size)
        handles.append(handle)
    return handles


def _check_paths(manifest: Path, keep: Path, quarantine: Path) -> None:
    if not manifest.is_file():
        raise FormatError("no such file" if not manifest.exists() else "not a regular file", path=str(manifest),
                          hint="give a NeMo-style manifest (.jsonl)")
    # The partial outputs are truncated and renamed, the progress file replaced and
    # removed: none of them may be the input or another output (the input was emptied).
    paths = (manifest, keep, quarantine, _partial(keep), _partial(quarantine), progress_path(keep))
    if len({os.path.realpath(p) for p in paths}) != len(paths):
        raise ConfigError("the manifest, --keep and --quarantine must be three different files, none of them "
                          f"another's {_partial(keep).name[len(keep.name):]} or {progress_path(keep).name[len(keep.name):]} "
                          "file")
    for path in (keep, quarantine):
        if not path.parent.is_dir():
            raise ConfigError(f"{path}: the folder {path.parent} does not exist")


class _Judge:
    """judge_lines with the field and thresholds bound (a class, so that it pickles)."""

    def __init__(self, text_field: str | None, config: DetectConfig):
        self.text_field, self.config = text_field, config

    def __call__(self, numbered: list[tuple[bytes, int]]) -> list[tuple[str, bytes]]:
        return judge_lines(numbered, self.text_field, self.config)


def filter_manifest(manifest: str | os.PathLike, keep: str | os.PathLike, quarantine: str | os.PathLike, *,
                    text_field: str | None = None, config: DetectConfig = DEFAULT, jobs: int = 1,
                    checkpoint_lines: int = CHECKPOINT_LINES) -> Counts:
    """Split a manifest into clean lines (``keep``) and looping or unreadable ones
    (``quarantine``, each with a ``degen`` field: verdict and findings, or the error and
    the raw line). Streams with bounded memory; resumes from its progress file.

    Args:
        manifest: one JSON object per line (``audio_filepath``, ``duration``, ``text``).
        keep, quarantine: output paths; they appear only when the whole input is done.
        text_field: the field judged; default ``text``, else ``pred_text`` per line.
        config: detection thresholds.
        jobs: worker processes judging lines (0: one per core); the order is kept.
        checkpoint_lines: lines read, judged and written between progress records.
    """
    from itertools import chain, islice

    from .batch import resolve_jobs
    manifest, keep, quarantine = Path(manifest), Path(keep), Path(quarantine)
    _check_paths(manifest, keep, quarantine)
    identity = _identity(manifest, text_field, config)
    progress = progress_path(keep)
    record = _load_progress(progress, identity, keep, quarantine)
    counts = Counts(**(record or {}).get("counts", {}))
    counts.resumed_at = counts.lines
    keep_out, quarantine_out = _open_outputs(keep, quarantine, record)
    judge_some, pool, workers = _Judge(text_field, config), None, resolve_jobs(jobs)
    if workers > 1:
        import multiprocessing

        from .batch import _quiet_worker
        pool = multiprocessing.get_context().Pool(workers, initializer=_quiet_worker)
    try:
        with manifest.open("rb") as source, keep_out, quarantine_out:
            source.seek((record or {}).get("offset", 0))
            while batch := list(islice(source, checkpoint_lines)):  # bounded: one batch in memory
                numbered = [(raw, counts.lines + k + 1) for k, raw in enumerate(batch) if raw.strip()]
                counts.blank += len(batch) - len(numbered)  # nothing to keep or judge; counted
                counts.lines += len(batch)
                size = max(1, min(JUDGED_AT_ONCE, -(-len(numbered) // (2 * workers))))  # every worker busy
                chunks = [numbered[k:k + size] for k in range(0, len(numbered), size)]
                results = pool.imap(judge_some, chunks) if pool else map(judge_some, chunks)
                for status, line in chain.from_iterable(results):
                    (keep_out if status == KEPT else quarantine_out).write(line)
                    counts.kept += status == KEPT
                    counts.quarantined += status != KEPT
                    counts.unreadable += status == UNREADABLE
                _checkpoint(progress, identity, source.tell(), keep_out, quarantine_out, counts)
    except BaseException:
        if pool:
            pool.terminate()  # Ctrl-C: stop now; the progress file has the last whole batch
        raise
    finally:
        if pool:
            pool.close()
            pool.join()
    os.replace(_partial(keep), keep)
    os.replace(_partial(quarantine), quarantine)
    progress.unlink(missing_ok=True)
    return counts


def _checkpoint(progress: Path, identity: str, offset: int, keep_out, quarantine_out, counts: Counts) -> None:
    from .io import write_atomic
    for handle in (keep_out, quarantine_out):
        handle.flush()
        os.fsync(handle.fileno())
    state = {"lines": counts.lines, "kept": counts.kept, "quarantined": counts.quarantined,
             "unreadable": counts.unreadable, "blank": counts.blank}
    write_atomic(progress, orjson.dumps({"identity": identity, "offset": offset, "keep_bytes": keep_out.tell(),
                                         "quarantine_bytes": quarantine_out.tell(), "counts": state}))


def _row_reports(texts, durations, config: DetectConfig, format: str | None,
                 utterances: bool = False) -> list[Report | None]:
    """degen.scan of each dataset row's text (None: no finding at all). A row with a
    duration, or a blank or missing text, or any row with ``utterances``, is one
    utterance (``judge``, the rows judged together); any other text is sniffed as a
    transcript (MOSS markup, JSON, subtitles, plain text), read as plain text when it is
    none of them, never as a path. A missing text (None, NaN) is blank.

    Raises:
        ValueError: a text that is neither a string nor missing (it is not called clean).
    """
    from .utterances import judge_many
    texts = [_text(t, k) for k, t in enumerate(texts)]
    reports: list[Report | None] = [None] * len(texts)
    alone = [i for i, (t, d) in enumerate(zip(texts, durations)) if utterances or d is not None or not t.strip()]
    judged = judge_many([texts[i] for i in alone],
                        [_duration(durations[i]) for i in alone], config, ["<row>"] * len(alone))
    for i, report in zip(alone, judged):
        reports[i] = report
    for i in sorted(set(range(len(texts))) - set(alone)):
        reports[i] = _sniffed_report(texts[i], config, format)
    return reports


def _text(value, row: int) -> str:
    if isinstance(value, str):
        return value
    if value is None or (isinstance(value, float) and value != value):  # missing (pandas writes NaN)
        return ""
    raise ValueError(f"scan_batch: row {row} of the batch: the text is {type(value).__name__}, not a string; "
                     f"decode or convert that column to text first")


def _sniffed_report(text: str, config: DetectConfig, format: str | None) -> Report:
    from . import formats, scan
    try:
        transcript = formats.loads(text, format)
    except FormatError:
        transcript = formats.loads(text, "text")
    return scan(transcript, config, name="<row>")


def scan_batch(batch: dict, column: str = "text", *, duration_column: str | None = None,
               config: DetectConfig | None = None, format: str | None = None, utterances: bool = False) -> dict:
    """A batched map function: ``batch`` (a dict of equal-length columns) with three
    columns added for the texts in ``column``:

    - ``degenerate`` (bool): loops at or above ``config.fail_on``;
    - ``severity`` (str): the worst finding's severity, "" when there is none;
    - ``findings`` (str): the findings as JSON text (a list of objects, as in ``--json``).

    Each text is judged as ``degen.scan`` judges it (its format sniffed, plain text when
    none fits); with ``duration_column`` each row is one utterance and that column's
    seconds are timing evidence, as in ``degen filter``; with ``utterances`` each row is
    one utterance even without a duration (never sniffed as a file). Utterances are
    judged a batch at a time (``utterances.judge_many``: the same verdicts, about ten
    times faster than a transcript per row).

    Example:
        >>> out = scan_batch({"text": ["okay " * 40, "okay, okay."]})
        >>> out["degenerate"], out["severity"]
        ([True, False], ['high', ''])

        With Hugging Face datasets: ``ds.map(degen.scan_batch, batched=True)``, or
        ``fn_kwargs={"column": "pred_text", "duration_column": "duration"}``.

    Raises:
        ValueError: the duration column's length is not the text column's, or a text is
            neither a string nor missing (None, NaN).
    """
    config = config or DEFAULT
    texts = batch[column]
    durations = list(batch[duration_column]) if duration_column else [None] * len(texts)  # by position
    if len(durations) != len(texts):
        raise ValueError(f"scan_batch: column {duration_column!r} holds {len(durations)} values and {column!r} "
                         f"{len(texts)}; a batch's columns must be of equal length")
    # With a duration column every row is one utterance, its duration missing or not (as
    # a line of `degen filter` is): never sniffed as a transcript file.
    reports = _row_reports(texts, durations, config, format, utterances or duration_column is not None)
    findings = [() if r is None else r.findings for r in reports]
    fail_on = config.fail_on
    return {**batch, "degenerate": [any(f.at_least(fail_on) for f in found) for found in findings],
            "severity": [_worst(found) or "" for found in findings],
            "findings": [orjson.dumps([f.to_dict() for f in found]).decode() for found in findings]}
