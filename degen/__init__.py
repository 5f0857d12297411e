"""degen: find and repair repetition loops in speech-recognition transcripts.

Functions (a str or ``os.PathLike`` source is always a path; text has functions of its own):

    scan(path)                  a Report: findings, metrics (the seed's numbers), advice
    scan_text(text)             the same for transcript text held in memory
    read(path) / read_text(text)  a Transcript, its format sniffed (``format=`` skips that)
    write(transcript, path)     atomically, in the transcript's own format
    fix(path, audio=, transcriber=URL)  re-decode only the flagged spans on a live server
    scan_batch(batch)           a batched map function for datasets / Ray Data rows
    analyze(transcript)         the detectors alone, without a report

Classes: Transcript, Segment, Span; Report, Metrics, Finding; DetectConfig (thresholds,
each with its reason). Errors: DegenError and its tree (``degen.errors``).

>>> import degen
>>> report = degen.scan_text("[0.0][S01]" + "的" * 102 + "[4.0]")
>>> report.degenerate, report.metrics.max_repetition.unit, report.metrics.max_repetition.count
(True, '的', 102)
"""

from __future__ import annotations

import dataclasses as _dataclasses
import importlib as _importlib
import os as _os

# Only light modules load with the package: `degen --help`, `degen --version` and
# `degen plan` must not pay for numpy (about 0.13 s, several times the interpreter's own
# start). Everything else is imported on first use, through __getattr__ below.
from .errors import (AudioError, ConfigError, DegenError, FormatError, OutputError, ServerError, ServerRejected,
                     ServerTimeout, ServerUnreachable)
from .model import Segment, Span, Transcript
from .options import DEFAULT as _OPTIONS

__version__ = "0.1.0"

# Past this a str cannot name a file (Linux's PATH_MAX): it is text given to the wrong function.
_PATH_MAX = 4096
API_KEY_ENV = "DEGEN_API_KEY"


def read(source: "str | os.PathLike | Transcript", format: str | None = None) -> Transcript:
    """The Transcript in a file.

    Args:
        source: a path (str or ``os.PathLike``; ``"-"`` is stdin), or a Transcript
            (returned as it is). Transcript text goes to ``read_text``.
        format: a registry name to skip sniffing (see ``degen.formats.REGISTRY``).

    Raises:
        FormatError: no such file, not a regular file, or not a transcript.
        ConfigError: a str that cannot be a path (a newline, or longer than a path can
            be): transcript text, which ``read_text`` reads.
    """
    if isinstance(source, Transcript):
        return source
    from .io import read_transcript
    return read_transcript(_path(source), format)


def read_text(text: str, format: str | None = None) -> Transcript:
    """The Transcript in ``text`` (MOSS markup, JSON, subtitles ... sniffed; else plain text)."""
    from . import formats
    if not isinstance(text, str):
        raise ConfigError(f"read_text takes the transcript as a str, not a {type(text).__name__}; "
                          f"a file goes to degen.read")
    return formats.loads(text, format)


def _path(source) -> "str | os.PathLike":
    """``source`` as a path, or a ConfigError saying that it is text or no path at all."""
    if isinstance(source, _os.PathLike):
        return source
    if not isinstance(source, str):
        raise ConfigError(f"a transcript source is a path, a Transcript or (with degen.read_text / scan_text) "
                          f"text, not a {type(source).__name__}")
    if len(source) > _PATH_MAX or "\n" in source or "\0" in source:
        raise ConfigError(f"this str holds {'a newline' if chr(10) in source else 'more than a path can'}, so it is "
                          f"transcript text, not a path: use degen.scan_text(text) or degen.read_text(text)")
    return source


