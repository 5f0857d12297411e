"""File access in one place: reading transcripts by path, checking output paths, and
atomic writes. Operating-system errors become degen's own errors here, once, each
naming the path and what to do.

Inputs are refused up front when they are not regular files (a FIFO would block, a
device such as ``/dev/zero`` never ends) or are larger than ``max_input_bytes()``:
``DEGEN_MAX_INPUT_MB`` in the environment overrides the default of 256 MiB (a 10-hour
transcript is a few MB, so anything near the limit is almost surely not a transcript).
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import Iterable

import orjson

from . import formats
from .errors import FormatError, OutputError
from .model import Transcript, give_back_free_memory

STDIO = "-"
DEFAULT_MAX_INPUT_MB = 256
MAX_INPUT_ENV = "DEGEN_MAX_INPUT_MB"


def max_input_bytes() -> int:
    """The largest transcript read, in bytes: ``DEGEN_MAX_INPUT_MB`` or 256 MiB."""
    raw = os.environ.get(MAX_INPUT_ENV, "").strip()
    if not raw:
        return DEFAULT_MAX_INPUT_MB * 2 ** 20
    try:
        megabytes = float(raw)
    except ValueError:
        megabytes = -1.0
    if not 0 < megabytes < 2 ** 40:
        raise FormatError(f"{MAX_INPUT_ENV}={raw!r} is not a size in MB", path=MAX_INPUT_ENV,
                          hint="set a positive number such as 1024, or unset it")
    return int(megabytes * 2 ** 20)


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def check_regular_file(path: str | os.PathLike, what: str = "transcript", limit: int | None = None) -> int:
    """Refuse, without opening it, anything that is not a regular file of at most
    ``limit`` bytes; returns its size. Opening a FIFO blocks, and a device never ends."""
    name = str(path)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise FormatError("no such file", path=name, hint="check the path") from None
    except OSError as exc:
        raise FormatError(f"cannot read: {exc.strerror}", path=name, hint=_read_hint(exc)) from None
    if not stat.S_ISREG(info.st_mode):
        piped = not stat.S_ISDIR(info.st_mode) and what == "transcript"  # only a transcript may come from stdin
        hint = "pipe it to '-' to read stdin" if piped else f"name a {what} file"
        raise FormatError(f"is {_kind(info.st_mode)}, not a {what} file", path=name, hint=hint)
    if limit is not None and info.st_size > limit:
        raise FormatError(f"is {_mb(info.st_size)}, over the {_mb(limit)} input limit", path=name,
                          hint=f"set {MAX_INPUT_ENV} to raise it")
    return info.st_size


def _read_hint(exc: OSError) -> str:
    if isinstance(exc, PermissionError):
        return "give your user read permission (chmod u+r) or run as the file's owner"
    return "check the path and the disk"


def _mb(size: int) -> str:
    return f"{size / 2 ** 20:.0f} MB" if size >= 2 ** 20 else f"{size} bytes"


def _read_bounded(handle, limit: int, name: str) -> bytes:
    data = handle.read(limit + 1)  # a file can grow after stat, and stdin has no size
    if len(data) > limit:
        raise FormatError(f"is over the {_mb(limit)} input limit", path=name,
                          hint=f"set {MAX_INPUT_ENV} to raise it")
    return data


def read_bytes(path: str | os.PathLike) -> bytes:
    """The bytes of a transcript file (``-``: stdin), within the input limit."""
    name, limit = str(path), max_input_bytes()
    if name == STDIO:
        return _read_bounded(sys.stdin.buffer, limit, "<stdin>")
    check_regular_file(path, limit=limit)
    try:
        with open(path, "rb") as handle:
            return _read_bounded(handle, limit, name)
    except OSError as exc:
        raise FormatError(f"cannot read: {exc.strerror or exc}", path=name, hint=_read_hint(exc)) from None


def read_transcript(path: str | os.PathLike, format: str | None = None) -> Transcript:
    """Read a transcript file (``-`` for stdin), sniffing its format unless given."""
    name = str(path)
    label = "<stdin>" if name == STDIO else name
    extension = Path(name).suffix.lower()
    if name != STDIO:
        streamed = _streamed_lines(path, format, extension)
        if streamed is not None:
            return streamed
    if format is None and extension not in JSON_LINES and name != STDIO:
        streamed = _streamed_json(path)
        if streamed is not None:
            return streamed
    data = [read_bytes(path)]
    try:
        if format is None and extension not in JSON_LINES:
            document = _json_document(data)
            if document is not None:
                return formats.jsonfmt.from_doc(document, source=data[0] if data else None)
        text = formats.decode(data.pop())  # the bytes go once decoded: not held through parsing
        return formats.loads(text, format, extension)
    except FormatError as exc:
        raise exc.at(label) from None
    except (OverflowError, RecursionError) as exc:  # numbers or nesting past what Python holds
        raise FormatError(f"cannot read: {_overflow(exc)}", path=label,
                          hint="the file is corrupt or not a transcript") from None


JSON_LINES = (".jsonl", ".ndjson")  # a one-line JSON Lines file is read as JSON Lines: left to sniffing


# From this size on, a JSON file is first tried piece by piece (formats.jsonstream): parsed
# whole, a verbose_json response takes about six times its size at once.
STREAMED_JSON_BYTES = 32 * 2 ** 20


def _streamed_json(path) -> Transcript | None:
    """A large verbose_json file's transcript read in pieces, or None (read it whole)."""
    size = check_regular_file(path, limit=max_input_bytes())
    if size < STREAMED_JSON_BYTES:
        return None
    try:
        with open(path, "rb") as handle:
            head = handle.read(16).lstrip(b" \t\r\n")
        if head[:1] != b"{":
            return None
        transcript = formats.jsonstream.read_file(path, size)
    except OSError:
        return None  # the whole read names the problem
    except FormatError as exc:  # a bad stamp in the markup: what the whole read would say
        raise exc.at(str(path)) from None
    give_back_free_memory()  # the markup's pages, dropped with the document
    return transcript


