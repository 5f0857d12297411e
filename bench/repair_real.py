"""Repairing real loops of real models (not a test: prints one table from one run).

Whisper tiny.en (English) and Whisper base (every other language, the language pinned at
the test server), run by faster-whisper on the CPU (int8) behind the test server. Every
method starts from the same input on every machine: a committed greedy transcript.
Two sets of recordings:
  fixtures   (default) fixtures/audio: each looping fixture of recordings.json, judged
             against NAME.txt;
  loops      (--corpus loops) fixtures/loops/corpus.json, the real-loop corpus made by
             scripts/make_loop_corpus.py, judged against each recipe's script with its
             repeated unit and true count; --split test|dev|all.
For each seed:
  degen             degen fix with its default policy;
  0.1 only          degen fix re-submitting the flagged spans at temperature 0.1 once;
  whisper fallback  the whole file again with whisper's own schedule (0.0, 0.2 ... 1.0 on
                    compression ratio > 2.4 or mean log-prob < -1.0).
Each result is judged against what was said (degen/testing/fidelity.py, per language):
  faithful     no loop left, the repetition really said kept within 25%, WER <= 0.35 (or
               no more than the input's with its loop cut to the count said);
  deletions    fewer than 75% of the real repetitions, or words the input had right dropped;
  wrong exit 0 not faithful, yet degen fix would exit 0 (every span repaired, none
               unrepairable); whisper's fallback has no exit code: every answer of it that
               is not faithful counts here;
  unresolved   not faithful, and degen fix would exit 1 (it says so);
  decoded      audio sent as a share of the files (every request counted: the fallback
               decodes a window once per temperature it tries).
Targets: degen >= 90% faithful and more than the fallback, zero wrong answers with exit 0,
at most 100% of the audio decoded.
Usage: python bench/repair_real.py [--seeds 3] [--models tiny.en,base] [--only NAME,...]
       python bench/repair_real.py --corpus loops --split test [--seeds 3] [--log FILE.jsonl]
A long run can be made in parts (--languages, --first-seed, each with --log) and one table
printed from their logs: python bench/repair_real.py --corpus loops --split test --from-logs A B
The rows by "what greedy heard" split the corpus where the greedy loop's unit is the one
said from where the model heard another word (espeak-ng's "zwölf" as "Smokes"): on the
second kind a faithful answer needs the model to hear the word right on a re-decode.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import degen  # noqa: E402
from degen.model import Span  # noqa: E402
from degen.repair.audio import Audio  # noqa: E402
from degen.repair.policy import Policy, Step  # noqa: E402
from degen.testing import TestServer  # noqa: E402
from degen.testing.fidelity import judge, tokens  # noqa: E402

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
AUDIO = FIXTURES / "audio"
LOOPS = FIXTURES / "loops"
FALLBACK = [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
METHODS = ("degen", "0.1 only", "whisper fallback")


@dataclass(frozen=True)
class Case:
    """One looping recording: its greedy transcript, audio and what was said."""

    name: str
    model: str
    language: str | None
    saved: Path  # the greedy transcript, input of every method
    audio: Path
    script: str
    unit: str | None = None  # the repetition said, where the recipe knows it
    count: int | None = None
    placement: str = ""
    heard_right: str = ""  # loops: whether the greedy loop's unit is the one said (folded)


@dataclass(frozen=True)
class Row:
    """One method's result on one case in one seed."""

    case: Case
    seed: int
    verdict: object
    decoded: float  # seconds of audio sent
    wall: float
    exit0: bool  # degen fix would exit 0 (the fallback: always)

    @property
    def wrong_exit0(self) -> bool:
        return self.exit0 and not self.verdict.faithful

    @property
    def unresolved(self) -> bool:
        return not self.exit0 and not self.verdict.faithful


def text(transcript) -> str:
    return " ".join(s.text for s in transcript)


def looped(transcript) -> bool:
    return any(f.is_loop for f in degen.scan(transcript).flagged)


def loop_counts(transcript) -> list[int]:
    return [f.count for f in degen.scan(transcript).flagged if f.is_loop]


