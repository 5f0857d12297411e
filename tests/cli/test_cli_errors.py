"""Exit codes mean one thing each: bad input or output paths exit 2 before any server
work, odd numbers render, a crash is a bug (4) and never 1, FIFOs and devices are refused."""

import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

import degen
from degen.cli import main
from degen.errors import AudioError, OutputError
from degen.io import check_writable, write_atomic
from degen.repair.audio import Audio

from ..conftest import FIXTURES, ROOT

SEED = FIXTURES / "seed"
CLOSED_PORT = "http://127.0.0.1:9"  # nothing listens: reaching the server would exit 3


def run(*args, **kw):
    return CliRunner().invoke(main, [str(a) for a in args], **kw)


def fix_args(tmp_path, seed_audio, *extra):
    return ("fix", SEED / "degenerate.json", "--audio", seed_audio, "--server", CLOSED_PORT, *extra)


@pytest.mark.parametrize("option", ["--out", "--report", "--journal", "--html"])
def test_unwritable_output_exits_2_before_the_server(tmp_path, seed_audio, option):
    bad = tmp_path / "missing-folder" / "x.out"
    result = run(*fix_args(tmp_path, seed_audio, "--out", tmp_path / "fixed.json", option, bad))
    assert result.exit_code == 2, result.output
    (line,) = result.output.strip().splitlines()
    assert str(bad) in line and "does not exist" in line and option in line


def test_output_that_is_a_directory_exits_2(tmp_path, seed_audio):
    result = run(*fix_args(tmp_path, seed_audio, "--out", tmp_path))
    assert result.exit_code == 2 and "is a directory" in result.output


def test_in_place_backup_path_is_checked(tmp_path, seed_audio):
    source = tmp_path / "t.json"
    source.write_bytes((SEED / "degenerate.json").read_bytes())
    (tmp_path / "t.json.orig").mkdir()
    result = run("fix", source, "--audio", seed_audio, "--server", CLOSED_PORT, "--in-place")
    assert result.exit_code == 2 and "t.json.orig" in result.output and "--in-place" in result.output


def test_writable_outputs_then_reach_for_the_server(tmp_path, seed_audio):
    result = run(*fix_args(tmp_path, seed_audio, "--out", tmp_path / "fixed.json"))
    assert result.exit_code == 3  # the checks passed; only then is the server tried


def test_write_atomic_raises_degens_own_error(tmp_path):
    with pytest.raises(OutputError, match="missing"):
        write_atomic(tmp_path / "missing" / "x.json", "{}")
    with pytest.raises(OutputError, match="is a directory"):
        check_writable(tmp_path)
    check_writable(tmp_path / "fine.json")
    assert not list(tmp_path.iterdir())  # the probe leaves nothing behind


def test_read_only_file_system_is_caught_even_as_root():
    with pytest.raises(OutputError, match="cannot write"):
        check_writable("/proc/degen-report.json")


def write_huge_times(tmp_path):
    import orjson
    segs = [{"start": 0.0, "end": 1e308, "speaker": "S01", "text": "hello there"}] * 3
    (tmp_path / "huge.json").write_bytes(orjson.dumps({"segments": segs}))
    (tmp_path / "stamp.txt").write_text("[0.0][S01]" + "的" * 100 + "[" + "9" * 309 + ".5]", encoding="utf-8")
    return [tmp_path / "huge.json", tmp_path / "stamp.txt"]


def test_absurd_times_in_input_are_one_line_errors(tmp_path):
    for path in write_huge_times(tmp_path):
        result = run("scan", path)
        assert result.exit_code == 2 and result.exc_info[0] is SystemExit, result.output
        (line,) = result.output.strip().splitlines()
        assert path.name in line and len(line) < 400


def test_absurd_times_render_in_text_and_html():
    """Readers refuse such times; a Transcript built in code still renders safely."""
    from degen.present.html import render_scan
    from degen.model import Segment, Span, Transcript
    from degen.present.text import render_text
    for end in (1e308, float("9" * 309 + ".5")):
        segs = [Segment(Span(0.0, end), "S01", "的" * 100)] * 3
        transcript = Transcript(segs, "segments_json")
        report = degen.scan(transcript)
        text = render_text(report, lambda s, **kw: s)
        assert max(len(line) for line in text.splitlines()) < 400
        page = render_scan(report, transcript)
        assert "nan" not in page.lower().replace("nan-", "") and "9" * 30 not in page


