"""The distribution is installed by a name that is degen's own on PyPI ("degen" there is an
unrelated betting-odds library); the import name and the command stay ``degen``."""

import re
import tomllib

from .conftest import ROOT

DISTRIBUTION = "degen-asr"  # free on PyPI when chosen: https://pypi.org/pypi/degen-asr/json was a 404

# Where a user is told what to install: the docs, the package's own messages, the scripts.
SOURCES = ["README.md", "Makefile", *map(str, ROOT.glob("docs/*.md")), *map(str, ROOT.glob("degen/**/*.py")),
           *map(str, ROOT.glob("scripts/*")), *map(str, ROOT.glob("bench/*.py"))]
# "degen" as a distribution: `pip install degen`, 'degen[ray]', "pip": ["degen..."].
WRONG = re.compile(r"pip install\s+(?:-U\s+)?['\"]?degen(?![-\w])|(?<![-\w/.])degen\[\w|\"pip\": \[\"degen(?![-\w])")


def test_pyproject_names_the_distribution_and_keeps_the_command():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["name"] == DISTRIBUTION
    assert project["scripts"] == {"degen": "degen.cli:main"}


def test_no_install_line_names_the_other_projects_package():
    found = []
    for name in SOURCES:
        path = ROOT / name
        if path.is_file():
            for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
                if WRONG.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "\n".join(found)


def test_the_silero_error_names_the_distribution(monkeypatch):
    from degen.errors import ConfigError
    from degen.repair import vad
    monkeypatch.setattr(vad, "silero_available", lambda: False)
    try:
        vad.make_vad("silero")
    except ConfigError as exc:
        assert f"pip install '{DISTRIBUTION}[asr]'" in str(exc)
    else:
        raise AssertionError("make_vad('silero') without faster-whisper must refuse")
