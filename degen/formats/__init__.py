"""Transcript formats: a registry of pure ``loads(str)`` / ``dumps(Transcript)`` pairs,
with sniffing by content (the file extension only breaks ties; see ``sniff``).

=================  ==============================================================
moss               MOSS-Transcribe-Diarize markup ``[start][S01]text[end]``
sglang_json ...    SGLang-Omni / OpenAI / Hugging Face JSON, segment and turn lists, lists of strings (jsonfmt)
aws_transcribe     Amazon Transcribe job JSON, a segment a sentence of its items (cloud)
azure_speech       Microsoft (Azure) speech results, SDK or batch transcription (cloud)
transcription_json a result whose transcript is under "transcription" (Replicate's whisper; jsonkeyed)
srt, vtt           subtitles
whisper_console    whisper.cpp / openai-whisper / faster-whisper console output
lrc                LRC lyrics
stm, ctm           NIST/Kaldi scoring files: a segment a line, a word a line
streaming_log      a log whose level lines interleave the results (whisper_streaming)
tsv, csv           whisper's TSV, CSV with start/end/text columns
jsonl, manifest    JSON Lines: a segment a line, or a NeMo-style utterance a line
speaker_text       ``SPEAKER_00: text``, ``[Alice] text``, ``Speaker 1`` blocks, ``Name : 1:02.5 - 1:09.0 : text``
autocut_md         autocut's Markdown cut list ``- [ ] [823,28:11] text`` (cutlist)
meeting_notes      markdown notes with ``## 00:05:12`` time headers, or a bare time line above each block
text               plain text, a segment a line (a ``0:`` result counter kept aside)
=================  ==============================================================

>>> from degen.formats import loads
>>> t = loads("[0.48][S01]Welcome everyone[1.66]")
>>> t.format, t.segments[0].speaker
('moss', 'S01')
>>> loads("[00:01.000 --> 00:03.000]  Hello there.").format
'whisper_console'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..errors import FormatError
from ..model import Transcript
from . import console, cutlist, jsonfmt, jsonkeyed, kaldi, streamlog, jsonl, jsonstream, lrc, moss, notes, plain, sniff as _sniff, speakers, subtitles, tables


@dataclass(frozen=True)
class Format:
    name: str
    loads: Callable[[str], Transcript]
    dumps: Callable[[Transcript], str]
    description: str


def _json_as(shape: str) -> Callable[[str], Transcript]:
    def load(text: str) -> Transcript:
        try:
            doc = jsonfmt.parse_json(text)
        except FormatError:
            printed = jsonfmt.from_python(text)  # a printed Python dict is read as its JSON shape
            if printed is None:
                raise
            if printed.format != shape:
                raise FormatError(f"this is '{printed.format}', not '{shape}'", hint=f"use --format {printed.format}")
            return printed
        return jsonfmt.from_doc(doc, shape, source=text)
    return load


REGISTRY: dict[str, Format] = {f.name: f for f in (
    Format("moss", moss.loads, moss.dumps, "MOSS-Transcribe-Diarize raw markup [start][S01]text[end]"),
    Format("sglang_json", _json_as("sglang_json"), jsonfmt.dumps, "SGLang-Omni response_format=json"),
    Format("sglang_verbose", _json_as("sglang_verbose"), jsonfmt.dumps, "SGLang-Omni response_format=verbose_json"),
    Format("segments_json", _json_as("segments_json"), jsonfmt.dumps,
           "OpenAI/Whisper verbose_json, WhisperX, any object with a 'segments' list"),
    Format("segments_list", _json_as("segments_list"), jsonfmt.dumps, "a bare list of segments (MOSS segments.json)"),
    Format("text_list", _json_as("text_list"), jsonfmt.dumps,
           "a list of strings, one utterance each (a JSON array or a printed Python list)"),
    Format("text_json", _json_as("text_json"), jsonfmt.dumps, "OpenAI response_format=json with plain text"),
    Format("hf_chunks", _json_as("hf_chunks"), jsonfmt.dumps,
           "Hugging Face ASR pipeline output: 'chunks' with 'timestamp' pairs (JSON or a printed dict)"),
    Format("turns_json", _json_as("turns_json"), jsonfmt.dumps,
           "an object with one list of turns under any key ({'speaker', 'content'} ...)"),
    Format("aws_transcribe", _json_as("aws_transcribe"), jsonfmt.dumps,
           "Amazon Transcribe job JSON: results.items words, a segment a sentence"),
    Format("azure_speech", _json_as("azure_speech"), jsonfmt.dumps,
           "Microsoft (Azure) speech results: DisplayText with Offset/Duration in 100 ns ticks, or batch recognizedPhrases"),
    Format("transcription_json", _json_as("transcription_json"), jsonfmt.dumps,
           "a result whose transcript is under 'transcription' (plain text, SRT or WebVTT), a 'translation' kept "
           "aside: Replicate's whisper"),
    Format("srt", subtitles.loads_srt, subtitles.dumps_srt, "SubRip subtitles"),
    Format("vtt", subtitles.loads_vtt, subtitles.dumps_vtt, "WebVTT subtitles"),
    Format("whisper_console", console.loads, console.dumps,
           "whisper.cpp / openai-whisper console output [00:00.000 --> 00:02.000] text, logs skipped"),
    Format("lrc", lrc.loads, lrc.dumps, "LRC lyrics [mm:ss.xx]text"),
    Format("stm", kaldi.loads_stm, kaldi.dumps_stm, "NIST/Kaldi STM: file channel speaker start end [<labels>] text"),
    Format("ctm", kaldi.loads_ctm, kaldi.dumps_ctm, "Kaldi CTM: utterance channel start duration word, a word a line"),
    Format("streaming_log", streamlog.loads, streamlog.dumps,
           "a log whose DEBUG/INFO lines interleave 'start_ms end_ms text' results (whisper_streaming)"),
    Format("tsv", tables.loads_tsv, tables.dumps, "whisper's TSV: start<TAB>end<TAB>text in milliseconds"),
    Format("csv", tables.loads_csv, tables.dumps, "CSV with start, end and text columns (speaker optional)"),
    Format("jsonl", jsonl.loads_segments, jsonl.dumps, "JSON Lines, one segment {start, end, text} a line"),
    Format("manifest", jsonl.loads_manifest, jsonl.dumps,
           "JSON Lines, one utterance a line (NeMo manifest: audio_filepath, duration, text/pred_text)"),
    Format("speaker_text", speakers.loads, speakers.dumps, "speaker-labelled text: SPEAKER_00: / [Alice] / blocks"),
    Format("autocut_md", cutlist.loads, cutlist.dumps,
           "autocut's Markdown cut list: - [ ] [index,mm:ss] text, a subtitle a line"),
    Format("meeting_notes", notes.loads, notes.dumps, "markdown notes with '## 00:05:12' time headers, or a time line above each block"),
    Format("text", plain.loads, plain.dumps, "plain text, one segment per line, no timing ('0:text' result counters kept aside)"),
)}
# Convenience names people type; None means 'any JSON shape'.
ALIASES = {"json": None, "verbose_json": "sglang_verbose", "webvtt": "vtt", "txt": "text", "markup": "moss",
           "whisper_cpp": "whisper_console", "whisper.cpp": "whisper_console", "whisper": "whisper_console",
           "console": "whisper_console", "log": "whisper_console", "lyrics": "lrc", "jsonlines": "jsonl",
           "ndjson": "jsonl", "nemo": "manifest", "speakers": "speaker_text", "markdown": "meeting_notes",
           "md": "meeting_notes", "notes": "meeting_notes",
           "kaldi": "ctm", "nist": "stm", "strings": "text_list", "hf": "hf_chunks", "huggingface": "hf_chunks", "transformers": "hf_chunks",
           "autocut": "autocut_md", "cutlist": "autocut_md", "aws": "aws_transcribe", "transcribe": "aws_transcribe", "azure": "azure_speech", "microsoft": "azure_speech",
           "replicate": "transcription_json", "transcription": "transcription_json"}

decode = _sniff.decode


def resolve(name: str) -> str | None:
    """A registry name for ``name``; None means 'any JSON shape'."""
    key = name.strip().lower().replace("-", "_")
    if key in REGISTRY:
        return key
    if key in ALIASES:
        return ALIASES[key]
    raise FormatError(f"unknown format {name!r}", hint="choose one of: " + ", ".join(REGISTRY))


def sniff(text: str, extension: str = "") -> str:
    """The registry name that fits ``text``; the extension breaks ties only."""
    return _sniff.sniff(text, extension)


def loads(text: str, format: str | None = None, extension: str = "") -> Transcript:
    """Parse ``text`` as ``format`` (a registry name or alias), or sniff it."""
    text = text.lstrip("\ufeff")
    if format:
        name = resolve(format)
        return REGISTRY[name].loads(text) if name else jsonfmt.loads(text)
    return _sniff.load(text, extension, REGISTRY)


def _portable(extra) -> dict:
    """What a segment's extra means in any format: its JSON item (unknown fields kept)."""
    return {"json": extra["json"]} if "json" in extra else {}


def dumps(transcript: Transcript, format: str | None = None) -> str:
    """Write ``transcript`` in its own format, or in ``format``."""
    name = resolve(format) if format else transcript.format
    if name is None or name not in REGISTRY:
        raise FormatError(f"cannot write format {name!r}", hint="choose one of: " + ", ".join(REGISTRY))
    if name != transcript.format:  # another format's layout (skipped log lines ...) does not carry over
        transcript = Transcript([s.with_(extra=_portable(s.extra)) for s in transcript.segments], name, {})
    return REGISTRY[name].dumps(transcript)
