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
        degen.read(doc % _deep(300))


def test_moss_markup_document_reads_and_writes_back(tmp_path):
    text = '{"text": "[0.0][S01]hello there[1.0][1.5][S02]yes[2.0]", "usage": {"n": [[1]]}}'
    transcript = degen.read(text)
    assert [s.text for s in transcript] == ["hello there", "yes"]
    assert transcript.meta["doc"]["text"] is None  # rebuilt from the segments on writing
    out = tmp_path / "out.json"
    degen.write(transcript, out)
    assert degen.read(str(out)).meta["doc"]["usage"] == {"n": [[1]]}
    assert [s.text for s in degen.read(str(out))] == ["hello there", "yes"]


def test_printed_python_dict_with_a_lone_surrogate_is_refused():
    with pytest.raises(FormatError, match="surrogates"):
        degen.read("{'text': '[0.0][S01]a\\ud800b[1.0]'}")
