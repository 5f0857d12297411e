"""File access in one place: reading transcripts by path and atomic writes."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from . import formats
from .errors import FormatError
from .model import Transcript

STDIO = "-"


def read_transcript(path: str | os.PathLike, format: str | None = None) -> Transcript:
    """Read a transcript file (``-`` for stdin), sniffing its format unless given."""
    name = str(path)
    try:
        data = sys.stdin.buffer.read() if name == STDIO else Path(path).read_bytes()
    except FileNotFoundError:
        raise FormatError("no such file", path=name, hint="check the path") from None
    except IsADirectoryError:
        raise FormatError("is a directory, not a transcript", path=name) from None
    except OSError as exc:
        raise FormatError(f"cannot read: {exc.strerror}", path=name) from None
    try:
        return formats.loads(formats.decode(data), format, Path(name).suffix.lower())
    except FormatError as exc:
        raise exc.at("<stdin>" if name == STDIO else name) from None


def _mode_for(target: Path) -> int:
    """The mode the file has, or would get from a plain open() (mkstemp makes 0600)."""
    try:
        return target.stat().st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def write_atomic(path: str | os.PathLike, data: str | bytes) -> None:
    """Write via a temporary file in the same folder and a rename, so a crash never
    leaves a half-written file in place of a good one. ``-`` writes to stdout."""
    if str(path) == STDIO:
        sys.stdout.write(data if isinstance(data, str) else data.decode())
        sys.stdout.flush()
        return
    target = Path(path)
    payload = data.encode() if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent or ".")
    try:
        os.chmod(tmp, _mode_for(target))
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