def boom(*args, **kw):
    raise ZeroDivisionError("deliberate")


def test_a_crash_exits_4_with_one_line_and_no_traceback(monkeypatch):
    monkeypatch.setattr(degen, "scan", boom)
    result = run("scan", SEED / "clean.json")
    assert result.exit_code == 4
    (line,) = result.output.strip().splitlines()
    assert "bug" in line and "-v" in line and "ZeroDivisionError" in line
    verbose = run("-v", "scan", SEED / "clean.json")
    assert verbose.exit_code == 4 and "Traceback" in verbose.output


def test_an_untranslated_os_error_exits_2(monkeypatch):
    def denied(*args, **kw):
        raise PermissionError(13, "Permission denied", "/some/file")
    monkeypatch.setattr(degen, "scan", denied)
    result = run("scan", SEED / "clean.json")
    assert result.exit_code == 2 and "Permission denied: /some/file" in result.output


def degen_cli(*args, timeout=30, **env):
    return subprocess.run([sys.executable, "-m", "degen", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "PYTHONPATH": str(ROOT), **env})


def test_fifo_and_device_are_refused_without_hanging(tmp_path):
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    for path in (fifo, "/dev/zero"):
        done = degen_cli("scan", path)  # a hang would hit the timeout and fail the test
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert str(path) in done.stderr and "not a transcript file" in done.stderr
    with pytest.raises(AudioError, match="not a regular file"):
        Audio.open(fifo)


def test_size_limit_is_documented_and_overridable(tmp_path):
    big = tmp_path / "big.txt"
    big.write_text("[0.0][S01]hello[1.0]\n" * 60_000)  # about 1.3 MB
    done = degen_cli("scan", big, DEGEN_MAX_INPUT_MB="1")
    assert done.returncode == 2 and "over the 1 MB input limit" in done.stderr and "DEGEN_MAX_INPUT_MB" in done.stderr
    assert degen_cli("scan", big, DEGEN_MAX_INPUT_MB="2").returncode in (0, 1)  # read and judged
    done = subprocess.run(f"head -c 3000000 /dev/zero | {sys.executable} -m degen scan -", shell=True,
                          capture_output=True, text=True, timeout=30,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "DEGEN_MAX_INPUT_MB": "1"})
    assert done.returncode == 2 and "<stdin>" in done.stderr


def test_audio_errors_are_translated_once(tmp_path):
    junk = tmp_path / "junk.wav"
    junk.write_bytes(b"not audio at all" * 100)
    with pytest.raises(AudioError, match=r"junk.wav: cannot read audio \(.+\); use WAV"):
        Audio.open(junk)


def test_a_closed_output_pipe_is_quiet_and_not_exit_1():
    files = " ".join([str(SEED / "degenerate.json")] * 80)  # ~170 KB of JSON, past any pipe buffer
    done = subprocess.run(f"{sys.executable} -m degen scan --json {files} | head -c 1; "
                          "exit ${PIPESTATUS[0]}", shell=True, executable="/bin/bash", capture_output=True,
                          text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 141 and "Traceback" not in done.stderr and "Exception" not in done.stderr


@pytest.mark.parametrize("args", [
    ("scan", "--audio-duration", "inf", SEED / "clean.json"),
    ("scan", "--audio-duration", "nan", SEED / "clean.json"),
    ("scan", "--max-word-rate", "nan", SEED / "clean.json"),
    ("plan", "--gpu-mem", "inf"),
    ("plan", "--gpu-mem", "1e308"),
    ("plan", "--gpu-mem", "24", "--audio-minutes", "1e308"),
    ("plan", "--gpu-mem", "24", "--fraction", "nan"),
])
def test_infinite_or_absurd_numbers_are_argument_errors(args):
    result = run(*args)
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output


def test_scan_html_path_is_checked_before_scanning(tmp_path, monkeypatch):
    monkeypatch.setattr(degen, "scan", boom)  # scanning would exit 4: the check must come first
    result = run("scan", "--html", tmp_path / "no" / "r.html", SEED / "clean.json")
    assert result.exit_code == 2 and "does not exist" in result.output


def test_interrupt_at_the_boundary_exits_130(monkeypatch):
    def interrupted(*args, **kw):
        raise KeyboardInterrupt
    monkeypatch.setattr(degen, "scan", interrupted)
    result = run("scan", SEED / "clean.json")
    assert result.exit_code == 130 and "interrupted" in result.output
