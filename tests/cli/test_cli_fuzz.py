"""The command line against what real users type: output paths that are an input or each
other, '-' where a file is needed, and broken inputs; each must be a one-line error with
exit 2 and leave every file as it was."""

import json

import numpy as np
import pytest
import soundfile as sf
from click.testing import CliRunner

from degen.cli import main

CLOSED_PORT = "http://127.0.0.1:9"  # nothing listens: getting past the checks exits 3


def run(*args, **kw):
    return CliRunner().invoke(main, [str(a) for a in args], **kw)


@pytest.fixture
def small(tmp_path):
    """A 12-second transcript that loops, its audio, and the bytes of both."""
    segments = [{"id": i, "start": float(i), "end": i + 0.9, "text": "the same words again"} for i in range(10)]
    transcript = tmp_path / "in.json"
    transcript.write_text(json.dumps({"text": "", "segments": segments}))
    audio = tmp_path / "a.wav"
    sf.write(str(audio), np.zeros(16000 * 12, dtype=np.int16), 16000)
    return transcript, audio, {transcript: transcript.read_bytes(), audio: audio.read_bytes()}


def fix(small, *extra):
    transcript, audio, _ = small
    return run("fix", transcript, "--audio", audio, "--server", CLOSED_PORT, *extra)


def unchanged(small):
    return all(path.read_bytes() == data for path, data in small[2].items())


@pytest.mark.parametrize("option", ["--out", "--report", "--journal", "--html"])
def test_fix_output_that_is_the_input_is_refused(small, option):
    transcript = small[0]
    extra = ("--out", transcript.with_name("o.json")) if option != "--out" else ()
    result = fix(small, *extra, option, transcript.parent / "." / transcript.name)
    assert result.exit_code == 2, result.output
    (line,) = result.output.strip().splitlines()
    assert option in line and "input" in line and str(transcript.name) in line
    assert unchanged(small)


@pytest.mark.parametrize("option", ["--out", "--report", "--journal", "--html"])
def test_fix_output_that_is_the_audio_is_refused(small, option):
    result = fix(small, option, small[1])
    assert result.exit_code == 2, result.output
    assert option in result.output and "audio" in result.output
    assert unchanged(small)


@pytest.mark.parametrize("other", ["--report", "--journal", "--html"])
def test_fix_two_outputs_on_one_path_are_refused(small, other):
    out = small[0].with_name("o.json")
    result = fix(small, "--out", out, other, out)
    assert result.exit_code == 2, result.output
    assert "--out" in result.output and other in result.output and "same file" in result.output


def test_fix_in_place_with_out_is_a_conflict(small):
    result = fix(small, "--in-place", "--out", small[0].with_name("o.json"))
    assert result.exit_code == 2 and "--in-place" in result.output and "--out" in result.output


def test_fix_in_place_report_on_the_input_is_refused(small):
    result = fix(small, "--in-place", "--report", small[0])
    assert result.exit_code == 2 and "--report" in result.output
    assert unchanged(small)


def test_fix_distinct_outputs_go_on_to_the_server(small):
    assert fix(small, "--out", small[0].with_name("o.json")).exit_code == 3


def test_scan_html_onto_the_input_is_refused(tmp_path):
    source = tmp_path / "t.json"
    source.write_text(json.dumps({"segments": [{"start": 0, "end": 1, "text": "hello"}]}))
    before = source.read_bytes()
    result = run("scan", source, "--html", tmp_path / "." / "t.json")
    assert result.exit_code == 2 and "--html" in result.output and "input" in result.output
    assert source.read_bytes() == before


@pytest.mark.parametrize("option", ["--out", "--report", "--journal", "--html"])
def test_fix_output_to_stdout_is_refused_not_mixed_with_the_summary(small, option):
    result = fix(small, option, "-")
    assert result.exit_code == 2, result.output
    (line,) = result.output.strip().splitlines()
    assert f"{option} -" in line and "file path" in line


def test_fix_input_from_stdin_is_a_clear_error(small):
    transcript, audio, _ = small
    result = run("fix", "-", "--audio", audio, "--server", CLOSED_PORT, input=transcript.read_text())
    assert result.exit_code == 2
    (line,) = result.output.strip().splitlines()
    assert "INPUT as a file" in line


def test_scan_html_to_stdout_is_the_html_alone(tmp_path):
    source = tmp_path / "t.json"
    source.write_text(json.dumps({"segments": [{"start": 0, "end": 1, "text": "hello"}]}))
    result = CliRunner().invoke(main, ["scan", str(source), "--html", "-"])
    assert result.exit_code == 0, result.output
    assert result.stdout.lstrip().lower().startswith("<!doctype html")
    assert "clean" in result.stderr


def test_an_unreadable_file_names_the_fix(tmp_path, monkeypatch):
    import degen.io
    source = tmp_path / "t.json"
    source.write_text(json.dumps({"segments": [{"start": 0, "end": 1, "text": "hello"}]}))

    def refuse(path, *args, **kw):  # what chmod 000 does to a user that is not root
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(degen.io, "open", refuse, raising=False)
    result = run("scan", source)
    assert result.exit_code == 2
    (line,) = result.output.strip().splitlines()
    assert str(source) in line and "Permission denied" in line and "chmod" in line


