"""Start-up time of `degen scan SMALL` (not a test: prints ratios from one run).

Runs, round-robin so that machine noise falls on every row alike:
  - `python -c pass`           the interpreter's own start (site, the editable-install hook)
  - `python -c "import numpy"`  what numpy alone adds (and with one OpenBLAS thread, as
                                degen's command line sets unless OPENBLAS_NUM_THREADS is set)
  - `degen --help` and `degen plan --gpu-mem 80`  commands that load no numpy
  - `degen scan SMALL` (and `degen scan` of a 50-minute transcript for scale)
each --runs times in a fresh process, and prints the median wall and CPU time (user +
system, from the child's rusage), the spread (min-max of wall) and each median as a
multiple of `python -c pass`. The load average is printed before and after: on a shared
machine the ratios are the figure to compare, not the seconds.

It then splits one scan's cost, in a child, into phases (median of --runs): importing
numpy, the command line, the readers and detectors, the first scan (lazy imports, the
hallucination lexicon) and a second, warm scan (the detect path alone).
Target: `degen scan SMALL` at most 0.25 s of wall time.
Usage: python bench/startup.py [--runs 15] [--small PATH] [--large PATH] [--installed]
  --installed: run it with the interpreter of a venv holding a normal (non-editable)
  install, to time what a user runs (an editable install adds its import hook, ~10 ms).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SMALL = ROOT / "fixtures" / "shapes" / "loops" / "zh_char.json"
LARGE = ROOT / "fixtures" / "seed" / "clean.json"
TARGET_S = 0.25

# Runs in a child: each phase of one `degen scan` timed apart (wall and CPU, in ms).
PHASES = """
import sys, time
def now(): return time.perf_counter(), time.process_time()
marks = [("start", now())]
import degen.cli
marks.append(("import degen.cli (click, the group)", now()))
import numpy
marks.append(("import numpy", now()))
import degen.archive.batch, degen.detect, degen.formats, degen.io, degen.report, degen.present.advice
marks.append(("import readers, detectors, report", now()))
degen.scan(sys.argv[1])
marks.append(("first scan (lazy imports, lexicon)", now()))
degen.scan(sys.argv[1])
marks.append(("second scan (detect path, warm)", now()))
for (_, (w0, c0)), (name, (w1, c1)) in zip(marks, marks[1:]):
    print(f"{name}\\t{(w1 - w0) * 1e3:.2f}\\t{(c1 - c0) * 1e3:.2f}")
