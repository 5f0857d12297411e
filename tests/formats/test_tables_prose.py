"""Lines of prose split at a comma are not a table: a table of segments has times (or at
least a number) in its rows; prose has none and is read as text, not refused."""

import pytest

import degen
from degen import formats
from degen.errors import FormatError


@pytest.mark.parametrize("text", [
    "Okay,so let us start\nYes,I agree\nGood,then we go\n",
    "Speaker 1,Hello there\nSpeaker 2,Hi\n",
    "Right;that is the plan\nFine;let us do it\n",
])
def test_prose_with_bare_commas_is_text(text, tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text(text, encoding="utf-8")
    for t in (formats.loads(text), degen.read(path)):  # the library's sniffing and a file's
        assert t.format == "text" and len(t) == len(text.splitlines())


def test_a_table_with_times_is_still_a_table():
    t = formats.loads("start,end,text\n0.0,1.5,hello there\n1.5,3.0,general kenobi\n")
    assert t.format == "csv" and [s.text for s in t] == ["hello there", "general kenobi"]
    t = formats.loads("start\tend\ttext\n0\t1500\thello\n1500\t3000\tthere\n")
    assert t.format == "tsv" and t[1].span.end == 3.0


def test_a_data_table_without_transcript_columns_is_still_refused():
    with pytest.raises(FormatError, match="no start, end and text"):
        formats.loads("id,name,score\n1,alpha,0.5\n2,beta,0.7\n")
