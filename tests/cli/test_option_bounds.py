"""Absurd but finite repair options are refused at once (exit 2), not carried out: a pad
of 1e308 seconds made every span the whole file, a context of 1e308 sent all the audio."""

import pytest
from click.testing import CliRunner

from degen.cli import main
from degen.errors import ConfigError
from degen.repair.policy import Policy, parse_schedule

from ..conftest import FIXTURES


def test_a_pad_over_one_window_is_an_argument_error(tmp_path):
    result = CliRunner().invoke(main, ["fix", str(FIXTURES / "seed" / "degenerate.json"), "--audio",
                                       str(tmp_path / "a.wav"), "--server", "http://127.0.0.1:9", "--pad", "1e308"])
    assert result.exit_code == 2 and "--pad" in result.output and "Traceback" not in result.output


def test_a_step_context_over_a_minute_is_refused():
    with pytest.raises(ConfigError, match="context 1e\\+308 s is over 60 s"):
        Policy(steps=parse_schedule("0.1+c1e308"))
    assert Policy(steps=parse_schedule("0.1+c4,0.7+c60")).steps[1].context == 60
