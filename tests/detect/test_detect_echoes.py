"""Tail echoes: a streaming decoder re-emitting the end of each utterance as segments."""

from degen.detect import analyze
from degen.model import Segment, Transcript


def plain(*texts):
    return Transcript(tuple(Segment(None, None, t) for t in texts), "text")


def echoes(t):
    return [f for f in analyze(t).findings if "tail_echo" in f.evidence]


def test_each_utterance_echoed_by_its_tail_is_a_segment_loop():
    found = echoes(plain("重要", "要", "要", "非常重要", "要", "要", "没有问题", "重要", "要", "要"))
    assert len(found) == 1 and found[0].kind == "segment_loop" and found[0].severity == "medium"
    assert found[0].segments == (0, 9) and found[0].count == 6


def test_one_echoed_utterance_or_one_copy_is_speech():
    assert not echoes(plain("重要", "要", "要", "没有问题", "好的"))  # once: someone stressing it
    assert not echoes(plain("重要", "要", "非常重要", "要", "没有问题"))  # one copy each


def test_a_backchannel_said_again_is_not_a_tail():
    assert not echoes(plain("对对对", "对", "对", "네네네", "네", "네", "好的"))
    t = Transcript((Segment(None, "A", "重要"), Segment(None, "B", "要"), Segment(None, "B", "要"),
                    Segment(None, "A", "非常重要"), Segment(None, "B", "要"), Segment(None, "B", "要")), "text")
    assert not echoes(t)  # another speaker answering is a conversation
