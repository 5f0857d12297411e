"""The text report fitted to a terminal: rows never wider than it (excerpts, units and audio
paths cut instead), advice wrapped under its first line, and only the findings that count
listed (those below --fail-on are counted, and listed with --fail-on low)."""

import pytest
from click.testing import CliRunner

import degen
from degen.cli import main
from degen.present.terminal import width
from degen.present.text import render_text

from ..conftest import FIXTURES

WIDE = [FIXTURES / "seed" / "degenerate.json", FIXTURES / "shapes" / "loops" / "zh_char.json",
        FIXTURES / "shapes" / "loops" / "en_sentence.vtt", FIXTURES / "shapes" / "loops" / "ja_char_sep.srt",
        FIXTURES / "shapes" / "loops" / "zh_split.json"]
LOW = ("[0.0][S01]we should meet again next week to decide the budget, we should meet again next week to "
       "decide the budget.[9.0][9.0][S02]Fine.[10.0]")


def body(output: str) -> list[str]:
    """Every line but the verdict (one line per file, whatever the width: tools grep it)."""
    return output.splitlines()[1:]


@pytest.mark.parametrize("path", WIDE, ids=lambda p: p.name)
@pytest.mark.parametrize("columns", [80, 100, 60])
def test_no_row_or_advice_line_is_wider_than_the_terminal(path, columns):
    result = CliRunner().invoke(main, ["-v", "scan", str(path)], env={"COLUMNS": str(columns)})
    assert result.exit_code == 1
    report = degen.scan(path)
    lines = body(result.stdout)
    assert lines and all(width(line) <= columns for line in lines), max(lines, key=width)
    rows = [line for line in lines if line.startswith("  ") and not line.startswith(("   ", "  advice:"))]
    assert len(rows) == 1 + len(report.flagged)  # the header and one row per finding: none wrapped


def test_the_seeds_rows_at_80_columns_cut_the_excerpt_not_the_row():
    result = CliRunner().invoke(main, ["scan", str(FIXTURES / "seed" / "degenerate.json")], env={"COLUMNS": "80"})
    rows = body(result.stdout)[1:6]
    assert all(width(r) <= 80 for r in rows) and any(r.endswith("…") for r in rows)
    assert all(" x" in r for r in rows)  # every unit keeps its count however it is cut
    assert [r.split()[0] for r in rows] == ["07:55.1-09:37.6", "19:59.8-20:04.0", "32:19.9-33:08.0",
                                            "42:13.2-42:52.1", "48:50.6-48:55.1"]


def test_without_a_terminal_lines_are_whole():
    """A pipe or a file gets whole lines (grep finds the advice's command on one line)."""
    result = CliRunner().invoke(main, ["scan", str(FIXTURES / "seed" / "degenerate.json")])
    advice = [line for line in result.stdout.splitlines() if line.startswith("  advice: loops")]
    assert advice and "--audio AUDIO --server URL" in advice[0] and max(map(width, result.stdout.splitlines())) > 100


def test_low_findings_are_counted_not_listed_unless_asked_for(tmp_path):
    path = tmp_path / "low.txt"
    path.write_text(LOW, encoding="utf-8")
    result = CliRunner().invoke(main, ["scan", str(path)])
    assert result.exit_code == 0
    assert "0 findings (1 below --fail-on medium)" in result.stdout.splitlines()[0]
    assert "phrase_loop" not in result.stdout and "1 finding below --fail-on medium not listed" in result.stdout
    listed = CliRunner().invoke(main, ["scan", "--fail-on", "low", str(path)])
    assert listed.exit_code == 1 and "phrase_loop" in listed.stdout and "below" not in listed.stdout
    assert "phrase_loop" in CliRunner().invoke(main, ["scan", "--json", str(path)]).stdout  # JSON holds them all


def test_the_library_renders_natural_widths_without_a_width():
    report = degen.scan(FIXTURES / "seed" / "degenerate.json")
    natural = render_text(report).splitlines()
    assert max(width(line) for line in natural[1:]) > 100
    assert all(width(line) <= 50 for line in render_text(report, width=50).splitlines()[1:])
