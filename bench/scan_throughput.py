"""Scan throughput on a 100-hour transcript (not a test: prints ratios from one run).

Builds a 100-hour MOSS verbose_json of 100k segments (seeded; English and Chinese, three
speakers, a character loop and a phrase loop planted every 5,000 segments) and measures,
in the same run and on one core:
  - MB/s of degen.scan end to end (parse + detect + report),
  - the ratio of that time to orjson.loads alone (the floor any JSON tool pays),
  - the ratio to a pure-Python baseline that removes consecutive repeated n-word blocks
    for n up to 8 the way stable-ts's remove_repetition does.
Targets: >= 50 MB/s, within 5x of orjson's parse, >= 10x faster than the baseline.
It also times, in the same run, the floor of any Python scan that reports whisper's figure
as degen does: the parse, each segment's text and start, and zlib's compression ratio per
30 s window (per utterance for a manifest), detecting nothing; it checks that its figures
equal degen's and prints what 50 MB/s leaves for detection once the floor is paid.
With --rss-mb M it also writes a transcript of about M MB (the same generator, one hour
per 1,000 segments) and reports the peak RSS of `degen scan FILE` in a child process, as a
multiple of the file's size (target <= 3x).
With --phases it also prints where one scan's CPU goes (ms per phase, mean of the repeats).
With --format manifest the same segments are written as a NeMo-style manifest instead (JSON
Lines, one utterance a segment: audio_filepath, duration = the segment's length, text
without its speaker tag) and scanned as a file (as `degen scan MANIFEST.jsonl` reads it:
whole under 32 MB, in pieces from there on); orjson's parse is then of every line.
Usage: python bench/scan_throughput.py [--hours 100] [--segments 100000] [--seed 7] [--repeats 3]
                                       [--rss-mb 300] [--phases] [--format verbose_json|manifest]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
import zlib
from pathlib import Path

import orjson

if not os.environ.get("PYTHONPATH"):  # the degen of $PYTHONPATH when set (to compare trees), else this one
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import degen  # noqa: E402

WORDS = ("we should look at the numbers again before the release because latency matters "
         "and the customer asked for a new draft by friday so let us plan the work").split()
ZH = "我们先把上周的进度过一遍这个版本的延迟比之前低了不少数据清洗那边还需要两天时间"

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


def long_transcript(hours: float, segments: int, seed: int) -> bytes:
    """A MOSS verbose_json: ``segments`` turns spread over ``hours``, speakers S01-S03 in
    turn, a 102x character loop and a 12x phrase loop planted every 5,000 segments."""
    rng = random.Random(seed)
    step = hours * 3600 / segments
    parts, items, t = [], [], 0.5
    for i in range(segments):
        if rng.random() < 0.5:
            text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 14))) + "."
        else:
            a = rng.randrange(len(ZH) - 20)
            text = ZH[a:a + rng.randint(6, 20)] + "。"
        if i % 5000 == 2500:
            text = "的" * 102
        elif i % 5000 == 4000:
            text = "let us plan the work. " * 12
        end = round(t + step * rng.uniform(0.6, 0.95), 2)
        speaker = f"S0{1 + i % 3}"
        parts.append(f"[{t:.2f}][{speaker}]{text}[{end:.2f}]")
        items.append({"id": i, "start": round(t, 2), "end": end, "text": f"[{speaker}]{text}"})
        t = round(t + step, 2)
    doc = {"task": "transcribe", "duration": round(t, 2), "text": "".join(parts), "segments": items}
    return orjson.dumps(doc)


def as_manifest(data: bytes) -> bytes:
    """The segments of ``long_transcript``'s document as a NeMo-style manifest: one line
    an utterance, its duration the segment's length, its text without the speaker tag."""
    items = orjson.loads(data)["segments"]
    return b"".join(orjson.dumps({"audio_filepath": f"clips/{i:07d}.wav", "duration": round(item["end"] - item["start"], 2),
                                  "text": item["text"][5:]}) + b"\n" for i, item in enumerate(items))


def parse_lines(data: bytes) -> list:
    """What orjson alone does for a manifest: every line parsed."""
    return [orjson.loads(line) for line in data.splitlines()]


