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
"""

from __future__ import annotations

import math
import os
import sys
import traceback
from pathlib import Path

import click

from . import __version__
from .detect import SEVERITIES, DetectConfig
from .errors import DegenError, ServerRejected
from .report import render_text
from .terminal import plural, safe

EXIT_CLEAN, EXIT_FOUND, EXIT_INPUT, EXIT_SERVER, EXIT_BUG, EXIT_INTERRUPTED = 0, 1, 2, 3, 4, 130
EXIT_PIPE = 141  # the reader of our output went away (128 + SIGPIPE, as a shell reports it)
_CLICK_FLOW = (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort)


class _Group(click.Group):
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
            _fail(ctx, f"{exc.strerror or exc}{where}", EXIT_INPUT)
        except Exception as exc:  # noqa: BLE001 - the boundary: report a bug, do not crash
            if _verbosity() > 0:
                traceback.print_exc()
            hint = "" if _verbosity() > 0 else "; rerun with -v for the traceback"
            _fail(ctx, f"internal error (a bug in degen): {type(exc).__name__}: {str(exc)[:200]}{hint}, and "
                       f"please report it", EXIT_BUG)


def _flag_hint(exc: DegenError) -> str:
    """The library names no flags; here the command line adds the one that helps."""
    if isinstance(exc, ServerRejected) and exc.status in (401, 403):
        return " (give it with --api-key or DEGEN_API_KEY)"
    return ""


def _fail(ctx, message: str, code: int):
    click.secho(f"degen: error: {safe(message)}", fg="red", err=True)
    ctx.exit(code)


def _verbosity() -> int:
    """-1 with -q, 1 with -v, else 0."""
    ctx = click.get_current_context(silent=True)
    params = ctx.find_root().params if ctx else {}
    return 1 if params.get("verbose") else -1 if params.get("quiet") else 0


class _Finite(click.FloatRange):
    """A float range that also refuses inf and nan (float() accepts both, and no option
    means them): exit 2 with click's usual message instead of an overflow later."""

    def convert(self, value, param, ctx):
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return number


def _style(text: str, **kw) -> str:
    return text if os.environ.get("NO_COLOR") else click.style(text, **kw)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="degen")
@click.option("-q", "--quiet", is_flag=True, help="Print only errors and the verdict line.")
@click.option("-v", "--verbose", is_flag=True, help="More detail; the traceback of an internal error.")
@click.pass_context
def main(ctx, quiet, verbose):
    """Find and repair repetition loops in speech-recognition transcripts.

    Exit codes: 0 clean or repaired, 1 degenerate or unresolved, 2 bad input, arguments
    or output path, 3 server unreachable, 4 internal error (a bug), 130 interrupted.
    NO_COLOR turns colour off.
    """
    if quiet and verbose:
        raise click.UsageError("-q and -v contradict each other; give one")
    if os.environ.get("NO_COLOR"):
        ctx.color = False


