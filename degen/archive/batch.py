"""Scanning many files: directories and globs expanded, a process pool, results in input
order, one bad file never stopping the rest, and a summary at the end.

    inputs ─expand─▶ paths ─┬─ jobs=1: scan here ───────────────────────┬─▶ in input order ─▶ print ─▶ summary
                            └─ jobs=N: ProcessPoolExecutor.map(chunks) ┘

Workers return a Report or an error line; the parent prints, so output never interleaves.
"""

from __future__ import annotations

import glob
import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator

from ..detect import DEFAULT, DetectConfig
from ..detect.finding import Severity
from ..errors import ConfigError, DegenError
from ..present.terminal import plural
from ..report import Report, utf8_safe
from .pool import PoolBroken, Workers, resolve_jobs

# What a directory walk picks up (the formats' usual extensions); `--format` does not widen
# it, since a folder of audio or logs next to the transcripts is the common case.
KNOWN_EXTENSIONS = (".json", ".jsonl", ".ndjson", ".srt", ".vtt", ".txt", ".tsv", ".csv", ".lrc")
# Files degen writes itself next to a transcript (fix reports, journals, filter progress): never scanned.
OWN_OUTPUTS = (".degen.json", ".degen-journal.jsonl", ".degen-progress.json")


@dataclass(frozen=True)
class Settings:
    """What every file is scanned with (picklable: it travels to the workers)."""

    config: DetectConfig = DEFAULT
    format: str | None = None
    audio_duration: float | None = None
    gpu_mem: float | None = None
    audio: str | None = None  # the audio of a single transcript: untranscribed speech is found too


@dataclass(frozen=True)
class Result:
    """One file's outcome: a report, or the one-line error that stopped it."""

    path: str
    report: Report | None = None
    error: str | None = None
    trace: str | None = None  # the traceback of a crash (a bug in degen), shown with -v

    def to_dict(self) -> dict:
        if self.report:
            return self.report.to_dict()
        return {"file": utf8_safe(self.path), "error": utf8_safe(self.error or "")}


def expand(inputs: Iterable[str], exclude: Iterable[str] = ()) -> list[str]:
    """Files to scan, in a stable order: a directory is walked (known extensions, hidden
    entries skipped, sorted), a glob is expanded (directories it matches are walked too),
    anything else is taken as a file (a missing one fails later, with its own error). A
    file that a glob or walk finds again (a link such as 'up -> ..', a folder next to one
    of its files) is kept once, where it first came; a file named is always scanned.
    ``exclude``: files a walk or glob leaves out (``--output``'s reports, written into the
    folder scanned, are no transcript).

    Raises:
        ConfigError: a glob matches nothing, or a directory holds no transcript.
    """
    paths: list[tuple[str, bool]] = []  # (path, named as it is)
    for item in inputs:
        if glob.has_magic(item):
            matches = sorted(glob.glob(item, recursive=True))
            if not matches:
                raise ConfigError(f"no file matches {item!r}; quote the pattern or check the folder")
            for match in matches:
                paths.extend((path, False) for path in (_walk(match) if os.path.isdir(match) else [match]))
        elif item != "-" and os.path.isdir(item):
            found = _walk(item)
            if not found:
                raise ConfigError(f"{item}: no transcript files ({', '.join(KNOWN_EXTENSIONS)}) in this folder")
            paths.extend((path, False) for path in found)
        else:
            paths.append((item, True))
    skip = {os.path.realpath(path) for path in exclude}
    return _first_of_each([(path, named) for path, named in paths if named or os.path.realpath(path) not in skip])


def _first_of_each(paths: list[tuple[str, bool]]) -> list[str]:
    seen: set[str] = set()
    kept = []
    for path, named in paths:
        real = path if path == "-" else os.path.realpath(path)
        if named or real not in seen:
            seen.add(real)
            kept.append(path)
    return kept


def _unreadable(error: OSError) -> None:
    """os.walk skips a folder it cannot list; its transcripts would go unscanned, unsaid."""
    raise ConfigError(f"{error.filename}: cannot read this folder ({error.strerror}); check its permissions")