@pytest.mark.parametrize("option", ["--weights-gib", "--overhead-gib"])
def test_plan_absurd_sizes_are_argument_errors_not_crashes(option):
    result = run("plan", "--gpu-mem", "24", option, "1e308")
    assert result.exit_code == 2 and option in result.output and "internal error" not in result.output


def test_plan_size_bound_is_the_cards():
    from degen.capacity import MAX_GPU_GIB
    from degen.cli import planning
    assert planning.MAX_GPU_GIB == MAX_GPU_GIB
    assert run("plan", "--gpu-mem", "24", "--weights-gib", MAX_GPU_GIB + 1).exit_code == 2


class _Repaired:
    """What _write_outputs needs of a fix result: the new transcript and the report."""

    def __init__(self, transcript):
        self.transcript = transcript

    def to_dict(self):
        return {}


def test_in_place_never_overwrites_an_input_without_a_copy(tmp_path):
    import degen
    from degen.cli.repairing import _write_outputs
    source = tmp_path / "t.json"

    def in_place(text):
        source.write_text(json.dumps({"segments": [{"start": 0, "end": 1, "text": text}]}))
        before = source.read_bytes()
        repaired = degen.read_text(json.dumps({"segments": [{"start": 0, "end": 1, "text": "fixed"}]}))
        _write_outputs(_Repaired(repaired), None, source, source, tmp_path / "r.json", True, None)
        return before

    first = in_place("first transcript")
    assert (tmp_path / "t.json.orig").read_bytes() == first
    second = in_place("a new transcript saved under the same name")
    copies = [p.read_bytes() for p in tmp_path.glob("t.json.orig*")]
    assert first in copies and second in copies
    in_place("a new transcript saved under the same name")  # the same input again: no third copy
    assert len(list(tmp_path.glob("t.json.orig*"))) == 2


@pytest.mark.parametrize("code, fix_word", [(24, "--jobs"), (28, "free space"), (13, "permissions"),
                                             (30, "writable")])  # EMFILE, ENOSPC, EACCES, EROFS
def test_system_errors_without_a_file_say_what_to_do(tmp_path, monkeypatch, code, fix_word):
    import errno
    import os

    import degen.archive.batch
    assert code in (errno.EMFILE, errno.ENOSPC, errno.EACCES, errno.EROFS)

    def fail(*args, **kw):
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(degen.archive.batch, "run", fail)
    source = tmp_path / "t.json"
    source.write_text(json.dumps({"segments": [{"start": 0, "end": 1, "text": "hello"}]}))
    result = run("scan", source, "--jobs", "2")
    assert result.exit_code == 2
    (line,) = result.output.strip().splitlines()
    assert os.strerror(code) in line and fix_word in line


@pytest.mark.parametrize("position", [0, 2, 4])
def test_filter_dash_is_refused_not_a_file_named_dash(tmp_path, monkeypatch, position):
    monkeypatch.chdir(tmp_path)
    manifest = tmp_path / "m.jsonl"
    manifest.write_text(json.dumps({"audio_filepath": "a.wav", "duration": 2.0, "text": "hello there"}) + "\n")
    args = [manifest, "--keep", tmp_path / "k.jsonl", "--quarantine", tmp_path / "q.jsonl"]
    args[position] = "-"
    result = run("filter", *args)
    assert result.exit_code == 2 and "'-' is not a file" in result.output, result.output
    assert not (tmp_path / "-").exists()


@pytest.mark.parametrize("name", ["k.jsonl.partial", "q.jsonl.partial", "k.jsonl.degen-progress.json"])
def test_filter_never_writes_over_its_manifest(tmp_path, name):
    manifest = tmp_path / name
    manifest.write_text(json.dumps({"audio_filepath": "a.wav", "duration": 2.0, "text": "hello there"}) + "\n")
    before = manifest.read_bytes()
    result = run("filter", manifest, "--keep", tmp_path / "k.jsonl", "--quarantine", tmp_path / "q.jsonl")
    assert result.exit_code == 2, result.output
    assert "manifest" in result.output and name in result.output
    assert manifest.read_bytes() == before


