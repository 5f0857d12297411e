"""Workers die with their parent (Linux: read from /proc, as CI runs): after kill -9 of `degen scan --jobs 2 -o`, its worker
processes were sometimes still alive 3 s later, scanning for no one."""

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ..conftest import FIXTURES, ROOT


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")  # a zombie has exited; only its parent's wait is missing


@pytest.mark.slow
def test_workers_die_within_seconds_of_their_parent(tmp_path):
    folder = tmp_path / "archive"
    folder.mkdir()
    for k in range(400):  # enough work that the scan is still going when it is killed
        shutil.copy(FIXTURES / "seed" / "degenerate.json", folder / f"t{k:03d}.json")
    scan = subprocess.Popen([sys.executable, "-m", "degen", "scan", "--jobs", "2", "-o", str(tmp_path / "r.jsonl"),
                             str(folder)], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers = []
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(workers) < 2:
            time.sleep(0.1)
            workers = [pid for pid in children(scan.pid) if alive(pid)]
        assert len(workers) >= 2, "the scan started no workers"
        scan.send_signal(signal.SIGKILL)
        scan.wait()
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline and any(map(alive, workers)):
            time.sleep(0.05)
        left = [pid for pid in workers if alive(pid)]
    finally:
        scan.kill()
        for pid in workers:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
    assert not left, f"workers {left} outlived their parent by 3 s"