def _walk(folder: str) -> list[str]:
    found = []
    for root, dirs, files in os.walk(folder, onerror=_unreadable):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            lower = name.lower()
            if name.startswith(".") or lower.endswith(OWN_OUTPUTS) or not lower.endswith(KNOWN_EXTENSIONS):
                continue
            path = os.path.join(root, name)
            if os.path.isfile(path):  # regular files only: no FIFOs or devices from a walk
                found.append(path)
    return found


def scan_path(path: str, settings: Settings) -> Result:
    """Scan one file; every failure becomes the Result's one-line error."""
    from .. import scan
    from ..io import read_transcript
    try:
        transcript = read_transcript(path, settings.format)
        report = scan(transcript, settings.config, audio_duration=settings.audio_duration, name=path,
                      gpu_mem=settings.gpu_mem, audio=settings.audio)
        return Result(path, report=report)
    except DegenError as exc:
        return Result(path, error=str(exc))
    except OSError as exc:  # untranslated: still the input's or the system's fault, not a bug
        where = f": {exc.filename}" if exc.filename else ""
        return Result(path, error=f"{path}: {exc.strerror or exc}{where}")
    except Exception as exc:  # noqa: BLE001 - one file's crash must not stop a batch of thousands
        import traceback
        return Result(path, error=f"{path}: internal error (a bug in degen): {type(exc).__name__}: {exc}; run with "
                                  f"-v for the traceback, and please report it with this file",
                      trace=traceback.format_exc())


class _Task:
    """scan_path with the settings bound (a class, not a lambda, so it pickles)."""

    def __init__(self, settings: Settings):
        self.settings = settings

    def __call__(self, path: str) -> Result:
        return scan_path(path, self.settings)


