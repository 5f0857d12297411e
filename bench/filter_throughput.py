"""Judging utterances: one analysis per utterance against ``utterances.judge_many``.

Builds a seeded NeMo-style manifest (--lines utterances of 2 to 20 s, English and Chinese
words at ordinary speech rates; one in fifty a planted loop, one in a hundred a known
hallucination phrase) and measures on one core, the two ways interleaved in every repeat
so that machine noise hits both alike:
  - ``utterances.judge(text, duration)`` for every line (one whole analysis each, as before),
  - ``utterances.judge_many(texts, durations)`` (batches, the flagged ones judged again),
  - ``degen filter`` end to end (``filter.filter_manifest``: read, judge, write both outputs),
and checks that both give every utterance the same findings. Prints lines/s and MB/s of
the manifest, and the speed-up per repeat (median and spread).
Usage: python bench/filter_throughput.py [--lines 20000] [--repeats 3] [--seed 5]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from degen.archive import filter as manifest_filter  # noqa: E402
from degen.archive.utterances import judge, judge_many  # noqa: E402

EN = ("we should look at the numbers again before the release because latency matters "
      "and the customer asked for a new draft by friday so let us plan the work").split()
ZH = "我们今天讨论一下这个项目的进度然后再决定下一步怎么做大家有什么意见"
LOOPS = ["okay " * 30, "我们" * 40, "thank you. " * 12, "and then the " * 15]
HALLUCINATIONS = ["Thank you for watching!", "字幕由Amara.org社区提供", "Please subscribe to my channel."]


def utterance(rng: random.Random) -> tuple[str, float]:
    seconds = round(rng.uniform(2.0, 20.0), 2)
    roll = rng.random()
    if roll < 0.02:
        return rng.choice(LOOPS), seconds
    if roll < 0.03:
        return rng.choice(HALLUCINATIONS), seconds
    if rng.random() < 0.7:
        return " ".join(rng.choice(EN) for _ in range(int(seconds * rng.uniform(1.8, 3.0)))), seconds
    return "".join(rng.choice(ZH) for _ in range(int(seconds * rng.uniform(3.0, 5.0)))), seconds


def manifest(lines: int, seed: int) -> bytes:
    rng = random.Random(seed)
    rows = (utterance(rng) for _ in range(lines))
    return b"".join(orjson.dumps({"audio_filepath": f"clips/{k:07d}.wav", "duration": d, "text": t})
                    + b"\n" for k, (t, d) in enumerate(rows))


def timed(fn) -> tuple[float, object]:
    start = time.process_time()
    out = fn()
    return time.process_time() - start, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    data = manifest(args.lines, args.seed)
    rows = [orjson.loads(line) for line in data.splitlines()]
    texts, durations = [r["text"] for r in rows], [r["duration"] for r in rows]
    mb = len(data) / 1e6
    print(f"manifest: {args.lines} lines, {mb:.1f} MB, seed {args.seed}")
    speedups, one_each, batched, whole = [], [], [], []
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "in.jsonl"
        source.write_bytes(data)
        for _ in range(args.repeats):
            t_one, alone = timed(lambda: [judge(t, d) for t, d in zip(texts, durations)])
            t_many, many = timed(lambda: judge_many(texts, durations))
            t_filter, counts = timed(lambda: manifest_filter.filter_manifest(
                source, Path(folder) / "keep.jsonl", Path(folder) / "q.jsonl"))
            same = all((r.findings or None) == (m.findings if m else None) for r, m in zip(alone, many))
            if not same:
                sys.exit("judge_many and judge disagree: a bug")
            one_each.append(t_one), batched.append(t_many), whole.append(t_filter)
            speedups.append(t_one / t_many)
    for name, times in (("one analysis per line", one_each), ("judge_many", batched), ("degen filter", whole)):
        best = min(times)
        print(f"{name:22}: best {best:.2f} CPU s = {args.lines / best:,.0f} lines/s, {mb / best:.2f} MB/s "
              f"(median {statistics.median(times):.2f} s)")
    print(f"speed-up of judge_many, per repeat: median {statistics.median(speedups):.1f}x, "
          f"min {min(speedups):.1f}x, max {max(speedups):.1f}x; same findings on every line: yes; "
          f"{counts.quarantined} of {counts.lines} lines quarantined")


if __name__ == "__main__":
    main()
