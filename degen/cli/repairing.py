"""``degen fix``: re-decode the flagged spans on a live server and splice them back;
with the progress bar, the plan (``--dry-run``), the outputs and the summary lines."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..errors import OutputError
from ..present.terminal import plural, safe
from .common import EXIT_CLEAN, EXIT_FOUND, Finite, config_from, threshold_options, verbosity


def _default_out(path: Path) -> Path:
    return path.with_name(f"{path.stem}.fixed{path.suffix}")


# A request timeout beyond a day is a way of saying "none", and from about 1e10 s the
# socket layer's deadline overflows (an internal error): a day is the bound.
MAX_TIMEOUT = 86_400.0

# policy.ESCALATION as text (kept literal: importing the policy here would load numpy for
# every command's --help; tests/repair/test_pieces.py holds the two equal).
DEFAULT_SCHEDULE = "0.1+pieces,0.1,0.1/p1.1,0.4/p1.1,0.7,0.7+c4"


@click.command()
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
@click.option("--temperatures", "schedule", default=DEFAULT_SCHEDULE, show_default=True,
              help="Decoding steps tried in order: TEMPERATURE[/pPENALTY][+cSECONDS of audio before the span]"
                   "[+pieces: where the audio repeats a word, one request per copy].")
@click.option("--repetition-penalty", type=Finite(0, 2, min_open=True),
              help="Send this repetition_penalty with every step (servers from ~Aug 2026 honour it).")
@click.option("--concurrency", type=click.IntRange(1, 256), default=8, show_default=True,
              help="Spans in flight at once (long audio peaked at 8 in the seed's measurements).")
@click.option("--pad", type=Finite(0, 30), default=0.5, show_default=True,
              help="Seconds of audio around a span (at most 30: one decoding window).")
@click.option("--max-span", type=Finite(1), default=30.0, show_default=True,
              help="Longest span sent, in seconds; longer ones split at segment boundaries.")
@click.option("--anchor-seconds", type=Finite(0), default=15.0, show_default=True,
              help="Clean speech on each side sent again when a loop hid who spoke (0: never).")
@click.option("--vad", type=click.Choice(["energy", "silero"]), default="energy", show_default=True,
              help="Voice activity detector the answers are judged against (silero needs faster-whisper).")
@click.option("--language", metavar="CODE",
              help="The transcript's language (en, zh, de ...), sent with every request [the input's own field, "
                   "else read from its clean text].")
@click.option("--max-decoded", type=Finite(0, 100, min_open=True), default=1.0, show_default=True,
              help="Audio a run may send, as a share of the file, every request counted.")
@click.option("--accept-best", is_flag=True,
              help="Keep a span's best answer even when the evidence does not confirm it (still exit 1).")
@click.option("--journal", "journal_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Attempt journal used to resume [OUT.degen-journal.jsonl].")
@click.option("--timeout", type=Finite(1, MAX_TIMEOUT), default=300.0, show_default=True,
              help="Seconds per request (at most a day).")
@click.option("--in-place", is_flag=True, help="Overwrite INPUT (a copy is kept as INPUT.orig).")
@click.option("--dry-run", is_flag=True, help="Print the plan and send nothing.")
@click.option("--format", "fmt", metavar="NAME", help="Input format; sniffed when omitted.")
@click.option("--html", "html_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write a self-contained HTML report of the repair.")
@threshold_options
def fix(input_path, audio_path, servers, out_path, report_path, model, api_key, schedule, repetition_penalty,
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
    from ..repair.client import HttpTranscriber
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
    audio = Audio.open(audio_path)
    audio.check_covers(transcript.end)
    if dry_run:
        report = scan_one(transcript, config, audio_duration=audio.duration, name=str(input_path))
        findings, voice = findings_to_repair(transcript, audio, policy, report.flagged)
        plan = make_plan(transcript, findings, audio.duration, pad=pad, max_span=max_span, voice=voice)
        _print_plan(plan, transcript, audio, policy)
        sys.exit(EXIT_CLEAN)
    if not servers:
        raise click.UsageError("give --server URL (or --dry-run to see the plan)")
    transcribers = [HttpTranscriber(url, model=model, api_key=api_key, timeout=timeout) for url in servers]
    if in_place and out_path is not None:
        raise click.UsageError("--in-place writes INPUT itself; give --in-place or --out, not both")
    out_path = input_path if in_place else (out_path or _default_out(input_path))
    report_path = report_path or out_path.with_name(out_path.name + ".degen.json")
    journal_path = journal_path or out_path.with_name(out_path.name + ".degen-journal.jsonl")
    _check_outputs(out_path, report_path, journal_path, html_path,
                   input_path.with_name(input_path.name + ".orig") if in_place else None,
                   input_path, audio_path, in_place)
    for t in transcribers:
        t.check()  # exit 3 now, before any work, when a server is not there
    identity = fingerprint(input_path.read_bytes(), file_fingerprint(audio_path), repr(policy), str(pad),
                           str(max_span), repr(config), str(language))
    journal = Journal(journal_path, identity)
    try:
        result = _run_fix(fix_transcript, transcript, audio, transcribers, policy, config, pad, max_span,
                          concurrency, journal, language)
    except KeyboardInterrupt:
        _interrupted(journal)
    _write_outputs(result, transcript, input_path, out_path, report_path, in_place, html_path)
    if not result.unresolved:
        journal.finish()  # kept otherwise: the next run sends only what is missing
    _print_summary(result, out_path, journal if result.unresolved else None)
    sys.exit(EXIT_FOUND if result.unresolved or result.plan.unrepairable else EXIT_CLEAN)


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


def _write_outputs(result, transcript, input_path, out_path, report_path, in_place, html_path):
    import orjson
    from .. import formats
    from ..io import printable, write_atomic
    if in_place:
        _back_up(input_path)
    write_atomic(out_path, formats.dumps(result.transcript))
    doc = {"input": printable(input_path), "output": printable(out_path), **result.to_dict()}
    write_atomic(report_path, orjson.dumps(doc, option=orjson.OPT_INDENT_2))
    if html_path:
        from ..present.html import render_fix
        write_atomic(html_path, render_fix(result, transcript, output=str(out_path)))


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


def _print_summary(result, out_path, kept_journal=None) -> None:
    spans = len(result.plan.spans)
    repaired = sum(o.status == "repaired" for o in result.outcomes)
    unconfirmed = sum(o.status == "unconfirmed" for o in result.outcomes)
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


def _print_plan(plan, transcript, audio, policy) -> None:
    from ..repair.fix import preview
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
    for (rs, clip, extra), rep in zip(seen.clips, seen.repeats):
        more = f" (+ anchors {extra.start:.2f}-{extra.end:.2f}s)" if extra else ""
        click.echo(safe(f"  {rs.span.start:9.2f}-{rs.span.end:9.2f}s  sends {clip.start:.2f}-{clip.end:.2f}s{more}  "
                        f"{'; '.join(rs.reasons)}"))
        if rep is not None:
            click.echo(f"{'':26}the audio repeats one word {rep.copies} times at {rep.start:.2f}-{rep.end:.2f}s: "
                       f"sent one copy per request first")
    for f in plan.unrepairable:
        click.echo(safe(f"  cannot repair (no timing): {f.kind} {f.unit or ''} x{f.count}"))