def _streamed_lines(path, format: str | None, extension: str) -> Transcript | None:
    """A large SRT, WebVTT, JSON Lines or manifest file's transcript read piece by piece
    into columns (formats.streamed), or None (read it whole)."""
    from .formats import streamed  # only for a large file: most scans never need it
    size = check_regular_file(path, limit=max_input_bytes())
    if size < streamed.STREAMED_BYTES:
        return None
    try:
        name = formats.resolve(format) if format else None
        if format and name is None:
            return None  # 'json': any JSON document
        transcript = streamed.read_file(path, name, extension)
    except (OSError, FormatError):
        return None  # the whole read names the problem
    give_back_free_memory()  # the pieces' strings, freed among the kept ones
    return transcript


def _json_document(data: list[bytes]):
    """The parsed document when the file is JSON (what sniffing would find), parsed from
    the bytes: no str of the whole file (up to 4 bytes a character) and no UTF-8 copy of
    it are made. None, with the bytes kept, when it is not JSON (sniffing takes over)."""
    head = data[0][:16].lstrip(b" \t\r\n")
    if head[:1] not in (b"{", b"["):
        return None  # MOSS markup, another format, or a byte-order mark: sniffing decides
    try:
        document = orjson.loads(data[0])  # UTF-8 checked as sniffing's decode would
    except ValueError:  # not JSON after all (MOSS markup starts with "[" too): sniff it
        return None
    if not _keeps_layout(document):
        data.clear()  # the bytes go before the document is turned into a transcript
    return document


def _keeps_layout(document) -> bool:
    """Whether the document's shape is written back in the file's own layout, found by
    comparing with its bytes (a transcription result: one string, a small file)."""
    if not isinstance(document, dict) or formats.jsonkeyed.key_of(document) is None:
        return False  # the common case, decided without sniffing the shape
    try:
        return formats.jsonfmt.shape_of(document) == formats.jsonkeyed.SHAPE
    except FormatError:
        return False


def _overflow(exc: BaseException) -> str:
    return "nested too deeply" if isinstance(exc, RecursionError) else f"a number out of range ({exc})"


