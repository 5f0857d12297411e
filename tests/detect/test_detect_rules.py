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
