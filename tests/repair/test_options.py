"""One source for the numbers that shape a repair: the library, the planner and the
command line all take theirs from RepairOptions."""

import inspect
from dataclasses import fields

import degen
from degen.cli.repairing import fix as fix_command
from degen.repair.fix import repair
from degen.options import DEFAULT, RepairOptions
from degen.repair.plan import make_plan


def test_every_entry_point_defaults_to_the_options():
    for function in (degen.fix, repair, make_plan):
        params = inspect.signature(function).parameters
        for f in fields(RepairOptions):
            if f.name in params:
                assert params[f.name].default == getattr(DEFAULT, f.name), (function.__name__, f.name)


def test_the_command_line_takes_default_and_help_from_the_options():
    options = {p.name: p for p in fix_command.params}
    shown = [f for f in fields(RepairOptions) if f.name in options]
    assert {f.name for f in shown} >= {"pad", "max_span", "concurrency"}
    for f in shown:
        assert options[f.name].default == getattr(DEFAULT, f.name)
        assert options[f.name].help == RepairOptions.help(f.name)
