"""The command line: a thin layer over the library. Exit codes (each means one thing):

    0    clean (scan) / every flagged span repaired (fix)
    1    degeneration found (scan) / some spans left unresolved (fix)
    2    unusable input, arguments or output paths
    3    the transcription server could not be reached at all
    4    internal error: a bug in degen (rerun with -v for the traceback and report it)
    130  interrupted (Ctrl-C)
    141  the output pipe was closed early (``degen scan ... | head``), as a shell reports SIGPIPE

Global options: ``-q`` (only errors and the verdict line), ``-v`` (more detail, and the
traceback of an internal error). ``NO_COLOR`` (any value) turns colour off.

The group and its error boundary live here; each command family has its module
(``scanning``: scan and filter, ``repairing``: fix, ``planning``: plan) and imports what
is heavy (numpy, the detectors, httpx) only when the command runs.
"""

from __future__ import annotations

import errno
import os
import sys

import click

from .. import __version__
from ..errors import DegenError, ServerRejected
from ..present.terminal import safe
from .common import EXIT_BUG, EXIT_INPUT, EXIT_INTERRUPTED, EXIT_PIPE, verbosity
from .help import Group
from .planning import plan_command
from .repairing import fix
from .scanning import filter_command, scan

_CLICK_FLOW = (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort)

# numpy's OpenBLAS starts one thread per core when numpy is imported; degen does no linear
# algebra, so they only cost start-up CPU (about as much again as the import itself, more
# on a many-core host, and once per worker with --jobs). Set before numpy is imported, and
# only when the user has not chosen a value.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


class _Group(Group):
    """The one boundary where errors become a line on stderr and an exit code: degen's
    own errors keep theirs, an untranslated OS error is bad input or output (2), and
    anything else is a bug (4), never 1, which means "degenerate"."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except DegenError as exc:
            _fail(ctx, str(exc) + _flag_hint(exc), exc.exit_code)
        except BrokenPipeError:  # `degen scan ... | head`: the reader left; nothing to say
            sys.stdout = open(os.devnull, "w")  # so the interpreter's final flush stays quiet
            ctx.exit(EXIT_PIPE)
        except KeyboardInterrupt:
            _fail(ctx, "interrupted", EXIT_INTERRUPTED)
        except _CLICK_FLOW:
            raise
        except OSError as exc:
            where = f": {exc.filename}" if exc.filename else ""
            _fail(ctx, f"{exc.strerror or exc}{where}{_OS_HINTS.get(exc.errno, '')}", EXIT_INPUT)
        except Exception as exc:  # noqa: BLE001 - the boundary: report a bug, do not crash
            if verbosity() > 0:
                import traceback  # here: a bug is the rare case, not worth loading for every run
                traceback.print_exc()
            hint = "" if verbosity() > 0 else "; rerun with -v for the traceback"
            _fail(ctx, f"internal error (a bug in degen): {type(exc).__name__}: {str(exc)[:200]}{hint}, and "
                       f"please report it", EXIT_BUG)


# What to do about the system errors that reach the boundary without a file to name.
_OS_HINTS = {
    errno.EMFILE: "; lower --jobs, or raise the open-file limit (ulimit -n)",
    errno.ENOSPC: "; free space where the output goes (stdout, when it is redirected to a file)",
    errno.EACCES: "; check its permissions (and its folder's), or choose another path",
    errno.EROFS: "; choose a path on a writable file system",
}


def _flag_hint(exc: DegenError) -> str:
    """The library names no flags; here the command line adds the one that helps."""
    if isinstance(exc, ServerRejected) and exc.status in (401, 403):
        return " (give it with --api-key or DEGEN_API_KEY)"
    return ""


_Group.examples = (
    ("degen scan out.json", "Find the loops in a transcript (exit 1 when it has any)."),
    ("degen fix out.json --audio meeting.wav --server http://gpu-box:8000",
     "Re-decode only the flagged spans; out.fixed.json is the repaired transcript."),
    ("degen -v scan out.json", "Global options (-v, -q) go before the command."),
    ("degen COMMAND --help", "Each command's options and examples."),
)


def _fail(ctx, message: str, code: int):
    click.secho(f"degen: error: {safe(message)}", fg="red", err=True)
    ctx.exit(code)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="degen")
@click.option("-q", "--quiet", is_flag=True, help="Print only errors and the verdict line.")
@click.option("-v", "--verbose", is_flag=True, help="More detail; the traceback of an internal error.")
@click.pass_context
def main(ctx, quiet, verbose):
    """Find and repair repetition loops in speech-recognition transcripts.

    Exit codes: 0 clean or repaired, 1 degenerate, unresolved or (plan) does not fit, 2
    bad input, arguments or output path, 3 server unreachable, 4 internal error (a bug),
    130 interrupted. NO_COLOR turns colour off.
    """
    if quiet and verbose:
        raise click.UsageError("-q and -v contradict each other; give one")
    if os.environ.get("NO_COLOR"):
        ctx.color = False


for _command in (scan, filter_command, fix, plan_command):
    main.add_command(_command)
