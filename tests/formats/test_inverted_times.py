"""An end before its start is a finding in every format, as in MOSS markup: SRT, WebVTT and
JSON segments refused the whole file for one inverted cue."""

import pytest
from click.testing import CliRunner

import degen
from degen import formats
from degen.cli import main

CUES = [(0.0, 2.0, "hello there"), (5.0, 3.0, "this one is inverted"), (6.0, 7.0, "fine")]


def srt() -> str:
    clock = lambda s: f"00:00:{int(s):02d},{round(s % 1 * 1000):03d}"  # noqa: E731
    return "".join(f"{k}\n{clock(a)} --> {clock(b)}\n{t}\n\n" for k, (a, b, t) in enumerate(CUES, 1))


TEXTS = {
    "moss": "".join(f"[{a}][S01]{t}[{b}]" for a, b, t in CUES),
    "srt": srt(),
    "vtt": "WEBVTT\n\n" + srt().replace(",", "."),
    "segments_json": '{"segments": [' + ", ".join(f'{{"start": {a}, "end": {b}, "text": "{t}"}}' for a, b, t in CUES)
                     + "]}",
}


@pytest.mark.parametrize("name", TEXTS)
def test_an_inverted_segment_is_read_and_reported(name):
    transcript = formats.loads(TEXTS[name])
    assert transcript.format == name and len(transcript) == 3
    assert (transcript[1].span.start, transcript[1].span.end) == (5.0, 3.0)
    (finding,) = degen.scan(transcript).flagged
    assert finding.kind == "inverted" and finding.segments == (1, 1)
    assert [s.text for s in formats.loads(formats.dumps(transcript))] == [t for _, _, t in CUES]


def test_the_command_reports_it_with_exit_1(tmp_path):
    path = tmp_path / "inverted.srt"
    path.write_text(TEXTS["srt"])
    result = CliRunner().invoke(main, ["scan", str(path)])
    assert result.exit_code == 1 and "inverted" in result.output and "error" not in result.output
