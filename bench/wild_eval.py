"""degen against the published loop and hallucination rules, on the real transcripts
of fixtures/wild (not a test: prints figures measured in this run).

Every file listed in fixtures/wild/index.jsonl is read with degen's readers and judged by
degen (degenerate at the default fail-on) and by each published rule, re-implemented
from its documented thresholds in bench/wild_rules.py:

  whisper       zlib compression ratio of a 30 s window's text > 2.4 (openai/whisper
                transcribe.py; untimed text is cut into windows of WINDOW_CHARS)
  sglang-omni   8 to 128 normalised characters repeated 3 times back to back, per 30 s
                chunk (SGLang-Omni Whisper adapter, PR 1654; normalised as NFKC, case-folded,
                punctuation and spaces removed)
  vibevoice     a pattern of 10+ characters repeated 3 times inside 500 characters of
                the streamed text (VibeVoice vLLM auto-recover)
  vllm          a pattern of 1 to 20 tokens repeated >= 3 times at the END of a request's
                output (RepetitionDetectionParams, proposed defaults); a request is a
                30 s window; tokens are words, CJK graphemes and punctuation marks
  nemo-sdp      per utterance (segment): unique-word share <= 0.4, or a word of 25+
                characters (DetectWhisperHallucinationFeatures; its relative-length rule
                is left out: it flags any segment holding "I" and a long word)
  gopher        datatrove GopherRepetitionFilter with its published fractions, on the
                document made of one segment per line
  nemo-sdp+phrases  with --sdp-phrases DIR only: nemo-sdp plus its exact match of a
                segment against the phrases of SDP's per-language files (DIR is SDP's
                dataset_configs/multilingual/granary/partials/common_phrases)

Figures per split: recall on loops and hallucinations, false positives on clean files,
per loop kind (the first table, as before) and per class of fixtures/wild/classes.json
(recall for a degenerate class, false positives for a clean one). Files degen cannot read
count as misses (and as false positives when clean) and are listed with the reader's
message; the rules get the raw file text for those. --round N keeps the files of one
collection round (the round's out-of-sample figure before any tuning).

--manifest FILE judges a NeMo-style manifest row by row instead: how many rows degen flags
(at all, and above `low`) and how many each rule flags, each row an utterance of its own.

Usage: python bench/wild_eval.py [--corpus fixtures/wild] [--round N] [--json] [--misses]
       python bench/wild_eval.py --manifest FILE [--json]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import degen  # noqa: E402
from degen.errors import DegenError  # noqa: E402
from wild_rules import (RULES, WINDOW_CHARS, WINDOW_SECONDS, Doc, gopher, load_sdp_phrases,  # noqa: E402,F401
                        nemo_sdp, nemo_sdp_phrases, sglang_omni, vibevoice, vllm, whisper)

LOOP_LABEL, HALLUCINATION_LABEL, CLEAN_LABEL = "loop", "hallucination", "clean"


def doc_of(transcript) -> Doc:
    timed = transcript.timed
    return Doc([s.text for s in transcript], [s.span.start for s in transcript] if timed else None)


# ---- evaluation --------------------------------------------------------------------

def judge(path: Path, lexicon=None, rules=None) -> tuple[dict[str, bool], bool, str | None]:
    """Verdicts of degen and every rule on one file, whether degen could read it, and
    degen's message when it could not."""
    rules = RULES if rules is None else rules
    try:
        transcript = degen.read(path)
        report = degen.scan(transcript) if lexicon is None else _scan_with(transcript, lexicon)
    except (DegenError, OSError) as exc:
        raw = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
        doc = Doc(raw.splitlines(), None)
        message = str(exc).replace(f"{path}: ", "")  # the file is named by its row already
        return {"degen": None, **{name: rule(doc) for name, rule in rules.items()}}, False, message
    doc = doc_of(transcript)
    return {"degen": report.degenerate, **{name: rule(doc) for name, rule in rules.items()}}, True, None


def _scan_with(transcript, lexicon):
    from degen.detect import DEFAULT, analyze
    from degen.report import build_report
    analysis = analyze(transcript, DEFAULT, None, lexicon)
    return build_report("", transcript.format, analysis, transcript.end, DEFAULT.fail_on)


def read_index(corpus: Path) -> list[dict]:
    index = corpus / "index.jsonl"
    if not index.is_file():
        raise SystemExit(f"{index}: no corpus index; give --corpus DIR holding index.jsonl")
    return [json.loads(line) for line in index.read_text(encoding="utf-8").splitlines() if line.strip()]


