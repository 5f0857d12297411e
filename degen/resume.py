"""Resumable work files: JSON lines appended as work finishes, headed by what they are
valid for, read back by the same command after an interruption.

    {"<kind>": VERSION, "identity": "..."}     the header: inputs and settings, hashed
    {...}                                       one record a line, flushed as it is written
    {...
                                                a line cut by a crash: not a record

``degen fix`` journals every attempt here (``repair.journal``) and ``degen scan
--output`` every report (``archive.reports``). A file made for other inputs or settings is
never mixed in: it is set aside (``stale``) or started over. Records are flushed at once
(they survive Ctrl-C and ``kill -9``) and synced to disk every ``sync_seconds`` (0: each
one), which bounds what a crash of the machine loses.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import orjson

from .errors import OutputError


class LineLog:
    """One resumable JSON-lines file.

    Args:
        path: the file.
        kind, version, identity: the header; a file with another header is not resumed.
        sync_seconds: how often appended lines are synced to disk (0: after each).
        stale: a file with another header is renamed to ``PATH.stale`` (kept, not used);
            without it, the file is started over.
        stop_at_damage: a line that is not a JSON object ends what is resumed, and the
            file is cut there (records that depend on their order: whatever follows a
            damaged line is not trusted); without it such a line is skipped.
    """

    def __init__(self, path: Path, kind: str, version: int, identity: str, *, sync_seconds: float = 0.0,
                 stale: bool = False, stop_at_damage: bool = False):
        self.path, self.sync_seconds, self.stop_at_damage = path, sync_seconds, stop_at_damage
        self.header = {kind: version, "identity": identity}
        self.records: list[tuple[int, int, dict]] = []  # (offset, length, record) of each whole line read
        self._handle = None
        self._synced = time.monotonic()
        end = self._load(stale)
        self._open(end)

    def _load(self, stale: bool) -> int | None:
        """Read the records of a resumable file; the length of its whole, valid lines, or
        None when there is nothing to resume."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise OutputError(f"{self.path}: cannot read the earlier run's file ({exc.strerror or exc}); "
                              f"remove it to start over", path=str(self.path)) from None
        lines = data[:data.rfind(b"\n") + 1].splitlines(keepends=True)
        if not lines or _parsed(lines[0]) != self.header:
            if stale and data:
                self.path.replace(self.path.with_name(self.path.name + ".stale"))
            return None
        offset = len(lines[0])
        for line in lines[1:]:
            record = _parsed(line)
            if isinstance(record, dict):  # anything else (a damaged line) is redone
                self.records.append((offset, len(line), record))
            elif self.stop_at_damage:
                break
            offset += len(line)
        return offset

    def _open(self, end: int | None) -> None:
        if end is None:
            self._handle = self.path.open("wb")
            self._handle.write(orjson.dumps(self.header) + b"\n")
            self._sync(force=True)
        else:  # a line cut by a crash is dropped: the next record must not be glued to it
            self._handle = self.path.open("r+b")
            self._handle.truncate(end)
            self._handle.seek(end)

    def append(self, record: dict) -> tuple[int, int]:
        """Write ``record`` as one line; returns where it lies (offset, length)."""
        line = orjson.dumps(record) + b"\n"
        offset = self._handle.tell()
        self._handle.write(line)
        self._sync()
        return offset, len(line)

    def _sync(self, force: bool = False) -> None:
        self._handle.flush()  # in the kernel's hands: survives Ctrl-C and kill -9
        if force or time.monotonic() - self._synced >= self.sync_seconds:  # and a crash of the machine
            os.fsync(self._handle.fileno())
            self._synced = time.monotonic()

    def read(self, offset: int, length: int) -> dict:
        """The record written at ``offset`` (as ``append`` returned it)."""
        with self.path.open("rb") as source:
            source.seek(offset)
            return orjson.loads(source.read(length))

    def close(self) -> None:
        if self._handle is not None and not self._handle.closed:
            self._sync(force=True)
            self._handle.close()

    def remove(self) -> None:
        """The work is done: the file has served its purpose."""
        self.close()
        self.path.unlink(missing_ok=True)


def _parsed(line: bytes):
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
