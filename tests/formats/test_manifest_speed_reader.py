"""A manifest read a column at a time (``jsonl.manifest_rows``) is the manifest read line
by line: the same segments, extras, columns, meta and writing back, or the same error."""

import json
import math
import random
import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from degen.errors import FormatError
from degen.formats import dumps, jsonl, jsonl_columns, streamed


def _line_by_line(text: str):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(jsonl, "manifest_rows", lambda lines: None)
        return _read(text)


def _read(text: str):
    try:
        return jsonl.loads_manifest(text)
    except FormatError as exc:
        return f"error: {exc}"


def _assert_same(fast, slow):
    if isinstance(slow, str) or isinstance(fast, str):
        assert fast == slow
        return
    assert (fast.format, fast.meta, len(fast)) == (slow.format, slow.meta, len(slow))
    assert list(fast) == list(slow) and [s.extra for s in fast] == [s.extra for s in slow]
    a, b = fast.columns(), slow.columns()
    assert list(a.texts) == list(b.texts) and list(a.speakers) == list(b.speakers)
    assert np.array_equal(a.starts, b.starts, equal_nan=True) and np.array_equal(a.ends, b.ends, equal_nan=True)
    assert dumps(fast) == dumps(slow)


NUMBERS = st.one_of(st.floats(-2e7, 2e7, allow_nan=False), st.integers(-10, 10 ** 8), st.sampled_from([0, -0.0, 1e7]))
ODD = st.one_of(st.none(), st.booleans(), st.text(max_size=3), st.lists(st.integers(), max_size=2))
VALUES = {
    "text": st.one_of(st.text(max_size=8), ODD), "pred_text": st.text(max_size=8),
    "duration": st.one_of(NUMBERS, NUMBERS, ODD), "offset": st.one_of(NUMBERS, ODD),
    "speaker": st.one_of(st.text(max_size=2), st.integers(0, 3), st.none()), "spk": st.integers(0, 3),
    "start": NUMBERS, "end": NUMBERS, "audio_filepath": st.text(max_size=4),
}


PLAIN = {"text": st.text(max_size=8), "pred_text": st.text(max_size=8), "duration": st.floats(0, 30),
         "offset": st.one_of(st.floats(0, 1e4), st.integers(0, 99)), "speaker": VALUES["speaker"],
         "spk": VALUES["spk"], "audio_filepath": VALUES["audio_filepath"], "start": NUMBERS}


@st.composite
def manifests(draw):
    """Plain manifest lines (keys mixed, some missing), and in half the files what a bad
    or odd line holds: values of other types, times out of range, segment lines, lines
    that are no object; blank lines."""
    bad = draw(st.booleans())
    common = draw(st.sets(st.sampled_from(sorted(PLAIN)), max_size=5)) | {"text"}
    lines = []
    for _ in range(draw(st.integers(0, 8))):
        roll = draw(st.integers(0, 19))
        if roll < 2:
            lines.append(draw(st.sampled_from(["", "  ", "\t"] + (["[1, 2]", "3", "{broken", '"text"', "{}"] if bad else []))))
            continue
        keys = draw(st.sets(st.sampled_from(sorted(PLAIN)), max_size=5)) | {"pred_text"} if roll < 5 else common
        item = {key: draw((VALUES if bad and roll < 8 else PLAIN)[key]) for key in sorted(keys)}
        lines.append(json.dumps(item, ensure_ascii=draw(st.booleans())))
    return "\n".join(lines) + draw(st.sampled_from(["", "\n", "\r\n"]))


@settings(max_examples=400, deadline=None)
@given(manifests())
def test_columns_are_the_line_by_line_reader_s(text):
    _assert_same(_read(text), _line_by_line(text))


def test_a_plain_manifest_is_read_as_columns():
    text = "".join(json.dumps({"audio_filepath": f"{i}.wav", "duration": 1.5 + i, "offset": i, "pred_text": "a b",
                               "speaker": i % 2}) + "\n" for i in range(600))
    fast = jsonl.loads_manifest(text)
    assert fast._columns is not None and fast.columns().starts[3] == 3.0 and fast.columns().ends[3] == 7.5
    assert fast.columns().speakers[:2] == ["0", "1"]
    _assert_same(fast, _line_by_line(text))


@pytest.mark.parametrize("line, error", [
    ('{"duration": 1, "text": 3}', "line 2, field 'text': 'text' is a int, not a string"),
    ('{"duration": "1", "text": "b"}', "line 2, field 'duration': time '1' is not a number"),
    ('{"duration": 1e9, "text": "b"}', "line 2, field 'duration': time 1e+09 is out of range"),
    ('{"duration": 1, "offset": null, "text": "b"}', "line 2, field 'offset': time None is not a number"),
    ('{"start": 0, "end": 1, "text": "b"}', "line 2: this line is a jsonl line, not a manifest line"),
    ('[1]', "line 2: line holds a list, not an object"),
])
def test_a_bad_line_is_named_as_before(line, error):
    text = '{"duration": 1, "text": "a"}\n' + line + "\n"
    with pytest.raises(FormatError) as caught:
        jsonl.loads_manifest(text)
    assert error in str(caught.value)


def test_a_line_without_a_duration_leaves_every_line_untimed():
    t = jsonl.loads_manifest('{"duration": 1, "text": "a"}\n{"text": "b", "offset": "x"}\n')
    assert t._columns is not None and all(math.isnan(v) for v in t.columns().starts)
    assert [s.span for s in t] == [None, None]


@pytest.mark.parametrize("batch", [1, 100, 4096])
def test_a_large_manifest_read_in_batches_is_read_as_whole(tmp_path, monkeypatch, batch):
    """Batches of lines (BATCH not a multiple of the packed block) read as columns, one of
    them line by line (a line with 'start' and another with 'end': each a manifest line,
    together they could be a segment line), give the whole reader's transcript."""
    from .test_stream_formats import _manifest, _same
    monkeypatch.setattr(jsonl_columns, "BATCH", batch)
    rng = random.Random(batch)
    text = _manifest(rng, 700, "manifest")
    odd = '{"text": "x", "start": 1, "duration": 2}\n{"pred_text": "y", "end": 3, "duration": 1}\n'
    cut = text.index("\n", len(text) // 3) + 1
    path = tmp_path / "m.jsonl"
    path.write_text(text[:cut] + odd + text[cut:], encoding="utf-8")
    _same(path, piece=1 << 12)
    _same(path, format="nemo", piece=1 << 12)


OLD_ODD_BREAK = re.compile(rb"\r(?!\n)")  # JSON Lines end only at LF, CRLF and CR (lines.split_lines)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from([b"a", b"\n", b"\r", b"\r\n", b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e", b"\x1f",
                                 b"\xc2", b"\x85", b"\xe2\x80", b"\xa8", b"\xa9", b"\xe2"]), max_size=30))
def test_odd_line_ends_are_found_as_the_regex_found_them(parts):
    piece = b"".join(parts)
    assert streamed._odd_break(piece) == bool(OLD_ODD_BREAK.search(piece))
