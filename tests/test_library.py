"""Library traps: what a str means, indexing past the end, metrics shaped as in the JSON."""

import json
import os

import pytest

import degen
from degen.report import Repetition

from .conftest import FIXTURES

SEED = FIXTURES / "seed"


def test_a_str_is_a_path_only_when_the_file_exists(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = "we met at noon and read notes.txt"
    assert degen.read(text).text == text  # not "no such file"
    assert degen.read("notes.txt").text == "notes.txt"
    (tmp_path / "real.txt").write_text("hello from a file", encoding="utf-8")
    assert degen.read("real.txt").text == "hello from a file"
    assert degen.scan("real.txt").source == "real.txt"
    assert degen.scan(text).source == "<text>"
    with pytest.raises(degen.FormatError, match="no such file"):
        degen.read(tmp_path / "missing.txt")  # a PathLike is always a path


class Where(os.PathLike):
    def __init__(self, path):
        self.path = path

    def __fspath__(self):
        return str(self.path)


def test_any_pathlike_is_a_path():
    assert len(degen.read(Where(SEED / "clean.json"))) == 623


@pytest.mark.parametrize("source", [SEED / "clean.json", "[0.0][S01]hello[1.0][1.0][S02]there[2.0]"])
def test_indexing_past_the_end_raises(source):
    transcript = degen.read(source)
    n = len(transcript)
    assert transcript[n - 1] == transcript[-1] and transcript[-n] == transcript[0]
    with pytest.raises(IndexError):
        transcript[n]
    with pytest.raises(IndexError):
        transcript[-n - 1]


def test_columnar_transcript_does_not_wrap():
    transcript = degen.read(SEED / "degenerate.json")
    assert transcript._segments is None  # the columnar path is the one tested
    with pytest.raises(IndexError):
        transcript[len(transcript)]


def test_metrics_max_repetition_has_the_json_shape():
    report = degen.scan(SEED / "degenerate.json")
    rep = report.metrics.max_repetition
    assert (rep.unit, rep.count) == ("的", 102)
    assert report.metrics.to_dict()["max_repetition"] == {"unit": rep.unit, "count": rep.count}
    assert json.loads(report.to_json())["metrics"]["max_repetition"] == rep.to_dict()
    assert rep == 102 and f"{rep}" == "102" and report.metrics.max_repetition_unit == "的"  # old reads
    assert Repetition(None, 0).to_dict() == {"unit": None, "count": 0}


def test_skipped_lines_reach_text_and_json_reports():
    from degen.present.text import render_text
    transcript = degen.read("[0.0][S01]hello[1.0]")
    marked = type(transcript)(transcript.segments, transcript.format, {**transcript.meta, "skipped_lines": 3})
    report = degen.scan(marked)
    assert report.to_dict()["skipped_lines"] == 3
    assert "3 lines skipped" in render_text(report)
    assert "skipped_lines" not in degen.scan(transcript).to_dict()
    one = type(transcript)(transcript.segments, transcript.format, {"skipped_lines": 1})
    assert "1 line skipped" in render_text(degen.scan(one))


def test_a_report_survives_pickling_as_scan_jobs_sends_it():
    """`degen scan --jobs N` returns reports from worker processes: a report that cannot
    be unpickled would hang the pool."""
    import pickle
    report = degen.scan(FIXTURES / "shapes" / "loops" / "zh_char.json")
    back = pickle.loads(pickle.dumps(report))
    assert back.metrics.max_repetition.to_dict() == report.metrics.max_repetition.to_dict()
    assert back.to_json() == report.to_json()