def threshold_options(func):
    """Detection thresholds, shared by scan and fix (defaults in degen.detect.config)."""
    options = [
        click.option("--min-repeats", type=click.IntRange(2), help="Copies of a unit of 4+ graphemes that make a loop [8]."),
        click.option("--min-repeats-short", type=click.IntRange(2), help="Copies of a unit of 1-3 graphemes [16]."),
        click.option("--min-repeats-evidence", type=click.IntRange(2), help="Copies that make a loop when timing agrees [4]."),
        click.option("--min-segment-repeats", type=click.IntRange(2), help="Identical consecutive segments of one speaker [5]."),
        click.option("--max-period", type=click.IntRange(1, 512), help="Longest unit searched, in tokens [64]."),
        click.option("--max-cjk-rate", type=_Finite(0, min_open=True), help="CJK graphemes per second speech can hold [12]."),
        click.option("--max-word-rate", type=_Finite(0, min_open=True), help="Words per second speech can hold [7]."),
        click.option("--fail-on", type=click.Choice(SEVERITIES), default="medium", show_default=True,
                     help="Lowest severity that counts as degenerate."),
        click.option("--lexicon", type=click.Path(dir_okay=False, path_type=Path), metavar="PATH",
                     help="Hallucination lexicon to use instead of the packaged one "
                          "(lang<TAB>phrase<TAB>source_id rows, '# [source_id] ...' citations)."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def config_from(options: dict) -> DetectConfig:
    keys = ("min_repeats", "min_repeats_short", "min_repeats_evidence", "min_segment_repeats", "max_period",
            "max_cjk_rate", "max_word_rate", "fail_on")
    lexicon = options.pop("lexicon", None)
    config = DetectConfig().with_(lexicon_path=str(lexicon) if lexicon else None,
                                  **{k: options.pop(k, None) for k in keys})
    if lexicon:
        from .detect import lexicon_for
        lexicon_for(config)  # a bad lexicon is an error now, before any file is read or audio sent
    return config


@main.command()
@click.argument("files", nargs=-1, required=True)
@click.option("--format", "fmt", metavar="NAME", help="Input format; sniffed from the content when omitted.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per file, one per line.")
@click.option("--jobs", "-j", type=click.IntRange(0), default=1, show_default=True,
              help="Files scanned at once, in worker processes (0: one per core).")
@click.option("--audio-duration", type=_Finite(0, min_open=True), metavar="S",
              help="Audio length in seconds, to catch a transcript that stops early.")
@click.option("--gpu-mem", type=_Finite(0, min_open=True), metavar="GIB",
              help="GPU memory of the server, for max_new_tokens advice.")
@click.option("--html", "html_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write a self-contained HTML timeline (one file scanned only).")
@threshold_options
def scan(files, fmt, as_json, jobs, audio_duration, gpu_mem, html_path, **options):
    """Report loops and impossible timing in transcript FILES: files, folders (walked for
    .json .srt .vtt .txt) or globs; '-' reads stdin.

    Exits 0 when every file is clean, 1 when one is degenerate, 2 when one could not be
    read (the others are still scanned). With several files a summary goes to stderr.
    """
    from . import batch
    from .io import check_writable
    config = config_from(options)
    paths = batch.expand(files)
    if html_path and len(paths) != 1:
        raise click.BadParameter("--html takes one input file", param_hint="--html")
    if html_path:
        check_writable(html_path, "HTML report")
        sys.exit(_scan_with_html(paths[0], fmt, config, audio_duration, gpu_mem, html_path))
    settings = batch.Settings(config, fmt, audio_duration, gpu_mem)
    sys.exit(batch.run(paths, settings, jobs=jobs, as_json=as_json, render=_render_report,
                       out=click.echo, err=_error_line, verbose=_verbosity() > 0,
                       quiet=_verbosity() < 0))


def _error_line(line: str) -> None:
    if line.startswith("degen: error"):
        line = _style(safe(line), fg="red")
    click.echo(line, err=True)


def _render_report(report) -> str:
    return render_text(report, _style, quiet=_verbosity() < 0, verbose=_verbosity() > 0)


def _scan_with_html(path, fmt, config, audio_duration, gpu_mem, html_path) -> int:
    from . import scan as scan_one
    from .html import render_scan
    from .io import read_transcript, write_atomic
    transcript = read_transcript(path, fmt)  # "-" is stdin
    report = scan_one(transcript, config, audio_duration=audio_duration, name=path, gpu_mem=gpu_mem)
    click.echo(_render_report(report))
    write_atomic(html_path, render_scan(report, transcript))
    return EXIT_FOUND if report.degenerate else EXIT_CLEAN


@main.command("filter")
@click.argument("manifest", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--keep", "keep_path", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="Where the clean lines go, unchanged.")
@click.option("--quarantine", "quarantine_path", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="Where looping or unreadable lines go, each with a 'degen' field saying why.")
@click.option("--text-field", metavar="NAME", help="Field judged [text, else pred_text].")
@click.option("--jobs", "-j", type=click.IntRange(0), default=1, show_default=True,
              help="Worker processes judging lines (0: one per core); the order is kept.")
@threshold_options
def filter_command(manifest, keep_path, quarantine_path, text_field, jobs, **options):
    """Split a NeMo-style MANIFEST (one utterance per JSON line) into kept and quarantined lines.

    Resumes an interrupted run (KEEP.degen-progress.json). Exits 0 when every line is
    kept, 1 when some are quarantined, 2 on unusable input or arguments.
    """
    from .filter import filter_manifest
    counts = filter_manifest(manifest, keep_path, quarantine_path, text_field=text_field,
                             config=config_from(options), jobs=jobs)
    click.echo(f"{manifest}: {counts.line()}", err=True)
    sys.exit(EXIT_FOUND if counts.quarantined else EXIT_CLEAN)


def _default_out(path: Path) -> Path:
    return path.with_name(f"{path.stem}.fixed{path.suffix}")


@main.command()
@click.argument("input_path", metavar="INPUT", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--audio", "audio_path", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="The audio the transcript was made from (WAV, FLAC, OGG, MP3).")
@click.option("--server", "servers", multiple=True, metavar="URL",
              help="Transcription server base URL; give several to spread spans over them.")
@click.option("--out", "out_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Where to write the repaired transcript [INPUT.fixed.EXT].")
@click.option("--report", "report_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Edits and attempts as JSON [OUT.degen.json].")
@click.option("--model", help="Model id to send (only when the server needs one).")
@click.option("--api-key", envvar="DEGEN_API_KEY", help="Bearer token (or DEGEN_API_KEY); never printed.")
@click.option("--temperatures", "schedule", default="0.1,0.1/p1.1,0.4/p1.1,0.7,0.7+c4", show_default=True,
              help="Decoding steps tried in order: TEMPERATURE[/pPENALTY][+cSECONDS of audio before the span].")
@click.option("--repetition-penalty", type=_Finite(0, 2, min_open=True),
              help="Send this repetition_penalty with every step (servers from ~Aug 2026 honour it).")
@click.option("--concurrency", type=click.IntRange(1, 256), default=8, show_default=True,
              help="Spans in flight at once (long audio peaked at 8 in the seed's measurements).")
@click.option("--pad", type=_Finite(0), default=0.5, show_default=True, help="Seconds of audio around a span.")
@click.option("--max-span", type=_Finite(1), default=30.0, show_default=True,
              help="Longest span sent, in seconds; longer ones split at segment boundaries.")
@click.option("--anchor-seconds", type=_Finite(0), default=15.0, show_default=True,
              help="Clean speech on each side sent again when a loop hid who spoke (0: never).")
@click.option("--vad", type=click.Choice(["energy", "silero"]), default="energy", show_default=True,
              help="Voice activity detector the answers are judged against (silero needs faster-whisper).")
@click.option("--journal", "journal_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Attempt journal used to resume [OUT.degen-journal.jsonl].")
@click.option("--timeout", type=_Finite(1), default=300.0, show_default=True, help="Seconds per request.")
@click.option("--in-place", is_flag=True, help="Overwrite INPUT (a copy is kept as INPUT.orig).")
@click.option("--dry-run", is_flag=True, help="Print the plan and send nothing.")
@click.option("--format", "fmt", metavar="NAME", help="Input format; sniffed when omitted.")
@click.option("--html", "html_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write a self-contained HTML report of the repair.")
@threshold_options
def fix(input_path, audio_path, servers, out_path, report_path, model, api_key, schedule, repetition_penalty,
        concurrency, pad, max_span, anchor_seconds, vad, journal_path, timeout, in_place, dry_run, fmt, html_path,
        **options):
    """Re-decode only the flagged spans of INPUT on the live server and splice them back.

    Exits 0 when every flagged span is repaired, 1 when some remain unresolved, 2 on
    unusable input, 3 when the server cannot be reached at all.
    """
    from . import read
    from . import fix as fix_transcript
    from .repair.audio import Audio
    from .repair.client import HttpTranscriber
    from .repair.journal import Journal, file_fingerprint, fingerprint
    from .repair.plan import make_plan
    from .repair.policy import Policy
    from . import scan as scan_one
    config = config_from(options)
    from .repair.evidence import EvidenceConfig
    from .repair.vad import make_vad
    make_vad(vad)  # an unusable choice is an argument error now, not after the server work
    policy = Policy.from_options(schedule, repetition_penalty=repetition_penalty, config=config,
                                 anchor_seconds=anchor_seconds, evidence=EvidenceConfig(vad=vad))
    transcript = read(input_path, fmt)
    audio = Audio.open(audio_path)
    audio.check_covers(transcript.end)
    if dry_run:
        report = scan_one(transcript, config, audio_duration=audio.duration, name=str(input_path))
        plan = make_plan(transcript, report.flagged, audio.duration, pad=pad, max_span=max_span)
        _print_plan(plan, transcript, audio, policy)
        sys.exit(EXIT_CLEAN)
    if not servers:
        raise click.UsageError("give --server URL (or --dry-run to see the plan)")
    transcribers = [HttpTranscriber(url, model=model, api_key=api_key, timeout=timeout) for url in servers]
    out_path = input_path if in_place else (out_path or _default_out(input_path))
    report_path = report_path or out_path.with_name(out_path.name + ".degen.json")
    journal_path = journal_path or out_path.with_name(out_path.name + ".degen-journal.jsonl")
    _check_outputs(out_path, report_path, journal_path, html_path,
                   input_path.with_name(input_path.name + ".orig") if in_place else None)
    for t in transcribers:
        t.check()  # exit 3 now, before any work, when a server is not there
    identity = fingerprint(input_path.read_bytes(), file_fingerprint(audio_path), repr(policy), str(pad),
                           str(max_span), repr(config))
    journal = Journal(journal_path, identity)
    try:
        result = _run_fix(fix_transcript, transcript, audio, transcribers, policy, config, pad, max_span,
                          concurrency, journal)
    except KeyboardInterrupt:
        _interrupted(journal)
    _write_outputs(result, transcript, input_path, out_path, report_path, in_place, html_path)
    if not result.unresolved:
        journal.finish()  # kept otherwise: the next run sends only what is missing
    _print_summary(result, out_path, journal if result.unresolved else None)
    sys.exit(EXIT_FOUND if result.unresolved or result.plan.unrepairable else EXIT_CLEAN)


def _check_outputs(out_path, report_path, journal_path, html_path, backup_path) -> None:
    """Every file fix will write, checked before any audio is sent (exit 2 now, not
    after minutes of server work)."""
    from .io import check_writable
    for path, what in ((out_path, "output (--out)"), (report_path, "report (--report)"),
                       (journal_path, "journal (--journal)"), (html_path, "HTML report (--html)"),
                       (backup_path, "backup of the input (--in-place)")):
        if path is not None:
            check_writable(path, what)


def _run_fix(fix_transcript, transcript, audio, transcribers, policy, config, pad, max_span, concurrency, journal):
    """The repair with a progress bar on stderr, drawn only once a span is done (a run
    with nothing to send draws none)."""
    import time
    started = time.monotonic()
    state = {"attempts": 0, "bar": None}
    quiet = _verbosity() < 0  # read here: progress runs in worker threads, outside click's context

    def progress(outcome, done, total):
        state["attempts"] += len(outcome.attempts)
        if quiet:
            return
        if state["bar"] is None:
            state["bar"] = click.progressbar(length=total, label="re-decoding spans", file=sys.stderr,
                                             item_show_func=lambda _: f"{plural(state['attempts'], 'attempt')}, "
                                                                      f"{time.monotonic() - started:.0f}s")
            state["bar"].__enter__()
        state["bar"].update(1)

    try:
        return fix_transcript(transcript, audio=audio, transcriber=transcribers, policy=policy, config=config,
                              pad=pad, max_span=max_span, concurrency=concurrency, journal=journal,
                              progress=progress)
    finally:
        if state["bar"] is not None:
            state["bar"].__exit__(None, None, None)


def _interrupted(journal) -> None:
    """Ctrl-C: requests in flight are abandoned (not waited for), the journal is closed
    on a whole line, and the process ends at once with 130. ``os._exit`` because the
    worker threads may sit in an HTTP read for minutes and Python would join them."""
    import os
    journal.close()
    finished = sum(len(v) for v in journal.done.values())
    click.echo(f"\ndegen: interrupted; {plural(finished, 'finished attempt')} kept in {safe(str(journal.path))}: "
               f"run the same command again to resume", err=True)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(130)


def _write_outputs(result, transcript, input_path, out_path, report_path, in_place, html_path):
    import orjson
    from . import formats
    from .io import write_atomic
    if in_place:
        backup = input_path.with_name(input_path.name + ".orig")
        if not backup.exists():
            write_atomic(backup, input_path.read_bytes())
    write_atomic(out_path, formats.dumps(result.transcript))
    doc = {"input": str(input_path), "output": str(out_path), **result.to_dict()}
    write_atomic(report_path, orjson.dumps(doc, option=orjson.OPT_INDENT_2))
    if html_path:
        from .html import render_fix
        write_atomic(html_path, render_fix(result, transcript, output=str(out_path)))


def _metrics_line(m) -> str:
    worst = f"{m.max_repetition_unit} x{m.max_repetition}" if m.max_repetition_unit else "none"
    return (f"segments {m.segments}, consecutive repeated segments {m.consecutive_repeated_segments}, "
            f"worst repetition {worst}")


def _print_summary(result, out_path, kept_journal=None) -> None:
    spans = len(result.plan.spans)
    repaired = sum(o.status == "repaired" for o in result.outcomes)
    head = (f"{out_path}: {plural(spans, 'span')} flagged, {repaired} repaired, "
            f"{len(result.unresolved)} unresolved")
    if result.requests_sent:
        share = result.seconds_decoded / result.audio_seconds if result.audio_seconds else 0.0
        head += (f"; sent {result.seconds_decoded:.1f}s of {result.audio_seconds:.1f}s of audio ({share:.1%}) "
                 f"in {plural(result.requests_sent, 'request')}")
        if result.seconds_refused:
            head += f", {result.seconds_refused:.1f}s of it refused by a busy server (never decoded)"
    else:
        head += "; nothing sent"
    if result.seconds_replayed:
        head += f"; {result.seconds_replayed:.1f}s of answers replayed from the journal"
    click.echo(safe(head))
    if _verbosity() < 0:
        return
    for o in result.unresolved:
        click.echo(safe(f"  {o.status} {o.rs.core.start:.2f}-{o.rs.core.end:.2f}s: {o.reason}"))
    for f in result.plan.unrepairable:
        click.echo(safe(f"  cannot repair (no timing): {f.kind} {f.unit or ''} x{f.count}"))
    if kept_journal is not None and kept_journal.path is not None:
        click.echo(safe(f"  journal kept: {kept_journal.path} (the same command sends only what is missing)"))
    click.echo(safe(f"  before: {_metrics_line(result.before.metrics)}"))
    click.echo(safe(f"  after:  {_metrics_line(result.after.metrics)}"))


def _print_plan(plan, transcript, audio, policy) -> None:
    from .repair.fix import preview
    seen = preview(transcript, plan, audio, policy)
    total = audio.duration or 1.0
    first, anchored = seen.first_seconds, seen.anchored_seconds
    click.echo(f"plan: {plural(len(plan.spans), 'span')}, {plan.seconds:.1f}s of {audio.duration:.1f}s of audio "
               f"flagged with padding ({plan.seconds / total:.1%})")
    if plan.spans:
        click.echo(f"  first requests send {first:.1f}s ({first / total:.1%}: padding, a clean witness "
                   f"segment each, stretch anchors); speaker anchors, when an answer needs them, up to "
                   f"{anchored:.1f}s more ({(first + anchored) / total:.1%} in all); later steps resend a span "
                   f"only when its answer is rejected")
    for rs, clip, extra in seen.clips:
        more = f" (+ anchors {extra.start:.2f}-{extra.end:.2f}s)" if extra else ""
        click.echo(safe(f"  {rs.span.start:9.2f}-{rs.span.end:9.2f}s  sends {clip.start:.2f}-{clip.end:.2f}s{more}  "
                        f"{'; '.join(rs.reasons)}"))
    for f in plan.unrepairable:
        click.echo(safe(f"  cannot repair (no timing): {f.kind} {f.unit or ''} x{f.count}"))


@main.command("plan")
@click.option("--gpu-mem", type=_Finite(0, min_open=True), required=True, metavar="GIB",
              help="GPU memory of the server's card.")
@click.option("--model", default="moss-transcribe-diarize", show_default=True,
              help="moss-transcribe-diarize, whisper-large-v3, or a name with --layers/--kv-heads/--head-dim.")
@click.option("--fraction", type=_Finite(0, 1, min_open=True, max_open=True),
              help="mem-fraction-static; recommended when omitted.")
@click.option("--audio-minutes", type=_Finite(0, min_open=True), help="Length of the recording.")
@click.option("--max-new-tokens", type=click.IntRange(1), help="Output cap per request; recommended when omitted.")
@click.option("--layers", type=click.IntRange(1))
@click.option("--kv-heads", type=click.IntRange(1))
@click.option("--head-dim", type=click.IntRange(1))
@click.option("--dtype", type=click.Choice(["bf16", "fp16", "fp32", "fp8", "int8"]))
@click.option("--weights-gib", type=_Finite(0))
@click.option("--overhead-gib", type=_Finite(0))
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def plan_command(gpu_mem, model, fraction, audio_minutes, max_new_tokens, as_json, **overrides):
    """KV capacity, max_new_tokens and mem-fraction-static for an SGLang-Omni server."""
    import orjson
    from .capacity import plan, render
    result = plan(gpu_mem, model, fraction=fraction, audio_minutes=audio_minutes, max_new_tokens=max_new_tokens,
                  **overrides)
    click.echo(orjson.dumps(result.to_dict()).decode() if as_json else render(result))
