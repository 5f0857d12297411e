"""``degen fix``: re-decode the flagged spans on a live server and splice them back;
with the progress bar, the plan (``--dry-run``), the outputs and the summary lines."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..errors import OutputError
from ..options import DEFAULT as OPTIONS, SCHEDULE, SERVER_KINDS, RepairOptions
from ..present.terminal import plural, safe
from .common import EXIT_CLEAN, EXIT_FOUND, Finite, config_from, format_option, threshold_options, verbosity
from .help import Command


def _default_out(path: Path) -> Path:
    return path.with_name(f"{path.stem}.fixed{path.suffix}")


# A request timeout beyond a day is a way of saying "none", and from about 1e10 s the
# socket layer's deadline overflows (an internal error): a day is the bound.
MAX_TIMEOUT = 86_400.0


FIX_EXAMPLES = (
    ("degen fix out.json --audio meeting.wav --server http://gpu-box:8000",
     "Repair out.json into out.fixed.json; every edit and attempt in out.fixed.json.degen.json."),
    ("degen fix out.json --audio meeting.wav --dry-run", "The plan: each span and the audio it would send."),
    ("degen fix out.json --audio meeting.wav --server URL1 --server URL2 --in-place",
     "Spans spread over two servers; out.json overwritten, kept as out.json.orig."),
    ("DEGEN_API_KEY=... degen fix out.json --audio a.wav --server https://host/v1",
     "A server that needs a key (--model NAME when it needs a model id too)."),
)


@click.command(cls=Command, short_help="Re-decode only the flagged spans on a live server and splice them back.",
               groups=(("Input and output", ("audio_path", "fmt", "out_path", "in_place", "report_path",
                                             "journal_path", "html_path", "dry_run")),
                       ("Server", ("servers", "model", "server_kind", "api_key", "timeout", "concurrency")),
                       ("Decoding", ("schedule", "repetition_penalty", "anchor_seconds", "vad", "language",
                                     "accept_best", "max_decoded")),
                       ("Spans", ("pad", "max_span"))),
               examples=FIX_EXAMPLES)
@click.argument("input_path", metavar="INPUT", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--audio", "audio_path", required=True, type=click.Path(dir_okay=False, path_type=Path),
              metavar="FILE", help="The audio the transcript was made from (WAV, FLAC, OGG, MP3).")
@click.option("--server", "servers", multiple=True, metavar="URL",
              help="Server base URL (http://host:8000 or .../v1); several spread the spans.")
@click.option("--out", "out_path", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="The repaired transcript [INPUT.fixed.EXT].")
@click.option("--report", "report_path", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="Edits and attempts as JSON [OUT.degen.json].")
@click.option("--model", metavar="NAME", help="Model id to send (only when the server needs one).")
@click.option("--server-kind", type=click.Choice(("auto",) + SERVER_KINDS), default="auto", show_default=True,
              metavar="KIND", help="What the server is, when it cannot be told from what it says about itself: "
                                   + ", ".join(SERVER_KINDS) + " (docs/servers.md).")
@click.option("--api-key", envvar="DEGEN_API_KEY", metavar="KEY", help="Bearer token [DEGEN_API_KEY]; never printed.")
@click.option("--temperatures", "schedule", default=SCHEDULE, show_default=True, metavar="STEPS",
              help="Decoding steps, in order: TEMPERATURE[/pPENALTY][+cSECONDS of context][+pieces].")
@click.option("--repetition-penalty", type=Finite(0, 2, min_open=True), metavar="X",
              help="Send this repetition_penalty with every step (where the server applies one).")
@click.option("--concurrency", type=click.IntRange(1, 256), default=OPTIONS.concurrency, show_default=True,
              metavar="N", help=RepairOptions.help("concurrency"))
@click.option("--pad", type=Finite(0, 30), default=OPTIONS.pad, show_default=True, metavar="S",
              help=RepairOptions.help("pad"))
@click.option("--max-span", type=Finite(1), default=OPTIONS.max_span, show_default=True, metavar="S",
              help=RepairOptions.help("max_span"))
@click.option("--anchor-seconds", type=Finite(0), default=15.0, show_default=True, metavar="S",
              help="Clean speech sent on each side when a loop hid who spoke (0: never).")
@click.option("--vad", type=click.Choice(["energy", "silero"]), default="energy", show_default=True,
              help="Voice detector the answers are judged by (silero needs faster-whisper).")
@click.option("--language", metavar="CODE",
              help="The transcript's language (en, zh, de ...), sent with every request [the input's own field, "
                   "else read from its clean text].")
@click.option("--max-decoded", type=Finite(0, 100, min_open=True), default=1.0, show_default=True, metavar="SHARE",
              help="Audio a run may send, as a share of the file, every request counted.")
@click.option("--accept-best", is_flag=True,
              help="Keep a span's best answer even when the evidence does not confirm it (still exit 1).")
@click.option("--journal", "journal_path", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="Attempt journal an interrupted run resumes from [OUT.degen-journal.jsonl].")
@click.option("--timeout", type=Finite(1, MAX_TIMEOUT), default=300.0, show_default=True, metavar="S",
              help="Seconds per request (at most a day).")
@click.option("--in-place", is_flag=True, help="Overwrite INPUT (kept as INPUT.orig).")
@click.option("--dry-run", is_flag=True, help="Print the plan and send nothing.")
@format_option
@click.option("--html", "html_path", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="Also write a self-contained HTML report of the repair.")
@threshold_options
def fix(input_path, audio_path, servers, out_path, report_path, model, server_kind, api_key, schedule,
        repetition_penalty,
        concurrency, pad, max_span, anchor_seconds, vad, language, max_decoded, accept_best, journal_path, timeout,
        in_place, dry_run, fmt, html_path, **options):
    """Re-decode only the flagged spans of INPUT on the live server and splice them back.

    Exits 0 when every flagged span is repaired, 1 when some remain unresolved, 2 on
    unusable input, 3 when the server cannot be reached at all.
    """
    from .. import fix as fix_transcript
    from .. import read
    from .. import scan as scan_one
    from ..repair.audio import Audio
    from ..repair.journal import Journal, file_fingerprint, fingerprint
    from ..repair.fix import findings_to_repair
    from ..repair.plan import make_plan
    from ..repair.policy import Policy
    config = config_from(options)
    from ..repair.evidence import EvidenceConfig
    from ..repair.vad import make_vad
    make_vad(vad)  # an unusable choice is an argument error now, not after the server work
    policy = Policy.from_options(schedule, repetition_penalty=repetition_penalty, config=config,
                                 anchor_seconds=anchor_seconds, evidence=EvidenceConfig(vad=vad),
                                 max_decoded=max_decoded, accept_best=accept_best)
    _refuse_stdio(input_path, dry_run, out=out_path, report=report_path, journal=journal_path, html=html_path)
    transcript = read(input_path, fmt)
    from .. import check_repairable, coverage_warning
    check_repairable(transcript, str(input_path))
    audio = Audio.open(audio_path)
    audio.check_covers(transcript.end)
    warning = coverage_warning(transcript, audio.duration, str(audio_path))
    if warning:
        _warn(warning)
    if dry_run:
        report = scan_one(transcript, config, audio_duration=audio.duration, name=str(input_path))
        findings, voice = findings_to_repair(transcript, audio, policy, report.flagged)
        plan = make_plan(transcript, findings, audio.duration, pad=pad, max_span=max_span, voice=voice)
        _print_plan(plan, transcript, audio, policy)
        sys.exit(EXIT_CLEAN)
    if not servers:
        raise click.UsageError("give --server URL (or --dry-run to see the plan)")
    from .. import reachable, transcribers_for
    transcribers = transcribers_for(servers, model=model, api_key=api_key, timeout=timeout,
                                   server_kind=None if server_kind == "auto" else server_kind)
    if in_place and out_path is not None:
        raise click.UsageError("--in-place writes INPUT itself; give --in-place or --out, not both")
    out_path = input_path if in_place else (out_path or _default_out(input_path))
    report_path = report_path or out_path.with_name(out_path.name + ".degen.json")
    journal_path = journal_path or out_path.with_name(out_path.name + ".degen-journal.jsonl")
    _check_outputs(out_path, report_path, journal_path, html_path,
                   input_path.with_name(input_path.name + ".orig") if in_place else None,
                   input_path, audio_path, in_place)
    if in_place and not _to_repair(transcript, audio, policy, config, input_path):
        # Run again on what it repaired, --in-place would replace the repair's report with an
        # empty one (and rewrite INPUT): nothing to do is nothing written, as ruff --fix does.
        click.echo(safe(f"{input_path}: nothing flagged, nothing to repair; {input_path.name} and "
                        f"{report_path.name} left as they are"))
        sys.exit(EXIT_CLEAN)
    # exit 3 now, before any work, when no server is there; one down of several is left out
    transcribers = reachable(transcribers, warn=_warn)
    identity = fingerprint(input_path.read_bytes(), file_fingerprint(audio_path), repr(policy), str(pad),
                           str(max_span), repr(config), str(language))
    journal = Journal(journal_path, identity)
    try:
        result = _run_fix(fix_transcript, transcript, audio, transcribers, policy, config, pad, max_span,
                          concurrency, journal, language)
    except KeyboardInterrupt:
        _interrupted(journal)
    written = _write_outputs(result, transcript, input_path, out_path, report_path, in_place, html_path)
    if not result.unresolved:
        journal.finish()  # kept otherwise: the next run sends only what is missing
    _print_summary(result, out_path, journal if result.unresolved else None, written)
    sys.exit(EXIT_FOUND if result.unresolved or result.plan.unrepairable else EXIT_CLEAN)


def _to_repair(transcript, audio, policy, config, input_path) -> list:
    """What a run would repair (the flagged findings, and what the audio adds)."""
    from .. import scan as scan_one
    from ..repair.fix import findings_to_repair
    report = scan_one(transcript, config, audio_duration=audio.duration, name=str(input_path))
    return findings_to_repair(transcript, audio, policy, report.flagged)[0]


def _warn(line: str) -> None:
    click.secho(f"degen: warning: {safe(line)}", fg="yellow", err=True)


def _refuse_stdio(input_path, dry_run, **outputs) -> None:
    """'-' is stdin or stdout for scan; fix needs files: its input is fingerprinted and
    named in the report to resume, and its summary goes to stdout, where a transcript or
    report written to '-' would be corrupted by it."""
    for name, path in outputs.items():
        if path is not None and str(path) == "-":
            raise OutputError(f"--{name} -: degen fix writes files, and its summary goes to stdout; give --{name} a "
                              f"file path", path="-")
    if str(input_path) == "-" and not dry_run:
        raise OutputError("-: degen fix needs INPUT as a file (it is fingerprinted so that an interrupted run can "
                          "resume); save stdin to a file and give its path", path="-")


def _check_outputs(out_path, report_path, journal_path, html_path, backup_path, input_path, audio_path,
                   in_place) -> None:
    """Every file fix will write, checked before any audio is sent (exit 2 now, not
    after minutes of server work): writable, and neither an input nor another output
    (the journal is deleted when the run ends, a report would replace the transcript)."""
    from ..io import check_distinct, check_writable, is_special, same_file
    if is_special(journal_path):  # read back to resume, and set aside (renamed) when stale
        raise OutputError(f"{journal_path}: the journal (--journal) must be a regular file: it is read back to "
                          f"resume an interrupted run; give a file path", path=str(journal_path))
    if not in_place and same_file(out_path, input_path):
        raise OutputError(f"{out_path}: --out is the input; give another --out, or --in-place to overwrite the "
                          f"input keeping {input_path.name}.orig", path=str(out_path))
    check_distinct({"--out": None if in_place else out_path, "--report": report_path, "--journal": journal_path,
                    "--html": html_path, "the backup (--in-place)": backup_path},
                   {"the input": input_path, "the audio (--audio)": audio_path})
    for path, what in ((out_path, "output (--out)"), (report_path, "report (--report)"),
                       (journal_path, "journal (--journal)"), (html_path, "HTML report (--html)"),
                       (backup_path, "backup of the input (--in-place)")):
        if path is not None:
            check_writable(path, what)


def _run_fix(fix_transcript, transcript, audio, transcribers, policy, config, pad, max_span, concurrency, journal,
             language=None):
    """The repair with a progress bar on stderr, drawn only once a span is done (a run
    with nothing to send draws none)."""
    import time
    started = time.monotonic()
    state = {"attempts": 0, "bar": None}
    quiet = verbosity() < 0  # read here: progress runs in worker threads, outside click's context

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
                              progress=progress, language=language)
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


def _write_outputs(result, transcript, input_path, out_path, report_path, in_place, html_path) -> list[str]:
    """Write the outputs; returns what was written, as the summary names it."""
    import orjson
    from .. import formats
    from ..io import printable, write_atomic
    written = []
    if in_place:
        written.append(f"{_back_up(input_path)} (the input as it was)")
    write_atomic(out_path, formats.dumps(result.transcript))
    written.insert(0, f"{out_path} (the repaired transcript)")
    doc = {"input": printable(input_path), "output": printable(out_path), **result.to_dict()}
    write_atomic(report_path, orjson.dumps(doc, option=orjson.OPT_INDENT_2))
    written.append(f"{report_path} (every edit and attempt)")
    if html_path:
        from ..present.html import render_fix
        write_atomic(html_path, render_fix(result, transcript, output=str(out_path)))
        written.append(f"{html_path} (HTML report)")
    return written


def _back_up(input_path: Path) -> Path:
    """INPUT.orig before --in-place overwrites INPUT. An INPUT.orig already there with other
    bytes is an earlier input (a run on the first transcript, then a new transcript saved
    under the same name): it is kept, and these bytes go to INPUT.orig.1, .2 ... so that no
    input is ever overwritten without a copy."""
    from ..io import write_atomic
    data = input_path.read_bytes()
    backup, number = input_path.with_name(input_path.name + ".orig"), 0
    while backup.exists():
        if backup.is_file() and backup.read_bytes() == data:
            return backup
        number += 1
        backup = input_path.with_name(f"{input_path.name}.orig.{number}")
    write_atomic(backup, data)
    return backup


def _metrics_line(m) -> str:
    worst = f"{m.max_repetition_unit} x{m.max_repetition}" if m.max_repetition_unit else "none"
    return (f"segments {m.segments}, consecutive repeated segments {m.consecutive_repeated_segments}, "
            f"worst repetition {worst}")


def _print_summary(result, out_path, kept_journal=None, written=()) -> None:
    from ..repair.result import Status
    spans = len(result.plan.spans)
    repaired = sum(o.status == Status.REPAIRED for o in result.outcomes)
    unconfirmed = sum(o.status == Status.UNCONFIRMED for o in result.outcomes)
    head = (f"{out_path}: {plural(spans, 'span')} flagged, {repaired} repaired, "
            f"{len(result.unresolved) - unconfirmed} unresolved"
            + (f", {unconfirmed} best answers kept unconfirmed" if unconfirmed else ""))
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
    if verbosity() < 0:
        return
    if result.language:
        click.echo(safe(f"  language: {result.language}"))
    for o in result.unresolved:
        click.echo(safe(f"  {o.status} {o.rs.core.start:.2f}-{o.rs.core.end:.2f}s: {o.reason}"))
    for f in result.plan.unrepairable:
        click.echo(safe(f"  cannot repair (no timing): {f.kind} {f.unit or ''} x{f.count}"))
    if kept_journal is not None and kept_journal.path is not None:
        click.echo(safe(f"  journal kept: {kept_journal.path} (the same command sends only what is missing)"))
    click.echo(safe(f"  before: {_metrics_line(result.before.metrics)}"))
    click.echo(safe(f"  after:  {_metrics_line(result.after.metrics)}"))
    for line in written:
        click.echo(safe(f"  wrote {line}"))


def _print_plan(plan, transcript, audio, policy) -> None:
    from ..present.terminal import clip, wrap
    from ..repair.fix import preview
    from .common import terminal_width
    columns = terminal_width()
    seen = preview(transcript, plan, audio, policy)
    total = audio.duration or 1.0
    first, anchored = seen.first_seconds, seen.anchored_seconds
    click.echo(f"plan: {plural(len(plan.spans), 'span')}, {plan.seconds:.1f}s of {audio.duration:.1f}s of audio "
               f"flagged with padding ({plan.seconds / total:.1%})")
    if plan.spans:
        for line in wrap(f"first requests send {first:.1f}s ({first / total:.1%}: padding, a clean witness segment "
                         f"each, stretch anchors); speaker anchors, when an answer needs them, up to {anchored:.1f}s "
                         f"more ({(first + anchored) / total:.1%} in all); later steps resend a span only when its "
                         f"answer is rejected", columns, "  ", "    "):
            click.echo(line)
    for (rs, clip_, extra), rep in zip(seen.clips, seen.repeats):
        more = f" (+ anchors {extra.start:.2f}-{extra.end:.2f}s)" if extra else ""
        click.echo(clip(safe(f"  {rs.span.start:9.2f}-{rs.span.end:9.2f}s  sends {clip_.start:.2f}-{clip_.end:.2f}s"
                             f"{more}  {'; '.join(rs.reasons)}"), columns))
        if rep is not None:
            for line in wrap(f"the audio repeats one word {rep.copies} times at {rep.start:.2f}-{rep.end:.2f}s: sent "
                             f"one copy per request first", columns, " " * 26, " " * 26):
                click.echo(line)
    for f in plan.unrepairable:
        click.echo(clip(safe(f"  cannot repair (no timing): {f.kind} {f.unit or ''} x{f.count}"), columns))
