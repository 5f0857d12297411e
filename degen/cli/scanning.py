"""``degen scan`` and ``degen filter``: judge transcripts and manifests, send nothing."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..present.terminal import safe
from .common import (EXIT_CLEAN, EXIT_FOUND, MAX_GPU_GIB, Finite, config_from, format_option, style,
                     terminal_width, threshold_options, verbosity)
from .help import Command, GiB


SCAN_EXAMPLES = (
    ("degen scan out.json", "One transcript: the verdict, each finding, advice; exit 1 when it loops."),
    ("degen scan transcripts/ -j 0 --json > reports.jsonl",
     "Every transcript in a folder on every core, one JSON line each; the summary goes to stderr."),
    ("degen scan archive/ -j 0 -o reports.jsonl", "An archive into a file; after Ctrl-C the same command resumes."),
    ("degen scan out.json --html report.html", "With a self-contained HTML timeline of the findings."),
    ("degen -v scan out.json", "Each finding's segments, score and evidence (-v and -q go before the command)."),
)


@click.command(cls=Command, short_help="Find loops and impossible timing in transcripts; sends nothing.",
               groups=(("Input", ("fmt", "audio_path", "audio_duration", "jobs")),
                       ("Output", ("as_json", "output", "html_path", "fail_on", "gpu_mem"))),
               examples=SCAN_EXAMPLES)
@click.argument("files", nargs=-1, required=True)
@format_option
@click.option("--json", "as_json", is_flag=True, help="One JSON object per file, one per line.")
@click.option("--jobs", "-j", type=click.IntRange(0), default=1, show_default=True, metavar="N",
              help="Files scanned at once, in worker processes (0: one per core).")
@click.option("--audio-duration", type=Finite(0, min_open=True), metavar="S",
              help="Audio length in seconds, to catch a transcript that stops early.")
@click.option("--audio", "audio_path", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="The audio of the one transcript scanned: voiced stretches no segment covers are findings.")
@click.option("--gpu-mem", type=GiB(MAX_GPU_GIB), metavar="GIB",
              help="GPU memory of the server (24 or 24GB), for max_new_tokens advice.")
@click.option("--html", "html_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write a self-contained HTML timeline (one file scanned only).")
@click.option("--output", "-o", "output", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="Write the reports to FILE as JSON Lines, in input order; an interrupted run "
                   "resumes from FILE.partial.")
@threshold_options
def scan(files, fmt, as_json, jobs, audio_duration, audio_path, gpu_mem, html_path, output, **options):
    """Report loops and impossible timing in transcript FILES: files, folders (walked for
    .json .jsonl .srt .vtt .txt .tsv .csv .lrc) or globs; '-' reads stdin.

    Exits 0 when every file is clean, 1 when one is degenerate, 2 when one could not be
    read (the others are still scanned). With several files a summary goes to stderr.
    """
    from ..archive import batch
    from ..io import check_distinct, check_writable
    config = config_from(options)
    paths = batch.expand(files, exclude=(str(output), f"{output}.partial") if output else ())
    if html_path and output:
        raise click.BadParameter("--html is for one file, --output for many: give one of them", param_hint="--output")
    if html_path and len(paths) != 1:
        raise click.BadParameter("--html takes one input file", param_hint="--html")
    if audio_path and len(paths) != 1:
        raise click.BadParameter("--audio is the audio of one transcript: scan one file with it", param_hint="--audio")
    if html_path:
        check_distinct({"--html": html_path}, {"the input": paths[0]})
        check_writable(html_path, "HTML report")
        sys.exit(_scan_with_html(paths[0], fmt, config, audio_duration, gpu_mem, html_path, audio_path))
    settings = batch.Settings(config, fmt, audio_duration, gpu_mem, str(audio_path) if audio_path else None)
    if output:
        sys.exit(_scan_to_file(paths, settings, output, jobs))
    sys.exit(batch.run(paths, settings, jobs=jobs, as_json=as_json, render=_render_report,
                       out=click.echo, err=_error_line, verbose=verbosity() > 0,
                       quiet=verbosity() < 0, advice_lines=_advice_lines))


def _scan_to_file(paths, settings, output, jobs) -> int:
    """``--output``: the reports to a file, a progress bar on stderr (a terminal only)."""
    from ..archive import reports
    state = {"bar": None, "left": 0}

    def progress(count):
        if state["bar"] is None:
            state["bar"], state["left"] = click.progressbar(length=count, label="scanning", file=sys.stderr), count
            state["bar"].__enter__()
        else:
            state["bar"].update(count)
            state["left"] -= count
        if state["left"] <= 0:  # the last file: the bar ends before the advice and summary
            close()

    def close():
        if state["bar"]:
            state["bar"].__exit__(None, None, None)
            state["bar"] = False

    def error(line):
        if state["bar"]:
            click.echo(err=True)  # off the bar's line
        _error_line(line)

    quiet = verbosity() < 0
    try:
        return reports.run(paths, settings, output, jobs=jobs, err=error, out=click.echo,
                           verbose=verbosity() > 0, quiet=quiet, advice_lines=_advice_lines,
                           progress=None if quiet or not sys.stderr.isatty() else progress)
    finally:
        close()


def _error_line(line: str) -> None:
    if line.startswith("degen: error"):
        line = style(safe(line), fg="red")
    click.echo(line, err=True)


def _render_report(report) -> str:
    from ..present.text import render_text
    return render_text(report, style, quiet=verbosity() < 0, verbose=verbosity() > 0, width=terminal_width())


def _advice_lines(advice) -> list[str]:
    from ..present.text import advice_lines
    return advice_lines(advice, terminal_width())


def _scan_with_html(path, fmt, config, audio_duration, gpu_mem, html_path, audio_path=None) -> int:
    from .. import scan as scan_one
    from ..present.html import render_scan
    from ..io import read_transcript, write_atomic
    transcript = read_transcript(path, fmt)  # "-" is stdin
    report = scan_one(transcript, config, audio_duration=audio_duration, name=path, gpu_mem=gpu_mem,
                      audio=audio_path)
    to_stdout = str(html_path) == "-"  # stdout is the HTML's with --html -
    click.echo(_render_report(report), err=to_stdout)
    write_atomic(html_path, render_scan(report, transcript))
    if not to_stdout and verbosity() >= 0:
        click.echo(f"HTML report: {safe(str(html_path))}", err=True)  # stdout stays the report
    return EXIT_FOUND if report.degenerate else EXIT_CLEAN


FILTER_EXAMPLES = (
    ("degen filter manifest.jsonl --keep clean.jsonl --quarantine suspect.jsonl",
     "Clean lines to clean.jsonl unchanged; looping or unreadable ones to suspect.jsonl, each saying why."),
    ("degen filter m.jsonl --keep k.jsonl --quarantine q.jsonl -j 0",
     "On every core; the same command resumes an interrupted run."),
)


@click.command("filter", cls=Command, short_help="Split a NeMo manifest into clean and quarantined lines.",
               groups=(("Files", ("keep_path", "quarantine_path", "text_field", "jobs")),), examples=FILTER_EXAMPLES)
@click.argument("manifest", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--keep", "keep_path", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="Where the clean lines go, unchanged.")
@click.option("--quarantine", "quarantine_path", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="Where looping or unreadable lines go, each with a 'degen' field saying why.")
@click.option("--text-field", metavar="NAME", help="Field judged [text, else pred_text].")
@click.option("--jobs", "-j", type=click.IntRange(0), default=1, show_default=True, metavar="N",
              help="Worker processes judging lines (0: one per core); the order is kept.")
@threshold_options
def filter_command(manifest, keep_path, quarantine_path, text_field, jobs, **options):
    """Split a NeMo-style MANIFEST (one utterance per JSON line) into kept and quarantined lines.

    Resumes an interrupted run (KEEP.degen-progress.json). Exits 0 when every line is
    kept, 1 when some are quarantined, 2 on unusable input or arguments.
    """
    from ..archive.filter import filter_manifest
    for option, path in (("MANIFEST", manifest), ("--keep", keep_path), ("--quarantine", quarantine_path)):
        if str(path) == "-":  # '-' is stdin or stdout everywhere else; here it would name a file "-"
            raise click.BadParameter("'-' is not a file: filter reads and writes files, resuming from them "
                                     "after an interruption; give a path", param_hint=option)
    _check_filter_files(manifest, keep_path, quarantine_path)
    config = config_from(options)
    try:
        counts = filter_manifest(manifest, keep_path, quarantine_path, text_field=text_field, config=config,
                                 jobs=jobs)
    except KeyboardInterrupt:  # the checkpoint is on disk: say how to use it
        raise click.exceptions.Exit(_interrupted_filter()) from None
    click.echo(safe(f"{manifest}: {counts.line()}"), err=True)
    sys.exit(EXIT_FOUND if counts.quarantined else EXIT_CLEAN)


def _interrupted_filter() -> int:
    from .common import EXIT_INTERRUPTED
    click.echo("degen: interrupted; run the same command again to go on from the last checkpoint", err=True)
    return EXIT_INTERRUPTED


def _check_filter_files(manifest: Path, keep: Path, quarantine: Path) -> None:
    """The manifest is none of the files filter writes as it goes (KEEP.partial is opened
    "wb", the progress file deleted at the end): 'degen filter k.jsonl.partial --keep
    k.jsonl', a natural retry after a crash, emptied the manifest and deleted it."""
    from ..errors import ConfigError
    from ..archive.filter import partial_path, progress_path
    from ..io import is_special, same_file
    for option, path in (("--keep", keep), ("--quarantine", quarantine)):
        if is_special(path):  # PATH.partial is renamed onto it: as root that replaced /dev/null itself
            raise ConfigError(f"{path}: {option} must be a regular file: filter writes {path.name}.partial beside it "
                              f"and renames it into place; give a file path")
    for option, written in (("--keep", partial_path(keep)), ("--quarantine", partial_path(quarantine)),
                            ("--keep", progress_path(keep))):
        if same_file(manifest, written):
            raise ConfigError(f"{manifest}: the manifest is {written.name}, a file filter writes for {option} as it "
                              f"goes; copy the manifest to another name, or give {option} another path")