def ratio_floor(data: bytes) -> tuple[float, int]:
    """The least any Python scan that reports whisper's figure pays, detecting nothing: the
    document parsed, each segment's text and start read, and whisper's compression ratio
    (UTF-8 bytes over zlib's, default level) of each 30 s window's text; the highest and
    how many exceed 2.4 (what a degen report carries)."""
    segments = orjson.loads(data)["segments"]
    texts, windows = [], []
    for s in segments:
        window = int(s["start"] // 30)
        if not windows or window != windows[-1][0]:
            windows.append((window, len(texts)))
        text = s["text"]
        texts.append(text[text.index("]") + 1:] if text.startswith("[S") else text)  # the speaker tag is no text
    edges = [i for _, i in windows] + [len(texts)]
    return _highest_and_over("".join(texts[a:b]).encode() for a, b in zip(edges, edges[1:]))


def ratio_floor_lines(data: bytes) -> tuple[float, int]:
    """``ratio_floor`` for a manifest: every line parsed, each utterance's own ratio."""
    return _highest_and_over(orjson.loads(line)["text"].encode() for line in data.splitlines())


def _highest_and_over(pieces) -> tuple[float, int]:
    highest, over = 0.0, 0
    for piece in pieces:
        ratio = len(piece) / len(zlib.compress(piece)) if piece else 0.0
        highest, over = max(highest, ratio), over + (ratio > 2.4)
    return highest, over


def peak_rss(megabytes: float, seed: int) -> None:
    """Peak RSS of `degen scan` on a ~``megabytes`` MB transcript, in a child process."""
    import resource
    import subprocess
    import tempfile
    segments = int(megabytes * 1e6 / 176)  # the generator writes about 176 bytes a segment
    with tempfile.TemporaryDirectory(prefix="degen-rss-") as tmp:
        path = Path(tmp) / "long.json"
        path.write_bytes(long_transcript(segments / 1000, segments, seed))
        size = path.stat().st_size
        started = time.perf_counter()
        # degen refuses inputs over 256 MB unless told otherwise; 0 is clean, 1 degenerate.
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent),
               "DEGEN_MAX_INPUT_MB": str(int(size / 1e6) + 100)}
        done = subprocess.run([sys.executable, "-m", "degen", "scan", str(path)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True, env=env, check=False)
        if done.returncode not in (0, 1):
            raise SystemExit(f"degen scan failed (exit {done.returncode}), no RSS to report: {done.stderr.strip()}")
        wall = time.perf_counter() - started
        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024  # kB on Linux
    print(f"peak RSS of degen scan on {size / 1e6:.0f} MB ({segments} segments): {rss / 1e6:.0f} MB = "
          f"{rss / size:.1f}x the file (target <= 3x); {wall:.0f} s wall")


# CPU seconds of this process, not wall time: on a shared machine the wall clock counts
# other processes' turns on the core too (both are printed for the scan).
clock = time.process_time


def timed(fn, repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        start = clock()
        fn()
        times.append(clock() - start)
    return times


def best_of(fn, repeats: int) -> float:
    return min(timed(fn, repeats))  # CPU seconds


PHASES = {  # (module, class or "") -> functions timed by --phases, as the callers look them up
    ("degen.formats.jsonfmt", ""): ("parse_json", "check_writable"),
    ("degen.formats.moss", ""): ("parse_columns",),
    ("degen.formats.jsonl", ""): ("manifest_rows", "_load"),
    ("degen.formats.jsonl_columns", ""): ("read",),
    # window_ratios may hand back a lazy iterator, whose compression then runs inside
    # highest_and_over: both are listed, and a name a tree lacks is skipped.
    ("degen.detect.windows", ""): ("build_streams", "find_runs", "loop_findings", "max_repetition"),
    ("degen.detect.engine", ""): ("segment_findings", "echo_findings", "hallucination_findings", "timing_findings",
                                  "window_ratios", "highest_and_over"),
    ("degen.detect.tokens", "Stream"): ("subset",),
}


def phases(text, repeats: int) -> None:
    """CPU ms per phase of one scan of ``text`` (the text, or a Path), mean of ``repeats`` scans."""
    import collections
    import importlib
    spent: collections.Counter = collections.Counter()
    saved = []

    def timer(owner, name):
        inner = getattr(owner, name)

        def timed_call(*args, **kwargs):
            start = clock()
            try:
                return inner(*args, **kwargs)
            finally:
                spent[name] += clock() - start
        saved.append((owner, name, inner))
        setattr(owner, name, timed_call)

    for (module, cls), names in PHASES.items():
        owner = importlib.import_module(module)
        owner = getattr(owner, cls) if cls else owner
        for name in names:
            if hasattr(owner, name):
                timer(owner, name)
    try:
        total = sum(timed(lambda: scanner(text)(text), repeats))
    finally:
        for owner, name, inner in saved:
            setattr(owner, name, inner)
    print(f"where one scan's CPU goes (ms, mean of {repeats}): total {1000 * total / repeats:.0f}; " + ", ".join(
        f"{name} {1000 * t / repeats:.0f}" for name, t in spent.most_common()))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hours", type=float, default=100.0)
    parser.add_argument("--segments", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--rss-mb", type=float, help="also measure peak RSS on a transcript this large")
    parser.add_argument("--phases", action="store_true", help="also print CPU ms per phase of one scan")
    parser.add_argument("--format", choices=("verbose_json", "manifest"), default="verbose_json",
                        help="write the segments as this format (manifest: one utterance a line)")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    data = long_transcript(args.hours, args.segments, args.seed)
    parse = orjson.loads
    if args.format == "manifest":
        with tempfile.TemporaryDirectory(prefix="degen-bench-") as folder:
            path = Path(folder) / "long.jsonl"
            path.write_bytes(as_manifest(data))
            # degen refuses inputs over 256 MB unless told otherwise (a 300-hour manifest)
            os.environ.setdefault("DEGEN_MAX_INPUT_MB", str(int(path.stat().st_size / 1e6) + 100))
            measure(args, path.read_bytes(), path, parse_lines, ratio_floor_lines)
        return
    measure(args, data, data.decode(), parse, ratio_floor)


def scanner(source):
    """``degen.scan`` for a file (a Path), ``degen.scan_text`` for the text itself."""
    return degen.scan if isinstance(source, Path) else degen.scan_text


def measure(args, data: bytes, source: "str | Path", parse, floor) -> None:
    """Scan ``source`` (the transcript's text, or a file holding ``data``) against
    ``parse(data)`` and the baseline, and print the figures."""
    mb = len(data) / 1e6
    text, scan = source, scanner(source)
    transcript = degen.read(text) if isinstance(text, Path) else degen.read_text(text)
    words = [w for s in transcript for w in s.text.split()] + [c for s in transcript for c in s.text if "\u4e00" <= c]

    # Interleaved, so that noise from other processes hits scan and parse alike.
    t_scan, t_json, t_floor, wall = [], [], [], []
    for _ in range(args.repeats):
        started = time.perf_counter()
        t_scan += timed(lambda: scan(text), 1)
        wall.append(time.perf_counter() - started)
        t_json += timed(lambda: parse(data), 1)
        t_floor += timed(lambda: floor(data), 1)
    ratios = sorted(s / j for s, j in zip(t_scan, t_json))
    t_detect = best_of(lambda: degen.analyze(transcript), args.repeats)
    t_base = best_of(lambda: remove_repetition_baseline(words), 1)
    report = scan(text)
    figures = floor(data)
    same = figures == (report.metrics.max_compression_ratio, report.metrics.windows_over_compression_ratio)
    scan_best = min(t_scan)
    print(f"transcript: {args.hours:g} h, {len(transcript)} segments, {mb:.1f} MB of {args.format}, seed {args.seed}, "
          f"{len(report.flagged)} loops flagged; {args.repeats} repeats, one core")
    print(f"degen scan end to end : best {scan_best:.3f} CPU s = {mb / scan_best:.1f} MB/s "
          f"(median {mb / statistics.median(t_scan):.1f}, worst {mb / max(t_scan):.1f}; target >= 50); "
          f"wall best {min(wall):.3f} s, load average {os.getloadavg()[0]:.1f}")
    label = "orjson.loads per line" if args.format == "manifest" else "orjson.loads alone   "
    print(f"{label} : best {min(t_json):.3f} CPU s = {mb / min(t_json):.0f} MB/s")
    print(f"scan / parse, per repeat: median {statistics.median(ratios):.1f}x, "
          f"min {ratios[0]:.1f}x, max {ratios[-1]:.1f}x (target <= 5x)")
    floors = sorted(f / j for f, j in zip(t_floor, t_json))
    budget = mb / 50  # CPU seconds a scan may take at 50 MB/s
    print(f"floor: parse + whisper's ratio, no detection: best {min(t_floor):.3f} CPU s = "
          f"{mb / min(t_floor):.0f} MB/s, {statistics.median(floors):.1f}x orjson (per repeat {floors[0]:.1f}-"
          f"{floors[-1]:.1f}x); of the {1000 * budget:.0f} ms that 50 MB/s allows it takes "
          f"{100 * statistics.median(t_floor) / budget:.0f}% (median), leaving "
          f"{1000 * (budget - statistics.median(t_floor)):.0f} ms for detection; its figures "
          f"(highest {figures[0]:.2f}, {figures[1]} over 2.4) {'equal' if same else 'DIFFER FROM'} degen's")
    print(f"remove_repetition-like: {t_base:.3f} s  -> baseline / scan = {t_base / scan_best:.1f}x (target >= 10)")
    print(f"detection alone       : {t_detect:.3f} s  -> baseline / detection = {t_base / t_detect:.1f}x "
          f"(both on parsed text)")
    if args.phases:
        phases(text, args.repeats)
    if args.rss_mb:
        peak_rss(args.rss_mb, args.seed)

if __name__ == "__main__":
    main()
