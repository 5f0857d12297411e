"""Help as ruff or httpie give it: summaries whole, options in groups, examples that use
real options, choices listed, sizes written as people write them, and a hint where a
global option follows the command."""

import json
import shlex

import pytest
from click.testing import CliRunner

from degen.cli import main
from degen.present.terminal import width

COMMANDS = ("scan", "fix", "filter", "plan")


def run(*args, columns=80):
    return CliRunner().invoke(main, [str(a) for a in args], env={"COLUMNS": str(columns)})


def test_top_help_shows_every_command_summary_whole():
    text = run("--help").output
    commands = text.split("Commands:")[1].split("Examples:")[0]
    assert "..." not in commands
    listed = " ".join(commands.split())
    for name in COMMANDS:
        assert " ".join(main.commands[name].short_help.split()) in listed, name


@pytest.mark.parametrize("name", COMMANDS)
def test_each_commands_help_fits_80_columns_and_has_examples(name):
    result = run(name, "--help")
    assert result.exit_code == 0
    assert all(width(line) <= 80 for line in result.output.splitlines()), name
    assert "Examples:" in result.output


@pytest.mark.parametrize("name", COMMANDS)
def test_every_example_uses_options_the_command_has(name):
    """An example is a command line that parses: each of its options is the command's own
    (or degen's, before the command name)."""
    command = main.commands[name]
    own = {opt for p in command.params for opt in (*p.opts, *p.secondary_opts)}
    own |= {opt for p in main.params for opt in p.opts}
    for line, _ in command.examples:
        words = shlex.split(line.split(">")[0])
        words = words[words.index("degen") + 1:]
        assert name in words, line
        for word in words:
            if word.startswith("-") and word != "-":
                assert word in own, (line, word)


def test_fix_help_groups_its_options():
    text = run("fix", "--help").output
    titles = [line[:-1] for line in text.splitlines() if line.endswith(":") and not line.startswith(" ")]
    assert titles[:6] == ["Input and output", "Server", "Decoding", "Spans", "Detection thresholds", "Other options"]
    server = text.split("Server:")[1].split("Decoding:")[0]
    assert "--server" in server and "--api-key" in server and "--min-repeats" not in server
    thresholds = text.split("Detection thresholds:")[1].split("Other options:")[0]
    assert "--min-repeats " in thresholds and "--fail-on" in thresholds and "--pad" not in thresholds


def test_choices_are_listed_and_every_option_says_what_it_is():
    plan = run("plan", "--help").output
    assert "[bf16|fp16|fp32|fp8|int8]" in plan
    for name in COMMANDS:  # every option says what it is (plan's model options said nothing)
        for param in main.commands[name].params:
            if param.param_type_name == "option" and param.name != "fmt":  # --format's: made when shown
                assert param.help, (name, param.name)
    scan = " ".join(run("scan", "--help").output.split())
    for name in ("moss", "sglang_verbose", "srt", "whisper_console", "manifest", "text"):
        assert f" {name}," in scan or f" {name} " in scan, name


@pytest.mark.parametrize("size", ["24", "24GB", "24GiB", "24g", "24 GB", "24.0"])
def test_gpu_memory_is_accepted_as_people_write_it(size):
    result = run("plan", "--gpu-mem", size, "--json")
    assert result.exit_code == 0 and json.loads(result.output)["gpu_mem_gib"] == 24


@pytest.mark.parametrize("size", ["24MB", "lots", "-24", "inf"])
def test_a_gpu_memory_that_is_not_one_says_how_to_write_it(size):
    result = run("plan", "--gpu-mem", size)
    assert result.exit_code == 2 and "--gpu-mem" in result.output
    assert "give GiB as a number" in result.output or "outside 0 < GiB" in result.output


@pytest.mark.parametrize("option", ["-v", "--verbose", "-q", "--quiet"])
def test_a_global_option_after_the_command_says_where_it_goes(option, tmp_path):
    result = run("scan", option, tmp_path / "x.json")
    assert result.exit_code == 2
    assert f"degen {option} scan" in result.output and "goes before the command" in result.output


def test_other_unknown_options_keep_clicks_message():
    result = run("scan", "--jsn", "x.json")
    assert result.exit_code == 2 and "No such option" in result.output and "before the command" not in result.output


def test_plans_model_names_are_the_capacity_tables():
    from degen import capacity
    from degen.cli import planning
    assert planning.MODELS == tuple(capacity.MODELS)
