"""Repairing real loops of a real model (not a test: prints one table from one run).

Whisper tiny.en (faster-whisper, CPU, int8) behind the test server. For each spoken
fixture that loops under greedy decoding and each seed, starting from the greedy
transcript a user would have saved:
  (a) re-submit the flagged spans at temperature 0.1 only (the seed's remedy);
  (b) re-run the whole file with whisper's own fallback (0.0, 0.2 ... 1.0 on
      compression ratio > 2.4 or mean log-prob < -1.0);
  (c) degen fix with its default escalation.
Printed: share of loops repaired, word error rate of the result against what was said
(jiwer), audio seconds decoded, and decode wall time. Target: (c) repairs >= 90% and at
least as many as (b), decoding less audio than re-running the whole file.
Usage: python bench/repair_real.py [--seeds 5]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import jiwer
import regex

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import degen  # noqa: E402
from degen.model import Span  # noqa: E402
from degen.repair.audio import Audio  # noqa: E402
from degen.repair.client import HttpTranscriber, Request  # noqa: E402
from degen.repair.policy import Policy, Step  # noqa: E402
from degen.testing import TestServer  # noqa: E402

AUDIO = Path(__file__).resolve().parent.parent / "fixtures" / "audio"
LOOPING = ("composite", "no_x15", "okay_x10")


def words(text: str) -> str:
    text = regex.sub(r"[^\p{L}\p{N}' ]+", " ", text.lower())
    return " ".join("okay" if w == "ok" else w for w in text.split())


def wer(reference: str, hypothesis: str) -> float:
    return jiwer.wer(words(reference), words(hypothesis) or "<empty>")


def looped(transcript) -> bool:
    return any(f.is_loop for f in degen.scan(transcript).flagged)


def run(decoder, name: str, saved: Path, fallback_cost=None) -> dict:
    audio = Audio.open(AUDIO / f"{name}.wav")
    truth = (AUDIO / f"{name}.txt").read_text()
    out = {}
    with TestServer(decoder) as server:
        for label, policy in (("a: 0.1 only", Policy(steps=(Step(0.1),))), ("c: degen", Policy())):
            start = time.perf_counter()
            result = degen.fix(saved, audio=audio, transcriber=server.url, policy=policy, concurrency=1)
            text = " ".join(s.text for s in result.transcript)
            out[label] = (not looped(result.transcript), wer(truth, text), result.seconds_decoded,
                          time.perf_counter() - start)
    start = time.perf_counter()
    samples = audio.read(Span(0, audio.duration)).astype("float32") / 32768.0
    segments = decoder.segments(samples, 0.0, fallback=True)
    decoded = fallback_cost(segments, audio.duration) if fallback_cost else audio.duration
    segments = [(s.start, s.end, s.text.strip()) if hasattr(s, "text") else s[:3] for s in segments]
    text = " ".join(t for _, _, t in segments)
    markup = "".join(f"[{a:.2f}][S01]{t}[{b:.2f}]" for a, b, t in segments)
    repaired = not looped(degen.read(markup)) if markup else True
    out["b: whisper fallback, whole file"] = (repaired, wer(truth, text), decoded, time.perf_counter() - start)
    return out


FALLBACK = [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]


def fallback_seconds(segments, duration: float) -> float:
    """Audio the fallback decoded: each 30 s window once per temperature it tried (a
    window that ended at 0.4 was decoded at 0.0, 0.2 and 0.4)."""
    windows = {}
    for s in segments:
        windows[s.seek] = max(windows.get(s.seek, 0), FALLBACK.index(s.temperature) + 1)
    total = 0.0
    for seek, passes in windows.items():
        start = seek / 100  # seek counts 10 ms frames
        total += passes * min(30.0, max(duration - start, 0.0))
    return total or duration


def benchmark(make_decoder, seeds: int, fallback_cost=None) -> list[str]:
    """The table's lines. ``make_decoder(seed)`` gives a decoder sampling with that seed."""
    rows: dict[str, list] = {}
    greedy_wer = []
    with tempfile.TemporaryDirectory() as tmp:
        saved = {}
        with TestServer(make_decoder(0)) as server:
            for name in LOOPING:
                audio = Audio.open(AUDIO / f"{name}.wav")
                reply = HttpTranscriber(server.url).transcribe(Request(audio.clip(Span(0, audio.duration)), 0.0, 4096))
                saved[name] = Path(tmp) / f"{name}.json"
                saved[name].write_text(reply.text, encoding="utf-8")
                greedy_wer.append(wer((AUDIO / f"{name}.txt").read_text(),
                                      " ".join(s.text for s in degen.read(saved[name]))))
        for seed in range(seeds):
            decoder = make_decoder(seed + 1)
            for name in LOOPING:
                for label, row in run(decoder, name, saved[name], fallback_cost).items():
                    rows.setdefault(label, []).append(row)
    total = sum(Audio.open(AUDIO / f"{n}.wav").duration for n in LOOPING) * seeds
    lines = [f"{len(LOOPING)} looping files x {seeds} seeds; greedy WER {sum(greedy_wer) / len(greedy_wer):.2f}",
             f"{'method':<34} {'loops repaired':>15} {'mean WER':>9} {'audio decoded':>14} {'of file':>8} {'wall s':>7}"]
    for label in sorted(rows):
        r = rows[label]
        decoded = sum(x[2] for x in r)
        lines.append(f"{label:<34} {sum(x[0] for x in r):>7}/{len(r):<7} {sum(x[1] for x in r) / len(r):>9.2f} "
                     f"{decoded:>12.1f} s {decoded / total:>7.0%} {sum(x[3] for x in r):>7.1f}")
    return lines


def main() -> None:
    from degen.testing.whisper import WhisperDecoder
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args()
    print("\n".join(benchmark(lambda seed: WhisperDecoder(seed=seed), args.seeds, fallback_seconds)))


if __name__ == "__main__":
    main()
