"""A manifest scan names each flagged row by its line in the file and its audio_filepath
(in the table, the JSON and the HTML), counts no repeated segment across utterances, points
a bad line to degen filter, and folders are walked for every line-based format."""

import json
import shutil

from click.testing import CliRunner

import degen
from degen.cli import main

from ..conftest import FIXTURES

LOOP = "okay " * 17
ROWS = [
    {"audio_filepath": "clips/a.wav", "duration": 2.0, "text": "thank you."},
    None,  # a blank line: line numbers count it
    {"audio_filepath": "clips/b.wav", "duration": 1.0, "text": LOOP},
    {"audio_filepath": "clips/c.wav", "duration": 2.0, "text": "thank you."},
    {"audio_filepath": "clips/d.wav", "duration": 2.0, "text": "thank you."},
]


def write(path, rows=ROWS):
    path.write_text("".join("\n" if r is None else json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def run(*args, **kw):
    return CliRunner().invoke(main, [str(a) for a in args], **kw)


def test_the_json_names_the_line_and_audio_of_each_finding(tmp_path):
    row = json.loads(run("scan", "--json", write(tmp_path / "m.jsonl")).stdout)
    (finding,) = row["findings"]
    assert (finding["line"], finding["audio_filepath"]) == (3, "clips/b.wav")  # utterance 2 is on line 3: the blank line counts


def test_the_table_names_the_line_and_audio_not_a_clip_relative_time(tmp_path):
    result = run("scan", write(tmp_path / "m.jsonl"))
    assert result.exit_code == 1
    header, row = result.stdout.splitlines()[1:3]
    assert header.split()[:2] == ["LINE", "AUDIO"] and "TIME" not in header
    assert row.split()[:2] == ["3", "clips/b.wav"]


def test_the_html_names_the_line_and_audio(tmp_path):
    page = tmp_path / "r.html"
    run("scan", write(tmp_path / "m.jsonl"), "--html", page)
    html = page.read_text(encoding="utf-8")
    assert "<th>line</th><th>audio</th>" in html and "<td>3</td><td>clips/b.wav</td>" in html


def test_the_same_sentence_in_neighbouring_utterances_is_no_repeated_segment(tmp_path):
    report = degen.scan(write(tmp_path / "m.jsonl"))
    assert report.metrics.consecutive_repeated_segments == 0  # c and d: two recordings that say "thank you."
    line = run("scan", tmp_path / "m.jsonl").stdout.splitlines()[0]
    assert "utterances 4" in line and "consecutive repeated segments" not in line


def test_rows_are_named_alike_when_a_large_manifest_is_read_in_pieces(tmp_path, monkeypatch):
    from degen.formats import streamed
    monkeypatch.setattr(streamed, "STREAMED_BYTES", 1)  # the piecewise reader, for a small file
    row = json.loads(run("scan", "--json", write(tmp_path / "m.jsonl")).stdout)
    assert [(f["line"], f["audio_filepath"]) for f in row["findings"]] == [(3, "clips/b.wav")]


def test_one_bad_line_points_to_degen_filter(tmp_path):
    path = write(tmp_path / "m.jsonl", ROWS[:3] + [{"audio_filepath": "x.wav", "duration": 1, "text": 5}])
    result = run("scan", path)
    assert result.exit_code == 2 and "line 4," in result.output and "degen filter" in result.output
    assert "Traceback" not in result.output


def test_a_folder_is_walked_for_every_line_based_format(tmp_path):
    loops = FIXTURES / "shapes" / "loops"
    write(tmp_path / "m.jsonl")
    (tmp_path / "w.tsv").write_text("start\tend\ttext\n0\t5000\t" + "的" * 40 + "\n", encoding="utf-8")
    (tmp_path / "w.csv").write_text("start,end,text\n0.0,5.0," + "的" * 40 + "\n", encoding="utf-8")
    (tmp_path / "s.lrc").write_text("[00:01.00]" + "的" * 40 + "\n[00:06.00]end\n", encoding="utf-8")
    shutil.copy(loops / "zh_char.json", tmp_path / "z.json")
    result = run("scan", "--json", tmp_path)
    names = sorted(json.loads(line)["file"].rsplit("/", 1)[-1] for line in result.stdout.splitlines())
    assert names == ["m.jsonl", "s.lrc", "w.csv", "w.tsv", "z.json"]


def test_the_reports_file_written_into_the_folder_is_not_scanned_next_time(tmp_path):
    shutil.copy(FIXTURES / "shapes" / "loops" / "zh_char.json", tmp_path / "z.json")
    out = tmp_path / "reports.jsonl"
    for _ in range(2):
        result = run("scan", tmp_path, "-o", out)
        assert result.exit_code == 1, result.output
        assert [json.loads(line)["file"].rsplit("/", 1)[-1] for line in out.read_text().splitlines()] == ["z.json"]
