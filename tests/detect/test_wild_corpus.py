"""The public corpus in fixtures/wild and the hallucination lexicon are well-formed.

These tests check the data contract only (index rows, files, counts, citations); how
well detection does on the corpus is measured by bench/wild_eval.py, not here.
"""
from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WILD = ROOT / "fixtures" / "wild"
INDEX = WILD / "index.jsonl"
CLASSES = WILD / "classes.json"
LEXICON = ROOT / "degen" / "detect" / "hallucinations.tsv"
KEYS = {"file", "source", "language", "label", "kind", "class", "round", "reason", "split"}
LABELS = {"loop", "hallucination", "clean"}
NOT_CORPUS = {"index.jsonl", "README.md", "classes.json"}
# The round of collection whose files were measured on their own before any tuning (issue 23).
NEW_ROUND = "3"


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    lines = [line for line in INDEX.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [json.loads(line) for line in lines]


def test_rows_have_exactly_the_contract_keys(rows):
    for row in rows:
        assert set(row) == KEYS, row.get("file")
        assert all(isinstance(row[k], str) and row[k].strip() for k in KEYS), row["file"]


def test_labels_splits_and_languages_are_valid(rows):
    for row in rows:
        assert row["label"] in LABELS, row["file"]
        assert row["split"] in {"dev", "test"}, row["file"]
        assert re.fullmatch(r"[a-z]{2}", row["language"]), row["file"]
        assert row["source"].startswith(("https://", "http://")), row["file"]
        assert "\n" not in row["reason"], row["file"]


@pytest.fixture(scope="module")
def classes() -> dict:
    data = json.loads(CLASSES.read_text(encoding="utf-8"))
    return {name: spec for name, spec in data.items() if not name.startswith("_")}


def test_classes_are_a_fixed_documented_set(classes):
    readme = (WILD / "README.md").read_text(encoding="utf-8")
    assert classes
    for name, spec in classes.items():
        assert re.fullmatch(r"[a-z_]+", name), name
        assert spec["labels"] and set(spec["labels"]) <= LABELS, name
        assert spec["what"].strip(), name
        assert f"`{name}`" in readme, f"class {name} is not documented in fixtures/wild/README.md"


def test_every_row_has_a_class_allowed_for_its_label_and_a_round(rows, classes):
    for row in rows:
        assert row["class"] in classes, row["file"]
        assert row["label"] in classes[row["class"]]["labels"], row["file"]
        assert row["round"].isdigit(), row["file"]


def test_every_label_has_classes_in_use(rows, classes):
    used = Counter(row["class"] for row in rows)
    for label in LABELS:
        assert any(used[name] for name, spec in classes.items() if label in spec["labels"]), label


def test_the_new_round_meets_the_issue_minimums(rows):
    new = [row for row in rows if row["round"] == NEW_ROUND]
    assert len(new) >= 60
    assert len({row["language"] for row in new}) >= 8
    assert {row["label"] for row in new} == LABELS
    assert {row["split"] for row in new} == {"dev", "test"}


def test_round_4_is_a_held_out_set_of_every_label(rows):
    # Round 4 (after issue 23's round 3 test files had been read): measured before any tuning.
    new = [row for row in rows if row["round"] == "4"]
    assert len(new) >= 40
    assert {row["label"] for row in new} == LABELS
    assert {row["split"] for row in new} == {"dev", "test"}


def test_split_follows_the_published_rule(rows):
    # README: a file is in test when the SHA-1 of its path, read as a number, is divisible by 3.
    for row in rows:
        digest = int(hashlib.sha1(row["file"].encode()).hexdigest(), 16)
        assert row["split"] == ("test" if digest % 3 == 0 else "dev"), row["file"]


def test_every_listed_file_exists_and_every_file_is_listed(rows):
    listed = [row["file"] for row in rows]
    assert len(listed) == len(set(listed)), "a file is listed twice"
    on_disk = {p.relative_to(WILD).as_posix() for p in WILD.rglob("*")
               if p.is_file() and p.name not in NOT_CORPUS}
    assert set(listed) == on_disk


def test_files_are_utf8_text_and_within_size_limits(rows):
    total = 0
    for row in rows:
        data = (WILD / row["file"]).read_bytes()
        total += len(data)
        text = data.decode("utf-8")
        assert text.strip(), row["file"]
        assert len(text.splitlines()) <= 300, row["file"]
    assert total < 3 * 1024 * 1024


def test_counts_meet_the_minimums(rows):
    labels = Counter(row["label"] for row in rows)
    clean_languages = {row["language"] for row in rows if row["label"] == "clean"}
    assert len(rows) >= 253
    assert labels["clean"] >= 110
    assert len(clean_languages) >= 16
    assert labels["hallucination"] >= 57
    assert labels["loop"] >= 86


def test_both_splits_hold_every_label(rows):
    for label in LABELS:
        splits = {row["split"] for row in rows if row["label"] == label}
        assert splits == {"dev", "test"}, label


def _lexicon():
    comments, entries = [], []
    for number, line in enumerate(LEXICON.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        if line.startswith("#"):
            comments.append(line)
            continue
        entries.append((number, line.split("\t")))
    return comments, entries


def test_lexicon_rows_parse_and_cite_their_source():
    comments, entries = _lexicon()
    cited = {m.group(1) for c in comments for m in [re.match(r"#\s*\[([^\]]+)\]", c)] if m}
    assert entries
    for number, fields in entries:
        assert len(fields) == 3, f"line {number}: {fields}"
        lang, phrase, source = (f.strip() for f in fields)
        assert re.fullmatch(r"[a-z]{2}", lang), f"line {number}"
        assert phrase, f"line {number}"
        assert source in cited, f"line {number}: source {source!r} has no citation line"


def test_lexicon_covers_the_required_languages_with_strong_phrases():
    _, entries = _lexicon()
    strong = {fields[0] for _, fields in entries if not fields[2].strip().startswith("weak-")}
    assert {"en", "zh", "ja", "ko", "de", "fr", "es", "it", "pt", "ru"} <= strong


def test_lexicon_has_no_duplicate_rows():
    _, entries = _lexicon()
    keys = [(f[0], f[1].strip()) for _, f in entries]
    assert len(keys) == len(set(keys))


MANIFEST = ROOT / "fixtures" / "manifests" / "committee_short_utterances.jsonl"


def test_the_short_utterance_manifest_is_300_cited_rows_without_durations():
    rows = [json.loads(line) for line in MANIFEST.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 300
    readme = (MANIFEST.parent / "README.md").read_text(encoding="utf-8")
    assert "https://github.com/Yale-LILY/QMSum" in readme
    paths = [row["audio_filepath"] for row in rows]
    assert len(set(paths)) == 300
    for row in rows:
        assert set(row) == {"audio_filepath", "text"}  # no duration, as the issue's case has none
        assert re.fullmatch(r"[a-z_]+_\d+/\d{4}\.wav", row["audio_filepath"]), row
        assert 1 <= len(row["text"].split()) <= 8 and "{" not in row["text"], row
    assert paths == sorted(paths, key=lambda p: (p.split("/")[0], int(p.split("/")[1][:4])))
