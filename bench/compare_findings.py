"""Findings and metrics of every fixture transcript and two bench transcripts, as one JSON
document, so that two trees can be compared (not a test: a check before a detection change).

Usage: PYTHONPATH=TREE python bench/compare_findings.py OUT.json
       python bench/compare_findings.py --diff A.json B.json
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SKIP = {".wav", ".flac", ".md", ".log"}


def analyses() -> dict:
    import degen
    from degen.errors import DegenError
    sys.path.insert(0, str(ROOT / "bench"))
    from scan_throughput import long_transcript
    out = {}
    files = sorted(p for p in (ROOT / "fixtures").rglob("*") if p.is_file() and p.suffix not in SKIP)
    sources = [(str(p.relative_to(ROOT)), p) for p in files]
    sources += [(f"bench seed {s}", long_transcript(100, 100_000, s).decode()) for s in (7, 8)]
    for name, source in sources:
        try:
            text = isinstance(source, str)  # the bench seeds: transcript text, not a file
            report = (degen.scan_text if text else degen.scan)(source, name=name).to_dict()
            transcript = degen.read_text(source) if text else degen.read(source)
            out[name] = {"report": report, "analysis": repr(degen.analyze(transcript))}
        except DegenError as exc:
            out[name] = f"error: {exc}".replace(f"{ROOT}/", "")  # the same in any tree
    return out


def _tree_free(entry):
    """An error names its file by absolute path: drop the tree's root, so that an error
    from another tree (or an older output of this script) compares equal."""
    return re.sub(r"/\S*?/(?=fixtures/)", "", entry) if isinstance(entry, str) else entry


def diff(a: dict, b: dict) -> int:
    a, b = ({k: _tree_free(v) for k, v in d.items()} for d in (a, b))
    bad = 0
    for name in sorted(set(a) | set(b)):
        if a.get(name) != b.get(name):
            bad += 1
            print(f"DIFFERS: {name}")
            print("  a:", json.dumps(a.get(name), ensure_ascii=False)[:1500])
            print("  b:", json.dumps(b.get(name), ensure_ascii=False)[:1500])
    print(f"{len(set(a) | set(b))} transcripts, {bad} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1].startswith("-") and sys.argv[1] != "--diff":
        sys.exit(__doc__)  # not an output path: "--help" must not become a file
    if sys.argv[1] == "--diff":
        sys.exit(diff(*(json.loads(Path(p).read_text()) for p in sys.argv[2:4])))
    Path(sys.argv[1]).write_text(json.dumps(analyses(), ensure_ascii=False, indent=1, default=str))
