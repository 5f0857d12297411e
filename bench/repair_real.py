"""Repairing real loops of real models (not a test: prints one table from one run).

Whisper tiny.en (English fixtures) and Whisper base (Mandarin and German fixtures), run by
faster-whisper on the CPU (int8) behind the test server. Every method starts from the same
input on every machine: the committed greedy transcript of each looping fixture
(fixtures/audio/NAME.MODEL.greedy.json, see recordings.json). For each seed:
  degen             degen fix with its default policy;
  0.1 only          degen fix re-submitting the flagged spans at temperature 0.1 once;
  whisper fallback  the whole file again with whisper's own schedule (0.0, 0.2 ... 1.0 on
                    compression ratio > 2.4 or mean log-prob < -1.0).
Each result is judged against the fixture's script (degen/testing/fidelity.py): faithful
(no loop left, the repetition really said kept within 25%, WER <= 0.35), a deletion (fewer
than 75% of the real repetitions, or words the input had right dropped), WER, and the audio
decoded as a share of the file (every pass counted: the fallback decodes a window once per
temperature it tries). Targets: degen >= 90% faithful and more than the fallback, zero
deletions, at most 100% of the audio decoded.
Usage: python bench/repair_real.py [--seeds 3] [--models tiny.en,base] [--only NAME,...]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import degen  # noqa: E402
from degen.model import Span  # noqa: E402
from degen.repair.audio import Audio  # noqa: E402
from degen.repair.policy import Policy, Step  # noqa: E402
from degen.testing import TestServer  # noqa: E402
from degen.testing.fidelity import judge  # noqa: E402

AUDIO = Path(__file__).resolve().parent.parent / "fixtures" / "audio"
FALLBACK = [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
METHODS = ("degen", "0.1 only", "whisper fallback")


def text(transcript) -> str:
    return " ".join(s.text for s in transcript)


def looped(transcript) -> bool:
    return any(f.is_loop for f in degen.scan(transcript).flagged)


def loop_counts(transcript) -> list[int]:
    return [f.count for f in degen.scan(transcript).flagged if f.is_loop]


def fixtures(models: list[str], only: list[str] | None) -> list[tuple[str, str, str | None, Path]]:
    """(name, model, language, greedy transcript) of each recorded fixture that loops."""
    manifest = orjson.loads((AUDIO / "recordings.json").read_bytes())
    found = []
    for entry in manifest.values():
        if entry["model"] not in models:
            continue
        for name, files in sorted(entry["files"].items()):
            saved = AUDIO / files["greedy"]
            if (only is None or name in only) and looped(degen.read(saved)):
                found.append((name, entry["model"], entry["language"], saved))
    return found


def fallback_seconds(segments, duration: float) -> float:
    """Audio the fallback decoded: each 30 s window once per temperature it tried (a window
    that ended at 0.4 was decoded at 0.0, 0.2 and 0.4)."""
    windows: dict[int, int] = {}
    for s in segments:
        windows[s.seek] = max(windows.get(s.seek, 0), FALLBACK.index(s.temperature) + 1)
    total = sum(passes * min(30.0, max(duration - seek / 100, 0.0)) for seek, passes in windows.items())
    return total or duration


def run_fixture(decoder, name: str, saved: Path) -> dict[str, tuple]:
    """{method: (verdict, seconds decoded, wall seconds)} for one fixture and one decoder."""
    audio = Audio.open(AUDIO / f"{name}.wav")
    script = (AUDIO / f"{name}.txt").read_text(encoding="utf-8")
    before = text(degen.read(saved))
    out = {}
    with TestServer(decoder) as server:
        for method, policy in (("degen", None), ("0.1 only", Policy(steps=(Step(0.1),)))):
            start = time.perf_counter()
            kwargs = {"policy": policy} if policy else {}
            result = degen.fix(saved, audio=audio, transcriber=server.url, concurrency=1, **kwargs)
            out[method] = (judge(script, before, text(result.transcript), loop_counts(result.transcript)),
                           result.seconds_decoded, time.perf_counter() - start)
    start = time.perf_counter()
    samples = audio.read(Span(0, audio.duration)).astype("float32") / 32768.0
    found = decoder.segments(samples, 0.0, fallback=True)
    # faster-whisper says which temperatures each window tried; transformers does not (its
    # segments are tuples): there one pass is counted, a lower bound.
    decoded = fallback_seconds(found, audio.duration) if found and hasattr(found[0], "seek") else audio.duration
    segments = [(s.start, s.end, s.text.strip()) if hasattr(s, "text") else s[:3] for s in found]
    markup = "".join(f"[{a:.2f}][S01]{t}[{b:.2f}]" for a, b, t in segments)
    verdict = judge(script, before, " ".join(t for _, _, t in segments), loop_counts(degen.read_text(markup)) if markup else [])
    out["whisper fallback"] = (verdict, decoded, time.perf_counter() - start)
    return out


def benchmark(make_decoder, cases, seeds: int) -> list[str]:
    """The table's lines. ``make_decoder(model, language, seed)`` gives a live decoder."""
    rows: dict[str, list] = {m: [] for m in METHODS}
    per_seed: dict[str, list] = {m: [] for m in METHODS}
    seconds = sum(Audio.open(AUDIO / f"{name}.wav").duration for name, *_ in cases)
    for seed in range(1, seeds + 1):
        decoders = {}
        seed_rows: dict[str, list] = {m: [] for m in METHODS}
        for name, model, language, saved in cases:
            if (model, language) not in decoders:
                decoders[(model, language)] = make_decoder(model, language, seed)
            for method, row in run_fixture(decoders[(model, language)], name, saved).items():
                rows[method].append((name, *row))
                seed_rows[method].append(row)
        for method in METHODS:
            per_seed[method].append(seed_rows[method])
    return _table(rows, per_seed, cases, seeds, seconds)