def _label(source) -> str:
    return "<transcript>" if isinstance(source, Transcript) else str(source)


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
    """Detect loops and impossible timing in a transcript file (or a Transcript).

    Args:
        source: a path (str or ``os.PathLike``) or a Transcript; text goes to ``scan_text``.
        config: thresholds (``DetectConfig``); defaults documented there.
        audio_duration: seconds of audio, to catch a transcript that stops early; taken
            from the response's ``duration`` when not given.
        format: skip format sniffing.
        name: how the report names the source.
        gpu_mem: GiB of the server's GPU, for max_new_tokens numbers in the advice.
        audio: the audio file (a path or ``repair.audio.Audio``): voiced stretches no
            segment covers become ``untranscribed`` findings, and its length is the
            ``audio_duration``.

    Raises:
        FormatError: no such file, or not a transcript (a typo is an error, never "clean").
        ConfigError: a str that is text, not a path (see ``scan_text``).
    """
    transcript = read(source, format)
    return _scan(transcript, config, audio_duration, name or _label(source), gpu_mem, audio)


def scan_text(text: str, config: DetectConfig | None = None, *, audio_duration: float | None = None,
              format: str | None = None, name: str = "<text>", gpu_mem: float | None = None,
              audio=None) -> Report:
    """``scan`` for transcript text held in memory (arguments as ``scan``'s).

    Example:
        >>> import degen
        >>> degen.scan_text("[0.0][S01]no, no, no, no, no[2.0]").degenerate
        False
    """
    return _scan(read_text(text, format), config, audio_duration, name, gpu_mem, audio)


def _scan(transcript: Transcript, config, audio_duration, label: str, gpu_mem, audio=None) -> Report:
    from .present.advice import advise
    from .detect import DEFAULT, analyze
    from .report import build_report
    config = config or DEFAULT
    heard = _audio(audio) if audio is not None else None
    duration = audio_duration or (heard.duration if heard is not None else None) or audio_duration_of(transcript)
    analysis = analyze(transcript, config, duration)
    if heard is not None:
        analysis = _with_untranscribed(analysis, transcript, heard)
    skipped = transcript.meta.get("skipped_lines")
    lengths = _utterance_seconds(transcript)
    total = duration or (float(sum(lengths)) if lengths is not None else transcript.end)
    independent = bool(transcript.meta.get("independent"))
    places = None
    if independent and transcript.format == "manifest":  # rows of a file: name each finding's line
        from .report import utterance_places
        places = utterance_places(transcript, analysis.findings)
    report = build_report(label, transcript.format, analysis, total, config.fail_on,
                          skipped_lines=skipped if isinstance(skipped, int) else None, utterance_seconds=lengths,
                          independent=independent, places=places)
    return _dataclasses.replace(report, advice=advise(report, transcript, gpu_mem=gpu_mem))


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
    return _dataclasses.replace(analysis, findings=tuple(findings))


def _utterance_seconds(transcript: Transcript):
    """Each utterance's length (0 where it has none), for an utterance-per-line file
    with timing; else None."""
    if not transcript.meta.get("independent") or not transcript.timed:
        return None
    import numpy as np
    columns = transcript.columns()
    return np.clip(np.nan_to_num(columns.ends - columns.starts), 0.0, None)


