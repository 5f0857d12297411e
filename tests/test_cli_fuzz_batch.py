"""Folder and glob scans (degen/batch.py) on awkward trees: degen's own files, symlink
loops, unreadable folders, names that are not UTF-8 and pool workers that die."""

import json
import os
import subprocess
import sys
import textwrap

from click.testing import CliRunner

from degen import batch
from degen.cli import main

from .conftest import ROOT

GOOD = json.dumps({"segments": [{"start": 0, "end": 1, "text": "hello"}]})


# An interrupted `degen filter` leaves KEEP.degen-progress.json: it was scanned as a
# transcript and made the scan exit 2.
def test_a_filter_progress_file_is_not_scanned(tmp_path):
    (tmp_path / "a.json").write_text('{"segments": [{"start": 0, "end": 1, "text": "hi"}]}')
    (tmp_path / "k.jsonl.degen-progress.json").write_text('{"identity": "x", "offset": 10}')
    assert batch.expand([str(tmp_path)]) == [str(tmp_path / "a.json")]
