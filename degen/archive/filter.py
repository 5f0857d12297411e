"""Filtering NeMo-style manifests into kept and quarantined lines.

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
import os
import re
from dataclasses import dataclass
from pathlib import Path

import orjson

from ..detect import DEFAULT, DetectConfig
from ..errors import ConfigError, FormatError, WorkerDied
from .pool import PoolBroken, Workers
from .utterances import as_duration, judge_many, verdict

TEXT_FIELDS = ("text", "pred_text")  # NeMo: reference text, or a model's prediction
BOM = b"\xef\xbb\xbf"  # UTF-8's byte order mark
CHECKPOINT_LINES = 2000  # lines per batch and progress record: a resume redoes at most these
JUDGED_AT_ONCE = CHECKPOINT_LINES  # lines judged together (``utterances.judge_many``), split among workers

KEPT, FLAGGED, UNREADABLE = "kept", "flagged", "unreadable"


def judge_line(raw: bytes, number: int, text_field: str | None, config: DetectConfig) -> tuple[str, bytes]:
    """(KEPT, FLAGGED or UNREADABLE; the line to write) for one manifest line
    (``number`` counts from 1). A kept line is written back byte for byte."""
    return judge_lines([(raw, number)], text_field, config)[0]


def judge_lines(numbered: list[tuple[bytes, int]], text_field: str | None,
                config: DetectConfig) -> list[tuple[str, bytes]]:
    """``judge_line`` of each (line, number), the texts judged together
    (``utterances.judge_many``: the same verdicts, without a whole analysis per line)."""
    rows = [_row(raw, number, text_field) for raw, number in numbered]
    judged = [k for k, row in enumerate(rows) if isinstance(row[0], dict)]
    reports = judge_many([rows[k][1] for k in judged], [as_duration(rows[k][0].get("duration")) for k in judged],
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
    try:
        if exact is not None:  # integers orjson cannot hold: written by the standard library
            import json
            return (json.dumps({**exact, "degen": degen}, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
        row = {**row, "degen": degen}  # a "degen" field already there is replaced
        return orjson.dumps(row, option=orjson.OPT_APPEND_NEWLINE)
    except (orjson.JSONEncodeError, RecursionError, ValueError):
        # Nested deeper than a writer goes (orjson: 254 levels; the object one level more
        # with the verdict in it): the verdict, with the line as it was beside it.
        return _beside(raw, degen)


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
    return _beside(raw, {"degenerate": None, "error": f"line {number}: {problem}"})


def _beside(raw: bytes, degen: dict) -> bytes:
    """``{"degen": {...degen, "raw": the line}}``: the line kept whole, as text (or its
    bytes in base64 when it is not even UTF-8), beside what degen says of it."""
    body = raw[:-1] if raw.endswith(b"\n") else raw
    try:
        kept = {"raw": body.decode("utf-8")}
    except UnicodeDecodeError:  # not even text: keep the bytes exactly
        kept = {"raw_base64": base64.b64encode(body).decode("ascii")}
    return orjson.dumps({"degen": {**degen, **kept}}, option=orjson.OPT_APPEND_NEWLINE)


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


def partial_path(path: Path) -> Path:
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
        part = partial_path(output)
        if not part.is_file() or part.stat().st_size < record.get(key, 0):
            return None
    return record


def _open_outputs(keep: Path, quarantine: Path, record: dict | None):
    """The two partial outputs, cut back to the last checkpoint when resuming."""
    handles = []
    for path, size in ((keep, (record or {}).get("keep_bytes", 0)), (quarantine, (record or {}).get("quarantine_bytes", 0))):
        part = partial_path(path)
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
    paths = (manifest, keep, quarantine, partial_path(keep), partial_path(quarantine), progress_path(keep))
    if len({os.path.realpath(p) for p in paths}) != len(paths):
        raise ConfigError("the manifest, --keep and --quarantine must be three different files, none of them "
                          f"another's {partial_path(keep).name[len(keep.name):]} or {progress_path(keep).name[len(keep.name):]} "
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

    manifest, keep, quarantine = Path(manifest), Path(keep), Path(quarantine)
    _check_paths(manifest, keep, quarantine)
    identity = _identity(manifest, text_field, config)
    progress = progress_path(keep)
    record = _load_progress(progress, identity, keep, quarantine)
    counts = Counts(**(record or {}).get("counts", {}))
    counts.resumed_at = counts.lines
    keep_out, quarantine_out = _open_outputs(keep, quarantine, record)
    judge_some = _Judge(text_field, config)
    with Workers(jobs) as workers, manifest.open("rb") as source, keep_out, quarantine_out:
        source.seek((record or {}).get("offset", 0))
        while batch := list(islice(source, checkpoint_lines)):  # bounded: one batch in memory
            numbered = [(raw, counts.lines + k + 1) for k, raw in enumerate(batch) if raw.strip()]
            counts.blank += len(batch) - len(numbered)  # nothing to keep or judge; counted
            size = max(1, min(JUDGED_AT_ONCE, -(-len(numbered) // (2 * workers.jobs))))  # every worker busy
            chunks = [numbered[k:k + size] for k in range(0, len(numbered), size)]
            try:
                for status, line in chain.from_iterable(workers.map(judge_some, chunks)):
                    (keep_out if status == KEPT else quarantine_out).write(line)
                    counts.kept += status == KEPT
                    counts.quarantined += status != KEPT
                    counts.unreadable += status == UNREADABLE
            except PoolBroken:  # the progress file still has the last whole batch: a rerun resumes there
                raise WorkerDied(f"{manifest}: a filter worker process died (killed by the system, perhaps "
                                f"out of memory) after line {counts.lines}; run the same command again to "
                                f"resume, with --jobs 1 if it happens again") from None
            counts.lines += len(batch)
            _checkpoint(progress, identity, source.tell(), keep_out, quarantine_out, counts)
    os.replace(partial_path(keep), keep)
    os.replace(partial_path(quarantine), quarantine)
    progress.unlink(missing_ok=True)
    return counts


def _checkpoint(progress: Path, identity: str, offset: int, keep_out, quarantine_out, counts: Counts) -> None:
    from ..io import write_atomic
    for handle in (keep_out, quarantine_out):
        handle.flush()
        os.fsync(handle.fileno())
    state = {"lines": counts.lines, "kept": counts.kept, "quarantined": counts.quarantined,
             "unreadable": counts.unreadable, "blank": counts.blank}
    write_atomic(progress, orjson.dumps({"identity": identity, "offset": offset, "keep_bytes": keep_out.tell(),
                                         "quarantine_bytes": quarantine_out.tell(), "counts": state}))
