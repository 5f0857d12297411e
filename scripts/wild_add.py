"""Add transcripts to the public corpus in fixtures/wild from a bundle on stdin.

A bundle holds one or more entries::

    @@@ file=loop/en_whispercpp_508.txt
    @@@ source=https://github.com/ggml-org/whisper.cpp/issues/508
    @@@ lang=en label=loop kind=segment_loop class=segment_loop round=3
    @@@ reason=one sentence over every window to the end of the file
    ...the transcript, byte for byte as published...
    @@@ end

Each file is written as given (a final newline added) and its row in index.jsonl is added
or replaced. `class` must be one of fixtures/wild/classes.json and allowed for the label;
`round` is the collection round the file was gathered in (the new files of a round are
measured on their own before any tuning). The split is fixed by the rule in
fixtures/wild/README.md: a file is in `test` when the SHA-1 of its path, read as a number,
is divisible by 3; otherwise `dev`.
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

WILD = Path(__file__).resolve().parent.parent / "fixtures" / "wild"
INDEX = WILD / "index.jsonl"
CLASSES = WILD / "classes.json"
KEYS = ("file", "source", "language", "label", "kind", "class", "round", "reason", "split")


def split_for(path: str) -> str:
    """The fixed split rule: one file in three (by a hash of its path) is held out."""
    return "test" if int(hashlib.sha1(path.encode()).hexdigest(), 16) % 3 == 0 else "dev"


def parse(lines: list[str]) -> list[tuple[dict, str]]:
    entries, meta, body = [], None, []
    for line in lines:
        if line.startswith("@@@ end"):
            entries.append((meta, "".join(body)))
            meta, body = None, []
        elif line.startswith("@@@ ") and (meta is None or not body):
            meta = meta or {}
            rest = line[4:].rstrip("\n")
            if rest.startswith(("source=", "reason=", "file=")):
                key, _, value = rest.partition("=")
                meta[key] = value
            else:
                for pair in rest.split():
                    key, _, value = pair.partition("=")
                    meta[key] = value
        elif meta is not None:
            body.append(line)
    return entries


def check_class(meta: dict) -> None:
    classes = {k: v for k, v in json.loads(CLASSES.read_text(encoding="utf-8")).items() if not k.startswith("_")}
    cls, label = meta.get("class"), meta.get("label")
    if cls not in classes or label not in classes[cls]["labels"]:
        raise SystemExit(f"{meta.get('file')}: class {cls!r} is not one of fixtures/wild/classes.json "
                         f"for label {label!r}; fix the bundle's class= field")
    if not str(meta.get("round", "")).isdigit():
        raise SystemExit(f"{meta.get('file')}: round= must be a number (the collection round)")


def main() -> None:
    rows = {}
    if INDEX.exists():
        for line in INDEX.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                rows[row["file"]] = row
    for meta, body in parse(sys.stdin.readlines()):
        check_class(meta)
        path = WILD / meta["file"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body if body.endswith("\n") else body + "\n", encoding="utf-8")
        rows[meta["file"]] = {"file": meta["file"], "source": meta["source"],
                              "language": meta["lang"], "label": meta["label"],
                              "kind": meta["kind"], "class": meta["class"], "round": meta["round"],
                              "reason": meta["reason"],
                              "split": split_for(meta["file"])}
        print("added", meta["file"], rows[meta["file"]]["split"])
    text = "".join(json.dumps({k: r[k] for k in KEYS}, ensure_ascii=False) + "\n"
                   for _, r in sorted(rows.items()))
    INDEX.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
