"""`degen scan ... --output FILE`: an archive's reports in one JSON Lines file that an
interrupted run resumes.

While it runs, every report goes to ``FILE.partial`` (a journal: a header naming the
settings, then one line per file with the file's size and modification time), flushed
as it comes and synced to disk every few seconds. A second run with the same settings
reads the journal, scans only the files it lacks or that changed since (and those that
could not be read), and appends. At the end the reports are written to FILE in input
order, one line per file (each what `--json` prints), by a temporary file and a rename:
FILE is never half-written, and an earlier FILE stays as it was until then.

    paths ─▶ journal has it, same size and time? ─yes─▶ reuse its line
                       └─no─▶ scan (pool) ─▶ append to the journal
    all done ─▶ FILE (input order, atomic) ─▶ journal removed
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import orjson

from ..errors import ConfigError
from ..io import check_writable, write_atomic_chunks
from ..resume import LineLog
from . import batch

JOURNAL_VERSION = 1
SYNC_SECONDS = 5.0  # a crash of the machine loses at most this much scanning


def journal_path(output: Path) -> Path:
    return output.with_name(output.name + ".partial")


def _identity(settings: batch.Settings) -> str:
    from .. import __version__
    return f"{__version__} {settings!r}"  # other thresholds or another degen: other findings


def _stat(path: str) -> list[int] | None:
    """Size and modification time of an input, None for stdin or a file gone."""
    if path == "-":
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns]


@dataclass(frozen=True)
class Entry:
    """A journal line: where it lies, and the input's size and time when scanned."""

    offset: int
    length: int
    stat: list[int] | None
    ok: bool  # a report, not an error line


class Journal:
    """``FILE.partial``: one line a file scanned (``resume.LineLog``), synced every
    ``SYNC_SECONDS``; a damaged line ends what is reused (the files from there on are
    scanned again)."""

    def __init__(self, path: Path, identity: str):
        self.log = LineLog(path, "degen_scan_journal", JOURNAL_VERSION, identity, sync_seconds=SYNC_SECONDS,
                           stop_at_damage=True)
        self.path, self.entries = path, {}
        for offset, length, record in self.log.records:
            try:
                self.entries[record["path"]] = Entry(offset, length, record["stat"], "error" not in record["report"])
            except (KeyError, TypeError):
                continue

    def append(self, key: str, stat: list[int] | None, doc: dict) -> Entry:
        offset, length = self.log.append({"path": key, "stat": stat, "report": doc})
        return Entry(offset, length, stat, "error" not in doc)

    def close(self) -> None:
        self.log.close()


def run(paths: list[str], settings: batch.Settings, output: Path, *, jobs: int, err: Callable[[str], None],
        out: Callable[[str], None], verbose: bool = False, quiet: bool = False,
        progress: Callable[[int], None] | None = None, advice_lines=batch.advice_lines) -> int:
    """Scan ``paths`` into ``output`` (see the module's docstring); returns the exit code.
    Errors go to ``err`` as they come; advice (once, naming FILE, as ``advice_lines``
    renders it) and the summary at the end.
    ``progress(n)``: called first with the number of files to scan this run, then with 1
    after each."""
    if str(output) == "-" or (output.exists() and not output.is_file()):  # stdout, /dev/null, a FIFO
        raise ConfigError(f"{output}: --output writes a regular file (by a rename, with a journal beside it); "
                          f"for JSON lines on stdout use --json")
    check_writable(output, "reports file")
    if os.path.realpath(output) in {os.path.realpath(p) for p in paths if p != "-"}:
        raise ConfigError(f"{output}: the reports file is one of the files to scan; write it elsewhere")
    journal_file = journal_path(output)
    journal = Journal(journal_file, _identity(settings))
    entries = journal.entries
    keys = {p: os.path.abspath(p) if p != "-" else p for p in paths}
    stats = {p: _stat(p) for p in paths}
    reused = {p: None for p in paths if _still_good(entries.get(keys[p]), stats[p])}
    todo = [p for p in dict.fromkeys(paths) if p not in reused]
    summary = batch.Summary(settings.config.fail_on)
    step = progress or (lambda n: None)
    step(len(todo))
    try:
        advice = _scan_into(journal, todo, settings, jobs, keys, stats, entries, summary, err, verbose, step)
    except KeyboardInterrupt:
        journal.close()
        err(f"degen: {summary.files} of {len(todo)} files scanned this run are kept in {journal_file}: the same "
            f"command again goes on from there")
        raise
    journal.close()
    for doc in _docs(journal_file, [entries[keys[p]] for p in reused]):
        summary.add_report(doc)
    _write_in_order(output, journal_file, [entries[keys[p]] for p in paths])
    journal_file.unlink()
    for line in () if quiet else advice_lines(advice):
        out(line)
    resumed = f"; {len(reused)} reused from an earlier run" if reused else ""
    err(f"{summary.line()}{resumed}; reports in {output}")
    return batch.exit_code(summary)


def _still_good(entry: Entry | None, stat: list[int] | None) -> bool:
    """An earlier report stands when it is one (not an error) and its file is unchanged."""
    return entry is not None and entry.ok and stat is not None and entry.stat == stat


def _scan_into(journal: Journal, todo: list[str], settings: batch.Settings, jobs: int, keys: dict, stats: dict,
               entries: dict, summary: batch.Summary, err: Callable[[str], None], verbose: bool,
               step: Callable[[int], None]) -> dict:
    """Scan ``todo``, journal each result as it comes; returns the advice seen (in order)."""
    advice: dict[str, None] = {}
    for result in batch.scan_paths(todo, settings, jobs):
        summary.add(result)
        if result.error:
            batch.print_error(result, err, verbose)
        else:
            advice.update(dict.fromkeys(batch.generic_advice(a, result.path, True) for a in result.report.advice))
        entries[keys[result.path]] = journal.append(keys[result.path], stats[result.path], result.to_dict())
        step(1)
    return advice


def _docs(journal_file: Path, order: list[Entry]):
    """The reports of ``order``, read back from the journal one at a time."""
    with journal_file.open("rb") as source:
        for entry in order:
            source.seek(entry.offset)
            yield orjson.loads(source.read(entry.length))["report"]


def _write_in_order(output: Path, journal_file: Path, order: list[Entry]) -> None:
    """``output``: the reports of ``order`` from the journal, a line each, written to a
    temporary file in the same folder and renamed over ``output`` once synced."""
    write_atomic_chunks(output, (orjson.dumps(doc) + b"\n" for doc in _docs(journal_file, order)))
