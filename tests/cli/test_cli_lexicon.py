"""`--lexicon PATH` on scan and fix: another hallucination lexicon, and a bad one refused
in one line naming the line, before any work."""

import json

from click.testing import CliRunner

from degen.cli import main

CREDITS = ("1\n00:00:00,000 --> 00:00:04,000\nWe shipped the release today.\n\n"
           "2\n00:00:04,500 --> 00:00:09,000\nAnd the tests are green.\n\n"
           "3\n00:00:20,000 --> 00:00:50,000\nBrought to you by the Polish Foundation.\n")


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_scan_uses_the_lexicon_given(tmp_path):
    srt = tmp_path / "talk.srt"
    srt.write_text(CREDITS, encoding="utf-8")
    lexicon = tmp_path / "mine.tsv"
    lexicon.write_text("# [pf] our own outro, seen on our silent tails\n"
                       "en\tBrought to you by the Polish Foundation\tpf\n", encoding="utf-8")
    assert run("scan", srt).exit_code == 0  # the packaged lexicon does not know it
    result = run("scan", "--json", "--lexicon", lexicon, srt)
    assert result.exit_code == 1
    kinds = [f["kind"] for f in json.loads(result.output)["findings"]]
    assert kinds == ["hallucination"]


def test_a_bad_lexicon_is_one_line_naming_the_line(tmp_path):
    srt = tmp_path / "talk.srt"
    srt.write_text(CREDITS, encoding="utf-8")
    bad = tmp_path / "bad.tsv"
    bad.write_text("# [pf] cited\nen\tfine row\tpf\nen\tmissing its source\n", encoding="utf-8")
    uncited = tmp_path / "uncited.tsv"
    uncited.write_text("# [pf] cited\nen\tthanks\tnobody\n", encoding="utf-8")
    for command in (["scan", srt], ["fix", srt, "--audio", tmp_path / "a.wav", "--dry-run"]):
        for path, says in ((bad, "line 3"), (uncited, "line 2"), (tmp_path / "absent.tsv", "cannot read")):
            result = run(*command[:1], "--lexicon", path, *command[1:])
            assert result.exit_code == 2, (command, path, result.output)
            lines = [line for line in result.output.splitlines() if line.strip()]
            assert len(lines) == 1 and str(path) in lines[0] and says in lines[0], result.output
            assert "Traceback" not in result.output
