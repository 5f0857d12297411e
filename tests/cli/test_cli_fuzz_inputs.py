"""Fuzzed files (tests/fuzzing.py) through the command line: `degen scan` (text, JSON and
HTML reports) and, for JSON Lines, `degen filter`, end in exit 0, 1 or 2 with at most one
error line; never exit 4 (an internal error), a traceback or a hang."""

import pytest
from click.testing import CliRunner

from degen.cli import main

from ..fuzzing import Hang, bounded, cases

SEED = 21
COUNT = 1500  # each case runs up to three commands


def run(*args) -> tuple[int, str]:
    result = CliRunner().invoke(main, [str(a) for a in args], env={"COLUMNS": "80"})
    return result.exit_code, result.output


@pytest.mark.slow
def test_fuzzed_files_never_end_in_an_internal_error(tmp_path):
    failures = []
    for number, name, suffix, data in cases(SEED, COUNT):
        path = tmp_path / f"case{suffix}"
        path.write_bytes(data)
        commands = [("scan", path), ("scan", "--json", path)]
        if number % 5 == 0:
            commands.append(("scan", path, "--html", tmp_path / "r.html"))
        if suffix == ".jsonl":
            commands.append(("filter", path, "--keep", tmp_path / "k.jsonl", "--quarantine", tmp_path / "q.jsonl"))
        for command in commands:
            try:
                with bounded():
                    code, output = run(*command)
            except Hang:
                code, output = None, "hang"
            errors = [line for line in output.splitlines() if line.startswith("degen: error")]
            if code not in (0, 1, 2) or "Traceback" in output or "internal error" in output or len(errors) > 1:
                failures.append(f"seed {SEED} case {number} (from {name}) {command[0]}: exit {code}: {output[-400:]}")
    assert not failures, f"{len(failures)} failures:\n" + "\n".join(failures[:20])
