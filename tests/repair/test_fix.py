"""degen fix end to end against the test server on loopback, faults, and resuming."""

import os
import signal
import subprocess
import sys
import time

import orjson
import pytest
from click.testing import CliRunner

import degen
from degen.cli import main
from degen.repair.journal import Journal, JournalEntry
from degen.repair.policy import Policy
from degen.testing import Faults

from ..conftest import FIXTURES

SEED = FIXTURES / "seed"


def test_seed_session_is_repaired(make_server, seed_audio):
    server = make_server()
    result = degen.fix(SEED / "degenerate.json", audio=seed_audio, transcriber=server.url)
    fixed, truth = result.transcript, degen.read(SEED / "clean.json")
    assert not result.unresolved and not result.after.degenerate
    m = result.after.metrics
    assert (m.segments, m.consecutive_repeated_segments, m.max_repetition) == (623, 7, 6)
    assert [s.text for s in fixed] == [s.text for s in truth]
    assert all(abs(a.span.start - b.span.start) <= 0.05 and abs(a.span.end - b.span.end) <= 0.05
               for a, b in zip(fixed, truth))
    wrong = [(a.speaker, b.speaker) for a, b in zip(fixed, truth) if a.speaker != b.speaker]
    # A speaker that no clean neighbour vouches for gets a fresh label, never another's.
    assert len(wrong) <= 0.02 * len(truth) and all(mine not in truth.speakers for mine, _ in wrong)
    # Only the flagged audio (plus padding and speaker anchors) was decoded again.
    assert result.seconds_decoded == pytest.approx(server.stats.audio_seconds, abs=0.5)
    assert result.seconds_decoded < 0.25 * result.audio_seconds


def test_anchoring_trades_audio_for_right_speakers(make_server, seed_audio):
    truth = degen.read(SEED / "clean.json")
    runs = {}
    for anchor in (0.0, 15.0):
        server = make_server()
        result = degen.fix(SEED / "degenerate.json", audio=seed_audio, transcriber=server.url,
                           policy=Policy(anchor_seconds=anchor))
        wrong = [a.speaker for a, b in zip(result.transcript, truth) if a.speaker != b.speaker]
        runs[anchor] = (result.seconds_decoded, wrong)
    assert runs[0.0][0] < runs[15.0][0]  # anchors cost audio ...
    assert len(runs[15.0][1]) < len(runs[0.0][1])  # ... and buy right speakers
    assert any(label in truth.speakers for label in runs[0.0][1])  # without them a label can be someone else's


def test_untouched_segments_are_byte_identical(make_server, seed_audio, tmp_path):
    server = make_server()
    out = tmp_path / "fixed.json"
    result = CliRunner().invoke(main, ["fix", str(SEED / "degenerate.json"), "--audio", str(seed_audio),
                                       "--server", server.url, "--out", str(out)])
    assert result.exit_code == 0, result.output
    before = orjson.loads((SEED / "degenerate.json").read_bytes())["segments"]
    after = orjson.loads(out.read_bytes())["segments"]
    report = orjson.loads((tmp_path / "fixed.json.degen.json").read_bytes())
    replaced = {(s["start"], s["text"]) for e in report["edits"] for s in e["before"]}
    kept_before = [dict(s, id=None) for s in before if (s["start"], s["text"][5:]) not in replaced]
    kept_after = [dict(s, id=None) for s in after if any(
        s["start"] == k["start"] and s["text"] == k["text"] for k in kept_before)]
    assert kept_before == kept_after
    doc = orjson.loads(out.read_bytes())
    assert degen.read_text(doc["text"]).segments == degen.read(out).segments  # markup and segments agree
    assert "623" in result.output and "10 repaired" in result.output.replace("spans flagged, ", "")


def test_a_server_that_only_makes_things_worse_changes_nothing(make_server, seed_audio):
    server = make_server(faults=Faults(always_worse=True))
    original = degen.read(SEED / "degenerate.json")
    result = degen.fix(original, audio=seed_audio, transcriber=server.url)
    assert len(result.unresolved) == len(result.plan.spans) and not result.edits
    assert result.transcript.segments == original.segments


def test_malformed_answers_and_drops_are_survived(make_server, seed_audio):
    server = make_server(faults=Faults(malformed=2, drop=1, unavailable=2))
    result = degen.fix(SEED / "degenerate.json", audio=seed_audio, transcriber=server.url, concurrency=2)
    assert not result.after.degenerate


