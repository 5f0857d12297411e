"""Peak RSS of `degen scan FILE` on large transcripts, as a multiple of the file's size
(not a test: prints figures measured in this run; target <= 3x on a 300 MB transcript).

Writes, with bench/scan_throughput.py's generator (seeded; English and Chinese, three
speakers, loops planted every 5,000 segments), the same segments (as many as a verbose_json
of about --mb MB holds) in each format asked for, then runs `degen scan` on it in a child
process, one at a time, and prints the child's peak RSS (ru_maxrss), the ratio to the
file's size and the scan's CPU seconds. The other formats spend fewer bytes a segment:
with --mb 300 the manifest is about 187 MB and the SRT file 148 MB (each over 32 MB, so
read piece by piece into columns, as a real file of that size is: formats/streamed.py).
With --phases it also prints, for the first format, the RSS after each phase of the scan
(read, streams, loops, ...) from one more run in a child process.

Formats: verbose_json (MOSS SGLang-Omni verbose_json, the issue's case), manifest (NeMo
JSON Lines, one utterance a line), srt.
Usage: python bench/scan_memory.py [--mb 300] [--formats verbose_json,manifest,srt] [--phases]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

BYTES_A_SEGMENT = 176  # what the generator writes per segment of verbose_json


def write(path: Path, fmt: str, megabytes: float, seed: int) -> None:
    from scan_throughput import long_transcript
    segments = int(megabytes * 1e6 / BYTES_A_SEGMENT)
    doc = orjson.loads(long_transcript(segments / 1000, segments, seed))
    if fmt == "verbose_json":
        path.write_bytes(orjson.dumps(doc))
        return
    items = doc["segments"]
    with path.open("wb") as out:
        for i, item in enumerate(items):
            text = item["text"][5:]  # without the [S01] tag
            if fmt == "manifest":
                out.write(orjson.dumps({"audio_filepath": f"clips/{i:07d}.wav",
                                        "duration": round(item["end"] - item["start"], 2), "text": text}) + b"\n")
            else:
                out.write(f"{i + 1}\n{_clock(item['start'])} --> {_clock(item['end'])}\n{text}\n\n".encode())


def _clock(seconds: float) -> str:
    ms = int(round(seconds * 1000))
    return f"{ms // 3600000:02d}:{ms // 60000 % 60:02d}:{ms // 1000 % 60:02d},{ms % 1000:03d}"


def child_env(size: int) -> dict:
    # The degen of $PYTHONPATH when set (to compare trees), else this one. degen refuses
    # inputs over 256 MB unless told otherwise.
    return {**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH") or str(ROOT),
            "DEGEN_MAX_INPUT_MB": str(int(size / 1e6) + 100)}


def peak_rss(path: Path) -> tuple[int, float]:
    """(peak RSS in bytes, CPU seconds) of `degen scan path` in a child process (wait4
    gives that child's own figures, not the largest child's so far)."""
    # Run from the file's folder: `python -m` puts the working folder before PYTHONPATH.
    child = subprocess.Popen([sys.executable, "-m", "degen", "scan", str(path)], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, env=child_env(path.stat().st_size), cwd=path.parent)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    error = child.stderr.read().decode()
    if child.returncode not in (0, 1):  # 0 clean, 1 degenerate
        raise SystemExit(f"degen scan {path.name} failed (exit {child.returncode}): {error.strip()}")
    return usage.ru_maxrss * 1024, usage.ru_utime + usage.ru_stime  # ru_maxrss: kB on Linux


PHASES = '''
import resource, sys
import degen
from degen.detect import engine
def mark(name):
    rss = int(open("/proc/self/statm").read().split()[1]) * 4096
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(f"  {name:24s} RSS {rss / 1e6:6.0f} MB, peak so far {peak / 1e6:6.0f} MB", flush=True)
def wrap(owner, name):
    inner = getattr(owner, name)
    def timed(*a, **k):
        out = inner(*a, **k)
        mark("after " + name)
        return out
    setattr(owner, name, timed)
for owner, name in [(engine, "stream_loops"), (engine, "segment_findings"), (engine, "hallucination_findings"),
                    (engine, "window_ratios")]:
    wrap(owner, name)
mark("start")
t = degen.read(sys.argv[1]); mark("after read")
degen.scan(t); mark("after scan")
'''


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=float, default=300.0)
    parser.add_argument("--formats", default="verbose_json,manifest,srt")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--phases", action="store_true")
    args = parser.parse_args()
    formats = args.formats.split(",")
    with tempfile.TemporaryDirectory(prefix="degen-mem-") as tmp:
        for i, fmt in enumerate(formats):
            path = Path(tmp) / f"long.{ {'verbose_json': 'json', 'manifest': 'jsonl'}.get(fmt, fmt) }"
            # Written by a child: a child's peak RSS counts the memory of the process it
            # was spawned from (Linux carries the high-water mark over exec), so this one
            # must stay small.
            subprocess.run([sys.executable, __file__, "--write", fmt, str(path), str(args.mb), str(args.seed)],
                           check=True)
            size = path.stat().st_size
            if args.phases and i == 0:
                print(f"{fmt}: RSS by phase")
                subprocess.run([sys.executable, "-c", PHASES, str(path)], env=child_env(size), check=True,
                               cwd=path.parent)
            started = time.perf_counter()
            rss, cpu = peak_rss(path)
            print(f"{fmt:12s} {size / 1e6:5.0f} MB: peak RSS {rss / 1e6:5.0f} MB = {rss / size:4.1f}x the file "
                  f"(target <= 3x); scan {cpu:.1f} CPU s, {time.perf_counter() - started:.0f} s wall", flush=True)
            path.unlink()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--write"]:
        write(Path(sys.argv[3]), sys.argv[2], float(sys.argv[4]), int(sys.argv[5]))
    else:
        main()
