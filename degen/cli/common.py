"""What every command shares: exit codes, option types, verbosity, colour and the
detection-threshold options.

Nothing here imports numpy or the detectors at import time: ``degen --help``,
``degen --version``, ``degen plan`` and argument errors never need them.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import click

EXIT_CLEAN, EXIT_FOUND, EXIT_INPUT, EXIT_SERVER, EXIT_BUG, EXIT_INTERRUPTED = 0, 1, 2, 3, 4, 130
EXIT_PIPE = 141  # the reader of our output went away (128 + SIGPIPE, as a shell reports it)


def verbosity() -> int:
    """-1 with -q, 1 with -v, else 0."""
    ctx = click.get_current_context(silent=True)
    params = ctx.find_root().params if ctx else {}
    return 1 if params.get("verbose") else -1 if params.get("quiet") else 0


# capacity.MAX_GPU_GIB, kept literal: importing capacity here would load it for every command
# (tests/cli/test_cli_fuzz.py holds the two equal).
MAX_GPU_GIB = 100_000


# Narrower than this, a table cannot show even its columns that are never cut.
MIN_WIDTH = 20


def terminal_width() -> int | None:
    """Columns the report is fitted to: ``COLUMNS`` when set, else the terminal's; None
    when stdout is no terminal (a file or a pipe gets whole lines, for grep and tools)."""
    import shutil
    import sys
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return max(MIN_WIDTH, int(columns))
    if not sys.stdout.isatty():
        return None
    return max(MIN_WIDTH, shutil.get_terminal_size().columns)


def style(text: str, **kw) -> str:
    return text if os.environ.get("NO_COLOR") else click.style(text, **kw)


class Finite(click.FloatRange):
    """A float range that also refuses inf and nan (float() accepts both, and no option
    means them): exit 2 with click's usual message instead of an overflow later."""

    def convert(self, value, param, ctx):
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return number


class _Severities(click.Choice):
    """``click.Choice`` over ``degen.detect.SEVERITIES``, read on first use: the list has
    one home, and the detectors (and numpy with them) load only when a command that
    judges a transcript is actually parsed, not for ``degen --help``."""

    def __init__(self):  # no super().__init__: it would store the choices now
        self.case_sensitive = True

    @property
    def choices(self) -> tuple[str, ...]:
        from ..detect import SEVERITIES
        return SEVERITIES


# A lexicon is a few thousand short rows (the packaged one is under 100 kB): anything this
# large is the wrong file.
LEXICON_MAX_BYTES = 64 * 2 ** 20


# The options threshold_options adds, by parameter name (their own group in every help).
THRESHOLD_NAMES = ("min_repeats", "min_repeats_short", "min_repeats_evidence", "min_segment_repeats", "max_period",
                   "max_cjk_rate", "max_word_rate", "fail_on", "lexicon")


# The aliases --format's help names (every alias works; formats.ALIASES has them all).
_USUAL = ("json", "whisper", "nemo", "txt", "webvtt")


class FormatOption(click.Option):
    """``--format NAME``, its help listing the names: read from the format registry when
    the help is shown (so ``degen --help`` does not load the readers)."""

    def get_help_record(self, ctx):
        from ..formats import ALIASES, REGISTRY
        self.help = (f"Input format, sniffed from the content when omitted: {', '.join(REGISTRY)} "
                     f"(or a usual name: {', '.join(sorted(k for k in ALIASES if k in _USUAL))}).")
        return super().get_help_record(ctx)


def format_option(func):
    return click.option("--format", "fmt", cls=FormatOption, metavar="NAME")(func)


def threshold_options(func):
    """Detection thresholds, shared by scan, filter and fix (defaults in degen.detect.config)."""
    options = [
        click.option("--min-repeats", type=click.IntRange(2), metavar="N", help="Copies of a unit of 4+ graphemes that make a loop [8]."),
        click.option("--min-repeats-short", type=click.IntRange(2), metavar="N", help="Copies of a unit of 1-3 graphemes [16]."),
        click.option("--min-repeats-evidence", type=click.IntRange(2), metavar="N", help="Copies that make a loop when timing agrees [4]."),
        click.option("--min-segment-repeats", type=click.IntRange(2), metavar="N", help="Identical consecutive segments of one speaker [5]."),
        click.option("--max-period", type=click.IntRange(1, 512), metavar="N", help="Longest unit searched, in tokens [64]."),
        click.option("--max-cjk-rate", type=Finite(0, min_open=True), metavar="R", help="CJK graphemes per second speech can hold [12]."),
        click.option("--max-word-rate", type=Finite(0, min_open=True), metavar="R", help="Words per second speech can hold [7]."),
        click.option("--fail-on", type=_Severities(), default="medium", show_default=True,
                     help="Lowest severity that counts as degenerate."),
        click.option("--lexicon", type=click.Path(dir_okay=False, path_type=Path), metavar="PATH",
                     help="Hallucination lexicon instead of the packaged one (TSV: lang, phrase, source_id)."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def config_from(options: dict):
    """The ``DetectConfig`` the threshold options describe (popped from ``options``)."""
    from ..detect import DetectConfig, lexicon_for
    keys = ("min_repeats", "min_repeats_short", "min_repeats_evidence", "min_segment_repeats", "max_period",
            "max_cjk_rate", "max_word_rate", "fail_on")
    lexicon = options.pop("lexicon", None)
    config = DetectConfig().with_(lexicon_path=str(lexicon) if lexicon else None,
                                  **{k: options.pop(k, None) for k in keys})
    if lexicon:
        from ..io import check_regular_file
        if lexicon.exists():  # a missing one: lexicon_for's own message
            check_regular_file(lexicon, "hallucination lexicon", limit=LEXICON_MAX_BYTES)  # a FIFO, /dev/zero: endless
        lexicon_for(config)  # a bad lexicon is an error now, before any file is read or audio sent
    return config
