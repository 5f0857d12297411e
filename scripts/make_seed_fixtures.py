"""Build the synthetic reproduction of the seed's measurement (50 min, MOSS verbose_json).

    fixtures/seed/clean.json       623 segments, 7 natural consecutive repeats, worst x6
    fixtures/seed/degenerate.json  793 segments, 163 consecutive repeats, 的 x102, a phrase x49
    fixtures/seed/truth.json       the clean transcript as a segments list (ground truth
                                   for the test server), with the degenerate regions marked

Deterministic: run it again and the files come out byte-identical.
Usage: python scripts/make_seed_fixtures.py [OUT_DIR]
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

SENTENCES = """我们先把上周的进度过一遍
这个版本的延迟比之前低了不少
测试集上的准确率基本稳定
数据清洗那边还需要两天时间
客户那边反馈说界面有点复杂
我建议先把核心功能做扎实
下个月的发布计划要重新排一下
服务器的显存占用有点偏高
长音频的处理速度还可以再优化
我们可以考虑换一种调度策略
这个问题上次会议已经讨论过
新来的同事下周开始参与项目
文档需要补充一些使用示例
日志里看到几次超时的请求
并发开到八的时候吞吐最高
我觉得这个方案风险不大
预算方面需要财务再确认一下
用户调研的结果下午会发出来
模型在嘈杂环境下表现一般
标注规范还有几处需要统一
推理服务的启动时间有点长
缓存命中率比预期要低一些
这部分代码最好再做一次评审
周五之前能不能给一个初稿
我们需要更多的长音频样本
说话人分离的效果总体不错
时间戳的精度还要再验证
这个指标跟上个季度差不多
接口的返回格式已经定下来了
回归测试明天早上跑完
监控面板上有几个告警
训练数据的版本要记录清楚
部署脚本已经合并到主分支
明天的评审会改到下午三点
这次的改动主要集中在解码部分
重复退化的问题在别的显卡上没有出现
温度调到零点一以后好多了
采样会带来一点不确定性
我们要保证输出可以复现
这一块的负责人是谁来着
先记下来会后再单独讨论
大家对这个时间表有没有意见
硬件采购的流程比较慢
海外的用户量增长很快
合规审查还在走流程
移动端的适配下周开始
我这边没有别的问题了
成本控制是今年的重点
可以先在小范围内试点
上线以后要盯一下错误率""".split("\n")
BACKCHANNELS = ["对。", "好的。", "嗯。", "是的。", "明白。", "可以。", "没问题。"]
SPEAKERS = ["S01", "S02", "S03", "S04"]
PHRASE = "这个快速发展的时代，"
LOOP_A = "好的，我们继续。"
LOOP_B = "对，就是这样。"
SPLIT_SENTENCE = "我们需要把这个方案再讨论一下然后决定"


def _next_speaker(rng: random.Random, previous: str | None) -> str:
    """Meetings are mostly two people trading turns, with the others chiming in."""
    main = ("S01", "S02")
    if previous in main and rng.random() < 0.75:
        return main[1 - main.index(previous)]
    return rng.choice([s for s in SPEAKERS if s != previous])


def clean_segments(rng: random.Random) -> list[dict]:
    segs, t, recent = [], 0.6, []
    pair_at = set(rng.sample(range(20, 600), 7))
    while len(segs) < 623:
        i = len(segs)
        speaker = _next_speaker(rng, segs[-1]["speaker"] if segs else None)
        if i - 1 in pair_at and len(segs) < 623:  # a natural repeat: another speaker echoes
            text = segs[-1]["text"]
        elif i in pair_at:
            text = BACKCHANNELS[len([p for p in pair_at if p < i]) % len(BACKCHANNELS)]
        elif i == 300:
            text = "对对对对对对，就是这个意思。"  # the worst natural repetition: x6
        else:
            text = rng.choice([s for s in SENTENCES if s not in recent]) + rng.choice("。，？")
            recent = (recent + [text[:-1]])[-12:]
        duration = round(len(text) / rng.uniform(3.8, 5.2) + 0.3, 2)
        segs.append({"start": round(t, 2), "end": round(t + duration, 2), "speaker": speaker, "text": text})
        t += duration + rng.uniform(0.6, 2.8)
    return segs


def degenerate_segments(clean: list[dict], rng: random.Random) -> tuple[list[dict], list[dict]]:
    out, regions = [], []
    windows = {100: ("loop_a", 20), 400: ("split", 10), 520: ("loop_b", 8)}
    i = 0
    while i < len(clean):
        if i in windows:
            kind, k = windows[i]
            start, end = clean[i]["start"], clean[i + k - 1]["end"]
            speaker = clean[i]["speaker"]
            loop = _loop(kind, start, end, speaker, rng)
            out += loop
            regions.append({"kind": kind, "start": start, "end": end, "first": i, "last": i + k - 1, "loop": loop})
            i += k
            continue
        seg = dict(clean[i])
        if i == 250:
            seg["text"] = "我觉得这个问题的关键是" + "的" * 102
            regions.append({"kind": "char", "start": seg["start"], "end": seg["end"], "first": i, "last": i,
                            "loop": [dict(seg)]})
        elif i == 600:
            seg["text"] = "在" + PHRASE * 49
            regions.append({"kind": "phrase", "start": seg["start"], "end": seg["end"], "first": i, "last": i,
                            "loop": [dict(seg)]})
        out.append(seg)
        i += 1
    return out, regions


def _loop(kind: str, start: float, end: float, speaker: str, rng: random.Random) -> list[dict]:
    if kind in ("loop_a", "loop_b"):
        text, n = (LOOP_A, 121) if kind == "loop_a" else (LOOP_B, 37)
        step = (end - start) / n
        return [{"start": round(start + j * step, 2), "end": round(start + (j + 1) * step, 2),
                 "speaker": speaker, "text": text} for j in range(n)]
    # A sentence looping across segments cut at arbitrary points: no two segments equal.
    stream = SPLIT_SENTENCE * 25
    cuts = sorted(rng.sample(range(1, len(stream)), 49))
    pieces = [stream[a:b] for a, b in zip([0] + cuts, cuts + [len(stream)])]
    step = (end - start) / len(pieces)
    return [{"start": round(start + j * step, 2), "end": round(start + (j + 1) * step, 2),
             "speaker": speaker, "text": p} for j, p in enumerate(pieces)]


def response(segs: list[dict], duration: float) -> dict:
    markup = "".join(f"[{s['start']:.2f}][{s['speaker']}]{s['text']}[{s['end']:.2f}]" for s in segs)
    return {"task": "transcribe", "language": "zh", "duration": duration, "text": markup,
            "segments": [{"id": i, "start": s["start"], "end": s["end"], "text": f"[{s['speaker']}]{s['text']}"}
                         for i, s in enumerate(segs)],
            "usage": {"type": "duration", "seconds": int(duration) + 1}}


def main(out_dir: Path) -> None:
    rng = random.Random(20260731)
    clean = clean_segments(rng)
    degenerate, regions = degenerate_segments(clean, rng)
    duration = round(clean[-1]["end"] + 2.0, 2)
    out_dir.mkdir(parents=True, exist_ok=True)
    dump = lambda obj: json.dumps(obj, ensure_ascii=False, indent=1) + "\n"
    (out_dir / "clean.json").write_text(dump(response(clean, duration)), encoding="utf-8")
    (out_dir / "degenerate.json").write_text(dump(response(degenerate, duration)), encoding="utf-8")
    truth = {"duration": duration, "segments": clean, "degenerate_regions": regions}
    (out_dir / "truth.json").write_text(dump(truth), encoding="utf-8")
    print(f"clean {len(clean)} segments, degenerate {len(degenerate)} segments, {duration:.0f}s")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "fixtures/seed"))
