"""Deciding what a file is, by its content: bytes to text (BOMs, refusals of binary and
of UTF-16/32 without a BOM), then which format. Only a document that really parses as JSON
(or JSON Lines) is JSON; a text or log file that starts with ``[`` is never called invalid
JSON. What is structured but unsupported (XML/TTML/HTML, RTF, PDF, office files, tables
without start/end/text columns) is refused with the list of supported formats, never read
as plain text and called clean.
"""

from __future__ import annotations

import codecs
import re

from ..errors import FormatError
from ..model import Transcript
from . import console, cutlist, jsonfmt, jsonl, kaldi, lrc, streamlog, moss, notes, speakers, subtitles, tables
from .lines import as_lf

BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
         (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))
_MAGIC = ((b"%PDF", "a PDF document"), (b"PK\x03\x04", "a ZIP archive (DOCX, XLSX, ODT ...)"),
          (b"\xd0\xcf\x11\xe0", "an old Office document (DOC, XLS)"), (b"{\\rtf", "an RTF document"),
          (b"\x1f\x8b", "gzip-compressed data"), (b"RIFF", "audio (WAV)"), (b"ID3", "audio (MP3)"),
          (b"fLaC", "audio (FLAC)"), (b"OggS", "audio (Ogg)"), (b"\x89PNG", "an image (PNG)"))
_SAMPLE = 4096
# Over this share of control characters in the first 4 KiB, the text is binary.
_MAX_CONTROL_SHARE = 0.05
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f]")  # not ESC: whisper.cpp -pc colours its text
_MARKUP = re.compile(r"\A<(?:\?xml|!DOCTYPE|!--|[A-Za-z][\w:.-]*(?:\s[^>]*)?/?>)", re.I)
_PYTHONISH = re.compile(r"\A[\[{]\s*[\[{(]?\s*'")  # {'chunks': ... printed by Python
_JSONISH = re.compile(r"\A\[\s*(?:[{\[\"\]]|$)")


def supported() -> str:
    from . import REGISTRY  # the registry imports this module
    return "supported formats: " + ", ".join(REGISTRY)


def refuse(what: str, where: str | None = None) -> FormatError:
    return FormatError(f"{what} is not a supported transcript format", where=where, hint=supported())


