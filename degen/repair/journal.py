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
import threading
from dataclasses import dataclass, fields, replace
from pathlib import Path

from ..resume import LineLog

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


@dataclass(frozen=True)
class JournalEntry:
    """One finished attempt (or part of a pieces attempt) of one span, as journaled.

    Attributes:
        span: the span's key (``RepairSpan.key``; a piece adds ``~N``).
        attempt: the step's number in the schedule.
        clip: the audio sent (seconds).
        step: the step's settings (``Step.to_dict``).
        server: the server's credential-free URL.
        token_budget: the tokens the request allowed.
        language: the language field sent, if any.
        seed: the seed sent, where the server applies one (the same in a repeated run).
        body, format: the answer and its response format (None after an error).
        error: a transient error (503, timeout): the next run sends the attempt again.
        sent: HTTP requests it took, retries included.
        refused: the server answered 429/503 to the end (sent, never decoded).
        seconds_sent: audio sent when it is not the clip once a request (pieces).
        pieces, named, unusable: a pieces step's requests, how the word was named, or why
            its answers were unusable.
        said, copies: how many times a pieces step's ``copies`` pieces of the repeated
            stretch said the named word, all pieces counted (the decoder's own count).
    """

    span: str
    attempt: int
    clip: tuple[float, float]
    step: dict
    server: str
    token_budget: int = 0
    language: str | None = None
    seed: int | None = None
    body: str | None = None
    format: str | None = None
    error: str | None = None
    sent: int = 1
    refused: bool = False
    seconds_sent: float | None = None
    pieces: int | None = None
    named: str | None = None
    unusable: str | None = None
    said: int | None = None
    copies: int | None = None

    def to_json(self) -> dict:
        """The journal line: the fields that are set."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        return {k: (list(v) if k == "clip" else v) for k, v in out.items()
                if v is not None or k in ("body", "error")}

    @classmethod
    def from_json(cls, record: dict) -> "JournalEntry | None":
        """The entry a journal line holds, or None when the line is not one."""
        known = {f.name for f in fields(cls)}
        try:
            entry = cls(**{k: v for k, v in record.items() if k in known})
            return replace(entry, clip=(float(entry.clip[0]), float(entry.clip[1])))
        except (TypeError, ValueError, IndexError):
            return None

    def with_(self, **changes) -> "JournalEntry":
        return replace(self, **changes)


class Journal:
    """Attempts by span key, loaded from and appended to a resumable JSON-lines file
    (``resume.LineLog``); ``path`` None keeps them in memory only."""

    def __init__(self, path: Path | None, identity: str):
        self.path, self.identity = path, identity
        self._lock = threading.Lock()
        self._closed = False
        self.done: dict[str, list[JournalEntry]] = {}
        self._log = None
        if path is None:
            return
        self._log = LineLog(path, "journal", VERSION, identity, stale=True)
        for _, _, record in self._log.records:
            entry = JournalEntry.from_json(record)
            if entry is not None:
                self.done.setdefault(entry.span, []).append(entry)

    def attempts(self, key: str) -> list[JournalEntry]:
        return sorted(self.done.get(key, []), key=lambda e: e.attempt)

    def record(self, entry: JournalEntry) -> None:
        with self._lock:
            if self._closed:
                return  # the run was cancelled: an answer arriving now is not trusted to finish
            self.done.setdefault(entry.span, []).append(entry)
            if self._log is not None:
                self._log.append(entry.to_json())

    def close(self) -> None:
        """Record nothing more. Waits for a write in progress, so the file ends on a whole
        line (every line is synced as it is written)."""
        with self._lock:
            self._closed = True
            if self._log is not None:
                self._log.close()

    def finish(self) -> None:
        """The output is written: the journal has served its purpose."""
        if self._log is not None:
            self._log.remove()
