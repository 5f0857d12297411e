"""Long synthetic transcripts for benchmarks and size tests (deterministic)."""

from __future__ import annotations

import random

import orjson

WORDS = ("we should look at the numbers again before the release because latency matters "
         "and the customer asked for a new draft by friday so let us plan the work").split()
ZH = "我们先把上周的进度过一遍这个版本的延迟比之前低了不少数据清洗那边还需要两天时间"


def long_transcript(hours: float = 10.0, seed: int = 7, loop_every: int = 5000) -> bytes:
    """A MOSS verbose_json of ``hours`` of mixed English/Chinese speech in short
    segments (one every ~0.34 s: over 100k in 10 hours), with a character
    loop planted every ``loop_every`` segments."""
    rng = random.Random(seed)
    segments, t, i = [], 0.5, 0
    while t < hours * 3600:
        if rng.random() < 0.5:
            text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 2))) + "."
        else:
            a = rng.randrange(len(ZH) - 6)
            text = ZH[a:a + rng.randint(1, 3)] + "。"
        if i % loop_every == loop_every // 2:
            text = "的" * 102
        d = round(0.1 + len(text) / 30, 2)  # about 3 words or 5 CJK characters a second
        segments.append((round(t, 2), round(t + d, 2), f"S0{1 + i % 3}", text))
        t += d + 0.02
        i += 1
    markup = "".join(f"[{a:.2f}][{s}]{x}[{b:.2f}]" for a, b, s, x in segments)
    doc = {"task": "transcribe", "duration": round(t, 2), "text": markup,
           "segments": [{"id": k, "start": a, "end": b, "text": f"[{s}]{x}"} for k, (a, b, s, x) in enumerate(segments)]}
    return orjson.dumps(doc)
