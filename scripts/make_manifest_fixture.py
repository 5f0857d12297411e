"""Build fixtures/manifest/seed.jsonl: the seed's degenerate transcript as a NeMo manifest,
one utterance a line (each segment its own clip: ``audio_filepath`` names it, ``duration``
is the segment's length, ``text`` its words without the speaker tag). The README's
`degen filter` example runs on it; the fuzz tests mutate it.

Deterministic: run it again and the file comes out byte-identical.
Usage: python scripts/make_manifest_fixture.py
"""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    import degen
    transcript = degen.read(ROOT / "fixtures" / "seed" / "degenerate.json")
    lines = []
    for number, segment in enumerate(transcript, 1):
        lines.append(json.dumps({"audio_filepath": f"seed/clip_{number:04d}.wav",
                                 "duration": round(segment.span.end - segment.span.start, 3),
                                 "text": segment.text}, ensure_ascii=False))
    out = ROOT / "fixtures" / "manifest" / "seed.jsonl"
    out.parent.mkdir(exist_ok=True)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {out.relative_to(ROOT)} ({len(lines)} lines)")


if __name__ == "__main__":
    main()
