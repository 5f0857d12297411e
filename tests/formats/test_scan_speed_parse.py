"""The parse's shortcuts refuse and keep exactly what the plain way does."""

import orjson
import pytest

import degen
from degen.errors import FormatError


def _nested(levels: int) -> str:
    return "[" * levels + "]" * levels


def _verbose(item_extra: str, top_extra: str = "null") -> str:
    items = [{"id": i, "start": float(i), "end": i + 0.5, "text": f"[S01]word {i}"} for i in range(3)]
    items[1]["words"] = "WORDS"
    doc = {"text": "".join(f"[{i}.0][S01]word {i}[{i}.5]" for i in range(3)), "segments": items, "usage": "USAGE"}
    # Spliced in as text: orjson writes nothing this deep, which is the point.
    return orjson.dumps(doc).decode().replace('"WORDS"', item_extra).replace('"USAGE"', top_extra)


def _writes_back(text: str) -> bool:
    try:
        orjson.dumps(orjson.loads(text))
    except orjson.JSONEncodeError:
        return False
    return True


@pytest.mark.parametrize("levels", range(248, 256))
def test_segment_items_refused_exactly_where_the_document_cannot_be_written(levels):
    # Packed items are checked by packing them: one level off either way would show here.
    text = _verbose(_nested(levels))
    if _writes_back(text):
        assert [s.extra["json"]["id"] for s in degen.read_text(text)] == [0, 1, 2]
    else:
        with pytest.raises(FormatError, match="written back"):
            degen.read_text(text)


@pytest.mark.parametrize("levels", range(250, 256))
def test_other_keys_still_checked(levels):
    text = _verbose("null", _nested(levels))
    if _writes_back(text):
        assert len(degen.read_text(text)) == 3
    else:
        with pytest.raises(FormatError, match="written back"):
            degen.read_text(text)


def test_packed_block_bytes_are_the_block_alone():
    from degen.formats.jsonfmt import PackedItems
    block = [{"a": [1, 2.5, None, "x\u00fc"]}, 3, "s"]
    assert PackedItems.pack(block) == orjson.dumps(block)