def test_an_interrupted_filter_says_how_to_resume(tmp_path, monkeypatch):
    import degen.archive.filter

    def interrupted(*args, **kw):
        raise KeyboardInterrupt

    monkeypatch.setattr(degen.archive.filter, "filter_manifest", interrupted)
    manifest = tmp_path / "m.jsonl"
    manifest.write_text(json.dumps({"audio_filepath": "a.wav", "duration": 2.0, "text": "hello there"}) + "\n")
    result = run("filter", manifest, "--keep", tmp_path / "k.jsonl", "--quarantine", tmp_path / "q.jsonl")
    assert result.exit_code == 130
    (line,) = result.output.strip().splitlines()
    assert "interrupted" in line and "same command again" in line


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_lexicon_that_never_ends_is_refused_at_once(tmp_path, kind):
    import os
    import subprocess
    import sys

    from ..conftest import ROOT
    source = tmp_path / "t.json"
    source.write_text(json.dumps({"segments": [{"start": 0, "end": 1, "text": "hello"}]}))
    lexicon = tmp_path / "lexicon.tsv"
    if kind == "fifo":
        os.mkfifo(lexicon)
    else:
        lexicon = "/dev/zero"
    try:  # a subprocess: opening a FIFO with no writer blocks the reader for ever
        done = subprocess.run([sys.executable, "-m", "degen", "scan", str(source), "--lexicon", str(lexicon)],
                              capture_output=True, text=True, timeout=30, env={**os.environ, "PYTHONPATH": str(ROOT)})
    except subprocess.TimeoutExpired:
        raise AssertionError(f"--lexicon {kind} hung") from None
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert str(lexicon) in line and "lexicon" in line and "stdin" not in line


@pytest.fixture
def dev_null(tmp_path):
    """A path that is /dev/null once links are followed (as /dev/stdout is a link to a
    pipe): renaming a file onto /dev/null itself, as root, would replace it system-wide."""
    link = tmp_path / "null"
    link.symlink_to("/dev/null")
    return link


def _intact(link):
    import os
    import stat
    return link.is_symlink() and stat.S_ISCHR(os.stat(link).st_mode)


def test_write_atomic_writes_through_a_device_never_replaces_it(dev_null):
    from degen.io import check_writable, write_atomic
    check_writable(dev_null, "report")
    write_atomic(dev_null, "{}")
    assert _intact(dev_null)


def test_scan_html_to_dev_null_leaves_it_a_device(tmp_path, dev_null):
    source = tmp_path / "t.json"
    source.write_text(json.dumps({"segments": [{"start": 0, "end": 1, "text": "hello"}]}))
    assert run("scan", source, "--html", dev_null).exit_code == 0
    assert _intact(dev_null)


def test_fix_report_and_html_may_both_go_to_dev_null(small, dev_null):
    result = fix(small, "--out", small[0].with_name("o.json"), "--report", dev_null, "--html", dev_null)
    assert result.exit_code == 3, result.output  # past every check, to the (closed) server


def test_fix_journal_on_a_device_is_refused(small, dev_null):
    result = fix(small, "--journal", dev_null)
    assert result.exit_code == 2 and "--journal" in result.output and "regular file" in result.output
    assert _intact(dev_null)


@pytest.mark.parametrize("option", ["--keep", "--quarantine"])
def test_filter_output_on_a_device_is_refused(tmp_path, dev_null, option):
    manifest = tmp_path / "m.jsonl"
    manifest.write_text(json.dumps({"audio_filepath": "a.wav", "duration": 2.0, "text": "hello there"}) + "\n")
    paths = {"--keep": tmp_path / "k.jsonl", "--quarantine": tmp_path / "q.jsonl", option: dev_null}
    result = run("filter", manifest, "--keep", paths["--keep"], "--quarantine", paths["--quarantine"])
    assert result.exit_code == 2 and option in result.output and "regular file" in result.output
    assert _intact(dev_null)


def _latin1_named(tmp_path, text="hello"):
    """A transcript whose file name is not UTF-8 (an é written by an old Latin-1 system)."""
    import os
    source = tmp_path / os.fsdecode(b"caf\xe9.json")
    source.write_text(json.dumps({"segments": [{"start": 0, "end": 1, "text": text}]}))
    return source


@pytest.mark.parametrize("html", ["page.html", "-"])
def test_scan_html_of_a_file_named_in_latin1(tmp_path, html):
    import os
    import subprocess
    import sys

    from ..conftest import ROOT
    source = _latin1_named(tmp_path)
    target = html if html == "-" else str(tmp_path / html)
    done = subprocess.run([sys.executable, "-m", "degen", "scan", source, "--html", target], capture_output=True,
                          timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    page = done.stdout if html == "-" else (tmp_path / html).read_bytes()
    assert page.lstrip().lower().startswith(b"<!doctype html") and b"caf\xe9" in page


def test_fix_report_of_a_file_named_in_latin1(tmp_path):
    import degen
    from degen.cli.repairing import _write_outputs
    source = _latin1_named(tmp_path)
    out = source.with_name(source.stem + ".fixed.json")
    report = tmp_path / "r.json"
    _write_outputs(_Repaired(degen.read(source)), None, source, out, report, False, None)
    doc = json.loads(report.read_text())
    assert doc["input"].endswith("caf\\xe9.json") and doc["output"].endswith("caf\\xe9.fixed.json")
    assert out.exists()


@pytest.mark.parametrize("timeout", ["1e10", "1e308"])
def test_fix_huge_timeout_is_an_argument_error_not_a_crash(small, timeout):
    result = fix(small, "--out", small[0].with_name("o.json"), "--timeout", timeout)
    assert result.exit_code == 2 and "--timeout" in result.output and "internal error" not in result.output


def test_fix_timeout_of_a_day_is_accepted(small):
    assert fix(small, "--out", small[0].with_name("o.json"), "--timeout", "86400").exit_code == 3
