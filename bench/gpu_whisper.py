"""The repair on a GPU: Whisper tiny.en through transformers, fp16 (not a test; CI has no GPU).

On the GPU machine, with the int8 CTranslate2 folder from scripts/ct2_int8.py mapped onto
WhisperForConditionalGeneration, behind the same test server, measured in one run:
  1. the real-loop repair benchmark of bench/repair_real.py on the tiny.en fixtures;
  2. repair wall time against transcribing the whole file again;
  3. throughput (audio seconds per second) at concurrency 1, 8 and 32, for short clips
     (16 s of clean speech) and long ones (the 60 s composite, whose loops run windows to
     the 448-token cap), short clips batched as a serving engine would.
With --corpus loops, instead: bench/repair_real.py's table on the real-loop corpus's
tiny.en recordings of --split (the transformers mapping knows tiny.en's tokens only), each
method's rows logged to --log as repair_real logs them.
Usage (see docs/benchmarks.md, "The GPU"): python bench/gpu_whisper.py MODEL_DIR [--out FILE]
       python bench/gpu_whisper.py MODEL_DIR --corpus loops --split test --seeds 1 [--first-seed N] [--log FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import degen  # noqa: E402
from degen.model import Span  # noqa: E402
from degen.repair.audio import Audio  # noqa: E402
from degen.repair.client import HttpTranscriber, Request  # noqa: E402
from degen.testing import TestServer  # noqa: E402
from degen.testing.hf_whisper import TransformersWhisperDecoder  # noqa: E402
from repair_real import AUDIO, benchmark, corpus, fixtures  # noqa: E402


def whole(server, name: str, temperature: float) -> str:
    audio = Audio.open(AUDIO / f"{name}.wav")
    return HttpTranscriber(server.url).transcribe(Request(audio.clip(Span(0, audio.duration)), temperature, 4096)).text


def repair_vs_rerun(decoder) -> list[str]:
    with TestServer(decoder) as server, tempfile.TemporaryDirectory() as tmp:
        saved = Path(tmp) / "composite.json"
        saved.write_text(whole(server, "composite", 0.0), encoding="utf-8")
        start = time.perf_counter()
        whole(server, "composite", 0.1)
        rerun = time.perf_counter() - start
        start = time.perf_counter()
        result = degen.fix(saved, audio=AUDIO / "composite.wav", transcriber=server.url)
        repair = time.perf_counter() - start
    seconds = Audio.open(AUDIO / "composite.wav").duration
    return [f"composite ({seconds:.1f} s): whole file again at 0.1 {rerun:.2f} s; degen fix {repair:.2f} s "
            f"({repair / rerun:.2f}x), {result.seconds_decoded:.1f} s of audio re-decoded, "
            f"loops left: {sum(f.is_loop for f in result.after.flagged)}"]


def throughput(decoder, name: str, requests: int) -> list[str]:
    audio = Audio.open(AUDIO / f"{name}.wav")
    clip = audio.clip(Span(0, audio.duration))
    lines = []
    with TestServer(decoder) as server:
        client = HttpTranscriber(server.url, timeout=600)
        client.transcribe(Request(clip, 0.0, 4096))  # warm-up
        for concurrency in (1, 8, 32):
            start = time.perf_counter()
            with ThreadPoolExecutor(concurrency) as pool:
                list(pool.map(lambda _: client.transcribe(Request(clip, 0.0, 4096)), range(requests)))
            wall = time.perf_counter() - start
            lines.append(f"{name} ({audio.duration:.0f} s) x{requests}, concurrency {concurrency:>2}: "
                         f"{wall:6.2f} s, {requests * audio.duration / wall:7.1f} audio s/s "
                         f"(RTFx), {requests / wall:5.2f} req/s")
    return lines


def loop_corpus(decoder, split: str, seeds: int, log_path: str | None, first_seed: int = 1) -> list[str]:
    cases = corpus(split, ["tiny.en"], None, None)  # the transformers mapping is tiny.en's
    with open(log_path, "a", encoding="utf-8") if log_path else contextlib.nullcontext() as log:
        return ["", f"## real-loop corpus, {split} split, tiny.en"] + benchmark(
            lambda model, language, seed: decoder.reseed(seed), cases, seeds, log, first_seed)


def fixture_runs(decoder, args) -> list[str]:
    lines = []
    if args.only != "throughput":
        cases = fixtures(["tiny.en"], None)  # the transformers mapping is tiny.en's (English-only tokens)
        lines += ["", "## real loops repaired"] + benchmark(lambda model, language, seed: decoder.reseed(seed),
                                                           cases, args.seeds)
        lines += ["", "## repair against a whole-file re-run"] + repair_vs_rerun(decoder.reseed(0))
    if args.only != "repair":
        lines += ["", "## throughput"] + throughput(decoder, "clean_a", args.requests)
        lines += throughput(decoder, "composite", max(1, args.requests // 4))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("model", help="CTranslate2 Whisper folder (int8 from scripts/ct2_int8.py)")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--only", choices=("repair", "throughput"), help="run one half (each fits a 10-minute call)")
    parser.add_argument("--requests", type=int, default=32, help="short clips per concurrency level (long: a quarter)")
    parser.add_argument("--out")
    parser.add_argument("--corpus", choices=("fixtures", "loops"), default="fixtures")
    parser.add_argument("--split", choices=("test", "dev", "all"), default="test")
    parser.add_argument("--log", help="with --corpus loops: each row as JSON Lines")
    parser.add_argument("--first-seed", type=int, default=1)
    args = parser.parse_args()
    import torch
    dtype = "float16" if args.device == "cuda" else "float32"
    decoder = TransformersWhisperDecoder(args.model, device=args.device, dtype=dtype)
    name = torch.cuda.get_device_name() if args.device == "cuda" else "CPU"
    lines = [f"device: {name}, torch {torch.__version__}, {dtype}"]
    if args.corpus == "loops":
        lines += loop_corpus(decoder, args.split, args.seeds, args.log, args.first_seed)
    else:
        lines += fixture_runs(decoder, args)
    text = "\n".join(lines)
    print(text, flush=True)
    if args.out:
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()