def fix(source: "str | os.PathLike | Transcript", *, audio, transcriber, policy=None,
        config: DetectConfig | None = None, pad: float = _OPTIONS.pad, merge_gap: float = _OPTIONS.merge_gap,
        max_span: float = _OPTIONS.max_span, concurrency: int = _OPTIONS.concurrency, journal=None, progress=None, format: str | None = None,
        model: str | None = None, api_key: str | None = None, timeout: float = 300.0, language: str | None = None,
        server_kind: str | None = None):
    """Re-decode only the flagged spans of a transcript and splice the results back.

    Args:
        source: a path or a Transcript (text: ``fix(read_text(text), ...)``).
        audio: the audio file the transcript was made from (path or ``repair.audio.Audio``).
        transcriber: a server URL, a ``Transcriber``, or a list of either (spans are spread
            over them).
        policy: decoding steps and acceptance (``repair.policy.Policy``); default
            ``repair.policy.ESCALATION``: pieces where the audio repeats one word, then
            0.1 with repetition_penalty 1.1, 0.7, 0.4 with the penalty, 0.1, 0.7 with context.
        config: detection thresholds, for finding spans and judging candidates.
        pad, merge_gap, max_span: seconds; how spans are padded, merged and split.
        concurrency: spans in flight at once.
        journal: a ``repair.journal.Journal`` to resume from and append to (``degen fix``
            keeps one beside its output); None keeps no journal.
        progress: called with (``Outcome``, spans done, spans in all) as each span finishes.
        model, api_key, timeout: for each server given as a URL: the model id to send, the
            bearer token (default: the ``DEGEN_API_KEY`` environment variable, as for
            ``degen fix``) and the seconds a request may take.
        language: the transcript's language ("en", "zh"), sent with every request; when
            None, the input's own field, else a guess from its clean text
            (``repair.language.pin``). Answers in another language or script are refused.
        server_kind: what the server at a URL is (``repair.servers.KINDS``: "vllm",
            "sglang-omni-whisper" ...); None finds it from what the server says about itself.

    Returns:
        ``repair.fix.FixResult``: the new transcript, edits, attempts, metrics before and
        after; ``result.to_dict()`` is the report ``degen fix`` writes as OUT.degen.json.

    Warns:
        RuntimeWarning: the transcript covers under half of the audio (the wrong file?).

    Raises:
        ConfigError: a manifest (one utterance per line, each its own audio): see ``degen filter``.
        ServerUnreachable: no server is there (each is checked once before any span is
            sent, when there is something to send; one that is down of several is left
            out with a warning), as ``degen fix`` exits 3.

    Example:
        >>> result = degen.fix("out.json", audio="meeting.wav", transcriber="http://gpu:8000")  # doctest: +SKIP
        >>> degen.write(result.transcript, "fixed.json")  # doctest: +SKIP
    """
    from .repair.audio import Audio
    from .repair.fix import findings_to_repair, repair
    from .repair.policy import Policy
    from .detect import DEFAULT
    config = config or (policy.config if policy else DEFAULT)
    policy = policy or Policy(config=config)
    transcript = read(source, format)
    check_repairable(transcript, _label(source))
    audio = audio if isinstance(audio, Audio) else Audio.open(audio)
    warning = coverage_warning(transcript, audio.duration, "the audio")
    if warning:
        import warnings
        warnings.warn(warning, RuntimeWarning, stacklevel=2)
    items = transcriber if isinstance(transcriber, (list, tuple)) else [transcriber]
    transcribers = transcribers_for(items, model=model, api_key=api_key, timeout=timeout, server_kind=server_kind)
    before = scan(transcript, config, audio_duration=audio.duration, name=_label(source))
    findings, voice = findings_to_repair(transcript, audio, policy, before.flagged)
    if findings:  # a clean transcript contacts no server
        transcribers = reachable(transcribers)
    result = repair(transcript, audio, transcribers, policy=policy, findings=findings, pad=pad,
                    merge_gap=merge_gap, max_span=max_span, concurrency=concurrency, journal=journal,
                    progress=progress, before=before, language=_pin_language(transcript, language, findings),
                    voice=voice, rescan=lambda t: scan(t, config, audio_duration=audio.duration, name="<fixed>"))
    servers = tuple(filter(None, (t.describe() for t in transcribers if hasattr(t, "describe"))))
    return _dataclasses.replace(result, servers=servers)  # per server, the knobs really applied


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


# A transcript that ends before this share of its audio is more likely the wrong --audio than
# a cut: a decoder cut at its token cap still wrote most of the recording (MOSS's 32,768
# tokens hold 50-60 min), and either way most of the audio would be sent again.
LOW_COVERAGE = 0.5


