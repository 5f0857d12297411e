"""Recording a model's answers for the repair, and replaying them."""

from __future__ import annotations

import numpy as np
import orjson

import degen
from degen.repair.audio import encode
from degen.testing import TestServer
from degen.testing.replay import ReplayDecoder, record

RATE = 16000


class _Looping:
    """A stand-in for a real model: loops on a whole file, says one word for a short clip."""

    def __init__(self):
        self.calls = 0

    def answer(self, samples, rate, temperature, repetition_penalty=None, language=None):
        self.calls += 1
        seconds = samples.size / rate
        text = "Wait, " * 60 if seconds > 1.0 else "Wait."
        return [(0.0, seconds, text.strip(), len(text.split()))]

    def describe(self):
        return {"model": "fake", "language": "en", "seed": 0, "compute_type": "none", "device": "cpu",
                "versions": {}}


def _file(tmp_path):
    rng = np.random.default_rng(0)
    tone = (np.sin(2 * np.pi * 200 * np.arange(int(0.2 * RATE)) / RATE) * 8000).astype(np.int16)
    gap = (rng.normal(0, 30, int(0.1 * RATE))).astype(np.int16)
    samples = np.concatenate([np.concatenate([tone, gap]) for _ in range(10)])
    (tmp_path / "w.wav").write_bytes(encode(samples, RATE))
    return samples.size / RATE


def test_keep_greedy_records_the_repair_and_leaves_the_greedy_transcript(tmp_path):
    """With ``keep_greedy`` the committed greedy transcript is not decoded again nor
    rewritten (a CPU that does not loop would lose the fixture); the repair's requests are
    recorded, and a replay of them answers the same repair without a miss."""
    seconds = _file(tmp_path)
    greedy = tmp_path / "w.fake.greedy.json"
    committed = orjson.dumps({"text": "[0.00][S01]" + "Wait, " * 112 + f"[{seconds:.2f}]"})
    greedy.write_bytes(committed)
    decoder = _Looping()
    entry = record(["w"], decoder, tmp_path, "fake", "replay.fake.json", keep_greedy=True)
    assert greedy.read_bytes() == committed
    assert entry["files"]["w"]["greedy"] == greedy.name and entry["replay"] == "replay.fake.json"
    replay = ReplayDecoder(tmp_path / "replay.fake.json")
    assert replay.answers and decoder.calls == sum(len(a) for a in replay.answers.values())  # all kept
    with TestServer(replay) as server:
        degen.fix(greedy, audio=tmp_path / "w.wav", transcriber=server.url)
    assert not replay.misses


def test_without_keep_greedy_the_greedy_transcript_is_decoded_again(tmp_path):
    _file(tmp_path)
    greedy = tmp_path / "w.fake.greedy.json"
    greedy.write_bytes(b'{"text": "[0.00][S01]old[1.00]"}')
    record(["w"], _Looping(), tmp_path, "fake", "replay.fake.json")
    assert b"old" not in greedy.read_bytes() and b"Wait" in greedy.read_bytes()