"""


def degen_command() -> list[str]:
    """The console script next to this interpreter (what a user types), else -m degen."""
    script = Path(sys.executable).with_name("degen")
    return [str(script)] if script.exists() else [sys.executable, "-m", "degen"]


def child_env(installed: bool = False) -> dict:
    """This tree's code first, whatever is installed (with ``installed``: only the degen
    installed beside this interpreter, as a user runs it); no colour codes; OpenBLAS left to
    choose its thread count (degen's command line sets it to 1 itself); bytecode caches
    written and read, as an installed package has them (pip compiles them at install: with
    PYTHONDONTWRITEBYTECODE set, every run of a source tree compiles degen again, about
    45 ms, which no user pays)."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    env = {**os.environ, "PYTHONPATH": path, "NO_COLOR": "1"}
    if installed:
        env.pop("PYTHONPATH")
    env.pop("OPENBLAS_NUM_THREADS", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def timed(argv: list[str], env: dict) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one run of ``argv``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        sys.exit(f"startup: {' '.join(argv)} exited {done.returncode}: {done.stderr.decode()[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def measure(commands: dict[str, list[str]], runs: int, env: dict) -> dict[str, list[tuple[float, float]]]:
    for argv in commands.values():  # warm the page cache and write the bytecode caches; not counted
        timed(argv, env)
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, argv in commands.items():
            samples[name].append(timed(argv, env))
    return samples


def print_table(samples: dict[str, list[tuple[float, float]]], baseline: str) -> None:
    base = statistics.median(w for w, _ in samples[baseline])
    print(f"{'command':<44} {'wall med':>9} {'min-max':>15} {'cpu med':>8} {'x pass':>7}")
    for name, runs in samples.items():
        walls, cpus = [w for w, _ in runs], [c for _, c in runs]
        wall = statistics.median(walls)
        print(f"{name:<44} {wall * 1e3:7.0f}ms {min(walls) * 1e3:6.0f}-{max(walls) * 1e3:.0f}ms "
              f"{statistics.median(cpus) * 1e3:6.0f}ms {wall / base:6.1f}x")


def phases(small: Path, runs: int, env: dict) -> list[tuple[str, float, float]]:
    table: dict[str, list[tuple[float, float]]] = {}
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", PHASES, str(small)], env=env, capture_output=True, text=True,
                             check=True).stdout
        for line in out.splitlines():
            name, wall, cpu = line.split("\t")
            table.setdefault(name, []).append((float(wall), float(cpu)))
    return [(name, statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for name, v in table.items()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--small", type=Path, default=SMALL)
    parser.add_argument("--large", type=Path, default=LARGE)
    parser.add_argument("--installed", action="store_true",
                        help="time the degen installed beside this interpreter (e.g. a non-editable install in "
                             "a fresh venv), not this tree's code")
    args = parser.parse_args()
    args.small, args.large = args.small.resolve(), args.large.resolve()
    if args.installed:
        os.chdir(os.path.dirname(sys.executable))  # so that no `python -c` finds this tree's degen first
    env, degen, py = child_env(args.installed), degen_command(), sys.executable
    commands = {
        "python -c pass": [py, "-c", "pass"],
        'python -c "import numpy"': [py, "-c", "import numpy"],
        "  the same, 1 OpenBLAS thread (as degen sets)": [py, "-c", "import os; os.environ['OPENBLAS_NUM_THREADS']"
                                                         " = '1'; import numpy"],
        "degen --help": [*degen, "--help"],
        "degen plan --gpu-mem 80": [*degen, "plan", "--gpu-mem", "80"],
        f"degen scan {args.small.name} ({args.small.stat().st_size:,} B)": [*degen, "scan", str(args.small)],
        f"degen scan {args.large.name} ({args.large.stat().st_size // 1024:,} KB)": [*degen, "scan", str(args.large)],
    }
    where = "the installed degen" if args.installed else f"this tree's code ({ROOT})"
    print(f"{' '.join(degen)}, {where} ({args.runs} runs each, round-robin; {os.cpu_count()} CPUs)")
    print(f"load average before: {load()}")
    samples = measure(commands, args.runs, env)
    print(f"load average after:  {load()}\n")
    print_table(samples, "python -c pass")

    small_name = list(commands)[5]
    wall = statistics.median(w for w, _ in samples[small_name])
    start = statistics.median(w for w, _ in samples["python -c pass"])
    numpy = statistics.median(w for w, _ in samples[list(commands)[2]]) - start  # one thread, as degen runs it
    cpu = statistics.median(c for _, c in samples[small_name])
    print(f"\ntarget: degen scan {args.small.name} <= {TARGET_S:.2f}s: {wall:.3f}s "
          f"({'met' if wall <= TARGET_S else 'NOT met'}); above the interpreter's start: {wall - start:.3f}s, "
          f"of which numpy's import {numpy:.3f}s ({numpy / (wall - start):.0%})")
    if os.getloadavg()[0] > (os.cpu_count() or 1) / 2:  # waiting for a core shows in wall time, not in CPU
        print(f"  the machine is busy: the scan's CPU time, {cpu:.3f}s, is about its wall time on an idle one "
              f"({'met' if cpu <= TARGET_S else 'NOT met'})")

    print(f"\nwhere one scan of {args.small.name} goes (in one process, median of {args.runs}; after the "
          f"interpreter's start):")
    rows = phases(args.small, args.runs, env)
    total = sum(w for _, w, _ in rows)
    for name, w, c in rows:
        print(f"  {name:<40} {w:7.1f}ms wall {c:7.1f}ms cpu  {w / total:4.0%}")
    print(f"  {'total':<40} {total:7.1f}ms")


if __name__ == "__main__":
    main()
