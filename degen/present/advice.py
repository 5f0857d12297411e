"""The seed's decision table, applied to what a scan found.

    symptom                               knob                       direction
    loops (segments inflated, char x102)  temperature (per request)  0 -> 0.1: degen fix
    known hallucinations (silence, music) VAD / trimming              gate the audio; degen fix --vad
    output cut short / unclosed tail      max_new_tokens / fraction  raise, within KV capacity
    same loops on one GPU, not another    temperature                numerical differences, not config
    OOM                                   mem-fraction-static        lower (degen plan)
"""

from __future__ import annotations

from ..detect.finding import Kind
from ..errors import ConfigError


def advise(report, transcript=None, gpu_mem: float | None = None) -> tuple[str, ...]:
    kinds = {f.kind for f in report.flagged}
    loops = {k for k in kinds if k.is_loop}
    advice = []
    if loops:
        advice.append(f"loops: re-decode only the flagged spans at temperature 0.1 (escalating if needed): "
                      f"degen fix {report.source} --audio AUDIO --server URL")
        advice.append("if the same audio decodes cleanly on another GPU, the loops come from numerical differences "
                      "between GPUs that greedy decoding amplifies, not from a configuration error: sample at "
                      "temperature 0.1 rather than 0")
    if Kind.HALLUCINATION in kinds:
        advice.append("known hallucinations: models write these over silence or music; trim that audio or gate it "
                      "with a VAD before decoding (faster-whisper vad_filter, whisper.cpp --vad); degen fix "
                      f"{report.source} --audio AUDIO --server URL --vad silero re-decodes the flagged spans and "
                      "judges each answer against the speech the VAD finds there")
    if kinds & {Kind.TRUNCATED, Kind.UNCLOSED, Kind.UNTRANSCRIBED}:
        advice.append(_truncation_advice(report, gpu_mem))
    if kinds & {Kind.RATE, Kind.ZERO_LENGTH, Kind.INVERTED, Kind.UNIFORM_DURATIONS} and not loops:
        advice.append("timing no speech can produce: re-decode those spans (degen fix) and check the timestamps")
    return tuple(advice)


def _truncation_advice(report, gpu_mem: float | None) -> str:
    text = ("output cut short (the transcript stops before the audio does, or ends unclosed at the token cap): "
            "raise max_new_tokens within the KV capacity, or raise mem-fraction-static (needs a restart)")
    minutes = report.metrics.duration / 60 if report.metrics.duration else None
    if gpu_mem and minutes:
        from ..capacity import plan as capacity_plan  # here: most scans give no advice on capacity
        try:
            p = capacity_plan(gpu_mem, audio_minutes=minutes)
        except ConfigError as exc:  # advice, not a verdict: say why there are no numbers
            return f"{text}; {exc}"
        text += (f"; for {minutes:.0f} min on {gpu_mem:g} GiB: max_new_tokens {p.max_new_tokens}, "
                 f"mem-fraction-static {p.fraction:.2f} (KV capacity {p.kv_capacity:,} tokens"
                 f"{', OOM risk' if p.oom_risk else ''})")
    else:
        text += "; degen plan --gpu-mem GIB --audio-minutes M gives the numbers"
    return text
