"""Documents the writer could not write back are refused at read time, whatever their
shape, while the top-level markup string is not serialised just to check that."""

import pytest

import degen
from degen.errors import FormatError


def _deep(levels: int) -> str:
    return "[" * levels + "]" * levels


@pytest.mark.parametrize("doc", [
    '{"text": "[0.0][S01]hi[1.0]", "usage": %s}',
    '{"text": "hi", "segments": [{"start": 0, "end": 1, "text": "hi", "words": %s}]}',
    '[{"start": 0, "end": 1, "text": "hi", "x": %s}]',
])
def test_nesting_past_the_writer_is_refused(doc):
    with pytest.raises(FormatError, match="written back"):
        degen.read_text(doc % _deep(300))


def test_moss_markup_document_reads_and_writes_back(tmp_path):
    text = '{"text": "[0.0][S01]hello there[1.0][1.5][S02]yes[2.0]", "usage": {"n": [[1]]}}'
    transcript = degen.read_text(text)
    assert [s.text for s in transcript] == ["hello there", "yes"]
    assert transcript.meta["doc"]["text"] is None  # rebuilt from the segments on writing
    out = tmp_path / "out.json"
    degen.write(transcript, out)
    assert degen.read(str(out)).meta["doc"]["usage"] == {"n": [[1]]}
    assert [s.text for s in degen.read(str(out))] == ["hello there", "yes"]


def test_printed_python_dict_with_a_lone_surrogate_is_refused():
    with pytest.raises(FormatError, match="surrogates"):
        degen.read_text("{'text': '[0.0][S01]a\\ud800b[1.0]'}")


def _verbose(items) -> str:
    import orjson
    markup = "".join(f"[{i}.0][S01]{t}[{i}.5]" for i, t in enumerate(x["text"][5:] for x in items))
    return orjson.dumps({"task": "transcribe", "text": markup, "segments": items, "duration": 9.0}).decode()


def test_packed_items_read_back_equal_and_write_back_alike():
    from degen.formats import dumps, jsonfmt
    items = [{"id": i, "start": float(i), "end": i + 0.5, "text": f"[S01]word {i} ü 字",
              "avg_logprob": 0.1 + 0.2 * i, "words": [{"w": "a", "p": 1e-300}], "n": None} for i in range(600)]
    text = _verbose(items)
    packed = degen.read_text(text)
    plain = jsonfmt._read_sglang_verbose(jsonfmt.parse_json(text), packed=False)
    assert [s.extra["json"] for s in packed] == items
    assert [s.extra for s in packed] == [s.extra for s in plain]
    assert dumps(packed) == dumps(plain)
    assert packed.meta["doc"]["segments"] is None  # the items live on packed, not twice


def test_packed_items_index_like_a_list():
    from degen.formats.jsonfmt import PackedItems
    items = [{"i": i} for i in range(700)] + ["not a dict", 3]
    packed = PackedItems(items)
    assert len(packed) == len(items)
    assert [packed[i] for i in (0, 699, 255, 256, 1, 701, 700)] == [items[i] for i in (0, 699, 255, 256, 1, 701, 700)]
    with pytest.raises(IndexError):
        packed[len(items)]