def test_escalation_when_sampling_still_loops(make_server, seed_audio):
    server = make_server(loop_probability=0.5)
    result = degen.fix(SEED / "degenerate.json", audio=seed_audio, transcriber=server.url,
                       policy=Policy.from_options((0.1, 0.1, 0.2, 0.3, 0.5, 0.7)))
    attempts = [len(o.attempts) for o in result.outcomes]
    assert max(attempts) > 1 and not result.after.degenerate


def test_server_down_exits_3(seed_audio, tmp_path):
    result = CliRunner().invoke(main, ["fix", str(SEED / "degenerate.json"), "--audio", str(seed_audio),
                                       "--server", "http://127.0.0.1:9", "--out", str(tmp_path / "o.json")])
    assert result.exit_code == 3 and "cannot reach" in result.output
    assert not (tmp_path / "o.json").exists()


def test_unresolved_spans_exit_1(make_server, seed_audio, tmp_path):
    server = make_server(faults=Faults(always_worse=True))
    result = CliRunner().invoke(main, ["fix", str(SEED / "degenerate.json"), "--audio", str(seed_audio),
                                       "--server", server.url, "--out", str(tmp_path / "o.json")])
    assert result.exit_code == 1 and "unresolved" in result.output


def test_dry_run_sends_nothing(make_server, seed_audio):
    server = make_server()
    result = CliRunner().invoke(main, ["fix", str(SEED / "degenerate.json"), "--audio", str(seed_audio),
                                       "--server", server.url, "--dry-run"])
    assert result.exit_code == 0 and "plan: 10 spans" in result.output
    assert server.stats.requests == 0
    assert "first requests send" in result.output and "+ anchors" in result.output


def test_dry_run_shows_what_the_run_sends(make_server, seed_audio):
    import re
    result = CliRunner().invoke(main, ["fix", str(SEED / "degenerate.json"), "--audio", str(seed_audio), "--dry-run"])
    first, more = (float(x) for x in re.search(r"send ([\d.]+)s .*up to ([\d.]+)s more", result.output).groups())
    server = make_server()
    run = degen.fix(SEED / "degenerate.json", audio=seed_audio, transcriber=server.url)
    # The run sends every first request, and anchors only where an answer needs them.
    assert first <= run.seconds_decoded <= first + more + 1.0


def test_a_clean_transcript_sends_nothing_and_says_so(make_server, seed_audio, tmp_path):
    clean = tmp_path / "clean.json"
    clean.write_bytes((SEED / "clean.json").read_bytes())
    server = make_server()
    result = CliRunner().invoke(main, ["fix", str(clean), "--audio", str(seed_audio),
                                       "--server", server.url, "--out", str(tmp_path / "o.json")])
    assert result.exit_code == 0 and "0 spans flagged" in result.output and "nothing sent" in result.output
    assert "re-decoding" not in result.output and server.stats.transcriptions == 0


def test_one_span_reads_in_the_singular(make_server, seed_audio, tmp_path):
    import soundfile as sf
    one, wav = tmp_path / "one.json", tmp_path / "one.wav"
    t = degen.read(SEED / "degenerate.json")
    keep = [s for s in t.segments if 700 < s.span.start and s.span.end < 1300]  # the char loop only
    degen.write(t.with_segments(keep), one)
    samples, rate = sf.read(str(seed_audio), dtype="int16", frames=1305 * 8000)
    sf.write(str(wav), samples, rate, subtype="PCM_16")
    server = make_server()
    result = CliRunner().invoke(main, ["fix", str(one), "--audio", str(wav), "--server", server.url,
                                       "--out", str(tmp_path / "o.json")])
    assert "1 span flagged, 1 repaired" in result.output, result.output
    assert "1 spans" not in result.output and " 1 requests" not in result.output


def test_policy_is_built_in_one_place():
    from degen.repair.policy import ESCALATION, Step
    assert Policy.from_options().steps == ESCALATION
    penalised = Policy.from_options("0.1,0.4+c4", repetition_penalty=1.2)
    assert penalised.steps == (Step(0.1, 1.2), Step(0.4, 1.2, 4.0))  # the penalty is never ignored
    assert Policy.from_options((0.1, 0.2)).steps == (Step(0.1), Step(0.2))
    assert Policy(budget_per_second=10, budget_floor=50).token_budget(30.0) == 300


