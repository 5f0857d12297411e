"""Journal: every finished attempt, appended as one JSON line the moment it completes.

Re-running the same command after an interruption (Ctrl-C, kill -9, a crashed server)
replays finished attempts from here instead of sending them again, so the output comes
out the same. Transient errors (503, timeout, connection) are journaled too, for the
record, but the next run sends those attempts again. A run that leaves spans unresolved
keeps its journal, so the next one sends only what is missing. A journal made for other
inputs or settings is set aside, never mixed in.
"""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path

import orjson

VERSION = 2  # 2: token_budget, step and requests sent per entry


def fingerprint(*parts: bytes | str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode() if isinstance(part, str) else part)
        digest.update(b"\0")
    return digest.hexdigest()[:32]


def file_fingerprint(path: Path) -> str:
    """Size plus the first and last MiB: cheap for hours of audio, and any re-encode or
    different file changes it."""
    size = path.stat().st_size
    with open(path, "rb") as handle:
        head = handle.read(1 << 20)
        handle.seek(max(0, size - (1 << 20)))
        tail = handle.read(1 << 20)
    return fingerprint(str(size), head, tail)


class Journal:
    """Attempts by span key, loaded from and appended to a JSON-lines file."""

    def __init__(self, path: Path | None, identity: str):
        self.path, self.identity = path, identity
        self._lock = threading.Lock()
        self._closed = False
        self.done: dict[str, list[dict]] = {}
        if path is None:
            return
        if path.exists():
            self._load(path)
        if not path.exists():
            self._append({"journal": VERSION, "identity": identity})

    def _load(self, path: Path) -> None:
        data = path.read_bytes()
        lines = data.splitlines()
        try:
            header = orjson.loads(lines[0]) if lines else {}
        except orjson.JSONDecodeError:
            header = {}
        if not isinstance(header, dict) or (header.get("identity"), header.get("journal")) != (self.identity, VERSION):
            path.replace(path.with_name(path.name + ".stale"))  # other inputs: keep it, do not use it
            return
        for line in lines[1:]:
            try:
                entry = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue  # a line cut by a crash mid-write: that attempt is simply redone
            if isinstance(entry, dict) and "span" in entry and "attempt" in entry:
                self.done.setdefault(entry["span"], []).append(entry)
        if not data.endswith(b"\n"):  # end the cut line, or the next attempt is glued to it and lost
            with open(path, "ab") as handle:
                handle.write(b"\n")

    def attempts(self, key: str) -> list[dict]:
        return sorted(self.done.get(key, []), key=lambda e: e["attempt"])

    def record(self, entry: dict) -> None:
        with self._lock:
            if self._closed:
                return  # the run was cancelled: an answer arriving now is not trusted to finish
            self.done.setdefault(entry["span"], []).append(entry)
            if self.path is not None:
                self._append(entry)

    def close(self) -> None:
        """Record nothing more. Waits for a write in progress, so the file ends on a whole
        line (every line is fsynced as it is written)."""
        with self._lock:
            self._closed = True

    def _append(self, entry: dict) -> None:
        with open(self.path, "ab") as handle:
            handle.write(orjson.dumps(entry) + b"\n")
            handle.flush()
            os.fsync(handle.fileno())

    def finish(self) -> None:
        """The output is written: the journal has served its purpose."""
        if self.path is not None and self.path.exists():
            self.path.unlink()
