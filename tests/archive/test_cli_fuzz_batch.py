"""Folder and glob scans (degen/archive/batch.py) on awkward trees: degen's own files, symlink
loops, unreadable folders, names that are not UTF-8 and pool workers that die."""

import json
import os
import subprocess
import sys
import textwrap

from click.testing import CliRunner

from degen.archive import batch
from degen.cli import main

from ..conftest import ROOT

GOOD = json.dumps({"segments": [{"start": 0, "end": 1, "text": "hello"}]})


# An interrupted `degen filter` leaves KEEP.degen-progress.json: it was scanned as a
# transcript and made the scan exit 2.
def test_a_filter_progress_file_is_not_scanned(tmp_path):
    (tmp_path / "a.json").write_text('{"segments": [{"start": 0, "end": 1, "text": "hi"}]}')
    (tmp_path / "k.jsonl.degen-progress.json").write_text('{"identity": "x", "offset": 10}')
    assert batch.expand([str(tmp_path)]) == [str(tmp_path / "a.json")]


# A recursive glob over a folder holding a link back up ('up -> ..') scanned one file 41
# times and counted 41 files in the summary.
def test_a_symlink_loop_does_not_repeat_a_file(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.json").write_text(GOOD)
    os.symlink("..", tmp_path / "a" / "up")
    paths = batch.expand([str(tmp_path / "**" / "*.json")])
    assert len({os.path.realpath(p) for p in paths}) == len(paths) == 1, paths[:5]


def test_a_file_a_folder_finds_again_is_scanned_once_in_first_place(tmp_path):
    for name in "abc":
        (tmp_path / f"{name}.json").write_text(GOOD)
    a, b, c = (str(tmp_path / f"{name}.json") for name in "abc")
    assert batch.expand([b, str(tmp_path), str(tmp_path / "*.json")]) == [b, a, c]


def test_a_file_named_twice_is_scanned_twice_as_asked(tmp_path):
    (tmp_path / "a.json").write_text(GOOD)
    a = str(tmp_path / "a.json")
    assert batch.expand([a, a]) == [a, a]


def _refuse_folders_named_sub(monkeypatch):
    """Root reads every folder, so the refusal a non-root user meets with chmod 000 is made
    by patching os.scandir for one path."""
    real = os.scandir

    def scandir(path="."):
        if os.fspath(path).endswith("sub"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)


# A subfolder that could not be read was skipped silently and the scan called clean.
def test_an_unreadable_subfolder_is_an_error_not_skipped(tmp_path, monkeypatch):
    (tmp_path / "a.json").write_text(GOOD)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.json").write_text(GOOD)
    _refuse_folders_named_sub(monkeypatch)
    result = CliRunner().invoke(main, ["scan", str(tmp_path)])
    assert result.exit_code == 2, result.output
    assert "sub" in result.output and "Permission denied" in result.output
    error = [line for line in result.output.splitlines() if "Permission denied" in line]
    assert len(error) == 1 and "permissions" in error[0], result.output


# An unreadable top folder was called "no transcript files".
def test_an_unreadable_folder_is_not_called_empty(tmp_path, monkeypatch):
    (tmp_path / "sub").mkdir()
    _refuse_folders_named_sub(monkeypatch)
    result = CliRunner().invoke(main, ["scan", str(tmp_path / "sub")])
    assert result.exit_code == 2 and "Permission denied" in result.output, result.output
    assert "no transcript" not in result.output and "Traceback" not in result.output


# A file name that is not UTF-8 (a Latin-1 é on an old disk, a zip unpacked from Windows)
# made `scan DIR --json` an internal error (orjson refuses the lone surrogates Python holds
# such names as).
def test_scan_json_of_a_folder_with_a_latin1_name(tmp_path):
    (tmp_path / os.fsdecode(b"caf\xe9.json")).write_text(GOOD)
    (tmp_path / "z.json").write_text(GOOD)
    done = subprocess.run([sys.executable, "-m", "degen", "scan", str(tmp_path), "--json"], capture_output=True,
                          timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(lines) == 2 and lines[0]["file"].endswith("caf\\xe9.json") and not lines[0].get("error")


def test_an_unreadable_latin1_name_is_a_json_error_line(tmp_path):
    (tmp_path / os.fsdecode(b"caf\xe9.json")).write_text("{}")
    done = subprocess.run([sys.executable, "-m", "degen", "scan", str(tmp_path), "--json"], capture_output=True,
                          timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 2, done.stderr
    line = json.loads(done.stdout)
    assert line["file"].endswith("caf\\xe9.json") and "caf\\xe9.json" in line["error"]


# A worker killed by the system (the OOM killer, a segfault in a native library) made
# `scan --jobs N` wait for ever for its file.
POOL_SCRIPT = textwrap.dedent("""
    import json, os, signal, sys, tempfile
    from pathlib import Path
    from degen.archive import batch
    folder = Path(tempfile.mkdtemp())
    for name in "abcdef":
        (folder / f"{name}.json").write_text(json.dumps({"segments": [{"start": 0, "end": 1, "text": name}]}))
    real = batch.scan_path
    def dying(path, settings):  # inherited by the forked workers
        if path.endswith("c.json"):
            os.kill(os.getpid(), signal.SIGKILL)
        return real(path, settings)
    batch.scan_path = dying
    code = batch.run(batch.expand([str(folder)]), batch.Settings(), jobs=2, as_json=True, render=str,
                     out=print, err=lambda line: print(line, file=sys.stderr))
    sys.exit(code)
""")


def test_a_worker_that_dies_ends_the_scan_with_an_error_not_a_hang():
    try:
        done = subprocess.run([sys.executable, "-c", POOL_SCRIPT], capture_output=True, text=True, timeout=60,
                              cwd=ROOT)
    except subprocess.TimeoutExpired:
        raise AssertionError("degen scan --jobs 2 hung after a worker process died") from None
    assert done.returncode == 4, done.stderr
    (error,) = [line for line in done.stderr.splitlines() if "degen: error" in line]
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    names = [os.path.basename(row["file"]) for row in rows]
    # In input order up to the first file without a result: c.json's, or one the other
    # worker had not finished when the pool broke.
    assert names == ["a.json", "b.json", "c.json"][:len(names)] and names, names
    assert all("error" not in row for row in rows[:-1]) and "error" in rows[-1]
    left = 6 - (len(names) - 1)
    assert names[-1] in error and f"{left} files" in error and "--jobs 1" in error, done.stderr
