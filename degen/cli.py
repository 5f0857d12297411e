"""The command line: a thin layer over the library. Exit codes:

    0  clean (scan) / every flagged span repaired (fix)
    1  degeneration found (scan) / some spans left unresolved (fix)
    2  unusable input or arguments
    3  the transcription server could not be reached at all
"""

from __future__ import annotations

import glob
import sys
from pathlib import Path

import click

from . import __version__
from .detect import SEVERITIES, DetectConfig
from .errors import DegenError
from .report import render_text

EXIT_CLEAN, EXIT_FOUND, EXIT_INPUT, EXIT_SERVER = 0, 1, 2, 3


class _Group(click.Group):
    """Turns every DegenError into one line on stderr and its exit code."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except DegenError as exc:
            click.secho(f"degen: error: {exc}", fg="red", err=True)
            ctx.exit(exc.exit_code)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="degen")
def main():
    """Find and repair repetition loops in speech-recognition transcripts."""


def threshold_options(func):
    """Detection thresholds, shared by scan and fix (defaults in degen.detect.config)."""
    options = [
        click.option("--min-repeats", type=click.IntRange(2), help="Copies of a unit of 4+ graphemes that make a loop [8]."),
        click.option("--min-repeats-short", type=click.IntRange(2), help="Copies of a unit of 1-3 graphemes [16]."),
        click.option("--min-repeats-evidence", type=click.IntRange(2), help="Copies that make a loop when timing agrees [4]."),
        click.option("--min-segment-repeats", type=click.IntRange(2), help="Identical consecutive segments of one speaker [5]."),
        click.option("--max-period", type=click.IntRange(1, 512), help="Longest unit searched, in tokens [64]."),
        click.option("--max-cjk-rate", type=click.FloatRange(0, min_open=True), help="CJK graphemes per second speech can hold [12]."),
        click.option("--max-word-rate", type=click.FloatRange(0, min_open=True), help="Words per second speech can hold [7]."),
        click.option("--fail-on", type=click.Choice(SEVERITIES), default="medium", show_default=True,
                     help="Lowest severity that counts as degenerate."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def config_from(options: dict) -> DetectConfig:
    keys = ("min_repeats", "min_repeats_short", "min_repeats_evidence", "min_segment_repeats", "max_period",
            "max_cjk_rate", "max_word_rate", "fail_on")
    return DetectConfig().with_(**{k: options.pop(k, None) for k in keys})


def expand(patterns: tuple[str, ...]) -> list[str]:
    """Files named, with globs expanded here too (Windows shells and quoted patterns)."""
    paths = []
    for pattern in patterns:
        matches = sorted(glob.glob(pattern)) if glob.has_magic(pattern) else []
        if glob.has_magic(pattern) and not matches:
            raise click.BadParameter(f"no file matches {pattern!r}", param_hint="FILE")
        paths.extend(matches or [pattern])
    return paths


@main.command()
@click.argument("files", nargs=-1, required=True)
@click.option("--format", "fmt", metavar="NAME", help="Input format; sniffed from the content when omitted.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per file, one per line.")
@click.option("--audio-duration", type=click.FloatRange(0, min_open=True), metavar="S",
              help="Audio length in seconds, to catch a transcript that stops early.")
@click.option("--gpu-mem", type=click.FloatRange(0, min_open=True), metavar="GIB",
              help="GPU memory of the server, for max_new_tokens advice.")
@click.option("--html", "html_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write a self-contained HTML timeline (one file scanned only).")
@threshold_options
def scan(files, fmt, as_json, audio_duration, gpu_mem, html_path, **options):
    """Report loops and impossible timing in transcript FILES ('-' reads stdin).

    Exits 0 when every file is clean, 1 when one is degenerate, 2 on unusable input.
    """
    from . import read, scan as scan_one
    from .advice import advise
    config = config_from(options)
    paths = expand(files)
    if html_path and len(paths) != 1:
        raise click.BadParameter("--html takes one input file", param_hint="--html")
    worst = EXIT_CLEAN
    for path in paths:
        transcript = read(Path(path) if path != "-" else path, fmt) if path != "-" else _stdin(fmt)
        report = scan_one(transcript, config, audio_duration=audio_duration, name=path)
        if gpu_mem:
            import dataclasses
            report = dataclasses.replace(report, advice=advise(report, transcript, gpu_mem=gpu_mem))
        if as_json:
            click.echo(report.to_json())
        else:
            click.echo(render_text(report, click.style))
        if html_path:
            from .html import render_scan
            from .io import write_atomic
            write_atomic(html_path, render_scan(report, transcript))
        worst = max(worst, EXIT_FOUND if report.degenerate else EXIT_CLEAN)
    sys.exit(worst)


def _stdin(fmt):
    from .io import read_transcript
    return read_transcript("-", fmt)
