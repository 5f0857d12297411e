"""What the fuzzers found, one test each (tests/formats/test_fuzz_inputs.py and
tests/cli/test_cli_fuzz_inputs.py find such things; these hold each one fixed)."""

import codecs
import json
import time

import pytest
from click.testing import CliRunner

import degen
from degen import formats
from degen.cli import main

from ..conftest import FIXTURES

SRT = (FIXTURES / "shapes" / "loops" / "en_phrase.srt").read_text(encoding="utf-8")


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_a_csv_field_over_131072_characters_is_read_not_an_internal_error(tmp_path):
    path = tmp_path / "long.csv"
    path.write_text("start,end,text\n0.0,5.0," + "a" * 140_000 + "\n5.0,6.0,hi\n", encoding="utf-8")
    result = run("scan", path)
    assert result.exit_code == 1 and "a x140000" in result.output  # was exit 4: "field larger than field limit"


def test_a_quarantined_line_nested_too_deep_to_carry_a_field_keeps_its_line_beside_the_verdict(tmp_path):
    deep = "[" * 300 + "]" * 300
    lines = [f'{{"audio_filepath": "a.wav", "duration": 1.0, "text": "{"okay " * 40}", "meta": {deep}}}',
             f'{{"audio_filepath": "c.wav", "duration": 1.0, "meta": {deep}}}',
             '{"audio_filepath": "b.wav", "duration": 1.0, "text": "ok"}']
    manifest = tmp_path / "m.jsonl"
    manifest.write_text("\n".join(lines) + "\n")
    result = run("filter", manifest, "--keep", tmp_path / "k.jsonl", "--quarantine", tmp_path / "q.jsonl")
    assert result.exit_code == 1, result.output  # was exit 4: "Recursion limit reached"
    quarantined = [json.loads(line)["degen"] for line in (tmp_path / "q.jsonl").read_text().splitlines()]
    assert [q["raw"] for q in quarantined] == lines[:2]
    assert quarantined[0]["degenerate"] is True and quarantined[1]["degenerate"] is None


@pytest.mark.parametrize("ends", ["\r", "mixed"])
def test_subtitles_whose_lines_end_in_a_lone_cr_are_subtitles(tmp_path, ends):
    """Classic Mac OS line ends (or a file that mixes them) were sniffed as plain text, and
    the text written back with LF read as SRT: other segments than the input had."""
    text = SRT.replace("\n", "\r") if ends == "\r" else SRT.replace("\n\n", "\r\n\r\n").replace("\n", "\r")
    path = tmp_path / "cr.srt"
    path.write_bytes(text.encode())
    transcript = degen.read(path)
    assert transcript.format == "srt" and [s.text for s in transcript] == [s.text for s in formats.loads(SRT)]
    if ends == "\r":
        assert formats.dumps(transcript) == text  # written back with the line ends it had


def test_a_byte_order_mark_that_does_not_fit_its_bytes_is_refused(tmp_path):
    """A UTF-16 mark over UTF-32 bytes decoded into NULs, read as text and called clean."""
    path = tmp_path / "odd.srt"
    path.write_bytes(codecs.BOM_UTF16_LE + SRT.encode("utf-32-le"))
    with pytest.raises(degen.FormatError, match="byte-order mark does not fit"):
        degen.read(path)
    path.write_bytes(codecs.BOM_UTF16_LE + SRT.encode("utf-16-le"))  # one that fits: read as the UTF-8 file
    assert [s.text for s in degen.read(path)] == [s.text for s in formats.loads(SRT)]


@pytest.mark.parametrize("hours, start", [("0" * 70_000, 2.0), ("0" * 70_000 + "1", 3602.0), ("9" * 70_000, None)])
def test_a_timecode_of_70000_digits_is_read_or_refused_never_a_traceback(hours, start):
    """int() refuses a digit string past 4,300 digits, leading zeros too (ValueError): a
    zero-padded stamp is its value, a huge one out of range."""
    console = f"[00:00:00.000 --> 00:00:02.000]  hello\n[{hours}:00:02.000 --> 01:00:03.000]  there\n"
    if start is None:
        with pytest.raises(degen.FormatError, match="hours out of range"):
            formats.loads(console)
    else:
        assert formats.loads(console)[1].span.start == start


def test_a_70000_character_line_is_sniffed_at_once():
    """The speaker-label patterns backtracked over a long line of digits and brackets (a fuzzed
    song: 15 s to sniff, 48 s under a profiler)."""
    song = (FIXTURES / "wild" / "clean" / "pt_escravos_de_jo.txt").read_text(encoding="utf-8")
    text = song.replace("Fazem", "Faz" + "0" * 50_000 + "[" * 260 + "]" * 260 + "0" * 20_000 + "em", 1)
    started = time.process_time()
    transcript = formats.loads(text)
    assert time.process_time() - started < 2.0 and transcript.format == "text"
