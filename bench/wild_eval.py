"""degen against the published loop and hallucination rules, on the real transcripts
of fixtures/wild (not a test: prints figures measured in this run).

Every file listed in fixtures/wild/index.jsonl is read with degen's readers and judged by
degen (degenerate at the default fail-on) and by each published rule, re-implemented
from its documented thresholds:

  whisper       zlib compression ratio of a 30 s window's text > 2.4 (openai/whisper
                transcribe.py; untimed text is cut into windows of WINDOW_CHARS)
  sglang-omni   8 to 128 normalised characters repeated 3 times back to back, per 30 s
                chunk (SGLang-Omni Whisper adapter, PR 1654; normalised here as degen
                normalises: NFKC, case-folded, punctuation and spaces removed)
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

Files degen cannot read count as misses (and as false positives when clean); how many is
printed. The rules get the raw file text for those.

Usage: python bench/wild_eval.py [--corpus fixtures/wild] [--json]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import zlib
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import degen  # noqa: E402
from degen.detect.script import cjk_mask  # noqa: E402
from degen.detect.tokens import content  # noqa: E402
from degen.errors import DegenError  # noqa: E402

import numpy as np  # noqa: E402

WINDOW_SECONDS = 30.0
WINDOW_CHARS = 400  # about 30 s of speech when a file has no timing
LOOP_LABEL, HALLUCINATION_LABEL, CLEAN_LABEL = "loop", "hallucination", "clean"


# ---- the documents each rule sees --------------------------------------------------

class Doc:
    """One corpus file as the rules see it: segment texts, times when known."""

    def __init__(self, texts: list[str], starts: list[float] | None):
        self.texts = [t for t in texts]
        self.starts = starts

    def windows(self) -> list[str]:
        """Text of each 30 s decoding window (character chunks without timing)."""
        if self.starts is not None:
            out: dict[int, list[str]] = {}
            for t, s in zip(self.texts, self.starts):
                out.setdefault(int(s // WINDOW_SECONDS), []).append(t)
            return [" ".join(v) for _, v in sorted(out.items())]
        out2, current = [], ""
        for t in self.texts:
            if current and len(current) + len(t) > WINDOW_CHARS:
                out2.append(current)
                current = ""
            current = (current + " " + t).strip()
        return out2 + ([current] if current else [])


def doc_of(transcript) -> Doc:
    timed = transcript.timed
    return Doc([s.text for s in transcript], [s.span.start for s in transcript] if timed else None)


# ---- the published rules -----------------------------------------------------------

def whisper(doc: Doc) -> bool:
    for w in doc.windows():
        data = w.encode("utf-8")
        if data and len(data) / len(zlib.compress(data)) > 2.4:
            return True
    return False


_SGLANG = re.compile(r"(.{8,128}?)\1\1", re.S)


def sglang_omni(doc: Doc) -> bool:
    return any(_SGLANG.search(content(w)) for w in doc.windows())


_VIBEVOICE = re.compile(r"(.{10,166}?)\1\1", re.S)  # three copies inside 500 characters


def vibevoice(doc: Doc) -> bool:
    return bool(_VIBEVOICE.search(" ".join(doc.texts)))


_TOKEN = re.compile(r"[^\W\d_]+|\d+|[^\w\s]", re.U)


def _tokens(text: str) -> list[str]:
    out = []
    for tok in _TOKEN.findall(text):
        codes = np.frombuffer(tok.encode("utf-32-le"), dtype=np.uint32).astype(np.int64)
        out.extend(list(tok) if cjk_mask(codes).any() else [tok])
    return out


def vllm(doc: Doc, max_pattern: int = 20, min_count: int = 3) -> bool:
    for w in doc.windows():
        toks = _tokens(w)
        for size in range(1, max_pattern + 1):
            tail = toks[-size * min_count:]
            if len(tail) == size * min_count and all(tail[i] == tail[i % size] for i in range(len(tail))):
                return True
    return False


def nemo_sdp(doc: Doc) -> bool:
    for t in doc.texts:
        words = t.split()
        if not words:
            continue
        if len(set(words)) / len(words) <= 0.4 or max(map(len, words)) >= 25:
            return True
    return False


def _duplicates(items: list[str]) -> tuple[int, int]:
    seen, elements, chars = set(), 0, 0
    for x in items:
        if x in seen:
            elements, chars = elements + 1, chars + len(x)
        else:
            seen.add(x)
    return elements, chars


def _all_duplicate_chars(ngrams: list[str], n: int) -> int:
    seen, chars, i = set(), 0, 0
    while i < len(ngrams):
        if ngrams[i] in seen:
            chars += len(ngrams[i])
            i += n
        else:
            seen.add(ngrams[i])
            i += 1
    return chars


def gopher(doc: Doc) -> bool:
    text = "\n".join(doc.texts)
    if not text.strip():
        return False
    paragraphs = re.split(r"\n{2,}", text.strip())
    dup, chars = _duplicates(paragraphs)
    if dup / len(paragraphs) > 0.3 or chars / len(text) > 0.2:
        return True
    lines = text.splitlines()
    dup, chars = _duplicates(lines)
    if dup / len(lines) > 0.3 or chars / len(text) > 0.2:
        return True
    words = _tokens(text)  # datatrove uses nltk's English word_tokenize
    for n, frac in ((2, 0.20), (3, 0.18), (4, 0.16)):
        grams = [" ".join(words[i:i + n]) for i in range(len(words) - n + 1)]
        if grams:
            top, count = Counter(grams).most_common(1)[0]
            if len(top) * count / len(text) > frac:
                return True
    for n, frac in ((5, 0.15), (6, 0.14), (7, 0.13), (8, 0.12), (9, 0.11), (10, 0.10)):
        grams = [" ".join(words[i:i + n]) for i in range(len(words) - n + 1)]
        if grams and _all_duplicate_chars(grams, n) / len(text) > frac:
            return True
    return False


RULES = {"whisper": whisper, "sglang-omni": sglang_omni, "vibevoice": vibevoice, "vllm": vllm,
         "nemo-sdp": nemo_sdp, "gopher": gopher}


# ---- evaluation --------------------------------------------------------------------

def judge(path: Path, lexicon=None) -> tuple[dict[str, bool], bool]:
    """Verdicts of degen and every rule on one file, and whether degen could read it."""
    try:
        transcript = degen.read(path)
        report = degen.scan(transcript) if lexicon is None else _scan_with(transcript, lexicon)
    except (DegenError, OSError):
        raw = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
        doc = Doc(raw.splitlines(), None)
        return {"degen": None, **{name: rule(doc) for name, rule in RULES.items()}}, False
    doc = doc_of(transcript)
    return {"degen": report.degenerate, **{name: rule(doc) for name, rule in RULES.items()}}, True


def _scan_with(transcript, lexicon):
    from degen.detect import DEFAULT, analyze
    from degen.report import build_report
    analysis = analyze(transcript, DEFAULT, None, lexicon)
    return build_report("", transcript.format, analysis, transcript.end, DEFAULT.fail_on)


def evaluate(corpus: Path, lexicon=None) -> dict:
    index = corpus / "index.jsonl"
    if not index.is_file():
        raise SystemExit(f"{index}: no corpus index; give --corpus DIR holding index.jsonl")
    entries = [json.loads(line) for line in index.read_text(encoding="utf-8").splitlines() if line.strip()]
    detectors = ["degen", *RULES]
    result: dict = {}
    for split in ("dev", "test"):
        rows = [e for e in entries if e.get("split") == split]
        hits: dict = {d: Counter() for d in detectors}
        totals: Counter = Counter()
        unreadable = Counter()
        files = []
        for e in rows:
            verdicts, readable = judge(corpus / e["file"], lexicon)
            group = e["kind"] if e["label"] == LOOP_LABEL else e["label"]
            groups = {group, e["label"]}  # a loop counts for its kind and for all loops
            totals.update(groups)
            if not readable:
                unreadable[e["label"]] += 1
            for d in detectors:
                flagged = verdicts[d]
                if flagged is None:  # degen could not read it: a miss, or a false alarm when clean
                    flagged = e["label"] == CLEAN_LABEL
                if flagged:
                    hits[d].update(groups)
            files.append({"file": e["file"], "label": e["label"], "kind": e["kind"], "readable": readable,
                          **{d: verdicts[d] for d in detectors}})
        result[split] = {"totals": dict(totals), "unreadable": dict(unreadable),
                         "hits": {d: dict(h) for d, h in hits.items()}, "files": files}
    return result


def held_out_lexicon(corpus: Path, path: Path | None):
    """The lexicon without the rows whose source is the bug report a test-split file was
    taken from: hallucination recall on test then measures phrases not learnt from it."""
    import tempfile
    from degen.detect import load_lexicon
    from degen.detect.hallucination import LEXICON_FILE
    text = (path or ROOT / "degen" / "detect" / LEXICON_FILE).read_text(encoding="utf-8")
    entries = [json.loads(line) for line in (corpus / "index.jsonl").read_text(encoding="utf-8").splitlines() if line]
    urls = {e["source"].split("#")[0] for e in entries if e.get("split") == "test"}
    cited = {m.group(1) for m in re.finditer(r"^# \[([^\]]+)\] (\S+)", text, re.M) if m.group(2) in urls}
    kept = [line for line in text.splitlines() if line.startswith("#") or line.rsplit("\t", 1)[-1] not in cited]
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "held_out.tsv"
        out.write_text("\n".join(kept) + "\n", encoding="utf-8")
        return load_lexicon(out)


def _cell(hit: int, total: int) -> str:
    return f"{hit / total:.2f} ({hit}/{total})" if total else "-"


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
        lines.append("| " + " | ".join(head) + " |")
        lines.append("|" + "---|" * len(head))
        for d, h in hits.items():
            row = [d, _cell(h.get(LOOP_LABEL, 0), totals.get(LOOP_LABEL, 0)),
                   _cell(h.get(HALLUCINATION_LABEL, 0), totals.get(HALLUCINATION_LABEL, 0)),
                   _cell(h.get(CLEAN_LABEL, 0), totals.get(CLEAN_LABEL, 0)),
                   *(_cell(h.get(k, 0), totals[k]) for k in kinds)]
            lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def _clean_kinds(r: dict) -> set[str]:
    return {f["kind"] for f in r["files"] if f["label"] != LOOP_LABEL}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=ROOT / "fixtures" / "wild")
    parser.add_argument("--json", action="store_true", help="print the figures and per-file verdicts as JSON")
    parser.add_argument("--lexicon", type=Path, help="a hallucination lexicon other than the packaged one")
    parser.add_argument("--without-test-sources", action="store_true",
                        help="drop lexicon rows whose cited source is the report a test file came from")
    parser.add_argument("--misses", action="store_true", help="list the files degen gets wrong")
    args = parser.parse_args()
    from degen.detect import load_lexicon
    lexicon = load_lexicon(args.lexicon) if args.lexicon else None
    if args.without_test_sources:
        lexicon = held_out_lexicon(args.corpus, args.lexicon)
    result = evaluate(args.corpus, lexicon)
    if args.json:
        print(json.dumps(result, indent=1, ensure_ascii=False))
        return
    print(render(result))
    if args.misses:
        for split, r in result.items():
            for f in r["files"]:
                if f["degen"] is None or f["degen"] != (f["label"] != CLEAN_LABEL):
                    print(f"{split} {f['label']:<13} {f['kind']:<18} degen={f['degen']} {f['file']}")


if __name__ == "__main__":
    main()
