"""degen: find and repair repetition loops in speech-recognition transcripts.

>>> import degen
>>> report = degen.scan("[0.0][S01]" + "的" * 102 + "[4.0]")
>>> report.degenerate, report.metrics.max_repetition.unit, report.metrics.max_repetition.count
(True, '的', 102)
"""

from __future__ import annotations

import dataclasses
import importlib
import os
from pathlib import Path

# Only light modules load with the package: `degen --help`, `degen --version` and
# `degen plan` must not pay for numpy (about 0.13 s, several times the interpreter's own
# start). Everything else is imported on first use, through __getattr__ below.
from .errors import (AudioError, ConfigError, DegenError, FormatError, OutputError, ServerError, ServerRejected,
                     ServerTimeout, ServerUnreachable)
from .model import Segment, Span, Transcript

__version__ = "0.1.0"


def read(source: "str | os.PathLike | Transcript", format: str | None = None) -> Transcript:
    """A Transcript from a path, or from transcript text itself.

    Args:
        source: a file path (an ``os.PathLike``, or a str naming something that exists:
            a folder or a FIFO is refused as such), or the transcript text itself: a str
            that names nothing existing is text, even when it ends in ``.txt``.
        format: a registry name to skip sniffing (see ``degen.formats.REGISTRY``).
    """
    if isinstance(source, Transcript):
        return source
    from . import formats
    from .io import read_transcript
    if isinstance(source, os.PathLike) or _is_path(source):
        return read_transcript(source, format)
    return formats.loads(source, format)


def _is_path(text: str) -> bool:
    """A str is a path only when it names something that exists (or is ``-``, stdin): a
    transcript that happens to end in ".txt" is text, not a missing file."""
    if len(text) > 4096 or "\n" in text or "\0" in text:  # length first: a transcript can be megabytes
        return False
    try:
        return Path(text).exists()  # a folder or FIFO too: reading it says what it is, never "clean"
    except (OSError, ValueError):
        return False


def _label(source) -> str:
    if isinstance(source, os.PathLike) or (isinstance(source, str) and _is_path(source)):
        return str(source)
    return "<transcript>" if isinstance(source, Transcript) else "<text>"


def write(transcript: Transcript, path: "str | os.PathLike", format: str | None = None) -> None:
    """Write ``transcript`` atomically, in its own format unless ``format`` is given."""
    from . import formats
    from .io import write_atomic
    write_atomic(path, formats.dumps(transcript, format))


def audio_duration_of(transcript: Transcript) -> float | None:
    """The audio length a response states (SGLang-Omni/OpenAI ``duration``), if any."""
    doc = transcript.meta.get("doc")
    value = doc.get("duration") if isinstance(doc, dict) else None
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 else None


def scan(source: "str | os.PathLike | Transcript", config: DetectConfig | None = None, *,
         audio_duration: float | None = None, format: str | None = None, name: str | None = None,
         gpu_mem: float | None = None, audio=None) -> Report:
    """Detect loops and impossible timing in a transcript.

    Args:
        source: a Transcript, a path, or transcript text.
        config: thresholds (``DetectConfig``); defaults documented there.
        audio_duration: seconds of audio, to catch a transcript that stops early; taken
            from the response's ``duration`` when not given.
        format: skip format sniffing.
        name: how the report names the source.
        gpu_mem: GiB of the server's GPU, for max_new_tokens numbers in the advice.
        audio: the audio file (a path or ``repair.audio.Audio``): voiced stretches no
            segment covers become ``untranscribed`` findings, and its length is the
            ``audio_duration``.

    Example:
        >>> import degen
        >>> degen.scan("[0.0][S01]no, no, no, no, no[2.0]").degenerate
        False
    """
    from .present.advice import advise
    from .detect import DEFAULT, analyze
    from .report import build_report
    config = config or DEFAULT
    transcript = read(source, format)
    label = name or _label(source)
    heard = _audio(audio) if audio is not None else None
    duration = audio_duration or (heard.duration if heard is not None else None) or audio_duration_of(transcript)
    analysis = analyze(transcript, config, duration)
    if heard is not None:
        analysis = _with_untranscribed(analysis, transcript, heard)
    skipped = transcript.meta.get("skipped_lines")
    lengths = _utterance_seconds(transcript)
    total = duration or (float(sum(lengths)) if lengths is not None else transcript.end)
    report = build_report(label, transcript.format, analysis, total, config.fail_on,
                          skipped_lines=skipped if isinstance(skipped, int) else None, utterance_seconds=lengths)
    return dataclasses.replace(report, advice=advise(report, transcript, gpu_mem=gpu_mem))


def _audio(audio):
    from .repair.audio import Audio
    return audio if isinstance(audio, Audio) else Audio.open(audio)


def _with_untranscribed(analysis, transcript: Transcript, audio):
    """``analysis`` with the voiced stretches of ``audio`` that no segment covers."""
    from .repair.vad import make_vad
    from .repair.voice import untranscribed, voice_of
    found = untranscribed(transcript, voice_of(audio, make_vad()))
    if not found:
        return analysis
    findings = sorted(analysis.findings + tuple(found), key=lambda f: (f.span.start if f.span else -1.0, f.segments))
    return dataclasses.replace(analysis, findings=tuple(findings))


