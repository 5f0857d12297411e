"""Advice that fits where the transcript came from: the GPU remark only for a GPU model
server's output, no `degen fix -` (fix reads files), and degen filter for a manifest."""

from click.testing import CliRunner

import degen
from degen.cli import main

from ..conftest import FIXTURES

LOOP = "的" * 40
CONSOLE = f"[00:00:00.000 --> 00:00:05.000]   {LOOP}\n[00:00:05.000 --> 00:00:07.000]   好的。\n"


def advice(report):
    return " ".join(report.advice)


def test_gpu_advice_only_for_a_gpu_servers_output():
    assert "another GPU" in advice(degen.scan(FIXTURES / "seed" / "degenerate.json"))  # SGLang-Omni verbose_json
    assert "another GPU" in advice(degen.scan_text(f"[0.0][S01]{LOOP}[5.0]"))  # MOSS markup
    console = degen.scan_text(CONSOLE)  # whisper.cpp's console: often a CPU
    assert console.format == "whisper_console" and console.degenerate
    assert "degen fix" in advice(console) and "GPU" not in advice(console)


def test_stdin_advice_names_a_file_not_dash():
    result = CliRunner().invoke(main, ["scan", "-"], input=CONSOLE)
    assert result.exit_code == 1
    lines = [line for line in result.stdout.splitlines() if "advice:" in line]
    assert lines and not any("degen fix -" in line for line in lines)
    assert any("degen fix FILE" in line and "not stdin" in line for line in lines)


def test_manifest_advice_is_degen_filter(tmp_path):
    import json
    path = tmp_path / "m.jsonl"
    path.write_text(json.dumps({"audio_filepath": "a.wav", "duration": 1.0, "text": "okay " * 20}) + "\n"
                    + json.dumps({"audio_filepath": "b.wav", "duration": 2.0, "text": "hi"}) + "\n")
    text = advice(degen.scan(path))
    assert f"degen filter {path}" in text and "degen fix" not in text and "GPU" not in text
