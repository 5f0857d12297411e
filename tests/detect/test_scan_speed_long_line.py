"""A 1 MB line scans in under 3 s: a timed line whose text says many things more than once
(real sentences, drawn at random) makes hundreds of findings, and each took its excerpt from
the whole line again (normalised, split and joined: 29 s for 1 MB of Chinese in MOSS markup,
11.5 s for 1 MB of English in one SRT cue)."""

import json
import random
import time

import pytest

import degen

from ..conftest import FIXTURES

SIZE = 1_000_000
BOUND = 3.0  # CPU seconds


def _line(texts: list[str], joiner: str, seed: int) -> str:
    rng, out, size = random.Random(seed), [], 0
    while size < SIZE:
        out.append(rng.choice(texts))
        size += len(out[-1].encode()) + len(joiner)
    return joiner.join(out)


def _cases():
    zh = [s.text for s in degen.read(FIXTURES / "seed" / "clean.json")]
    en = [s.text for s in degen.read(FIXTURES / "shapes" / "loops" / "en_sentence.vtt")] + [
        "no, no, no", "yeah I I I think", "thank you. thank you."]
    zh_line, en_line = _line(zh, "", 2), _line(en, " ", 2)
    yield "moss", f"[0.0][S01]{zh_line}[3000.0]"
    yield "srt", f"1\n00:00:00,000 --> 00:50:00,000\n{en_line}\n"
    yield "vtt", f"WEBVTT\n\n00:00.000 --> 50:00.000\n{en_line}\n"
    yield "verbose_json", json.dumps({"text": zh_line, "segments": [{"id": 0, "start": 0.0, "end": 3000.0,
                                                                      "text": zh_line}]}, ensure_ascii=False)


CASES = list(_cases())


@pytest.mark.slow
@pytest.mark.parametrize("name, text", CASES, ids=[name for name, _ in CASES])
def test_a_1_mb_line_scans_in_under_3_seconds(name, text):
    degen.scan_text("[0.0][S01]warm up[1.0]")  # imports and the lexicon, paid once by any scan
    started = time.process_time()
    report = degen.scan_text(text)
    spent = time.process_time() - started
    assert report.findings  # the line does repeat itself: the findings are what cost the time
    assert spent < BOUND, f"{name}: {spent:.1f} CPU s for {len(text.encode()) / 1e6:.1f} MB, {len(report.findings)} findings"
