"""degen.scan_batch on a dict of lists, a Hugging Face datasets.Dataset and Ray Data:
the same verdicts as degen.scan, row by row."""

import orjson
import pytest

import degen
from degen import formats

from ..conftest import FIXTURES

LOOPS = FIXTURES / "shapes" / "loops"
NATURAL = FIXTURES / "shapes" / "natural"
TEXTS = [
    "okay " * 40,
    "okay, okay.",
    "",
    "{x} is not JSON",
    "[0.0][S01]" + "的" * 40 + "[2.0]",
    "no, no, no, no, no",
    (LOOPS / "zh_char.json").read_text(encoding="utf-8"),
    (LOOPS / "en_phrase.srt").read_text(encoding="utf-8"),
    (NATURAL / "en_chorus.srt").read_text(encoding="utf-8"),
    (NATURAL / "de_jaja.json").read_text(encoding="utf-8"),
]


def expected(text: str) -> tuple[bool, list[str]]:
    """degen.scan's verdict (a text that is no transcript format is read as plain text)."""
    if not text.strip():
        return False, []
    try:
        transcript = formats.loads(text)
    except degen.FormatError:
        transcript = formats.loads(text, "text")
    report = degen.scan(transcript)
    return report.degenerate, [f.kind for f in report.findings]


def verdicts(degenerate, findings) -> list[tuple[bool, list[str]]]:
    return [(bool(d), [f["kind"] for f in orjson.loads(j)]) for d, j in zip(degenerate, findings)]


def test_a_dict_of_lists_gets_three_columns_and_keeps_its_own():
    out = degen.scan_batch({"text": TEXTS, "id": list(range(len(TEXTS)))})
    assert out["id"] == list(range(len(TEXTS))) and out["text"] == TEXTS
    assert verdicts(out["degenerate"], out["findings"]) == [expected(t) for t in TEXTS]
    assert sum(out["degenerate"]) >= 4 and not all(out["degenerate"])
    assert [s == "" for s in out["severity"]] == [orjson.loads(f) == [] for f in out["findings"]]


def test_another_column_and_durations_as_evidence():
    # (not "thank you": six of those over 20 s of audio is a known hallucination, rightly flagged)
    batch = {"pred_text": ["we should go now " * 6] * 2, "duration": [1.0, 20.0]}
    out = degen.scan_batch(batch, column="pred_text", duration_column="duration")
    assert out["degenerate"] == [True, False]
    assert "dense" in orjson.loads(out["findings"][0])[0]["evidence"]


def test_hugging_face_datasets_map():
    import datasets  # degen-asr[datasets]: installed for the tests, never skipped
    ds = datasets.Dataset.from_dict({"text": TEXTS, "id": list(range(len(TEXTS)))})
    out = ds.map(degen.scan_batch, batched=True, batch_size=4)
    assert out["id"] == list(range(len(TEXTS)))
    assert verdicts(out["degenerate"], out["findings"]) == [expected(t) for t in TEXTS]
    assert set(out.column_names) == {"text", "id", "degenerate", "severity", "findings"}


@pytest.fixture(scope="module")
def ray_local():
    import ray  # degen-asr[ray]: installed for the tests, never skipped
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield ray
    ray.shutdown()


def test_ray_data_scan(ray_local):
    import ray.data

    import degen.ray
    rows = [{"id": k, "text": t} for k, t in enumerate(TEXTS)]
    ds = ray.data.from_items(rows, override_num_blocks=2)
    out = sorted(degen.ray.scan(ds, column="text", batch_size=3).take_all(), key=lambda r: r["id"])
    assert [r["id"] for r in out] == list(range(len(TEXTS)))
    assert verdicts([r["degenerate"] for r in out], [r["findings"] for r in out]) == [expected(t) for t in TEXTS]
    assert {r["severity"] for r in out} >= {"", "high"}
    as_utterances = sorted(degen.ray.scan(ds, column="text", utterances=True, batch_size=4).take_all(),
                           key=lambda r: r["id"])
    local = degen.scan_batch({"text": TEXTS}, utterances=True)
    assert [r["findings"] for r in as_utterances] == local["findings"]


def test_rows_as_utterances_are_judged_as_degen_filter_judges_lines():
    from degen.archive.utterances import judge
    texts = TEXTS + ["Thank you for watching!", "thank you. " * 12, None]
    out = degen.scan_batch({"text": texts}, utterances=True)
    want = [judge(t if isinstance(t, str) else "") for t in texts]
    assert verdicts(out["degenerate"], out["findings"]) == [(r.degenerate, [f.kind for f in r.findings]) for r in want]
    # a file-like text is one utterance here, not a transcript to sniff
    assert out["findings"][4] != degen.scan_batch({"text": [TEXTS[4]]})["findings"][0]
