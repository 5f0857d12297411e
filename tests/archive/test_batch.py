"""`degen scan` over many files: folders, globs, a process pool, bad files, the summary."""

import json
import shutil

import pytest
from click.testing import CliRunner

from degen.archive import batch
from degen.cli import main

from ..conftest import FIXTURES

LOOPS = FIXTURES / "shapes" / "loops"
NATURAL = FIXTURES / "shapes" / "natural"


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture
def folder(tmp_path):
    """clean and looping transcripts in nested folders, plus files a walk must skip."""
    (tmp_path / "b").mkdir()
    (tmp_path / ".hidden").mkdir()
    shutil.copy(NATURAL / "de_jaja.json", tmp_path / "a_clean.json")
    shutil.copy(LOOPS / "zh_char.json", tmp_path / "b" / "loop.json")
    shutil.copy(LOOPS / "en_phrase.srt", tmp_path / "b" / "phrase.srt")
    shutil.copy(NATURAL / "en_chorus.srt", tmp_path / "c_chorus.srt")
    (tmp_path / "notes.wav").write_bytes(b"RIFF")
    (tmp_path / "x.json.degen.json").write_text("{}")
    (tmp_path / ".hidden" / "h.json").write_text("{}")
    shutil.copy(LOOPS / "zh_char.json", tmp_path / ".dot.json")
    return tmp_path


def test_a_folder_is_walked_for_transcripts_only(folder):
    names = [p[len(str(folder)) + 1:] for p in batch.expand([str(folder)])]
    assert names == ["a_clean.json", "c_chorus.srt", "b/loop.json", "b/phrase.srt"]


def test_globs_walk_matching_folders_and_an_empty_match_is_an_error(folder):
    assert batch.expand([str(folder / "b*")]) == [str(folder / "b" / "loop.json"), str(folder / "b" / "phrase.srt")]
    result = run("scan", str(folder / "*.nothing"))
    assert result.exit_code == 2 and "no file matches" in result.output
    (folder / "empty").mkdir()
    result = run("scan", folder / "empty")
    assert result.exit_code == 2 and "no transcript files" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_json_lines_in_input_order_go_on_past_a_bad_file(folder, jobs):
    (folder / "b" / "bad.json").write_text('{"segments": [{"start": 3, "end": "soon", "text": "x"}]}')
    result = run("scan", "--json", "--jobs", jobs, folder)
    assert result.exit_code == 2 and "Traceback" not in result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["file"] for r in rows] == batch.expand([str(folder)])
    bad = [r for r in rows if "error" in r]
    assert len(bad) == 1 and "segment 0" in bad[0]["error"] and bad[0]["file"].endswith("bad.json")
    assert [r.get("degenerate") for r in rows] == [False, False, None, True, True]
    errors = [line for line in result.stderr.splitlines() if line.startswith("degen: error:")]
    assert len(errors) == 1 and "bad.json" in errors[0]
    summary = json.loads(result.stderr.splitlines()[-1])["summary"]
    assert summary["files"] == 5 and summary["errors"] == 1 and summary["degenerate"] == 2 and summary["clean"] == 2
    assert summary["by_format"]["srt"] == {"files": 2, "degenerate": 1}
    assert summary["flagged_by_kind"] and summary["flagged_hours"] > 0


def test_pool_and_one_process_give_the_same_reports(folder):
    paths = batch.expand([str(folder)]) + [str(LOOPS / "en_cycle.json")] * 6
    one = [r.to_dict() for r in batch.scan_paths(paths, jobs=1)]
    two = [r.to_dict() for r in batch.scan_paths(paths, jobs=2)]
    assert one == two and len(one) == len(paths)


def test_text_mode_prints_advice_once_and_a_summary_line(tmp_path):
    for name in ("one", "two", "three"):
        shutil.copy(LOOPS / "zh_char.json", tmp_path / f"{name}.json")
    result = run("scan", tmp_path)
    assert result.exit_code == 1
    advice = [line for line in result.stdout.splitlines() if line.startswith("  advice:")]
    assert advice and len(advice) == len(set(advice)) and any("degen fix FILE" in a for a in advice)
    assert result.stderr.splitlines()[-1].startswith("3 files: 3 degenerate, 0 clean, 0 errors")


def test_one_file_keeps_its_own_name_in_the_advice_and_prints_no_summary():
    result = run("scan", LOOPS / "zh_char.json")
    assert result.exit_code == 1 and f"degen fix {LOOPS / 'zh_char.json'}" in result.stdout
    assert result.stderr == ""


def test_a_crash_in_one_file_is_reported_and_the_rest_go_on(monkeypatch, folder):
    import degen
    real = degen.scan

    def scan(transcript, *args, name=None, **kw):
        if name.endswith("loop.json"):
            raise ValueError("boom")
        return real(transcript, *args, name=name, **kw)

    monkeypatch.setattr(degen, "scan", scan)
    results = list(batch.scan_paths(batch.expand([str(folder)])))
    assert [r.error is None for r in results] == [True, True, False, True]
    assert "ValueError: boom" in results[2].error and "loop.json" in results[2].error and "bug" in results[2].error
    assert results[2].trace and "ValueError" in results[2].trace


def test_jobs_zero_means_every_core():
    assert batch.resolve_jobs(0) >= 1 and batch.resolve_jobs(3) == 3