def _utterance_seconds(transcript: Transcript):
    """Each utterance's length (0 where it has none), for an utterance-per-line file
    with timing; else None."""
    if not transcript.meta.get("independent") or not transcript.timed:
        return None
    import numpy as np
    columns = transcript.columns()
    return np.clip(np.nan_to_num(columns.ends - columns.starts), 0.0, None)


def fix(source: "str | os.PathLike | Transcript", *, audio, transcriber, policy=None,
        config: DetectConfig | None = None, pad: float = 0.5, merge_gap: float = 1.0, max_span: float = 30.0,
        concurrency: int = 8, journal=None, progress=None, format: str | None = None, language: str | None = None):
    """Re-decode only the flagged spans of a transcript and splice the results back.

    Args:
        source: a Transcript, a path, or transcript text.
        audio: the audio file the transcript was made from (path or ``repair.audio.Audio``).
        transcriber: a server URL, a ``Transcriber``, or a list of either (spans are spread
            over them).
        policy: decoding steps and acceptance (``repair.policy.Policy``); default
            ``repair.policy.ESCALATION``: pieces where the audio repeats one word, then
            0.1, 0.1 with repetition_penalty 1.1, 0.4 with it, 0.7, 0.7 with context.
        config: detection thresholds, for finding spans and judging candidates.
        pad, merge_gap, max_span: seconds; how spans are padded, merged and split.
        concurrency: spans in flight at once.
        journal: a ``repair.journal.Journal`` to resume from and append to.
        progress: called with (``Outcome``, spans done, spans in all) as each span finishes.
        language: the transcript's language ("en", "zh"), sent with every request; when
            None, the input's own field, else a guess from its clean text
            (``repair.language.pin``). Answers in another language or script are refused.

    Returns:
        ``repair.fix.FixResult``: the new transcript, edits, attempts, metrics before/after.

    Raises:
        ServerUnreachable: a server is not there (checked once before any span is sent,
            when there is something to send), as ``degen fix`` exits 3.

    Example:
        >>> result = degen.fix("out.json", audio="meeting.wav", transcriber="http://gpu:8000")  # doctest: +SKIP
        >>> degen.write(result.transcript, "fixed.json")  # doctest: +SKIP
    """
    from .repair.audio import Audio
    from .repair.client import HttpTranscriber
    from .repair.fix import findings_to_repair, repair
    from .repair.policy import Policy
    from .detect import DEFAULT
    config = config or (policy.config if policy else DEFAULT)
    policy = policy or Policy(config=config)
    transcript = read(source, format)
    audio = audio if isinstance(audio, Audio) else Audio.open(audio)
    items = transcriber if isinstance(transcriber, (list, tuple)) else [transcriber]
    transcribers = [HttpTranscriber(t) if isinstance(t, str) else t for t in items]
    before = scan(transcript, config, audio_duration=audio.duration, name=_label(source))
    findings, voice = findings_to_repair(transcript, audio, policy, before.flagged)
    for t in transcribers if findings else ():
        if hasattr(t, "check"):  # a down server: say so, not a result with every span unresolved
            t.check()
    return repair(transcript, audio, transcribers, policy=policy, findings=findings, pad=pad,
                  merge_gap=merge_gap, max_span=max_span, concurrency=concurrency, journal=journal,
                  progress=progress, before=before, language=_pin_language(transcript, language, findings),
                  voice=voice, rescan=lambda t: scan(t, config, audio_duration=audio.duration, name="<fixed>"))


def _pin_language(transcript: Transcript, given: str | None, findings):
    """The language of a repair run, read from the segments no finding flagged (a
    loop's text is no evidence of the language: Whisper loops in English on Mandarin)."""
    from .repair.language import pin
    from .repair.plan import INSERTING
    flagged = {i for f in findings if f.kind not in INSERTING for i in range(f.segments[0], f.segments[1] + 1)}
    clean, size = [], 0
    for i, seg in enumerate(transcript.segments):
        if i not in flagged and size < 20_000:  # a few pages decide the language
            clean.append(seg.text)
            size += len(seg.text)
    return pin(transcript, given, " ".join(clean))


__all__ = [
    "read", "write", "scan", "scan_batch", "fix", "analyze", "Transcript", "Segment", "Span", "Finding", "Report",
    "Metrics", "DetectConfig", "DEFAULT", "DegenError", "FormatError", "ConfigError", "AudioError", "OutputError",
    "ServerError", "ServerUnreachable", "ServerTimeout", "ServerRejected", "formats",
]

# Public names that live in heavier modules, resolved on first access (PEP 562); the
# submodules the package used to import eagerly stay reachable as attributes too.
_LAZY = {
    "formats": (".formats", None), "detect": (".detect", None), "io": (".io", None), "report": (".report", None),
    "archive": (".archive", None), "present": (".present", None), "ray": (".ray", None),
    "DEFAULT": (".detect", "DEFAULT"), "DetectConfig": (".detect", "DetectConfig"),
    "Finding": (".detect", "Finding"), "analyze": (".detect", "analyze"),
    "scan_batch": (".archive.rows", "scan_batch"),
    "read_transcript": (".io", "read_transcript"), "write_atomic": (".io", "write_atomic"),
    "Metrics": (".report", "Metrics"), "Report": (".report", "Report"), "build_report": (".report", "build_report"),
}


def __getattr__(name: str):
    try:
        module_name, attribute = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'degen' has no attribute {name!r}") from None
    module = importlib.import_module(module_name, __name__)
    value = module if attribute is None else getattr(module, attribute)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
