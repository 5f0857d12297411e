"""What reaches the terminal: escaped control characters, NO_COLOR, -q/-v, columns
padded by display width, plurals."""

import orjson
import pytest
from click.testing import CliRunner

import degen
from degen.cli import main
from degen.present.text import render_text
from degen.present.terminal import pad, plural, safe, shorten, width

from ..conftest import FIXTURES

SEED = FIXTURES / "seed"
ESC_TITLE = "\x1b]0;pwned\x07"


def run(*args, **kw):
    return CliRunner().invoke(main, [str(a) for a in args], **kw)


def hostile(tmp_path):
    """A looping transcript whose text, speaker and file name carry escape sequences."""
    segs = [{"start": i * 1.0, "end": i + 1.0, "speaker": "S01" + ESC_TITLE, "text": "go \x1b[2J" * 20}
            for i in range(8)]
    path = tmp_path / ("evil\x1b[31m.json")
    path.write_bytes(orjson.dumps({"segments": segs}))
    return path


def test_control_characters_are_escaped(tmp_path):
    path = hostile(tmp_path)
    for args in (("scan", path), ("-v", "scan", path)):
        result = run(*args)
        assert result.exit_code == 1, result.output
        assert "\x1b" not in result.output and "\x07" not in result.output
        assert "\\x1b" in result.output  # shown, not hidden
    missing = run("scan", tmp_path / "gone\x1b]0;t\x07.json")
    assert missing.exit_code == 2 and "\x1b" not in missing.output and "\\x1b" in missing.output


def test_safe_escapes_c0_c1_del_and_bidi_but_not_text():
    assert safe("好的 ok") == "好的 ok"
    assert safe("a\x1bb\x9bc\x7fd\u202ee\nf") == "a\\x1bb\\x9bc\\x7fd\\u202ee\\x0af"


def test_no_color_is_honoured():
    coloured = run("scan", SEED / "degenerate.json", color=True)
    assert "\x1b[" in coloured.output  # the check below can fail
    plain = run("scan", SEED / "degenerate.json", color=True, env={"NO_COLOR": "1"})
    assert plain.exit_code == 1 and "\x1b[" not in plain.output and "DEGENERATE" in plain.output
    error = run("scan", "missing.json", color=True, env={"NO_COLOR": "1"})
    assert error.exit_code == 2 and "\x1b[" not in error.output


def test_quiet_prints_only_the_verdict_and_verbose_adds_detail():
    quiet = run("-q", "scan", SEED / "degenerate.json")
    assert quiet.exit_code == 1 and len(quiet.output.strip().splitlines()) == 1
    assert "DEGENERATE" in quiet.output
    normal = run("scan", SEED / "degenerate.json")
    verbose = run("--verbose", "scan", SEED / "degenerate.json")
    assert len(verbose.output.splitlines()) > len(normal.output.splitlines()) > 1
    assert "evidence:" in verbose.output and "evidence:" not in normal.output
    assert run("-q", "-v", "scan", SEED / "clean.json").exit_code == 2


def test_columns_line_up_by_display_width():
    assert width("好的，我们") == 10 and width("ok") == 2 and width("e\u0301") == 1
    assert width(pad("好的", 8)) == 8 and width(shorten("的" * 30, 10)) <= 10
    report = degen.scan(SEED / "degenerate.json")
    assert any(f.unit and width(f.unit) > len(f.unit) for f in report.findings)  # a CJK unit is there
    lines = render_text(report).splitlines()
    header = next(line for line in lines if "EXCERPT" in line)
    column = width(header[:header.index("EXCERPT")])
    rows = lines[2:2 + len(report.findings)]
    for f, row in zip(report.findings, rows):
        excerpt = shorten(f.excerpt, 48)
        assert width(row[:row.rindex(excerpt)]) == column, row


@pytest.mark.parametrize("n, text", [(0, "0 findings"), (1, "1 finding"), (2, "2 findings")])
def test_plurals(n, text):
    assert plural(n, "finding") == text


def test_summary_says_1_finding():
    result = run("scan", FIXTURES / "shapes" / "loops" / "zh_char.json")
    assert "1 finding" in result.output and "1 findings" not in result.output
