"""Scan throughput on a 10-hour transcript (not a test: prints ratios from one run).

Builds a ~10-hour MOSS verbose_json (100k+ segments, loops planted) and measures, in the
same run and on one core:
  - MB/s of degen.scan end to end (parse + detect + report),
  - the ratio of that time to orjson.loads alone (the floor any JSON tool pays),
  - the ratio to a pure-Python baseline that removes consecutive repeated n-word blocks
    for n up to 8 the way stable-ts's remove_repetition does.
Targets: >= 20 MB/s, >= 10x faster than the baseline.
Usage: python bench/scan_throughput.py [--hours 10]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import degen  # noqa: E402
from degen.testing.synth import long_transcript  # noqa: E402

PUNCTUATION = "\"',.?!"


def remove_repetition_baseline(words: list[str], max_words: int = 8) -> list[str]:
    """stable-ts style: for n = 1..max_words, normalise every word (strip punctuation,
    lower case), then drop a block of n words equal to the block just before it,
    scanning word by word in Python."""
    for n in range(1, max_words + 1):
        keys = [w.strip().strip(PUNCTUATION).lower() for w in words]
        out, kept, i = [], [], 0
        while i < len(words):
            if len(kept) >= n and keys[i:i + n] == kept[-n:]:
                i += n
                continue
            out.append(words[i])
            kept.append(keys[i])
            i += 1
        words = out
    return words


def best_of(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hours", type=float, default=10.0)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    data = long_transcript(args.hours)
    mb = len(data) / 1e6
    text = data.decode()
    transcript = degen.read(text)
    words = [w for s in transcript for w in s.text.split()] + [c for s in transcript for c in s.text if "\u4e00" <= c]

    t_scan = best_of(lambda: degen.scan(text), args.repeats)
    t_detect = best_of(lambda: degen.analyze(transcript), args.repeats)
    t_json = best_of(lambda: orjson.loads(data), args.repeats)
    t_base = best_of(lambda: remove_repetition_baseline(words), 1)
    report = degen.scan(text)
    print(f"transcript: {args.hours:g} h, {len(transcript)} segments, {mb:.1f} MB of JSON, "
          f"{len(report.flagged)} loops flagged")
    print(f"degen scan end to end : {t_scan:.3f} s  = {mb / t_scan:.1f} MB/s (target >= 20)")
    print(f"orjson.loads alone    : {t_json:.3f} s  -> scan / parse = {t_scan / t_json:.1f}x")
    print(f"remove_repetition-like: {t_base:.3f} s  -> baseline / scan = {t_base / t_scan:.1f}x (target >= 10)")
    print(f"detection alone       : {t_detect:.3f} s  -> baseline / detection = {t_base / t_detect:.1f}x "
          f"(both on parsed text)")


if __name__ == "__main__":
    main()
