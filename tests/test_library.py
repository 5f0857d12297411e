"""Library traps: a str is a path (text has scan_text / read_text), indexing past the end, metrics shaped as in the JSON."""

import json
import os

import pytest

import degen
from degen.report import Repetition

from .conftest import FIXTURES

SEED = FIXTURES / "seed"


def test_a_str_is_always_a_path_and_a_missing_one_is_an_error(tmp_path, monkeypatch):
    """A typo in a pipeline is an error, never a transcript called clean."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(degen.FormatError, match="nonexistent.json: no such file"):
        degen.scan("nonexistent.json")
    with pytest.raises(degen.FormatError, match="no such file"):
        degen.read("we met at noon and read notes.txt")
    (tmp_path / "real.txt").write_text("hello from a file", encoding="utf-8")
    assert degen.read("real.txt").text == "hello from a file"
    assert degen.scan("real.txt").source == "real.txt"
    with pytest.raises(degen.FormatError, match="no such file"):
        degen.read(tmp_path / "missing.txt")  # a PathLike is a path too


def test_text_goes_through_functions_of_its_own():
    text = "we met at noon and read notes.txt"
    assert degen.read_text(text).text == text
    report = degen.scan_text(text)
    assert report.source == "<text>" and not report.degenerate
    assert degen.scan_text("[0.0][S01]" + "的" * 102 + "[4.0]", name="row 3").source == "row 3"


@pytest.mark.parametrize("text", ["[0.0][S01]hello[1.0]\n[1.0][S02]there[2.0]", "a" * 5000])
def test_text_given_as_a_path_names_the_function_for_text(text):
    with pytest.raises(degen.ConfigError, match=r"not a path: use degen\.scan_text"):
        degen.scan(text)
    with pytest.raises(degen.ConfigError, match="read_text"):
        degen.read(text)


def test_help_shows_the_functions_on_its_first_screen():
    import pydoc
    first_screen = "\n".join(pydoc.plaintext.document(degen).splitlines()[:24])
    for name in ("scan(path)", "scan_text(text)", "read(path)", "fix(path", "write(transcript", "scan_batch("):
        assert name in first_screen, name


def test_dir_shows_the_public_names_not_the_packages_imports():
    names = dir(degen)
    assert {"scan", "scan_text", "read", "read_text", "fix", "Report", "DegenError", "formats"} <= set(names)
    for internal in ("os", "Path", "importlib", "dataclasses", "annotations", "_LAZY"):
        assert internal not in names, internal
    for name in degen.__all__:  # every public name resolves
        assert getattr(degen, name) is not None


def test_metrics_fields_are_named_as_in_the_json():
    report = degen.scan(FIXTURES / "shapes" / "loops" / "zh_char.json")
    import dataclasses
    fields = {f.name for f in dataclasses.fields(report.metrics)}
    assert fields <= set(report.metrics.to_dict()), fields - set(report.metrics.to_dict())


class Where(os.PathLike):
    def __init__(self, path):
        self.path = path

    def __fspath__(self):
        return str(self.path)


def test_any_pathlike_is_a_path():
    assert len(degen.read(Where(SEED / "clean.json"))) == 623


@pytest.mark.parametrize("source", [SEED / "clean.json", "[0.0][S01]hello[1.0][1.0][S02]there[2.0]"])
def test_indexing_past_the_end_raises(source):
    transcript = degen.read(source) if isinstance(source, os.PathLike) else degen.read_text(source)
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
    transcript = degen.read_text("[0.0][S01]hello[1.0]")
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
