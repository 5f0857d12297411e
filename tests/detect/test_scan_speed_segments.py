"""The prefilters of the segment-level detectors change no answer."""

from hypothesis import given, settings, strategies as st

from degen.detect.echoes import _echo_runs


def _echo_runs_plain(keys, speakers):
    """The definition, one segment at a time."""
    out, i = [], 0
    while i < len(keys):
        head, j = keys[i], i + 1
        while (j < len(keys) and keys[j] and keys[j] == keys[i + 1] and speakers[j] == speakers[i]
               and len(keys[j]) < len(head) and head.endswith(keys[j])):
            j += 1
        tail = keys[i + 1] if j > i + 1 else ""
        if tail and head != tail * (len(head) // len(tail)):
            out.append((i, j - 1))
            i = j
        else:
            i += 1
    return out


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["", "要", "重要", "非常重要", "对", "对对对", "ab", "b"]),
                          st.sampled_from([None, "S01", "S02"])), max_size=30))
def test_echo_prefilter_finds_what_the_definition_finds(rows):
    keys, speakers = [k for k, _ in rows], tuple(s for _, s in rows)
    assert _echo_runs(keys, speakers) == _echo_runs_plain(keys, speakers)


def test_tail_echo_found():
    keys = ["非常重要", "要", "要", "我们出发", "发", "发"]
    assert _echo_runs(keys, ("S01",) * 6) == [(0, 2), (3, 5)]
