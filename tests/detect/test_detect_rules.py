"""The published rules as bench/wild_eval.py re-implements them: each fires on the shape
its documentation names and stays quiet just below it (no corpus figures asserted)."""

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("wild_eval", ROOT / "bench" / "wild_eval.py")
wild = importlib.util.module_from_spec(spec)
spec.loader.exec_module(wild)
Doc = wild.Doc


def untimed(*texts):
    return Doc(list(texts), None)


def test_whisper_compression_ratio_per_window():
    loop = "We were working at high school. " * 12
    assert wild.whisper(untimed(loop))
    assert not wild.whisper(untimed("We were working at high school, and then we moved to the city."))
    # the same text spread over separate 30 s windows is judged window by window
    spread = Doc(["We were working at high school."] * 3, [0.0, 40.0, 80.0])
    assert not wild.whisper(spread)


@pytest.mark.parametrize("rule, fires, quiet", [
    ("sglang_omni", "abcdefgh" * 3, "abcdefg" * 3),               # 8 characters x3, not 7
    ("vibevoice", "0123456789" * 3, "012345678" * 3),             # 10 characters x3, not 9
    ("vllm", "one two three " + "go on " * 3, "go on " * 3 + "and stop"),  # at the end only
])
def test_repeat_rules_at_their_thresholds(rule, fires, quiet):
    assert getattr(wild, rule.replace("-", "_"))(untimed(fires))
    assert not getattr(wild, rule.replace("-", "_"))(untimed(quiet))


def test_nemo_sdp_features_per_utterance():
    assert wild.nemo_sdp(untimed("yes yes yes yes yes yes no"))          # 2 unique of 7 words
    assert wild.nemo_sdp(untimed("a " + "x" * 25))                        # a 25-character word
    assert not wild.nemo_sdp(untimed("yes yes no maybe", "one two three four"))


def test_gopher_duplicate_lines_and_ngrams():
    assert wild.gopher(untimed("same line here", "same line here", "same line here", "other"))
    assert not wild.gopher(untimed("Let's look at last week's numbers first.", "The latency went down by a third.",
                                   "Data cleaning needs two more days.", "Can we have a draft by Friday?"))
    # a 2-gram that carries over a fifth of the characters is enough on its own
    assert wild.gopher(untimed("thank you thank you thank you so much", "really"))


def test_unreadable_files_count_against_degen(tmp_path):
    (tmp_path / "clean").mkdir()
    (tmp_path / "clean" / "bad.json").write_text("{ not json", encoding="utf-8")
    (tmp_path / "index.jsonl").write_text(json.dumps(
        {"file": "clean/bad.json", "source": "x", "language": "en", "label": "clean", "kind": "speech",
         "reason": "r", "split": "dev"}) + "\n", encoding="utf-8")
    result = wild.evaluate(tmp_path)
    assert result["dev"]["unreadable"] == {"clean": 1}
    assert result["dev"]["hits"]["degen"] == {"clean": 1}


def _corpus(tmp_path, rows_and_texts):
    lines = []
    for row, text in rows_and_texts:
        (tmp_path / row["file"]).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / row["file"]).write_text(text, encoding="utf-8")
        lines.append(json.dumps({"source": "x", "language": "en", "reason": "r", **row}))
    (tmp_path / "index.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return tmp_path


def test_per_class_figures_count_each_class_and_list_read_errors(tmp_path):
    loop = "[00:00:00.000 --> 00:00:01.000]  Small.\n" * 1 + "".join(
        f"[00:00:{i:02d}.000 --> 00:00:{i + 1:02d}.000]  Small.\n" for i in range(1, 20))
    corpus = _corpus(tmp_path, [
        ({"file": "loop/a.txt", "label": "loop", "kind": "segment_loop", "class": "segment_loop",
          "round": "3", "split": "dev"}, loop),
        ({"file": "loop/b.json", "label": "loop", "kind": "phrase_loop", "class": "short_loop",
          "round": "3", "split": "dev"}, "{ not json"),
        ({"file": "clean/c.txt", "label": "clean", "kind": "speech", "class": "speech",
          "round": "2", "split": "dev"}, "We were working at high school, and then we moved to the city.\n"),
    ])
    result = wild.evaluate(corpus)["dev"]
    assert result["class_totals"] == {"segment_loop": 1, "short_loop": 1, "speech": 1}
    assert result["class_hits"]["degen"] == {"segment_loop": 1}  # the unreadable loop is a miss
    unread = [f for f in result["files"] if not f["readable"]]
    assert [f["file"] for f in unread] == ["loop/b.json"] and unread[0]["error"]
    assert str(corpus) not in unread[0]["error"]  # the row names the file; the message says what is wrong
    text = wild.render_classes({"dev": result}, {"segment_loop": {"labels": ["loop"]},
                                                  "short_loop": {"labels": ["loop"]}, "speech": {"labels": ["clean"]}})
    assert "segment_loop (recall)" in text and "speech (fp)" in text and "read error (loop" in text
    only_new = wild.evaluate(corpus, rounds={"3"})["dev"]
    assert sum(only_new["class_totals"].values()) == 2


def test_sdp_phrase_rule_matches_a_whole_segment_only(tmp_path):
    (tmp_path / "en.txt").write_text("Thank you 1297\nThank you very much -1\n", encoding="utf-8")
    phrases = wild.load_sdp_phrases(tmp_path)
    assert phrases == {"Thank you", "Thank you very much"}
    rule = wild.nemo_sdp_phrases(phrases)
    assert rule(untimed("Thank you.")) and rule(untimed(" Thank you very much! "))
    assert not rule(untimed("Thank you for coming, everyone."))


def test_manifest_rows_are_judged_in_the_manifest_and_alone(tmp_path):
    manifest = tmp_path / "m.jsonl"
    manifest.write_text("".join(json.dumps({"audio_filepath": f"{i}.wav", "text": t}) + "\n" for i, t in
                                enumerate(["Thank you.", "We will now go to the next item on the list.", "Yes."])),
                        encoding="utf-8")
    m = wild.evaluate_manifest(manifest)
    assert m["rows"] == 3
    for key in ("degen_any", "degen_above_low", "degen_alone_any", "degen_alone_above_low"):
        assert m[key] == sorted(set(m[key])) and set(m[key]) <= {0, 1, 2}, key
    assert set(m["degen_above_low"]) <= set(m["degen_any"])
    assert set(m["degen_alone_above_low"]) <= set(m["degen_alone_any"])
    assert set(m["rules"]) == set(wild.RULES)
    assert all(0 <= i < 3 for rows in m["rules"].values() for i in rows)
