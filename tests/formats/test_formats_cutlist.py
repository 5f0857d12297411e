"""autocut's Markdown cut list: sniffed, read a subtitle a line (each until the next
starts), written back as read, and re-read after a change."""

from __future__ import annotations

from degen import formats
from degen.model import Span

CUT = """Texts generated from [talk.srt](talk.srt). Mark the sentences to keep for autocut.

- [ ] [1,00:00] Hello everyone.
- [x] [2,00:02] Welcome back.
- [ ] [3,01:02:03] The last one.
"""


def test_sniffed_read_and_written_back_as_read():
    t = formats.loads(CUT)
    assert t.format == "autocut_md" == formats.sniff(CUT, ".md")
    assert [s.text for s in t] == ["Hello everyone.", "Welcome back.", "The last one."]
    assert [s.span.start for s in t] == [0.0, 2.0, 3723.0] and t[0].span.end == 2.0
    assert formats.dumps(t) == CUT


def test_a_changed_line_keeps_its_tick_and_number():
    t = formats.loads(CUT)
    changed = t.with_segments([t[0], t[1].with_(text="Welcome.", span=Span(3.0, 5.0)), t[2]])
    written = formats.dumps(changed)
    assert "- [x] [2,00:03] Welcome." in written
    back = formats.loads(written)
    assert [s.text for s in back] == ["Hello everyone.", "Welcome.", "The last one."] and back[1].span.start == 3.0


def test_a_todo_list_is_not_a_cut_list():
    todo = "# Notes\n- [ ] buy milk\n- [x] call Bob at 10:30\n- [ ] [draft] write the report\n"
    assert formats.sniff(todo, ".md") != "autocut_md"