def evaluate(corpus: Path, lexicon=None, rounds: set[str] | None = None, rules=None) -> dict:
    rules = RULES if rules is None else rules
    entries = [e for e in read_index(corpus) if rounds is None or e.get("round") in rounds]
    detectors = ["degen", *rules]
    result: dict = {}
    for split in ("dev", "test"):
        hits: dict = {d: Counter() for d in detectors}
        class_hits: dict = {d: Counter() for d in detectors}
        totals, class_totals, unreadable = Counter(), Counter(), Counter()
        files = []
        for e in (e for e in entries if e.get("split") == split):
            verdicts, readable, error = judge(corpus / e["file"], lexicon, rules)
            group = e["kind"] if e["label"] == LOOP_LABEL else e["label"]
            groups = {group, e["label"]}  # a loop counts for its kind and for all loops
            cls = e.get("class", e["label"])
            totals.update(groups)
            class_totals[cls] += 1
            if not readable:
                unreadable[e["label"]] += 1
            for d in detectors:
                flagged = verdicts[d]
                if flagged is None:  # degen could not read it: a miss, or a false alarm when clean
                    flagged = e["label"] == CLEAN_LABEL
                if flagged:
                    hits[d].update(groups)
                    class_hits[d][cls] += 1
            files.append({"file": e["file"], "label": e["label"], "kind": e["kind"], "class": cls,
                          "round": e.get("round"), "readable": readable, "error": error,
                          **{d: verdicts[d] for d in detectors}})
        result[split] = {"totals": dict(totals), "unreadable": dict(unreadable),
                         "hits": {d: dict(h) for d, h in hits.items()},
                         "class_totals": dict(class_totals),
                         "class_hits": {d: dict(h) for d, h in class_hits.items()}, "files": files}
    return result


def held_out_lexicon(corpus: Path, path: Path | None):
    """The lexicon without the rows whose source is the bug report a test-split file was
    taken from: hallucination recall on test then measures phrases not learnt from it."""
    import tempfile
    from degen.detect import load_lexicon
    from degen.detect.hallucination import LEXICON_FILE
    text = (path or ROOT / "degen" / "detect" / LEXICON_FILE).read_text(encoding="utf-8")
    urls = {e["source"].split("#")[0] for e in read_index(corpus) if e.get("split") == "test"}
    cited = {m.group(1) for m in re.finditer(r"^# \[([^\]]+)\] (\S+)", text, re.M) if m.group(2) in urls}
    kept = [line for line in text.splitlines() if line.startswith("#") or line.rsplit("\t", 1)[-1] not in cited]
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "held_out.tsv"
        out.write_text("\n".join(kept) + "\n", encoding="utf-8")
        return load_lexicon(out)


# ---- a manifest, row by row ---------------------------------------------------------

def _flagged_rows(findings) -> tuple[set[int], set[int]]:
    from degen.detect.finding import Severity
    any_rows, above_low = set(), set()
    for f in findings:
        first, last = f.segments
        rows = set(range(first, last + 1))
        any_rows |= rows
        if f.severity.rank > Severity.LOW.rank:
            above_low |= rows
    return any_rows, above_low


def evaluate_manifest(path: Path, rules=None) -> dict:
    """Rows of a NeMo-style manifest that degen flags (any severity, and above `low`), the
    rows it flags when each row's text is scanned alone as a plain-text file (what a user
    who splits the manifest sees), and the rows each rule flags as an utterance of its own."""
    rules = RULES if rules is None else rules
    transcript = degen.read(path)
    any_rows, above_low = _flagged_rows(degen.scan(transcript).findings)
    texts = [s.text for s in transcript]
    alone_any, alone_above = set(), set()
    for i, text in enumerate(texts):
        a, b = _flagged_rows(degen.scan_text(text, format="text").findings)
        alone_any |= {i} if a else set()
        alone_above |= {i} if b else set()
    flagged = {name: [i for i, t in enumerate(texts) if rule(Doc([t], None))] for name, rule in rules.items()}
    shown = any_rows | alone_any | {i for v in flagged.values() for i in v}
    return {"file": str(path), "rows": len(texts), "degen_any": sorted(any_rows), "degen_above_low": sorted(above_low),
            "degen_alone_any": sorted(alone_any), "degen_alone_above_low": sorted(alone_above),
            "rules": flagged, "texts": {i: texts[i] for i in sorted(shown)}}


def render_manifest(m: dict) -> str:
    lines = [f"{m['file']}: {m['rows']} rows; degen flags {len(m['degen_any'])} "
             f"({len(m['degen_above_low'])} above low); each row alone as text: {len(m['degen_alone_any'])} "
             f"({len(m['degen_alone_above_low'])} above low)"]
    lines += [f"  {name}: {len(rows)}" for name, rows in m["rules"].items()]
    for what, rows in (("in the manifest", m["degen_any"]), ("alone", m["degen_alone_any"])):
        common = Counter(m["texts"][i] for i in rows).most_common(5)
        if common:
            lines.append(f"  degen's flagged rows {what}, most common: " + "; ".join(f"{t!r} x{n}" for t, n in common))
    return "\n".join(lines)


# ---- rendering ----------------------------------------------------------------------

