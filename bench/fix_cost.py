"""What a repair costs against re-transcribing the whole file (not a test).

Against the test server, which charges a simulated decode time per second of audio and
decodes at most 8 requests at once (the seed saw long audio saturate at 8), on the
50-minute seed-like session, measured in one run:
  - audio seconds degen fix re-decodes, as a share of a full re-transcription, against
    the flagged share plus padding (target: at most 1.3x that, under 20% of a full run);
  - wall time against a full re-transcription at temperature 0.1;
  - the speed-up of --concurrency 8 over --concurrency 1;
  - for speaker anchoring off / 8 s / 15 s (the default): cost, speakers right, and
    segments restored (the repaired transcript's text equals the clean one's);
  - against servers that answer empty, every other answer empty, garbage, other audio's
    text, or half the clip: segments the input had right that are lost (target 0), and
    segments restored.
Usage: python bench/fix_cost.py [--rate 0.002]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import soundfile as sf

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import degen  # noqa: E402
from degen.repair.audio import Audio  # noqa: E402
from degen.repair.plan import make_plan  # noqa: E402
from degen.repair.policy import Policy  # noqa: E402
from degen.testing import Session, TestServer, write_session_audio  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "fixtures" / "seed"


def run_fix(server, audio, concurrency, anchor):
    start = time.perf_counter()
    result = degen.fix(SEED / "degenerate.json", audio=audio, transcriber=server.url, concurrency=concurrency,
                       policy=Policy(anchor_seconds=anchor))
    return result, time.perf_counter() - start


def restored(result) -> float:
    """Share of the clean transcript's segments present, text and start, in the output."""
    truth = degen.read(SEED / "clean.json")
    out = {(round(s.span.start, 1), s.text) for s in result.transcript}
    return sum((round(s.span.start, 1), s.text) in out for s in truth) / len(truth)


def lost_right(result, original, flagged) -> int:
    """Segments of the input no finding flagged that are not in the output."""
    out = {(s.span.start, s.text) for s in result.transcript}
    return sum((s.span.start, s.text) not in out for i, s in enumerate(original) if i not in flagged)


def faults_table(samples, rate, wav, audio) -> list[tuple]:
    from degen.testing import Faults
    original = degen.read(SEED / "degenerate.json")
    report = degen.scan(original, audio_duration=audio.duration)
    flagged = {i for f in report.flagged if f.segments for i in range(f.segments[0], f.segments[1] + 1)}
    rows = []
    for name, faults in (("empty", Faults(empty=10**6)), ("every other empty", Faults(every_other_empty=True)),
                         ("garbage", Faults(garbage=10**6)), ("wrong audio's text", Faults(wrong=10**6)),
                         ("half the clip", Faults(short=10**6))):
        with TestServer(Session.load(SEED / "truth.json", samples, rate), faults=faults) as server:
            result = degen.fix(original, audio=audio, transcriber=server.url)
        rows.append((name, lost_right(result, original, flagged), restored(result),
                     sum(o.status == "repaired" for o in result.outcomes), len(result.outcomes)))
    return rows


def speakers_right(result) -> float:
    truth = degen.read(SEED / "clean.json")
    pairs = list(zip(result.transcript, truth))
    return sum(a.speaker == b.speaker for a, b in pairs) / len(truth)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rate", type=float, default=0.002, help="simulated decode seconds per audio second")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        import orjson
        duration = orjson.loads((SEED / "truth.json").read_bytes())["duration"]
        wav = write_session_audio(Path(tmp) / "seed.wav", duration)
        samples, rate = sf.read(str(wav), dtype="int16")
        session = Session.load(SEED / "truth.json", samples, rate)
        with TestServer(session, decode_seconds_per_second=args.rate, slots=8) as server:
            audio = Audio.open(wav)
            before = degen.scan(SEED / "degenerate.json", audio_duration=audio.duration)
            plan = make_plan(degen.read(SEED / "degenerate.json"), before.flagged, audio.duration)
            flagged, padded = before.metrics.flagged_seconds, plan.seconds
            t0 = time.perf_counter()
            server.transcribe({"temperature": "0.1", "response_format": "json"}, wav.read_bytes())
            full_wall = time.perf_counter() - t0
            rows = []
            for anchor in (0.0, 8.0, 15.0):
                result, wall = run_fix(server, audio, 8, anchor)
                rows.append((anchor, result, wall))
            serial, serial_wall = run_fix(server, audio, 1, 15.0)
        faults = faults_table(samples, rate, wav, audio)
    print(f"session: {duration:.0f} s of audio; flagged {flagged:.1f} s ({flagged / duration:.1%}); "
          f"planned spans with padding {padded:.1f} s ({padded / duration:.1%})")
    print(f"full re-transcription at 0.1: {duration:.0f} s decoded, wall {full_wall:.2f} s")
    print(f"{'anchor':>7} {'decoded s':>10} {'of full':>8} {'x planned':>10} {'wall s':>7} {'x full wall':>11} "
          f"{'speakers right':>15} {'restored':>9} {'clean after':>12}")
    for anchor, result, wall in rows:
        print(f"{anchor:>7.0f} {result.seconds_decoded:>10.1f} {result.seconds_decoded / duration:>8.1%} "
              f"{result.seconds_decoded / padded:>10.2f} {wall:>7.2f} {wall / full_wall:>11.2f} "
              f"{speakers_right(result):>15.1%} {restored(result):>9.1%} {str(not result.after.degenerate):>12}")
    fast_wall = rows[-1][2]
    print(f"--concurrency 8 vs 1 (anchor 15 s): {serial_wall:.2f} s / {fast_wall:.2f} s = "
          f"{serial_wall / fast_wall:.1f}x faster")
    print(f"{'faulty server':>20} {'right segments lost':>20} {'restored':>9} {'spans repaired':>15}")
    for name, lost, share, repaired, spans in faults:
        print(f"{name:>20} {lost:>20} {share:>9.1%} {repaired:>9} of {spans}")


if __name__ == "__main__":
    main()