def test_in_place_keeps_a_backup(make_server, seed_audio, tmp_path):
    server = make_server()
    target = tmp_path / "out.json"
    target.write_bytes((SEED / "degenerate.json").read_bytes())
    result = CliRunner().invoke(main, ["fix", str(target), "--audio", str(seed_audio), "--server", server.url,
                                       "--in-place"])
    assert result.exit_code == 0
    assert (tmp_path / "out.json.orig").read_bytes() == (SEED / "degenerate.json").read_bytes()
    assert degen.scan(target).metrics.segments == 623


def test_audio_shorter_than_transcript_is_refused(tmp_path):
    from degen.repair.audio import encode
    import numpy as np
    short = tmp_path / "short.wav"
    short.write_bytes(encode(np.zeros(8000, dtype=np.int16), 8000))
    result = CliRunner().invoke(main, ["fix", str(SEED / "degenerate.json"), "--audio", str(short),
                                       "--server", "http://127.0.0.1:9"])
    assert result.exit_code == 2 and "audio is 1.0s" in result.output


def _fix_until_journaled(args, server, out, journal, *, lines, timeout, output):
    """`degen fix` in a subprocess, returned once its journal holds ``lines`` lines (the
    header included) or ``timeout`` seconds have passed."""
    # Ctrl-C as at a terminal: a test run started in the background of a shell without job
    # control has SIGINT ignored, and children inherit that.
    proc = subprocess.Popen([sys.executable, "-m", "degen", "fix", *args, "--server", server.url, "--out", str(out)],
                            stdout=output, stderr=output,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and (not journal.exists() or journal.read_bytes().count(b"\n") < lines):
        time.sleep(0.05)
    return proc


def test_killed_run_resumes_without_resending(make_server, seed_audio, tmp_path):
    reference = tmp_path / "reference.json"
    server = make_server()
    args = [str(SEED / "degenerate.json"), "--audio", str(seed_audio), "--concurrency", "1"]
    CliRunner().invoke(main, ["fix", *args, "--server", server.url, "--out", str(reference)])
    full = server.stats.transcriptions

    slow = make_server(decode_seconds_per_second=0.02)
    out = tmp_path / "fixed.json"
    journal = tmp_path / "fixed.json.degen-journal.jsonl"
    proc = _fix_until_journaled(args, slow, out, journal, lines=4, timeout=60, output=subprocess.DEVNULL)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert not out.exists()
    done = journal.read_bytes().count(b"\n") - 1  # minus the header
    assert done >= 3

    resumed = make_server()
    result = CliRunner().invoke(main, ["fix", *args, "--server", resumed.url, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert resumed.stats.transcriptions == full - done
    assert out.read_bytes() == reference.read_bytes()
    assert not journal.exists()


def test_stale_journal_is_set_aside(tmp_path):
    path = tmp_path / "j.jsonl"
    Journal(path, "one").record(JournalEntry("1.000-2.000", 0, (1.0, 2.0), {"temperature": 0.1}, "http://server"))
    assert Journal(path, "one").attempts("1.000-2.000")
    assert not Journal(path, "two").attempts("1.000-2.000")
    assert (tmp_path / "j.jsonl.stale").exists()


def test_a_server_that_drops_the_penalty_is_noticed(make_server, seed_audio):
    server = make_server(honours_repetition_penalty=False, loop_probability=1.0)
    from degen.repair.policy import parse_schedule
    policy = Policy(steps=parse_schedule("0.1,0.1/p1.1,0.4/p1.1,0.7"))
    result = degen.fix(SEED / "degenerate.json", audio=seed_audio, transcriber=server.url, policy=policy,
                       concurrency=1)
    sent = [f.get("repetition_penalty") for f in server.stats.forms]
    # After the first identical answer the penalty is no longer sent, and a step that
    # would only repeat an earlier one is skipped.
    assert sent.count("1.1") == 1
    later = [a.step.repetition_penalty for o in result.outcomes[1:] for a in o.attempts]
    assert later and not any(later)
    assert all(len(o.attempts) <= 4 for o in result.outcomes)


def test_schedule_syntax():
    from degen.errors import ConfigError
    from degen.repair.policy import Step, format_schedule, parse_schedule
    steps = parse_schedule("0.1, 0.1/p1.1, 0.7+c4")
    assert steps == (Step(0.1), Step(0.1, 1.1), Step(0.7, None, 4.0))
    assert parse_schedule(format_schedule(steps)) == steps
    with pytest.raises(ConfigError):
        parse_schedule("hot")


def test_untimed_loops_cannot_be_repaired_and_say_so(make_server, seed_audio, tmp_path):
    server = make_server()
    plain = tmp_path / "plain.txt"
    plain.write_text("hello there\n" + "的" * 50 + "\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["fix", str(plain), "--audio", str(seed_audio), "--server", server.url,
                                       "--out", str(tmp_path / "o.txt")])
    assert result.exit_code == 1 and "cannot repair (no timing)" in result.output
    assert server.stats.transcriptions == 0


def test_spans_are_spread_over_several_servers(make_server, seed_audio):
    one, two = make_server(), make_server()
    result = degen.fix(SEED / "degenerate.json", audio=seed_audio, transcriber=[one.url, two.url])
    assert not result.after.degenerate
    assert one.stats.transcriptions > 0 and two.stats.transcriptions > 0


# --- Answers that would lose text -------------------------------------------------

def _flagged_indices(path):
    report = degen.scan(path)
    return {i for f in report.flagged if f.segments for i in range(f.segments[0], f.segments[1] + 1)}


@pytest.mark.parametrize("faults", [
    Faults(empty=10_000), Faults(every_other_empty=True), Faults(garbage=10_000), Faults(wrong=10_000),
    Faults(short=10_000),
], ids=["empty", "every-other-empty", "garbage", "wrong", "short"])
def test_a_faulty_server_never_loses_a_segment_the_input_had_right(make_server, seed_audio, faults):
    server = make_server(faults=faults)
    original = degen.read(SEED / "degenerate.json")
    truth = degen.read(SEED / "clean.json")
    flagged = _flagged_indices(SEED / "degenerate.json")
    result = degen.fix(original, audio=seed_audio, transcriber=server.url)
    out = {(round(s.span.start, 2), s.text) for s in result.transcript}
    right = [s for i, s in enumerate(original) if i not in flagged]
    assert all((round(s.span.start, 2), s.text) in out for s in right)
    for o in result.outcomes:
        if o.placed is not None:  # accepted: faithful and whole, never a deletion or another clip's words
            assert o.status == "repaired"
            said = [s.text for s in truth if o.rs.core.start <= (s.span.start + s.span.end) / 2 <= o.rs.core.end]
            assert [s.text for s in o.placed.segments] == said, o.reason
    if faults.empty or faults.garbage or faults.wrong or faults.short:
        assert not result.edits and len(result.unresolved) == len(result.plan.spans)


# --- Resume, cost and Ctrl-C -------------------------------------------------------

def test_transient_errors_are_retried_on_the_next_run_not_replayed(make_server, seed_audio, tmp_path):
    from degen.repair.client import HttpTranscriber
    path = tmp_path / "journal.jsonl"
    busy = make_server(faults=Faults(unavailable=10_000))
    first = degen.fix(SEED / "degenerate.json", audio=seed_audio, transcriber=HttpTranscriber(busy.url, retries=0),
                      journal=Journal(path, "same"))
    assert len(first.unresolved) == len(first.plan.spans) and not first.edits
    assert all("server error" in o.reason or "not repaired" in o.reason for o in first.unresolved)
    # Every request was sent and refused: counted as sent, reported apart (the server saw
    # one more: the GET /v1/models that checks it is there before any span is sent).
    assert first.requests_sent == busy.stats.requests - 1 > 0
    assert first.seconds_refused == pytest.approx(first.seconds_decoded) and first.seconds_decoded > 0
    healthy = make_server()
    second = degen.fix(SEED / "degenerate.json", audio=seed_audio, transcriber=healthy.url,
                       journal=Journal(path, "same"))
    assert not second.unresolved and healthy.stats.transcriptions >= len(second.plan.spans)
    assert second.seconds_replayed == 0


def test_unresolved_spans_keep_the_journal_and_the_next_run_sends_nothing_again(make_server, seed_audio, tmp_path):
    out = tmp_path / "o.json"
    journal = tmp_path / "o.json.degen-journal.jsonl"
    args = ["fix", str(SEED / "degenerate.json"), "--audio", str(seed_audio), "--out", str(out)]
    worse = make_server(faults=Faults(always_worse=True))
    first = CliRunner().invoke(main, [*args, "--server", worse.url])
    assert first.exit_code == 1 and journal.exists() and "journal kept" in first.output
    again = make_server(faults=Faults(always_worse=True))
    second = CliRunner().invoke(main, [*args, "--server", again.url])
    assert second.exit_code == 1 and again.stats.transcriptions == 0
    assert "nothing sent" in second.output and "replayed from the journal" in second.output


class _Retrying:
    """A transcriber that retries dropped connections itself and says how many requests
    each answer took (the HTTP client's ``requests_sent``)."""

    def __init__(self, url):
        from degen.repair.client import HttpTranscriber
        self.inner, self.base_url = HttpTranscriber(url, retries=0), url

    def transcribe(self, request):
        from types import SimpleNamespace
        from degen.errors import ServerError
        for tries in range(1, 10):
            try:
                response = self.inner.transcribe(request)
            except ServerError:
                continue
            return SimpleNamespace(text=response.text, response_format=response.response_format,
                                   requests_sent=tries)
        raise AssertionError("the test server dropped more than it was told to")


def test_audio_decoded_counts_every_request_sent(make_server, seed_audio):
    server = make_server(faults=Faults(drop=3))
    result = degen.fix(SEED / "degenerate.json", audio=seed_audio, transcriber=_Retrying(server.url), concurrency=2)
    # (The server saw one more: the GET /v1/models that finds its profile before the first answer.)
    assert result.requests_sent == server.stats.requests - 1 == server.stats.transcriptions + 3
    # The dropped requests carried audio too, though the server never decoded it.
    assert result.seconds_decoded > server.stats.audio_seconds


def test_ctrl_c_stops_within_two_seconds_and_the_same_command_resumes(make_server, seed_audio, tmp_path):
    reference = tmp_path / "reference.json"
    args = [str(SEED / "degenerate.json"), "--audio", str(seed_audio), "--concurrency", "2"]
    fast = make_server()
    CliRunner().invoke(main, ["fix", *args, "--server", fast.url, "--out", str(reference)])
    full = fast.stats.transcriptions

    slow = make_server(decode_seconds_per_second=0.2)  # a 30 s clip takes 6 s: always something in flight
    out = tmp_path / "fixed.json"
    journal = tmp_path / "fixed.json.degen-journal.jsonl"
    proc = _fix_until_journaled(args, slow, out, journal, lines=3, timeout=90, output=subprocess.PIPE)
    sent_at = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert time.monotonic() - sent_at < 2.0
    assert proc.returncode == 130 and b"interrupted" in err and b"resume" in err
    assert not out.exists() and journal.exists()
    lines = journal.read_bytes().splitlines()
    assert all(orjson.loads(line) for line in lines)  # whole lines only
    done = len(lines) - 1
    assert done >= 2

    resumed = make_server()
    result = CliRunner().invoke(main, ["fix", *args, "--server", resumed.url, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert resumed.stats.transcriptions <= full - done, (sorted(p.name for p in tmp_path.iterdir()), lines, result.output)
    assert out.read_bytes() == reference.read_bytes()


def test_ctrl_c_delivered_to_a_worker_thread_still_stops_the_wait():
    # The kernel may hand a process's SIGINT to any thread; Python handles it in the main
    # thread only when that thread next runs Python code. A main thread blocked on one
    # region's future (minutes of requests) must still stop at once.
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from degen.repair.send import polled
    release, ready = threading.Event(), threading.Event()
    worker: list[int] = []

    def slow():
        worker.append(threading.get_ident())
        ready.set()
        release.wait(10)
        return "done"

    before = signal.signal(signal.SIGINT, signal.default_int_handler)  # as Python sets it up at a terminal
    with ThreadPoolExecutor(1) as pool:
        future = pool.submit(slow)
        ready.wait(5)
        started = time.monotonic()
        threading.Timer(0.2, lambda: signal.pthread_kill(worker[0], signal.SIGINT)).start()
        try:
            with pytest.raises(KeyboardInterrupt):
                polled(future)
        finally:
            release.set()
            signal.signal(signal.SIGINT, before)
    assert time.monotonic() - started < 2.0


def test_quiet_fix_prints_one_line_and_no_progress_bar(make_server, seed_audio, tmp_path):
    server = make_server()
    result = CliRunner().invoke(main, ["-q", "fix", str(SEED / "degenerate.json"), "--audio", str(seed_audio),
                                       "--server", server.url, "--out", str(tmp_path / "fixed.json")])
    assert result.exit_code == 0, result.output
    (line,) = result.stdout.strip().splitlines()
    assert "flagged" in line and "repaired" in line
    assert "re-decoding" not in result.stderr
