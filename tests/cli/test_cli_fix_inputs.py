"""`degen fix` on inputs a newcomer gives it: a manifest (refused, pointing to degen filter),
audio far longer than the transcript (a warning before anything is sent), two servers of
which one is down (the live one is used), and the paths it wrote (printed)."""

import json

import pytest
from click.testing import CliRunner

from degen.cli import main

from ..conftest import FIXTURES

SEED = FIXTURES / "seed"
DOWN = "http://127.0.0.1:9"  # the discard port: nothing listens there


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_a_manifest_is_refused_and_pointed_to_degen_filter(tmp_path, seed_audio):
    manifest = tmp_path / "m.jsonl"
    manifest.write_text("".join(json.dumps({"audio_filepath": f"{k}.wav", "duration": 6.5, "text": "okay " * 30})
                                + "\n" for k in range(5)), encoding="utf-8")
    for extra in (["--server", DOWN], ["--dry-run"]):
        result = run("fix", manifest, "--audio", seed_audio, "--out", tmp_path / "o.jsonl", *extra)
        assert result.exit_code == 2 and "degen filter" in result.output and "one utterance per line" in result.output
        assert not (tmp_path / "o.jsonl").exists()


def test_audio_far_longer_than_the_transcript_is_questioned_before_sending(tmp_path, seed_audio):
    short = tmp_path / "short.txt"
    short.write_text("[0.0][S01]" + "的" * 120 + "[43.0]", encoding="utf-8")
    result = run("fix", short, "--audio", seed_audio, "--dry-run")
    assert result.exit_code == 0
    (warning,) = [line for line in result.stderr.splitlines() if line.startswith("degen: warning")]
    assert "covers 43.0 s of the 3046.8 s" in warning and "(1.4%)" in warning and "--audio" in warning
    assert "warning" not in run("fix", SEED / "degenerate.json", "--audio", seed_audio, "--dry-run").stderr


def test_one_server_down_of_two_uses_the_live_one(make_server, seed_audio, tmp_path):
    live = make_server()
    result = run("fix", SEED / "degenerate.json", "--audio", seed_audio, "--server", DOWN, "--server", live.url,
                 "--out", tmp_path / "o.json")
    assert result.exit_code == 0, result.output
    assert "degen: warning: cannot reach http://127.0.0.1:9" in result.stderr and "1 other server" in result.stderr
    assert live.stats.transcriptions > 0


def test_every_server_down_still_exits_3(seed_audio, tmp_path):
    result = run("fix", SEED / "degenerate.json", "--audio", seed_audio, "--server", DOWN,
                 "--server", "http://127.0.0.1:7", "--out", tmp_path / "o.json")
    assert result.exit_code == 3 and "cannot reach" in result.output


def test_fix_prints_the_paths_it_wrote(make_server, seed_audio, tmp_path):
    server = make_server()
    out, page = tmp_path / "fixed.json", tmp_path / "fix.html"
    result = run("fix", SEED / "degenerate.json", "--audio", seed_audio, "--server", server.url, "--out", out,
                 "--html", page)
    assert result.exit_code == 0
    wrote = [line.split()[1] for line in result.stdout.splitlines() if line.startswith("  wrote ")]
    assert wrote == [str(out), f"{out}.degen.json", str(page)]
    assert all((tmp_path / p).exists() for p in wrote)


def test_in_place_names_the_backup(make_server, seed_audio, tmp_path):
    server = make_server()
    target = tmp_path / "t.json"
    target.write_bytes((SEED / "degenerate.json").read_bytes())
    result = run("fix", target, "--audio", seed_audio, "--server", server.url, "--in-place")
    wrote = [line.split()[1] for line in result.stdout.splitlines() if line.startswith("  wrote ")]
    assert wrote == [str(target), f"{target}.orig", f"{target}.degen.json"]


def test_scan_html_prints_the_path_it_wrote(tmp_path):
    page = tmp_path / "scan.html"
    result = run("scan", SEED / "degenerate.json", "--html", page)
    assert result.exit_code == 1 and page.exists()
    assert f"HTML report: {page}" in result.stderr and "HTML report" not in result.stdout


@pytest.mark.parametrize("name", ["esc\x1b[31mred.jsonl", "bell\x07.jsonl"])
def test_filter_escapes_file_names_in_its_summary(tmp_path, name):
    manifest = tmp_path / name
    manifest.write_text(json.dumps({"audio_filepath": "a.wav", "duration": 2.0, "text": "hello"}) + "\n")
    result = run("filter", manifest, "--keep", tmp_path / "k.jsonl", "--quarantine", tmp_path / "q.jsonl")
    assert result.exit_code == 0
    assert "\x1b" not in result.stderr and "\x07" not in result.stderr and "\\x" in result.stderr


def test_a_second_in_place_run_keeps_the_first_runs_report(make_server, seed_audio, tmp_path):
    """The second run finds the repaired transcript clean: it writes nothing, and the report
    of the real repair stays (it was replaced by an empty one)."""
    server = make_server()
    target = tmp_path / "t.json"
    target.write_bytes((SEED / "degenerate.json").read_bytes())
    first = run("fix", target, "--audio", seed_audio, "--server", server.url, "--in-place")
    assert first.exit_code == 0
    report = tmp_path / "t.json.degen.json"
    repaired, written = target.read_bytes(), report.read_bytes()
    assert json.loads(written)["edits"]
    second = run("fix", target, "--audio", seed_audio, "--server", server.url, "--in-place")
    assert second.exit_code == 0 and "nothing to repair" in second.output
    assert target.read_bytes() == repaired and report.read_bytes() == written
    assert not (tmp_path / "t.json.orig.1").exists()


def test_the_dry_run_plan_fits_80_columns(seed_audio):
    from degen.present.terminal import width
    result = CliRunner().invoke(main, ["fix", str(SEED / "degenerate.json"), "--audio", str(seed_audio), "--dry-run"],
                                env={"COLUMNS": "80"})
    assert result.exit_code == 0 and len(result.stdout.splitlines()) > 10
    assert all(width(line) <= 80 for line in result.stdout.splitlines())