def scan_paths(paths: list[str], settings: Settings = Settings(), jobs: int = 1) -> Iterator[Result]:
    """Results for ``paths`` in input order, as they complete; ``jobs`` > 1 uses a process
    pool (``-`` for stdin is always read here, by this process). A worker that dies (the
    OOM killer, a crash in a native library) ends the scan with one crash Result for the
    first file not scanned, instead of a wait for ever."""
    task = _Task(settings)
    if "-" in paths:
        jobs = 1
    # Small chunks keep the output flowing in order when file sizes vary; 4 per chunk
    # already makes the pickling overhead negligible next to a scan.
    with Workers(max(1, min(resolve_jobs(jobs), len(paths)))) as workers:
        chunk = max(1, min(4, len(paths) // (workers.jobs * 4)))
        try:
            yield from workers.map(task, paths, chunksize=chunk)
        except PoolBroken as exc:
            yield _worker_died(paths[exc.done], len(paths) - exc.done, exc.cause)


def _worker_died(path: str, left: int, exc: BaseException) -> Result:
    import traceback
    return Result(path, error=f"{path}: a scan worker process died (killed by the system, perhaps out of memory) "
                              f"scanning this file or one near it; {plural(left, 'file')} from here on not scanned; "
                              f"run again with --jobs 1 to find the file", trace=traceback.format_exception(exc)[-1])


@dataclass
class Summary:
    """Totals over a batch, printed at the end (``{"summary": ...}`` in JSON)."""

    fail_on: str = "medium"
    files: int = 0
    degenerate: int = 0
    errors: int = 0
    crashes: int = 0
    flagged_seconds: float = 0.0
    by_format: Counter = field(default_factory=Counter)
    degenerate_by_format: Counter = field(default_factory=Counter)
    by_kind: Counter = field(default_factory=Counter)

    def add(self, result: Result) -> None:
        self.files += 1
        if result.report is None:
            self.errors += 1
            self.crashes += result.trace is not None
            return
        report = result.report
        self._count(report.format, report.metrics.flagged_seconds, report.degenerate,
                    ((f.kind, f.severity) for f in report.findings))

    def add_report(self, doc: dict) -> None:
        """``add`` for a report as ``Report.to_dict`` wrote it (read back from a journal)."""
        self.files += 1
        self._count(doc["format"], doc["metrics"]["flagged_seconds"], doc["degenerate"],
                    ((f["kind"], f["severity"]) for f in doc["findings"]))

    def _count(self, fmt: str, flagged_seconds: float, degenerate: bool, findings) -> None:
        self.by_format[fmt] += 1
        self.flagged_seconds += flagged_seconds
        if degenerate:
            self.degenerate += 1
            self.degenerate_by_format[fmt] += 1
        rank = Severity(self.fail_on).rank
        self.by_kind.update(str(kind) for kind, severity in findings if Severity(severity).rank >= rank)

    def to_dict(self) -> dict:
        return {"files": self.files, "clean": self.files - self.degenerate - self.errors,
                "degenerate": self.degenerate, "errors": self.errors,
                "flagged_hours": round(self.flagged_seconds / 3600, 4),
                "by_format": {k: {"files": v, "degenerate": self.degenerate_by_format[k]}
                              for k, v in sorted(self.by_format.items())},
                "flagged_by_kind": dict(sorted(self.by_kind.items()))}

    def line(self) -> str:
        formats = ", ".join(f"{k} {v}" for k, v in sorted(self.by_format.items())) or "none"
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(self.by_kind.items())) or "none"
        return (f"{plural(self.files, 'file')}: {self.degenerate} degenerate, "
                f"{self.files - self.degenerate - self.errors} clean, {plural(self.errors, 'error')}; "
                f"flagged {self.flagged_seconds / 3600:.2f} h; formats: {formats}; flagged findings: {kinds}")


def generic_advice(advice: str, path: str, several: bool) -> str:
    """Advice names its file; over several files it reads once, for FILE."""
    return advice.replace(path, "FILE") if several else advice


def print_error(result: Result, err: Callable[[str], None], verbose: bool) -> None:
    """A file's error line, and with ``verbose`` the traceback of a crash."""
    err(f"degen: error: {result.error}")
    if verbose and result.trace:
        err(result.trace.rstrip())


def exit_code(summary: Summary) -> int:
    """4 when degen crashed on a file (a bug), else 2 when a file could not be read, else 1
    when one is degenerate, else 0: the codes of a single file's scan."""
    if summary.crashes:
        return 4
    return 2 if summary.errors else (1 if summary.degenerate else 0)


def advice_lines(advice) -> list[str]:
    """Advice as the library's text report prints it (``present.text.advice_lines``)."""
    from ..present.text import advice_lines as lines
    return lines(advice, None)


def run(paths: list[str], settings: Settings, *, jobs: int, as_json: bool, render: Callable[[Report], str],
        out: Callable[[str], None], err: Callable[[str], None], verbose: bool = False, quiet: bool = False,
        advice_lines: Callable = advice_lines) -> int:
    """Scan ``paths`` and print as it goes; returns the exit code.

    Per file, in input order: a JSON line (``as_json``) or ``render(report)`` on ``out``;
    an error is one line on ``err`` (and a ``{"file", "error"}`` line on ``out`` in JSON).
    Advice is printed once, after all files (naming FILE when there are several). With more than one file a summary follows on
    ``err``: one line, or ``{"summary": {...}}`` in JSON.
    """
    import dataclasses

    import orjson
    summary, advice, several = Summary(settings.config.fail_on), {}, len(paths) > 1
    for result in scan_paths(paths, settings, jobs):
        summary.add(result)
        if result.error:
            print_error(result, err, verbose)
        if as_json:
            out(orjson.dumps(result.to_dict()).decode())
        elif result.report:
            advice.update(dict.fromkeys(generic_advice(line, result.path, several) for line in result.report.advice))
            out(render(dataclasses.replace(result.report, advice=())))
    for line in () if quiet else advice_lines(advice):
        out(line)
    if several:
        err(orjson.dumps({"summary": summary.to_dict()}).decode() if as_json else summary.line())
    return exit_code(summary)
