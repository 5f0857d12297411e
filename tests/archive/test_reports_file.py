"""`degen scan ... --output FILE`: reports in input order, written atomically, and an
interrupted run that resumes without scanning again what it had done."""

import dataclasses
import json
import os
import shutil

import pytest
from click.testing import CliRunner

from degen.archive import batch, reports as reports_file
from degen.cli import main
from degen.errors import ConfigError

from ..conftest import FIXTURES

SHAPES = FIXTURES / "shapes"


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture
def folder(tmp_path):
    """Twelve transcripts, clean and looping, of several formats."""
    files = sorted(p for sub in ("loops", "natural") for p in (SHAPES / sub).iterdir()
                   if p.suffix in batch.KNOWN_EXTENSIONS)[:12]
    target = tmp_path / "in"
    target.mkdir()
    for i, path in enumerate(files):
        shutil.copy(path, target / f"{i:02d}_{path.name}")
    return target


class Interrupt:
    """``batch.scan_path`` that is Ctrl-C'd at its ``at``-th call (counting every call)."""

    def __init__(self, at=None):
        self.at, self.calls, self.real = at, [], batch.scan_path

    def __call__(self, path, settings):
        self.calls.append(path)
        if self.at is not None and len(self.calls) == self.at:
            raise KeyboardInterrupt
        return self.real(path, settings)


def scan_into(output, folder, monkeypatch, spy=None, settings=batch.Settings()):
    spy = spy or Interrupt()
    monkeypatch.setattr(batch, "scan_path", spy)
    lines = []
    code = reports_file.run(batch.expand([str(folder)]), settings, output, jobs=1, err=lines.append,
                            out=lines.append)
    return code, spy, lines


def test_reports_come_in_input_order_as_json_lines_equal_to_json_output(folder, tmp_path):
    output = tmp_path / "reports.jsonl"
    result = run("scan", folder, "--output", output)
    assert result.exit_code == 1 and "Traceback" not in result.output
    as_json = run("scan", "--json", folder)
    assert output.read_text().splitlines() == as_json.stdout.splitlines()
    assert [json.loads(line)["file"] for line in output.read_text().splitlines()] == batch.expand([str(folder)])
    assert not reports_file.journal_path(output).exists()
    assert f"reports in {output}" in result.stderr


def test_an_interrupted_run_resumes_and_scans_only_what_it_had_not(folder, tmp_path, monkeypatch):
    whole = tmp_path / "whole.jsonl"
    scan_into(whole, folder, monkeypatch)
    output = tmp_path / "reports.jsonl"
    output.write_text("an earlier FILE\n")
    with pytest.raises(KeyboardInterrupt):
        scan_into(output, folder, monkeypatch, Interrupt(at=6))
    assert output.read_text() == "an earlier FILE\n"  # replaced only once complete
    journal = reports_file.journal_path(output).read_text().splitlines()
    assert len(journal) == 1 + 5  # the header, then the five files done
    code, spy, lines = scan_into(output, folder, monkeypatch)
    paths = batch.expand([str(folder)])
    assert spy.calls == paths[5:]
    assert output.read_bytes() == whole.read_bytes()
    assert code == 1 and "5 reused from an earlier run" in lines[-1]
    assert lines[-1].startswith("12 files:")


def test_a_file_changed_since_is_scanned_again(folder, tmp_path, monkeypatch):
    output = tmp_path / "reports.jsonl"
    with pytest.raises(KeyboardInterrupt):
        scan_into(output, folder, monkeypatch, Interrupt(at=4))
    paths = batch.expand([str(folder)])
    shutil.copy(SHAPES / "loops" / "zh_char.json", paths[0])
    os.utime(paths[0], ns=(1, 1))
    _, spy, _ = scan_into(output, folder, monkeypatch)
    assert spy.calls == [paths[0]] + paths[3:]
    first = json.loads(output.read_text().splitlines()[0])
    assert first["file"] == paths[0] and first["degenerate"] is True