def check_repairable(transcript: Transcript, name: str) -> None:
    """Refuse what ``fix`` cannot repair against one audio file: an utterance-per-line file
    (a NeMo manifest), whose every line transcribes an audio file of its own.

    Raises:
        ConfigError: naming ``degen filter``, which sets the looping lines aside.
    """
    if transcript.meta.get("independent"):
        raise ConfigError(f"{name}: a manifest holds one utterance per line, each from its own audio file, and fix "
                          f"repairs one recording against its audio; set the looping lines aside with degen filter "
                          f"{name} --keep clean.jsonl --quarantine suspect.jsonl, then re-decode those utterances")


def coverage_warning(transcript: Transcript, audio_duration: float | None, audio_name: str) -> str | None:
    """Why the audio may not be the transcript's (it covers under ``LOW_COVERAGE`` of it), or None."""
    end = transcript.end if transcript.timed else None
    if not end or not audio_duration or end >= LOW_COVERAGE * audio_duration:
        return None
    return (f"the transcript covers {end:.1f} s of the {audio_duration:.1f} s of {audio_name} ({end / audio_duration:.1%}):"
            f" if that is not the recording it was made from, stop (Ctrl-C) and give the right --audio; otherwise the "
            f"{audio_duration - end:.1f} s after its end are re-decoded as a truncated tail")


def transcribers_for(items, *, model: str | None = None, api_key: str | None = None, timeout: float = 300.0,
                     server_kind: str | None = None):
    """Each URL of ``items`` as an ``HttpTranscriber`` (``api_key`` defaulting to
    ``DEGEN_API_KEY``; ``server_kind`` None: found from what the server says about
    itself); anything else is a Transcriber already and kept as it is."""
    from .repair.client import HttpTranscriber
    key = api_key or _os.environ.get(API_KEY_ENV) or None
    return [HttpTranscriber(t, model=model, api_key=key, timeout=timeout, server_kind=server_kind)
            if isinstance(t, str) else t for t in items]


def reachable(transcribers: list, warn=None) -> list:
    """The transcribers whose server answers (each checked once, ``GET /v1/models``). One
    that cannot be reached, of several, is left out and ``warn`` is called with why (by
    default a ``RuntimeWarning``): the spans go to the live ones. A server that refuses
    the key stops everything, as every request to it would fail.

    Raises:
        ServerUnreachable: none of them can be reached.
    """
    live, down = [], []
    for t in transcribers:
        if not hasattr(t, "check"):
            live.append(t)
            continue
        try:
            t.check()
        except ServerUnreachable as exc:
            down.append(exc)
        else:
            live.append(t)
    if not live:
        raise down[0]
    for exc in down:
        message = f"{exc}; sending every span to the {len(live)} other server{'s' if len(live) > 1 else ''}"
        if warn is None:
            import warnings
            warnings.warn(message, RuntimeWarning, stacklevel=3)
        else:
            warn(message)
    return live


# What ``from degen import *`` gives and ``dir(degen)`` shows: functions first.
__all__ = [
    "scan", "scan_text", "read", "read_text", "write", "fix", "scan_batch", "analyze",
    "Transcript", "Segment", "Span", "Finding", "Report", "Metrics", "DetectConfig", "DEFAULT",
    "DegenError", "FormatError", "ConfigError", "AudioError", "OutputError", "ServerError", "ServerUnreachable",
    "ServerTimeout", "ServerRejected",
]

# Public names that live in heavier modules, resolved on first access (PEP 562); the
# submodules stay reachable as attributes too.
_SUBMODULES = ("formats", "detect", "io", "report", "archive", "present", "ray", "repair", "errors", "model")
_LAZY = {
    **{name: (f".{name}", None) for name in _SUBMODULES},
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
    module = _importlib.import_module(module_name, __name__)
    value = module if attribute is None else getattr(module, attribute)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    """The public names and the submodules, not what the package imports for itself."""
    return sorted({*__all__, *_SUBMODULES, "__version__"})