def _cell(hit: int, total: int) -> str:
    return f"{hit / total:.2f} ({hit}/{total})" if total else "-"


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] + ["| " + " | ".join(r) + " |" for r in rows]


def render(result: dict) -> str:
    lines = []
    for split, r in result.items():
        totals, hits = r["totals"], r["hits"]
        kinds = sorted(k for k in totals if k not in (LOOP_LABEL, HALLUCINATION_LABEL, CLEAN_LABEL)
                       and k not in _clean_kinds(r))
        head = ["detector", "loops", HALLUCINATION_LABEL, "false pos. (clean)", *kinds]
        lines.append(f"\n{split}: {totals.get(LOOP_LABEL, 0)} loops, {totals.get(HALLUCINATION_LABEL, 0)} "
                     f"hallucinations, {totals.get(CLEAN_LABEL, 0)} clean; degen could not read "
                     f"{sum(r['unreadable'].values())} ({r['unreadable'] or 'none'})")
        lines += _table(head, [[d, _cell(h.get(LOOP_LABEL, 0), totals.get(LOOP_LABEL, 0)),
                                _cell(h.get(HALLUCINATION_LABEL, 0), totals.get(HALLUCINATION_LABEL, 0)),
                                _cell(h.get(CLEAN_LABEL, 0), totals.get(CLEAN_LABEL, 0)),
                                *(_cell(h.get(k, 0), totals[k]) for k in kinds)] for d, h in hits.items()])
    return "\n".join(lines)


def render_classes(result: dict, classes: dict) -> str:
    """Per class and split: recall on each degenerate class, false positives on each clean one."""
    lines = []
    order = [c for c in classes if not c.startswith("_")]
    for split, r in result.items():
        present = [c for c in order if r["class_totals"].get(c)] + sorted(set(r["class_totals"]) - set(order))
        degenerate = [c for c in present if CLEAN_LABEL not in classes.get(c, {}).get("labels", [])]
        clean = [c for c in present if c not in degenerate]
        lines.append(f"\n{split} by class: recall on {', '.join(degenerate) or 'none'}; "
                     f"false positives on {', '.join(clean) or 'none'}")
        head = ["detector", *(f"{c} (recall)" for c in degenerate), *(f"{c} (fp)" for c in clean)]
        lines += _table(head, [[d, *(_cell(h.get(c, 0), r["class_totals"][c]) for c in degenerate + clean)]
                               for d, h in r["class_hits"].items()])
        unread = [f for f in r["files"] if not f["readable"]]
        for f in unread:
            lines.append(f"  read error ({f['label']}, counted against degen): {f['file']}: {f['error']}")
    return "\n".join(lines)


def _clean_kinds(r: dict) -> set[str]:
    return {f["kind"] for f in r["files"] if f["label"] != LOOP_LABEL}


def load_classes(corpus: Path) -> dict:
    path = corpus / "classes.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=ROOT / "fixtures" / "wild")
    parser.add_argument("--json", action="store_true", help="print the figures and per-file verdicts as JSON")
    parser.add_argument("--lexicon", type=Path, help="a hallucination lexicon other than the packaged one")
    parser.add_argument("--without-test-sources", action="store_true",
                        help="drop lexicon rows whose cited source is the report a test file came from")
    parser.add_argument("--misses", action="store_true", help="list the files degen gets wrong")
    parser.add_argument("--round", action="append", dest="rounds",
                        help="only the files of this collection round (repeatable)")
    parser.add_argument("--sdp-phrases", type=Path,
                        help="NeMo SDP's common_phrases folder: adds the nemo-sdp+phrases rule")
    parser.add_argument("--manifest", type=Path, help="judge this NeMo-style manifest row by row instead")
    args = parser.parse_args()
    rules = dict(RULES)
    if args.sdp_phrases:
        rules["nemo-sdp+phrases"] = nemo_sdp_phrases(load_sdp_phrases(args.sdp_phrases))
    if args.manifest:
        m = evaluate_manifest(args.manifest, rules)
        print(json.dumps(m, indent=1, ensure_ascii=False) if args.json else render_manifest(m))
        return
    from degen.detect import load_lexicon
    lexicon = load_lexicon(args.lexicon) if args.lexicon else None
    if args.without_test_sources:
        lexicon = held_out_lexicon(args.corpus, args.lexicon)
    result = evaluate(args.corpus, lexicon, set(args.rounds) if args.rounds else None, rules)
    if args.json:
        print(json.dumps(result, indent=1, ensure_ascii=False))
        return
    print(render(result))
    print(render_classes(result, load_classes(args.corpus)))
    if args.misses:
        for split, r in result.items():
            for f in r["files"]:
                if f["degen"] is None or f["degen"] != (f["label"] != CLEAN_LABEL):
                    print(f"{split} {f['label']:<13} {f['class']:<17} degen={f['degen']} {f['file']}")


if __name__ == "__main__":
    main()