def check_writable(path: str | os.PathLike, what: str = "output") -> None:
    """Fail now, before any slow work, when ``path`` cannot be written: its folder is
    missing or read-only, or the path is a folder. Tries a real temporary file, so a
    read-only file system or a permission (even for root) is caught as the write would."""
    if str(path) == STDIO:
        return
    target = Path(path)
    if target.is_dir():
        raise OutputError(f"{target}: is a directory; give a file name for the {what}", path=str(target))
    if is_special(target):  # /dev/null, /dev/stdout, a FIFO: written through, never replaced
        if not os.access(target, os.W_OK):
            raise OutputError(f"{target}: cannot write the {what} there (permission denied)", path=str(target))
        return
    folder = target.parent
    if not folder.is_dir():
        raise OutputError(f"{target}: folder {folder} does not exist; create it or choose another {what} path",
                          path=str(target))
    import tempfile  # here, as in _write: a scan writes nothing and need not load it (~3 ms)
    try:
        fd, probe = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".probe", dir=folder)
    except OSError as exc:
        raise OutputError(f"{target}: cannot write the {what} there ({exc.strerror or exc}); choose a writable "
                          f"folder", path=str(target)) from None
    os.close(fd)
    os.unlink(probe)


def printable(path: str | os.PathLike) -> str:
    """A path as text that any JSON or UTF-8 writer takes: bytes of a file name that are
    not UTF-8 (held by Python as lone surrogates, which orjson refuses) written ``\\xe9``."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def is_special(path: str | os.PathLike) -> bool:
    """True when ``path`` exists and is not a regular file or a folder (after links): a
    device such as /dev/null, a FIFO, /dev/stdout. Renaming a file over it would replace
    the device node itself (as root, /dev/null for the whole system)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def same_file(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """True when ``a`` and ``b`` name one file: the same path once links and ``..`` are
    resolved, or (both existing) the same inode, as a hard link is."""
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist yet: different files
        return False


def check_distinct(outputs: dict[str, str | os.PathLike | None], inputs: dict[str, str | os.PathLike]) -> None:
    """Refuse an output path that is an input or another output: writing it would destroy
    the input (or one output would overwrite the other) with no backup.

    Args:
        outputs: what each output is called (``"--out"``) and its path (None: not written).
        inputs: what each input is called (``"the input"``) and its path.

    Raises:
        OutputError: naming both and what to do.
    """
    named = [(what, path) for what, path in outputs.items()  # /dev/null twice is fine: nothing is replaced
             if path is not None and str(path) != STDIO and not is_special(path)]
    for index, (what, path) in enumerate(named):
        for source, source_path in inputs.items():
            if str(source_path) != STDIO and same_file(path, source_path):
                raise OutputError(f"{path}: {what} would overwrite {source} {source_path}; give {what} another path",
                                  path=str(path))
        for other, other_path in named[:index]:
            if same_file(path, other_path):
                raise OutputError(f"{path}: {other} and {what} name the same file; give each its own path",
                                  path=str(path))


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
    leaves a half-written file in place of a good one. ``-`` writes to stdout; a device
    or FIFO (``/dev/null``, ``/dev/stdout``) is written through, never replaced.

    Raises:
        OutputError: the file cannot be written (naming the path and the reason).
    """
    if str(path) == STDIO:
        sys.stdout.flush()
        sys.stdout.buffer.write(data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data)
        sys.stdout.buffer.flush()
        return
    # surrogateescape: a file name that is not UTF-8 (a Latin-1 'é' on an old disk) comes back as its own bytes
    write_atomic_chunks(path, (data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data,))


def write_atomic_chunks(path: str | os.PathLike, chunks: Iterable[bytes]) -> None:
    """``write_atomic`` of output made a piece at a time (never all in memory at once),
    to a file path (``-`` is not one)."""
    target = Path(path)
    try:
        if is_special(target):  # nothing to keep whole, and a rename would replace the device itself
            with open(target, "wb") as handle:
                handle.writelines(chunks)
            return
        _write(target, chunks)
    except OSError as exc:
        raise OutputError(f"{target}: cannot write ({exc.strerror or exc}); check that the folder exists, is "
                          f"writable and has space", path=str(target)) from None


def _write(target: Path, chunks: Iterable[bytes]) -> None:
    import tempfile
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent or ".")
    try:
        os.chmod(tmp, _mode_for(target))
        with os.fdopen(fd, "wb") as handle:
            handle.writelines(chunks)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
