"""Scanning an archive of many files: one process, N processes (and Ray, when installed).

Writes --files small transcripts (seeded: OpenAI verbose_json, ~2 minutes each, one in
ten with a planted loop) to a temporary folder, then times, within one run and with the
configurations interleaved in every repeat so that machine noise hits all of them alike:
  - `degen.archive.batch.scan_paths(paths, jobs=1)`   one process
  - `degen.archive.batch.scan_paths(paths, jobs=N)`   a pool of N processes (N = --jobs, default every core)
  - `degen.ray.scan` over a Ray Data dataset of the same files (--ray; local instance,
    num_cpus=N, start-up excluded and reported apart)
and prints the speed-up of each repeat, its median and spread, and checks that every
configuration gives the same verdicts. Target: speed-up >= 0.8 N up to the core count.
On a shared machine it also prints the CPU the pool spends against one process (workers
included): N times that efficiency is the speed-up on N idle cores.
Usage: python bench/archive_scan.py [--files 10000] [--jobs N] [--repeats 3] [--seed 11] [--ray]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from degen.archive import batch  # noqa: E402

WORDS = ("we should look at the numbers again before the release because latency matters "
         "and the customer asked for a new draft by friday so let us plan the work").split()


def make_file(rng: random.Random, looping: bool) -> bytes:
    segments, t = [], 0.0
    for i in range(rng.randint(30, 50)):
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 14))) + "."
        if looping and i == 20:
            text = "thank you so much. " * 30
        d = round(len(text.split()) / 2.8, 2)
        segments.append({"id": i, "start": round(t, 2), "end": round(t + d, 2), "text": text})
        t += d + 0.3
    return orjson.dumps({"task": "transcribe", "duration": round(t, 2), "segments": segments,
                         "text": " ".join(s["text"] for s in segments)})


def write_files(folder: Path, count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    paths = []
    for k in range(count):
        path = folder / f"{k // 1000:02d}" / f"{k:05d}.json"
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(make_file(rng, looping=k % 10 == 3))
        paths.append(str(path))
    return paths


def verdicts_local(paths: list[str], jobs: int) -> list[bool]:
    return [r.report.degenerate for r in batch.scan_paths(paths, jobs=jobs)]


def verdicts_ray(paths: list[str]) -> list[bool]:
    import ray.data

    import degen.ray
    ds = ray.data.from_items([{"path": p, "text": Path(p).read_text(encoding="utf-8")} for p in paths])
    rows = degen.ray.scan(ds, column="text").select_columns(["path", "degenerate"]).take_all()
    by_path = {r["path"]: bool(r["degenerate"]) for r in rows}
    return [by_path[p] for p in paths]


def cpu_seconds() -> float:
    """CPU of this process and of its finished children (the pool's workers, once joined)."""
    import resource
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def spread(values: list[float]) -> str:
    return (f"median {statistics.median(values):.2f}, min {min(values):.2f}, max {max(values):.2f} "
            f"over {len(values)} repeats")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--jobs", type=int, default=0, help="pool size (0: every core)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--ray", action="store_true", help="also time Ray Data (needs degen-asr[ray])")
    args = parser.parse_args()
    jobs = batch.resolve_jobs(args.jobs)
    with tempfile.TemporaryDirectory(prefix="degen-archive-") as tmp:
        paths = write_files(Path(tmp), args.files, args.seed)
        mb = sum(os.path.getsize(p) for p in paths) / 1e6
        print(f"{len(paths)} files, {mb:.1f} MB, seed {args.seed}; {jobs} processes; "
              f"cores usable {batch.resolve_jobs(0)}, load average {os.getloadavg()[0]:.1f}")
        configs = {"1 process": lambda: verdicts_local(paths, 1), f"{jobs} processes": lambda: verdicts_local(paths, jobs)}
        if args.ray:
            import ray
            started = time.perf_counter()
            import logging

            import ray.data
            ray.init(num_cpus=jobs, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
            ray.data.DataContext.get_current().enable_progress_bars = False
            logging.getLogger("ray.data").setLevel(logging.ERROR)
            print(f"ray.init: {time.perf_counter() - started:.1f} s (not counted)")
            configs[f"ray, {jobs} CPUs"] = lambda: verdicts_ray(paths)
        times = {name: [] for name in configs}
        cpu = {name: [] for name in configs}
        answers = {}
        for _ in range(args.repeats):
            for name, fn in configs.items():
                started, cpu_started = time.perf_counter(), cpu_seconds()
                answers[name] = fn()
                times[name].append(time.perf_counter() - started)
                cpu[name].append(cpu_seconds() - cpu_started)
        base = times["1 process"]
        for name, values in times.items():
            ratios = [b / v for b, v in zip(base, values)]
            print(f"{name:>14}: best {min(values):6.2f} s = {len(paths) / min(values):6.0f} files/s, "
                  f"{mb / min(values):5.1f} MB/s; speed-up per repeat {spread(ratios)}")
        # On a shared machine the wall clock depends on who else runs; the CPU the pool
        # spends per file against one process does not: their ratio is the speed-up the
        # pool reaches on N idle cores, its overhead (IPC, pickling, start-up) included.
        pooled = f"{jobs} processes"
        efficiency = [c1 / cn for c1, cn in zip(cpu["1 process"], cpu[pooled])]
        print(f"CPU seconds, 1 process: {spread(cpu['1 process'])}; {pooled}: {spread(cpu[pooled])} "
              f"(workers included); CPU efficiency of the pool per repeat {spread(efficiency)} "
              f"-> {jobs} x efficiency = {jobs * statistics.median(efficiency):.2f} on idle cores")
        print(f"load average at the end: {os.getloadavg()[0]:.1f} on {batch.resolve_jobs(0)} cores")
        same = all(a == answers["1 process"] for a in answers.values())
        print(f"degenerate files: {sum(answers['1 process'])} of {len(paths)}; "
              f"verdicts identical across configurations: {same}")
        print(f"target: speed-up >= {0.8 * jobs:.1f} at {jobs} processes")


if __name__ == "__main__":
    main()
