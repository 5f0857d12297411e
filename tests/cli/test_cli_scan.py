"""`degen scan` through click's CliRunner: output, JSON schema, exit codes."""

import json
import shutil

from click.testing import CliRunner

from degen.cli import main

from ..conftest import FIXTURES

SEED = FIXTURES / "seed"


def run(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def test_degenerate_file_exits_1_with_the_seed_metrics():
    result = run("scan", SEED / "degenerate.json")
    assert result.exit_code == 1
    first = result.output.splitlines()[0]
    assert "DEGENERATE" in first and "segments 793" in first
    assert "consecutive repeated segments 163" in first and "worst repetition: 的 x102" in first
    assert "segment_loop" in result.output and "char_loop" in result.output


def test_clean_file_exits_0():
    result = run("scan", SEED / "clean.json")
    assert result.exit_code == 0 and "clean" in result.output


def test_json_lines_schema():
    result = run("scan", "--json", SEED / "clean.json", SEED / "degenerate.json")
    assert result.exit_code == 1
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["degenerate"] for r in rows] == [False, True]
    row = rows[1]
    assert set(row) >= {"file", "format", "degenerate", "metrics", "findings", "advice"}
    assert set(row["metrics"]) >= {"segments", "consecutive_repeated_segments", "max_repetition",
                                   "flagged_seconds", "duration"}
    assert row["metrics"]["max_repetition"] == {"unit": "的", "count": 102}
    finding = row["findings"][0]
    assert set(finding) >= {"kind", "start", "end", "speaker", "unit", "period", "count", "segments",
                            "severity", "excerpt"}


def test_globs_and_stdin(tmp_path):
    for name in ("a.json", "b.json"):
        shutil.copy(SEED / "clean.json", tmp_path / name)
    result = run("scan", "--json", str(tmp_path / "*.json"))
    assert result.exit_code == 0 and len(result.stdout.splitlines()) == 2
    text = (FIXTURES / "shapes" / "loops" / "zh_char.json").read_text(encoding="utf-8")
    result = run("scan", "-", input=text)
    assert result.exit_code == 1 and "的 x102" in result.output


def test_untimed_transcript_reports_null_times():
    result = run("scan", "--json", FIXTURES / "shapes" / "loops" / "en_punct.txt")
    row = json.loads(result.output)
    assert row["findings"][0]["start"] is None and row["findings"][0]["unit"] == "!"


def test_fail_on_high_ignores_medium_findings():
    path = FIXTURES / "shapes" / "loops" / "en_truncated.json"
    assert run("scan", path).exit_code == 1
    assert run("scan", "--fail-on", "high", path).exit_code == 0


def test_audio_duration_option_finds_an_early_stop():
    path = FIXTURES / "shapes" / "natural" / "de_jaja.json"
    assert run("scan", path).exit_code == 0
    result = run("scan", "--json", "--audio-duration", "600", path)
    assert result.exit_code == 1 and json.loads(result.output)["findings"][0]["kind"] == "truncated"


def test_bad_input_is_one_line_and_exit_2(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"segments": [{"start": 3, "end": "soon", "text": "x"}]}')  # (an end before the start is a finding)
    result = run("scan", bad)
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert str(bad) in result.output and "segment 0" in result.output and "'end'" in result.output
    assert run("scan", tmp_path / "missing.json").exit_code == 2
    assert run("scan", "--min-repeats", "1", bad).exit_code == 2
    assert run("scan", str(tmp_path / "*.nothing")).exit_code == 2
