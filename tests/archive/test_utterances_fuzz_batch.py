"""degen.scan_batch on awkward batches: numpy columns as Ray Data hands them over,
missing durations, columns of unequal length, texts that are not text. A row of a batch
with a duration column is one utterance, judged as ``degen filter`` judges a line."""

import numpy as np
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import degen
from degen.archive.utterances import judge

DENSE = "we should go now " * 6  # a loop in 1 s of audio, speech in 20 s


def findings(report) -> str:
    return orjson.dumps([f.to_dict() for f in report.findings]).decode()


@pytest.mark.parametrize("column", [np.array([1, 20], dtype=np.int64), np.array([1.0, 20.0], dtype=np.float32),
                                    np.array([1, 20], dtype=np.uint16)])
def test_numpy_durations_are_evidence_like_python_numbers(column):
    # Ray Data's numpy batches: a manifest's whole-second durations are read as int64.
    out = degen.scan_batch({"text": np.array([DENSE, DENSE], dtype=object), "duration": column},
                           duration_column="duration")
    assert out["degenerate"] == [True, False]
    assert out["findings"] == [findings(judge(DENSE, 1.0)), findings(judge(DENSE, 20.0))]


def test_a_row_without_its_duration_is_still_one_utterance():
    # As in `degen filter`: a line whose duration is missing is judged as an utterance
    # without timing, never sniffed as a transcript file (MOSS markup here).
    moss = "[0.0][S01]" + "的" * 40 + "[2.0]"
    texts = [moss, "{x} is not JSON", "1\n00:00:00,000 --> 00:00:01,000\nokay okay okay okay"]
    for missing in (None, float("nan"), "n/a"):
        out = degen.scan_batch({"text": texts, "duration": [missing] * len(texts)}, duration_column="duration")
        assert out["findings"] == [findings(judge(t, None)) for t in texts]
        assert out["findings"] == degen.scan_batch({"text": texts}, utterances=True)["findings"]


@pytest.mark.parametrize("durations", [[1.0], [1.0, 2.0, 3.0, 4.0]])
def test_columns_of_unequal_length_are_refused(durations):
    with pytest.raises(ValueError, match="duration"):
        degen.scan_batch({"text": ["okay " * 40, "a", "b"], "duration": durations}, duration_column="duration")


@pytest.mark.parametrize("value", [b"okay " * 40, ["okay"] * 40, 5, {"text": "okay"}])
def test_a_text_that_is_not_text_is_refused_not_called_clean(value):
    with pytest.raises(ValueError, match="row 1"):
        degen.scan_batch({"text": ["fine", value]})
    with pytest.raises(ValueError, match="row 1"):
        degen.scan_batch({"text": ["fine", value]}, utterances=True)


def test_missing_texts_are_clean_rows():
    out = degen.scan_batch({"text": [None, float("nan"), "", "okay " * 40]})
    assert out["degenerate"] == [False, False, False, True]


def test_an_empty_batch():
    for batch in ({"text": []}, {"text": np.array([], dtype=object), "duration": np.array([])}):
        out = degen.scan_batch(batch, duration_column="duration" if "duration" in batch else None)
        assert out["degenerate"] == out["severity"] == out["findings"] == []


UTTERANCES = ["okay " * 40, "thank you " * 6, "Thank you.", "", " ", "字幕由Amara.org社区提供", "了 了 了 了",
              "we will look at the numbers", "[0.0][S01]" + "的" * 40 + "[2.0]", "no, no, no, no, no"]


@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.sampled_from(UTTERANCES),
                          st.one_of(st.none(), st.sampled_from([0.5, 1.0, 3.0, 17.0, 30.0]))), max_size=12))
def test_every_row_gets_the_verdict_of_degen_filter(rows):
    texts, durations = [t for t, _ in rows], [d for _, d in rows]
    out = degen.scan_batch({"text": texts, "duration": durations}, duration_column="duration")
    want = [judge(t, d) for t, d in rows]
    assert out["findings"] == [findings(r) for r in want]
    assert out["degenerate"] == [r.degenerate for r in want]
    if all(d is None for d in durations):
        assert out["findings"] == degen.scan_batch({"text": texts}, utterances=True)["findings"]


def test_columns_are_read_by_position_not_by_label():
    # A pandas DataFrame (Ray's pandas batches, or one sorted by duration): durations[i]
    # read the row labelled i, so a sorted frame judged each text with another's seconds.
    import pandas as pd
    frame = pd.DataFrame({"text": [DENSE] * 3, "duration": [20.0, 1.0, 20.0]}).sort_values("duration")
    out = degen.scan_batch(frame, duration_column="duration")
    assert list(out["degenerate"]) == [True, False, False]
    frame.index = [5, 7, 9]
    assert list(degen.scan_batch(frame, duration_column="duration")["degenerate"]) == [True, False, False]