def fixtures(models: list[str], only: list[str] | None) -> list[Case]:
    """Each recorded fixture of fixtures/audio that loops."""
    manifest = orjson.loads((AUDIO / "recordings.json").read_bytes())
    found = []
    for entry in manifest.values():
        if entry["model"] not in models:
            continue
        for name, files in sorted(entry["files"].items()):
            saved = AUDIO / files["greedy"]
            if (only is None or name in only) and looped(degen.read(saved)):
                found.append(Case(name, entry["model"], entry["language"], saved, AUDIO / f"{name}.wav",
                                  (AUDIO / f"{name}.txt").read_text(encoding="utf-8")))
    return found


def corpus(split: str, models: list[str], only: list[str] | None, languages: list[str] | None) -> list[Case]:
    """The real-loop corpus's recordings of ``split`` ("test", "dev" or "all")."""
    manifest = orjson.loads((LOOPS / "corpus.json").read_bytes())["recordings"]
    found = []
    for name, e in sorted(manifest.items(), key=lambda item: (item[1]["language"], item[0])):
        if ((split == "all" or e["split"] == split) and e["model"] in models and (only is None or name in only)
                and (languages is None or e["language"] in languages)):
            right = tokens(e["heard"][0]["unit"], e["language"]) == tokens(e["unit"], e["language"])
            found.append(Case(name, e["model"], e["language"], LOOPS / e["greedy"], LOOPS / e["audio"], e["script"],
                              e["unit"], e["count"], e["placement"],
                              "greedy heard the unit" if right else "greedy heard another unit"))
    return found


def fallback_seconds(segments, duration: float) -> float:
    """Audio the fallback decoded: each 30 s window once per temperature it tried (a window
    that ended at 0.4 was decoded at 0.0, 0.2 and 0.4)."""
    windows: dict[int, int] = {}
    for s in segments:
        windows[s.seek] = max(windows.get(s.seek, 0), FALLBACK.index(s.temperature) + 1)
    total = sum(passes * min(30.0, max(duration - seek / 100, 0.0)) for seek, passes in windows.items())
    return total or duration


def verdict_of(case: Case, before: str, after: str, counts: list[int]):
    return judge(case.script, before, after, counts, language=case.language, unit=case.unit, count=case.count)


def run_case(decoder, case: Case, seed: int, methods=METHODS) -> dict[str, Row]:
    """{method: Row} for one case and one decoder, for each of ``methods``."""
    audio = Audio.open(case.audio)
    before = text(degen.read(case.saved))
    out = {}
    with TestServer(decoder) as server:
        for method, policy in (("degen", None), ("0.1 only", Policy(steps=(Step(0.1),)))):
            if method not in methods:
                continue
            start = time.perf_counter()
            kwargs = {"policy": policy} if policy else {}
            result = degen.fix(case.saved, audio=audio, transcriber=server.url, concurrency=1, **kwargs)
            exit0 = not result.unresolved and not result.plan.unrepairable  # as `degen fix` exits
            verdict = verdict_of(case, before, text(result.transcript), loop_counts(result.transcript))
            out[method] = Row(case, seed, verdict, result.seconds_decoded, time.perf_counter() - start, exit0)
    if "whisper fallback" not in methods:
        return out
    start = time.perf_counter()
    samples = audio.read(Span(0, audio.duration)).astype("float32") / 32768.0
    found = decoder.segments(samples, 0.0, fallback=True)
    # faster-whisper says which temperatures each window tried; transformers does not (its
    # segments are tuples): there one pass is counted, a lower bound.
    decoded = fallback_seconds(found, audio.duration) if found and hasattr(found[0], "seek") else audio.duration
    segments = [(s.start, s.end, s.text.strip()) if hasattr(s, "text") else s[:3] for s in found]
    markup = "".join(f"[{a:.2f}][S01]{t}[{b:.2f}]" for a, b, t in segments)
    verdict = verdict_of(case, before, " ".join(t for _, _, t in segments),
                         loop_counts(degen.read_text(markup)) if markup else [])
    out["whisper fallback"] = Row(case, seed, verdict, decoded, time.perf_counter() - start, True)
    return out