def _table(rows, per_seed, cases, seeds, seconds) -> list[str]:
    models = sorted({model for _, model, *_ in cases})
    model_of = {name: model for name, model, *_ in cases}
    lines = [f"{len(cases)} looping fixtures ({', '.join(models)}) x {seeds} seeds; {seconds:.1f} s of audio a seed",
             f"{'method':<17} {'faithful':>9} {'per seed':>16} {'deletions':>9} {'mean WER':>13} "
             f"{'audio decoded':>13} {'wall s':>7}"]
    for method in METHODS:
        r = rows[method]
        faithful = sum(v.faithful for _, v, *_ in r)
        per = "/".join(str(sum(v.faithful for v, *_ in s)) for s in per_seed[method])
        wers = [statistics.mean(v.wer for v, *_ in s) for s in per_seed[method]]
        spread = statistics.pstdev(wers) if len(wers) > 1 else 0.0
        decoded = sum(x[2] for x in r) / (seconds * seeds)
        lines.append(f"{method:<17} {faithful:>4}/{len(r):<4} {per:>16} {sum(v.deletion for _, v, *_ in r):>9} "
                     f"{statistics.mean(v.wer for _, v, *_ in r):>7.2f} ±{spread:.2f} {decoded:>12.0%} "
                     f"{sum(x[3] for x in r):>7.1f}")
    for model in models:
        lines.append(f"  {model}: " + "; ".join(
            f"{method} {sum(v.faithful for n, v, *_ in rows[method] if model_of[n] == model)}/"
            f"{sum(model_of[n] == model for n, *_ in rows[method])} faithful, "
            f"{sum(v.deletion for n, v, *_ in rows[method] if model_of[n] == model)} deletions" for method in METHODS))
    lines += ["", "per fixture, faithful (deletions) of seeds: degen / 0.1 only / fallback"]
    for name, model, *_ in cases:
        cells = [f"{sum(v.faithful for n, v, *_ in rows[m] if n == name)} ({sum(v.deletion for n, v, *_ in rows[m] if n == name)})"
                 for m in METHODS]
        lines.append(f"  {name:<14} {model:<8} " + " / ".join(cells))
    return lines


def main() -> None:
    from degen.testing.whisper import WhisperDecoder
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--models", default="tiny.en,base")
    parser.add_argument("--only", help="fixture names, comma-separated")
    args = parser.parse_args()
    cases = fixtures(args.models.split(","), args.only.split(",") if args.only else None)
    lines = benchmark(lambda model, language, seed: WhisperDecoder(seed=seed, model=model, language=language),
                      cases, args.seeds)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
