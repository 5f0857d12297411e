"""Write small fixtures, one per loop shape and per kind of natural repetition, in every
supported format and in Chinese, Japanese, English, Russian, French and German.

The shapes follow real reports (see README, "What loops look like"); the texts are our
own. ``fixtures/shapes/expect.json`` says what a scan must find in each file.
Deterministic. Usage: python scripts/make_shape_fixtures.py [OUT_DIR]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def moss(segs, unclosed=None):
    text = "".join(f"[{a:.2f}][{s}]{t}[{b:.2f}]" for a, b, s, t in segs)
    if unclosed:
        a, s, t = unclosed
        text += f"[{a:.2f}][{s}]{t}"
    return text


def sglang_verbose(segs, duration, unclosed=None):
    return {"task": "transcribe", "duration": duration, "text": moss(segs, unclosed),
            "segments": [{"id": i, "start": a, "end": b, "text": f"[{s}]{t}"} for i, (a, b, s, t) in enumerate(segs)],
            "usage": {"type": "duration", "seconds": int(duration) + 1}}


def openai_verbose(segs):
    return {"task": "transcribe", "language": "english", "duration": segs[-1][1] + 1,
            "text": "".join(" " + t for _, _, _, t in segs),
            "segments": [{"id": i, "seek": 0, "start": a, "end": b, "text": " " + t, "tokens": [50364, 1000 + i],
                          "temperature": 0.0, "avg_logprob": -0.3, "compression_ratio": 1.4, "no_speech_prob": 0.01}
                         for i, (a, b, _, t) in enumerate(segs)]}


def whisperx(segs):
    out = []
    for a, b, s, t in segs:
        words = t.split()
        step = (b - a) / max(1, len(words))
        out.append({"start": a, "end": b, "text": t, "speaker": s,
                    "words": [{"word": w, "start": round(a + i * step, 3), "end": round(a + (i + 1) * step, 3),
                               "score": 0.9, "speaker": s} for i, w in enumerate(words)]})
    return {"segments": out, "word_segments": [w for seg in out for w in seg["words"]]}


def segments_list(segs, ms=False):
    if ms:
        return [{"start_ms": int(a * 1000), "end_ms": int(b * 1000), "speaker": s, "text": t} for a, b, s, t in segs]
    return [{"id": f"seg_{i + 1:04d}", "start": a, "end": b, "speaker": s, "text": t}
            for i, (a, b, s, t) in enumerate(segs)]


def stamp(t, sep):
    ms = round(t * 1000)
    return f"{ms // 3600000:02d}:{ms // 60000 % 60:02d}:{ms // 1000 % 60:02d}{sep}{ms % 1000:03d}"


def srt(segs, style="tag"):
    blocks = []
    for i, (a, b, s, t) in enumerate(segs, 1):
        body = f"[{s}] {t}" if style == "tag" else f"{s}: {t}" if style == "name" else t
        blocks.append(f"{i}\n{stamp(a, ',')} --> {stamp(b, ',')}\n{body}")
    return "\n\n".join(blocks) + "\n"


def vtt(segs, style="voice"):
    blocks = ["WEBVTT"]
    for a, b, s, t in segs:
        body = f"<v {s}>{t}" if style == "voice" else f"[{s}] {t}"
        blocks.append(f"{stamp(a, '.')} --> {stamp(b, '.')}\n{body}")
    return "\n\n".join(blocks) + "\n"


def timeline(texts, speakers=("S01", "S02"), rate=4.0, gap=0.7, start=0.5):
    """Segments with plausible times: duration from the text length."""
    segs, t = [], start
    for i, text in enumerate(texts):
        speaker = speakers[i % len(speakers)] if isinstance(speakers, tuple) else speakers
        duration = round(max(0.8, len(text) / rate) + (i * 37 % 11) * 0.04, 2)  # people vary
        segs.append((round(t, 2), round(t + duration, 2), speaker, text))
        t += duration + gap
    return segs


EN = ["Let's go over last week's numbers first.", "The latency is down by about a third.",
      "We still need two more days for the data cleanup.", "I think the core feature should come first.",
      "Can we get a first draft by Friday?", "The review moved to three in the afternoon."]
ZH = ["我们先把上周的进度过一遍。", "这个版本的延迟比之前低了不少。", "数据清洗那边还需要两天时间。",
      "我建议先把核心功能做扎实。", "周五之前能不能给一个初稿？"]
JA = ["先週の進捗から確認しましょう。", "遅延はかなり改善しました。", "データの整理にはあと二日かかります。",
      "金曜日までに初稿を出せますか。"]


def loops() -> dict:
    """name -> (content, expectation)."""
    fx = {}
    segs = timeline(ZH[:2] + ["我觉得这个问题的关键是" + "的" * 102] + ZH[2:], rate=5.0)
    fx["loops/zh_char.json"] = ({"text": moss(segs), "usage": {"type": "duration", "seconds": 60}},
                                {"unit": "的", "count": 102})
    segs = timeline(JA[:2] + ["あ、" * 109] + JA[2:], rate=6.0)
    fx["loops/ja_char_sep.srt"] = (srt(segs), {"unit": "あ", "count": 109})
    segs = timeline(ZH[:2] + ["嗯，" * 160] + ZH[2:], rate=5.0)
    fx["loops/zh_char_sep.vtt"] = (vtt(segs), {"unit": "嗯", "count": 160})
    fx["loops/en_punct.txt"] = ("\n".join(EN[:3] + ["Wait" + "!" * 500] + EN[3:]) + "\n", {"unit": "!", "count": 500})
    segs = timeline(EN[:2] + ["H" + "m" * 222] + EN[2:], rate=14.0)
    fx["loops/en_subword.json"] = (openai_verbose(segs), {"unit": "m", "count": 222})
    segs = timeline(JA[:2] + ["いや" * 75] + JA[2:], rate=6.0)
    fx["loops/ja_short.moss.txt"] = (moss(segs), {"unit": "いや", "count": 75})
    segs = timeline(ZH[:2] + ["来了" * 29] + ZH[2:], rate=5.0)
    fx["loops/zh_short.json"] = (segments_list(segs), {"unit": "来了", "count": 29})
    segs = timeline(EN[:2] + ["Aye. " * 101] + EN[2:], rate=14.0)
    fx["loops/en_word.json"] = (whisperx(segs), {"unit": "Aye.", "count": 101})
    segs = timeline(["Так, давайте начнём.", "ну, " * 54, "Хорошо, спасибо."], rate=14.0)
    fx["loops/ru_word.json"] = (segments_list(segs, ms=True), {"unit": "ну,", "count": 54})
    segs = timeline(["On commence tout de suite.", "Elle est " + "petite " * 80, "Merci à tous."], rate=14.0)
    fx["loops/fr_word.vtt"] = (vtt(segs, "tag"), {"unit": "petite", "count": 80})
    segs = timeline(EN[:2] + ["As in there, " * 47] + EN[2:], speakers=("Alice", "Bob"), rate=14.0)
    fx["loops/en_phrase.srt"] = (srt(segs, "name"), {"unit": "As in there,", "count": 47})
    segs = timeline(ZH[:3], rate=5.0)
    fx["loops/zh_phrase_unclosed.json"] = (
        sglang_verbose(segs, 120.0, (segs[-1][1] + 0.5, "S02", "在" + "这个快速发展的时代，" * 41 + "这个快速的")),
        {"unit": "这个快速发展的时代，", "count": 41})
    sentence = "The quarterly report shows that revenue grew faster than we expected this year. "
    segs = timeline(EN[:2] + [sentence * 15] + EN[2:], rate=14.0)
    fx["loops/en_sentence.vtt"] = (vtt(segs), {"unit": sentence.strip(), "count": 15})
    segs = timeline(EN[:2], rate=14.0) + [(10.0 + i, 11.0 + i, "S01", "Thank you.") for i in range(30)]
    fx["loops/en_segments.json"] = (openai_verbose(segs), {"kind": "segment_loop", "count": 30})
    cycle = ["Right.", "So the plan is fixed.", "Let's move on."]
    segs = timeline(EN[:2], rate=14.0) + [(10.0 + i * 1.5, 11.2 + i * 1.5, "S02", cycle[i % 3]) for i in range(30)]
    fx["loops/en_cycle.json"] = (sglang_verbose(segs, 60.0), {"kind": "segment_loop", "count": 10, "period": 3})
    split = "我们需要把这个方案再讨论一下然后决定" * 12
    cuts = [0, 7, 19, 26, 40, 55, 61, 80, 95, 103, 121, 140, 151, 170, 188, 200, len(split)]
    segs = timeline([split[a:b] for a, b in zip(cuts, cuts[1:])], speakers="S03", rate=4.5, gap=0.2)
    fx["loops/zh_split.json"] = (sglang_verbose(segs, segs[-1][1] + 1), {"unit": "我们需要把这个方案再讨论一下然后决定", "count": 12})
    for name, unit, count, lang in (("ja_choo", "ちょっ", 31, JA), ("zh_zhengti", "整体的", 44, ZH),
                                    ("en_way", "way ", 24, EN), ("en_okay", "Okay. ", 42, EN)):
        segs = timeline(lang[:2] + [unit * count] + lang[2:], rate=14.0 if lang is EN else 6.0)
        fx[f"loops/{name}.moss.txt"] = (moss(segs), {"unit": unit.strip(), "count": count})
    dense = "".join(ZH) * 3
    segs = timeline(ZH[:2], rate=5.0) + [(20.0, 22.0, "S01", dense)]
    fx["loops/zh_dense.json"] = (segments_list(segs), {"kind": "rate"})
    segs = timeline(EN * 3, rate=14.0)
    fx["loops/en_truncated.json"] = (sglang_verbose(segs, 900.0), {"kind": "truncated"})
    return fx


def natural() -> dict:
    fx = {}
    segs = timeline(EN[:2] + ["No, no, no, no, no, no, no, no, no, no, no. That's not it."] + EN[2:],
                    speakers="S01", rate=14.0)
    fx["natural/en_no_x11.srt"] = (srt(segs), {})
    segs = timeline(["Okay.", "Okay.", "Okay.", "Yeah.", "Yeah.", "Yeah.", "Yeah."] + EN,
                    speakers=("S01", "S02", "S03"), rate=10.0)
    fx["natural/en_backchannels.json"] = (openai_verbose(segs), {})
    segs = timeline(["我我我觉得可以。", "对对对，就是这样。", "好的好的，那就这么定了。", "150。150。对，150。",
                     "你看看这个，我们试试。", "哈哈哈，太好了。"] + ZH, rate=5.0)
    fx["natural/zh_stutter.moss.txt"] = (moss(segs), {})
    segs = timeline(["いやいやいやいや、それは違います。", "ノスノス？", "ノスノス？", "そうそう、そうです。"] + JA, rate=6.0)
    fx["natural/ja_iyaiya.vtt"] = (vtt(segs), {})
    chorus = ["We will stand together", "Through the rain and thunder", "Hold the line forever", "Never going under"]
    verses = ["Walking down the empty road", "Carrying a heavy load", "Morning light is breaking through"]
    lines, t, segs = [], 5.0, []
    for rep in range(5):
        lines += [verses[rep % 3]] + chorus
    for i, line in enumerate(lines):
        duration = 2.1 + (i * 7 % 5) * 0.23
        segs.append((round(t, 2), round(t + duration, 2), "S01", line))
        t += duration + 0.4
    fx["natural/en_chorus.srt"] = (srt(segs, "plain"), {})
    segs = timeline(["It was very very very very very very good, honestly."] + EN, speakers="S02", rate=14.0)
    fx["natural/en_x6.json"] = (whisperx(segs), {})
    segs = timeline(["Ja, ja, ja, das stimmt.", "Nein, nein, nein, so nicht.", "Genau, genau.",
                     "Wir machen morgen weiter."], rate=14.0)
    fx["natural/de_jaja.json"] = (segments_list(segs), {})
    return fx


def main(out_dir: Path) -> None:
    expect = {}
    for name, (content, expectation) in {**loops(), **natural()}.items():
        path = out_dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False, indent=1) + "\n"
        path.write_text(text, encoding="utf-8")
        expect[name] = {"degenerate": name.startswith("loops/"), **expectation}
    (out_dir / "expect.json").write_text(json.dumps(expect, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{len(expect)} fixtures in {out_dir}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "fixtures/shapes"))