def run(make_decoder, cases: list[Case], seeds: int, log=None, first_seed: int = 1,
        methods=METHODS) -> list[tuple[str, Row]]:
    """Every row. ``make_decoder(model, language, seed)`` gives a live decoder; ``log`` (a
    file) gets one JSON line a row as it is made, so a long run can be read part way."""
    rows = []
    for seed in range(first_seed, first_seed + seeds):
        decoders = {}
        for i, case in enumerate(cases, 1):
            key = (case.model, case.language)
            if key not in decoders:
                decoders[key] = make_decoder(case.model, case.language, seed)
            for method, row in run_case(decoders[key], case, seed, methods).items():
                rows.append((method, row))
                if log:
                    log.write(orjson.dumps(_log_line(method, row)).decode() + "\n")
                    log.flush()
            print(f"seed {seed} {i}/{len(cases)} {case.name} {case.language}", file=sys.stderr, flush=True)
    return rows


def _log_line(method: str, row: Row) -> dict:
    v = row.verdict
    return {"method": method, "case": row.case.name, "language": row.case.language, "model": row.case.model,
            "seed": row.seed, "faithful": v.faithful, "deletion": v.deletion, "exit0": row.exit0, "count": v.count,
            "real": v.real, "looped": v.looped, "wer": round(v.wer, 3), "decoded": round(row.decoded, 2),
            "wall": round(row.wall, 2)}


@dataclass(frozen=True)
class Logged:
    """A verdict as ``--log`` wrote it (what the table reads of one)."""

    faithful: bool
    deletion: bool
    wer: float


def from_logs(paths: list[Path], cases: list[Case]) -> tuple[list[tuple[str, Row]], list[Case], int, tuple]:
    """The rows of earlier runs' logs (the last line of each method, case and seed wins), the
    cases every logged method covered, the seeds and the methods: one table from runs made
    in parts."""
    by_name = {c.name: c for c in cases}
    lines = {}
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            d = orjson.loads(line)
            if d["case"] in by_name:
                lines[(d["method"], d["case"], d["seed"])] = d
    rows = [(d["method"], Row(by_name[d["case"]], d["seed"], Logged(d["faithful"], d["deletion"], d["wer"]),
                              d["decoded"], d["wall"], d["exit0"])) for d in lines.values()]
    seeds = sorted({d["seed"] for d in lines.values()})
    methods = [m for m in METHODS if any(key[0] == m for key in lines)]
    every = {name for (_, name, _) in lines if all((m, name, s) in lines for m in methods for s in seeds)}
    rows = [(m, r) for m, r in rows if r.case.name in every]
    return rows, [c for c in cases if c.name in every], len(seeds), tuple(methods)


def benchmark(make_decoder, cases, seeds: int, log=None, first_seed: int = 1, methods=METHODS) -> list[str]:
    """The table's lines (``bench/gpu_whisper.py`` calls this too)."""
    return table(run(make_decoder, cases, seeds, log, first_seed, methods), cases, seeds, methods)


def _cell(rows: list[Row]) -> str:
    """faithful/all (per seed), wrong exit 0, unresolved, deletions, decoded."""
    every = sorted({r.seed for r in rows})
    per = "/".join(str(sum(r.verdict.faithful for r in rows if r.seed == s)) for s in every)
    seconds = sum(Audio.open(c.audio).duration for c in {r.case for r in rows}) * len(every)
    return (f"{sum(r.verdict.faithful for r in rows)}/{len(rows)} ({per}) faithful, "
            f"{sum(r.wrong_exit0 for r in rows)} wrong exit 0, {sum(r.unresolved for r in rows)} unresolved, "
            f"{sum(r.verdict.deletion for r in rows)} deletions, {sum(r.decoded for r in rows) / seconds:.0%} decoded")


