"""The slow marker: registered (an unknown mark would only warn), and `make test` runs
every test, slow ones included; `pytest -m "not slow"` is the quick check."""

import re
import tomllib

from .conftest import ROOT


def test_the_slow_marker_is_registered():
    options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert any(m.startswith("slow:") for m in options["markers"])


def test_make_test_runs_every_test():
    makefile = (ROOT / "Makefile").read_text()
    recipe = makefile.split("\ntest: ", 1)[1].split("\n\n", 1)[0]
    (command,) = [line for line in recipe.splitlines() if "pytest" in line]
    arguments = command.split("pytest", 1)[1]  # (python -m pytest: that -m is python's)
    assert not re.search(r"\s-m\b|\s-k\b|--deselect", arguments), command