def _nul_pattern(sample: bytes) -> str | None:
    """The encoding that NUL bytes at fixed offsets betray: UTF-16 or UTF-32 without a BOM."""
    quarter = max(1, len(sample) // 4)
    lanes = [sample[i::4].count(0) / quarter for i in range(4)]
    if min(lanes[1:]) > 0.6 and lanes[0] < 0.3 or min(lanes[:3]) > 0.6 and lanes[3] < 0.3:
        return "UTF-32"
    halves = [sample[0::2].count(0) / (2 * quarter), sample[1::2].count(0) / (2 * quarter)]
    if max(halves) > 0.3 and min(halves) < 0.05:
        return "UTF-16"
    return None


def decode(data: bytes) -> str:
    """Text from bytes: UTF-8 (with or without BOM), UTF-16/32 with a BOM; anything else is
    a FormatError saying what it is and how to fix it."""
    for bom, codec in BOMS:
        if data.startswith(bom):
            try:
                text = data.decode(codec)
            except UnicodeDecodeError as exc:
                raise FormatError(f"invalid {codec.upper()} (at byte {exc.start})", hint="re-save the file as UTF-8") \
                    from None
            # A byte-order mark over bytes of another encoding (UTF-16 read as UTF-32, a text
            # encoded twice) decodes without error into NULs and control characters.
            if "\x00" in text[:_SAMPLE] or _binary(text[:_SAMPLE]):
                raise FormatError(f"the {codec.upper()} byte-order mark does not fit the bytes after it (they decode "
                                  f"to control characters)", where="byte 0", hint="re-save the file as UTF-8")
            return text
    for magic, what in _MAGIC:
        if data.startswith(magic):
            raise refuse(what[0].upper() + what[1:])
    sample = data[:_SAMPLE]
    if b"\x00" in sample:
        encoding = _nul_pattern(sample)
        if encoding:
            raise FormatError(f"{encoding} text without a byte-order mark", where="byte 0",
                              hint="re-save the file as UTF-8 (or with a BOM)")
        raise refuse("Binary data (NUL bytes)", where=f"byte {sample.index(0)}")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise FormatError(f"invalid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})",
                          where=f"line {line}", hint="re-save the file as UTF-8") from None
    if _binary(text[:_SAMPLE]):
        raise refuse("Binary data (control characters)")
    return text


def _binary(head: str) -> bool:
    return bool(head) and len(_CONTROL.findall(head)) > _MAX_CONTROL_SHARE * len(head)


def sniff_text(head: str, extension: str) -> str:
    """The registry name of a text (not JSON) format; refuses unsupported structured text."""
    if _MARKUP.match(head) and ("</" in head or "/>" in head):
        raise refuse("XML/HTML (TTML, DFXP ...)", where="line 1")
    name = _first_match(_BEFORE_TABLES, head)
    if name:
        return name
    delimiter = tables.delimiter_of(head)
    if delimiter:
        header = tables.split_cells(head.lstrip().partition("\n")[0].rstrip("\r"), delimiter)
        if tables.columns_of(header) is None:
            raise FormatError(tables.refusal(header).detail, where="line 1", hint=supported())
        return "tsv" if delimiter == "\t" else "csv"
    return _first_match(_AFTER_TABLES, head) or "text"


def _first_match(tests, head: str) -> str | None:
    return next((name for looks_like, name in tests if looks_like(head)), None)


# Text formats by the look of their head, in order: each test is tried only where those
# before it failed.
_BEFORE_TABLES = ((moss.OPENING.match, "moss"), (subtitles.looks_like_vtt, "vtt"), (subtitles.looks_like_srt, "srt"),
                  (lambda head: moss.looks_like(head[:4096]), "moss"),  # after subtitles: a cue may quote markup
                  (console.looks_like, "whisper_console"), (lrc.looks_like, "lrc"), (kaldi.looks_like_stm, "stm"),
                  (kaldi.looks_like_ctm, "ctm"), (streamlog.looks_like, "streaming_log"))
_AFTER_TABLES = ((cutlist.looks_like, "autocut_md"), (notes.looks_like, "meeting_notes"),
                 (speakers.looks_like, "speaker_text"))


def load(text: str, extension: str, registry: dict) -> Transcript:
    """Sniff and parse ``text``; JSON is parsed once."""
    head = text.lstrip(" \t\r\n")
    if not head:
        raise FormatError("the transcript is empty", hint="check that the server returned something")
    if moss.OPENING.match(head):  # the common case, and never JSON: no parse attempt
        return registry["moss"].loads(text)
    if head[0] in "{[":
        if extension in (".jsonl", ".ndjson") and jsonl.looks_like(head, rows=1):  # a one-line JSON Lines
            return registry[jsonl.sniff(text)].loads(text)
        try:
            return jsonfmt.from_doc(jsonfmt.parse_json(text), source=text)
        except FormatError as exc:
            if "invalid JSON" not in exc.detail:
                raise
            error = exc
        if jsonl.looks_like(head):
            return registry[jsonl.sniff(text)].loads(text)
        printed = jsonfmt.from_python(text) if _PYTHONISH.match(head) else None
        if printed is not None:
            return printed
        if head[0] == "{" or _JSONISH.match(head):
            raise error
    name = sniff_text(as_lf(head[:65536]), extension)
    return speakers.loads(text, sniffed=True) if name == "speaker_text" else registry[name].loads(text)


def sniff(text: str, extension: str = "") -> str:
    """The registry name that fits ``text``; the extension breaks ties only."""
    head = text.lstrip("\ufeff \t\r\n")
    if not head:
        raise FormatError("the transcript is empty", hint="check that the server returned something")
    if head[0] in "{[" and not moss.OPENING.match(head):
        try:
            doc = jsonfmt.parse_json(text)
        except FormatError as exc:
            if jsonl.looks_like(head):
                return jsonl.sniff(text)
            printed = jsonfmt.from_python(text) if _PYTHONISH.match(head) else None
            if printed is not None:
                return printed.format
            if head[0] == "{" or _JSONISH.match(head):
                raise exc
        else:
            return jsonfmt.shape_of(doc)
    return sniff_text(as_lf(head[:65536]), extension)
