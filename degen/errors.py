"""Every error degen raises on purpose, in one tree.

    DegenError
    ├── FormatError        a transcript cannot be read or written (path, where, field)
    ├── ConfigError        an option or threshold is out of range
    ├── OutputError        an output file cannot be written (path)
    ├── AudioError         the audio is missing, unreadable or shorter than the transcript
    ├── WorkerDied         a worker process of an archive run was killed (exit 4)
    └── ServerError        the transcription server failed (url, status)
        ├── ServerUnreachable   no connection could be made at all
        ├── ServerTimeout       the server took longer than the timeout
        └── ServerRejected      a 4xx answer that retrying will not fix (404, 422 ...)

Messages are one line: what was wrong, with the bad value, and what to do about it.
Third-party exceptions are translated into these once, at the boundary that meets them.
"""

from __future__ import annotations


class DegenError(Exception):
    """Base of every error degen raises on purpose."""

    exit_code = 2


class FormatError(DegenError):
    """A transcript could not be parsed or written.

    Attributes:
        path: the file, or ``"<text>"`` when parsing a string.
        where: a place in it, e.g. ``"segment 12"`` or ``"line 40"``.
        field: the offending field, when there is one.
    """

    def __init__(self, message: str, *, path: str | None = None, where: str | None = None,
                 field: str | None = None, hint: str | None = None):
        self.path, self.where, self.field, self.hint = path, where, field, hint
        self.detail = message
        super().__init__(self._render())

    def _render(self) -> str:
        place = ", ".join(p for p in (self.where, f"field '{self.field}'" if self.field else None) if p)
        head = f"{self.path or '<text>'}: " + (f"{place}: " if place else "")
        tail = f"; {self.hint}" if self.hint else ""
        return head + self.detail + tail

    def at(self, path: str) -> "FormatError":
        """The same error, naming ``path`` (readers parse strings; callers know the file)."""
        return FormatError(self.detail, path=path, where=self.where, field=self.field, hint=self.hint)


class ConfigError(DegenError):
    """An option or threshold value is out of range."""


class OutputError(DegenError):
    """An output file (transcript, report, journal, backup) cannot be written.

    Attributes:
        path: the file that could not be written.
    """

    def __init__(self, message: str, *, path: str | None = None):
        self.path = path
        super().__init__(message)


class AudioError(DegenError):
    """The audio file is missing, unreadable, or does not cover the transcript."""


class WorkerDied(DegenError):
    """A worker process of ``degen filter --jobs`` died (the OOM killer, a native crash);
    the progress file holds every whole batch before it, so a rerun resumes."""

    exit_code = 4


class ServerError(DegenError):
    """The transcription server failed.

    Attributes:
        url: the server's base URL.
        status: the HTTP status code, when there was an answer.
    """

    exit_code = 3

    def __init__(self, message: str, *, url: str | None = None, status: int | None = None):
        self.url, self.status = url, status
        super().__init__(message)


class ServerUnreachable(ServerError):
    """No connection to the server could be made."""


class ServerTimeout(ServerError):
    """The server did not answer within the timeout."""


class ServerRejected(ServerError):
    """The server answered with a 4xx error that a retry will not fix (a wrong model,
    key or parameter: a usage error, hence exit code 2)."""

    exit_code = 2
