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


# Formats written by a model server on a GPU (SGLang-Omni serving MOSS-Transcribe-Diarize):
# where the seed saw the same audio loop on one GPU and not on another. Whisper.cpp's console
# output, subtitles or a CSV say nothing of the hardware, and often come from a CPU.
GPU_SERVER_FORMATS = ("moss", "sglang_json", "sglang_verbose")


def advise(report, transcript=None, gpu_mem: float | None = None) -> tuple[str, ...]:
    kinds = {f.kind for f in report.flagged}
    loops = {k for k in kinds if k.is_loop}
    advice = []
    utterances = bool(transcript is not None and transcript.meta.get("independent")) or report.independent
    if utterances and kinds:  # each line its own recording: no one --audio to re-decode against
        advice.append(f"flagged utterances: each line is its own recording, so set them aside with degen filter "
                      f"{_file(report)} --keep clean.jsonl --quarantine suspect.jsonl and re-decode their audio "
                      f"at temperature 0.1")
        return tuple(advice)
    if loops:
        advice.append(f"loops: re-decode only the flagged spans at temperature 0.1 (escalating if needed): "
                      f"degen fix {_file(report)} --audio AUDIO --server URL{_saved(report)}")
    if loops and report.format in GPU_SERVER_FORMATS:
        advice.append("if the same audio decodes cleanly on another GPU, the loops come from numerical differences "
                      "between GPUs that greedy decoding amplifies, not from a configuration error: sample at "
                      "temperature 0.1 rather than 0")
    if Kind.HALLUCINATION in kinds:
        advice.append("known hallucinations: models write these over silence or music; trim that audio or gate it "
                      "with a VAD before decoding (faster-whisper vad_filter, whisper.cpp --vad); degen fix "
                      f"{_file(report)} --audio AUDIO --server URL --vad silero re-decodes the flagged spans and "
                      f"judges each answer against the speech the VAD finds there{_saved(report)}")
    if kinds & {Kind.TRUNCATED, Kind.UNCLOSED, Kind.UNTRANSCRIBED}:
        advice.append(_truncation_advice(report, gpu_mem))
    if kinds & {Kind.RATE, Kind.ZERO_LENGTH, Kind.INVERTED, Kind.UNIFORM_DURATIONS} and not loops:
        advice.append("timing no speech can produce: re-decode those spans (degen fix) and check the timestamps")
    return tuple(advice)


def _unnamed(report) -> bool:
    """Read from stdin or given as text: no file that degen fix could be pointed to."""
    return report.source == "-" or (report.source.startswith("<") and report.source.endswith(">"))


def _file(report) -> str:
    return "FILE" if _unnamed(report) else report.source


def _saved(report) -> str:
    return " (after saving the transcript as FILE: degen fix reads a file, not stdin)" if _unnamed(report) else ""


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