def table(rows: list[tuple[str, Row]], cases: list[Case], seeds: int, methods=METHODS) -> list[str]:
    by_method = {m: [r for method, r in rows if method == m] for m in methods}
    every = sorted({r.seed for _, r in rows})
    seconds = sum(Audio.open(c.audio).duration for c in cases)
    models = sorted({c.model for c in cases})
    lines = [f"{len(cases)} looping recordings ({', '.join(models)}) x {seeds} seeds "
             f"({', '.join(map(str, every))}); {seconds:.1f} s of audio a seed",
             f"{'method':<17} {'faithful':>9} {'per seed':>14} {'deletions':>9} {'wrong exit 0':>12} "
             f"{'unresolved':>10} {'mean WER':>13} {'decoded':>8} {'wall s':>7}"]
    for method in methods:
        r = by_method[method]
        per = "/".join(str(sum(x.verdict.faithful for x in r if x.seed == s)) for s in every)
        wers = [statistics.mean(x.verdict.wer for x in r if x.seed == s) for s in every]
        spread = statistics.pstdev(wers) if len(wers) > 1 else 0.0
        lines.append(f"{method:<17} {sum(x.verdict.faithful for x in r):>4}/{len(r):<4} {per:>14} "
                     f"{sum(x.verdict.deletion for x in r):>9} {sum(x.wrong_exit0 for x in r):>12} "
                     f"{sum(x.unresolved for x in r):>10} {statistics.mean(x.verdict.wer for x in r):>7.2f} "
                     f"±{spread:.2f} {sum(x.decoded for x in r) / (seconds * seeds):>8.0%} "
                     f"{sum(x.wall for x in r):>7.1f}")
    for title, key in (("language", lambda c: c.language or "?"), ("model", lambda c: c.model),
                       ("placement", lambda c: c.placement), ("what greedy heard", lambda c: c.heard_right)):
        groups = sorted({key(c) for c in cases})
        if groups == [""]:
            continue
        lines += ["", f"by {title}:"]
        for group in groups:
            mine = [c for c in cases if key(c) == group]
            lines.append(f"  {group} ({len(mine)} recordings)")
            lines += [f"    {method:<17} " + _cell([r for r in by_method[method] if key(r.case) == group])
                      for method in methods]
    lines += ["", "per recording, faithful (wrong exit 0) of seeds: degen / 0.1 only / fallback"]
    for case in cases:
        cells = [f"{sum(r.verdict.faithful for r in by_method[m] if r.case == case)} "
                 f"({sum(r.wrong_exit0 for r in by_method[m] if r.case == case)})" for m in methods]
        lines.append(f"  {case.name:<14} {case.language or '?':<3} {case.model:<8} {case.placement:<7} "
                     + " / ".join(cells))
    return lines


def main() -> None:
    from degen.testing.whisper import WhisperDecoder
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--models", default="tiny.en,base")
    parser.add_argument("--only", help="fixture or recording names, comma-separated")
    parser.add_argument("--corpus", choices=("fixtures", "loops"), default="fixtures")
    parser.add_argument("--split", choices=("test", "dev", "all"), default="test", help="loops: which split")
    parser.add_argument("--languages", help="loops: these languages only, comma-separated")
    parser.add_argument("--first-seed", type=int, default=1, help="seeds FIRST .. FIRST+SEEDS-1 (runs in parts)")
    parser.add_argument("--methods", default=",".join(METHODS),
                        help=f"comma-separated, of: {', '.join(METHODS)} (degen alone re-measures a change)")
    parser.add_argument("--log", type=Path, help="write one JSON line a result here as it is made")
    parser.add_argument("--from-logs", type=Path, nargs="+", help="print the table of earlier runs' --log files "
                        "(the cases of the selection that every method and seed covered), run nothing")
    args = parser.parse_args()
    only = args.only.split(",") if args.only else None
    models = args.models.split(",")
    if args.corpus == "loops":
        cases = corpus(args.split, models, only, args.languages.split(",") if args.languages else None)
    else:
        cases = fixtures(models, only)
    if args.from_logs:
        rows, cases, seeds, methods = from_logs(args.from_logs, cases)
        print("\n".join(table(rows, cases, seeds, methods)))
        return
    log = open(args.log, "a", encoding="utf-8") if args.log else None
    try:
        lines = benchmark(lambda model, language, seed: WhisperDecoder(seed=seed, model=model, language=language),
                          cases, args.seeds, log, args.first_seed, tuple(args.methods.split(",")))
    finally:
        if log:
            log.close()
    print("\n".join(lines))


if __name__ == "__main__":
    main()