def test_other_settings_start_over(folder, tmp_path, monkeypatch):
    output = tmp_path / "reports.jsonl"
    with pytest.raises(KeyboardInterrupt):
        scan_into(output, folder, monkeypatch, Interrupt(at=4))
    other = batch.Settings(dataclasses.replace(batch.DEFAULT, min_repeats=3))
    _, spy, _ = scan_into(output, folder, monkeypatch, settings=other)
    assert spy.calls == batch.expand([str(folder)])


def test_a_line_cut_by_a_crash_is_dropped_and_its_file_scanned_again(folder, tmp_path, monkeypatch):
    output = tmp_path / "reports.jsonl"
    with pytest.raises(KeyboardInterrupt):
        scan_into(output, folder, monkeypatch, Interrupt(at=5))
    journal = reports_file.journal_path(output)
    data = journal.read_bytes()
    journal.write_bytes(data[:-40])  # the fourth file's line, half written
    _, spy, _ = scan_into(output, folder, monkeypatch)
    paths = batch.expand([str(folder)])
    assert spy.calls == paths[3:]
    assert len(output.read_text().splitlines()) == len(paths)


def test_files_that_could_not_be_read_are_tried_again(folder, tmp_path, monkeypatch):
    bad = folder / "00_bad.json"
    bad.write_text('{"segments": [{"start": 3, "end": "soon", "text": "x"}]}')
    output = tmp_path / "reports.jsonl"
    code, _, lines = scan_into(output, folder, monkeypatch)
    assert code == 2 and any("00_bad.json" in line and "segment 0" in line for line in lines)
    with pytest.raises(KeyboardInterrupt):
        scan_into(output, folder, monkeypatch, Interrupt(at=3))
    _, spy, _ = scan_into(output, folder, monkeypatch)
    assert spy.calls[0] == str(bad)
    rows = [json.loads(line) for line in output.read_text().splitlines()]
    assert "error" in rows[0] and all("error" not in r for r in rows[1:])


def test_the_reports_file_must_not_be_an_input(folder, monkeypatch):
    target = folder / "00_reports.json"
    target.write_text("{}")
    with pytest.raises(ConfigError, match="one of the files to scan"):
        scan_into(target, folder, monkeypatch)
    assert target.read_text() == "{}"


def test_html_and_output_together_are_refused(folder, tmp_path):
    result = run("scan", folder, "--output", tmp_path / "r.jsonl", "--html", tmp_path / "r.html")
    assert result.exit_code == 2 and "--output" in result.output and "Traceback" not in result.output


def test_a_pool_resumes_too(folder, tmp_path):
    output = tmp_path / "reports.jsonl"
    first = run("scan", folder, "--output", output, "--jobs", "2")
    again = run("scan", folder, "--output", output, "--jobs", "2")  # a finished run starts anew
    assert first.exit_code == again.exit_code == 1
    assert [json.loads(line)["file"] for line in output.read_text().splitlines()] == batch.expand([str(folder)])


def test_a_damaged_journal_line_is_scanned_again_with_all_after_it(folder, tmp_path, monkeypatch):
    whole = tmp_path / "whole.jsonl"
    scan_into(whole, folder, monkeypatch)
    output = tmp_path / "reports.jsonl"
    with pytest.raises(KeyboardInterrupt):
        scan_into(output, folder, monkeypatch, Interrupt(at=6))
    journal = reports_file.journal_path(output)
    lines = journal.read_bytes().splitlines(keepends=True)
    lines[2] = b"x" * (len(lines[2]) - 1) + b"\n"  # the second file's line, overwritten
    journal.write_bytes(b"".join(lines))
    _, spy, _ = scan_into(output, folder, monkeypatch)
    assert spy.calls == batch.expand([str(folder)])[1:]
    assert output.read_bytes() == whole.read_bytes()


@pytest.mark.parametrize("target", ["-", "/dev/null"])
def test_stdout_or_a_device_is_refused_and_left_as_it_was(folder, target):
    before = os.stat(target).st_mode if target != "-" else None
    result = run("scan", folder, "--output", target)
    assert result.exit_code == 2 and "--json" in result.output and "Traceback" not in result.output
    if before is not None:
        assert os.stat(target).st_mode == before and not os.path.exists(target + ".partial")
    else:
        assert not os.path.exists("-") and not os.path.exists("-.partial")
