"""Every command in the README runs as written, in a fresh shell after its setup line
(`make demo` or `make test`, then `source .venv/bin/activate`): the blocks whose files are
all there are run whole; a command that needs the reader's own files or server is parsed,
so that each of its options is one the command has. Python blocks compile and name only
what the library has. And the README stays at most 300 lines."""

import os
import re
import shlex
import shutil
import subprocess
import sys

import click
import pytest

from degen.cli import main

from .conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
SETUP = ("make demo", "make test", "source .venv/bin/activate", "pip install")
# Files a command may name that the setup makes or the command writes.
MADE = ("out/",)


def blocks(kind: str) -> list[str]:
    return [body for lang, body in FENCE.findall(README) if lang == kind]


def commands(block: str) -> list[str]:
    return [line for line in block.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def words(line: str) -> list[str]:
    """The command's words: no comment, redirection, backgrounding or environment prefix."""
    found = shlex.split(line, comments=True)
    while found and re.fullmatch(r"[A-Z_]+=\S*", found[0]):
        found = found[1:]
    return [w for w in found if w not in ("&", ">") and not w.startswith(">")]


def runnable(block: str) -> bool:
    """Every path a block's commands name is in the checkout, or is one they make."""
    for line in commands(block):
        if line.startswith(SETUP):
            return False
        for word in words(line):
            if "/" in word and not word.startswith(("-", "http")) and not word.startswith(MADE):
                if not (ROOT / word).exists():
                    return False
            elif re.fullmatch(r"[\w.-]+\.(json|wav|srt|txt|jsonl|html)", word):
                return False  # a bare file name: the reader's own (out.json, meeting.wav)
            elif "gpu-box" in word or "example.com" in word:
                return False
    return True


def test_the_readme_is_at_most_300_lines():
    assert README.count("\n") <= 300


def test_the_readme_says_how_to_run_degen_after_setup():
    head = "\n".join(README.splitlines()[:20])
    assert "make demo" in head and "source .venv/bin/activate" in head and ".venv/bin/degen" in head


def _parse(args: list[str]) -> None:
    """Parse a degen command line as click would run it, running nothing."""
    import warnings
    context = main.make_context("degen", list(args), resilient_parsing=False)
    with context, warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # click 9 moves protected_args into args
        name, command, rest = main.resolve_command(context, [*getattr(context, "protected_args", ()), *context.args])
        command.make_context(name, rest, parent=context)


def test_every_degen_command_in_the_readme_names_real_options():
    seen = 0
    for block in blocks("bash"):
        for line in commands(block):
            found = words(line)
            if found and found[0] == "degen":
                seen += 1
                try:
                    _parse(found[1:])
                except click.UsageError as exc:
                    raise AssertionError(f"{line}: {exc.format_message()}") from None
    assert seen >= 12


@pytest.mark.slow
def test_the_readmes_runnable_blocks_run_as_written(tmp_path):
    """Run where a fresh checkout would be after `make demo`: the fixtures there, an out/
    folder, and the virtualenv's degen and python first on the PATH."""
    (tmp_path / "fixtures").symlink_to(ROOT / "fixtures")
    (tmp_path / "out").mkdir()
    env = {**os.environ, "PATH": f"{os.path.dirname(sys.executable)}{os.pathsep}{os.environ['PATH']}"}
    env.pop("COLUMNS", None)
    ran = 0
    for block in blocks("bash"):
        if not runnable(block):
            continue
        script = ["set -u"]
        for number, line in enumerate(commands(block)):
            if line.rstrip().endswith("&") or line.startswith(("while ", "kill ")):
                script.append(line)
            else:  # exit 1 is a finding (scan, filter): the command ran; 2 and more did not
                script.append(f"{line}\nrc=$?; [ $rc -le 1 ] || {{ echo 'line {number} exit '$rc >&2; exit 99; }}")
        done = subprocess.run([shutil.which("bash"), "-c", "\n".join(script)], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"{block}\n--- stderr:\n{done.stderr[-2000:]}"
        ran += 1
    assert ran >= 4
    assert (tmp_path / "out" / "fixed.json").exists() and (tmp_path / "out" / "clean.jsonl").exists()


def test_the_readmes_python_names_only_what_the_library_has():
    import degen
    for block in blocks("python"):
        compile(block, "README.md", "exec")
        for name in re.findall(r"\bdegen\.(\w+)", block):
            assert hasattr(degen, name), name
    assert "degen.scan_text" in README and "degen.read_text" in README
