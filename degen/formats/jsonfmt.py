"""JSON transcripts: SGLang-Omni / OpenAI responses and lists of segments.

Shapes, each a registry name:
    sglang_json     {"text": "<MOSS markup>", "usage": ...}            (response_format=json)
    sglang_verbose  {"text": "<markup>", "segments": [{"text": "[S01]..."}]}  (verbose_json)
    segments_json   {"segments": [{"start", "end", "text", "speaker"?, ...}]}  OpenAI/Whisper
                    verbose_json, WhisperX, any object with a segment list
    segments_list   [{"start", "end", "speaker", "text"}, ...]  MOSS segments.json and kin
    text_list       ["text", ...]: a batch's texts, one untimed segment each (``textlist``)
    text_json       {"text": "plain text"}                           (OpenAI json), or whisper.cpp
                    console lines in "text" (whisper.cpp's server, LlamaEdge): timed segments
    hf_chunks, turns_json   see ``jsonturns``
    transcription_json  {"transcription": ..., "translation": ...} (Replicate's whisper), see ``jsonkeyed``

A printed Python dict (``pprint`` of a pipeline's output, with tuples and quotes) is read
too, and written back the same way.

Every segment dict is kept whole in ``Segment.extra["json"]`` and every top-level key in
``Transcript.meta["doc"]`` (MOSS markup in ``text`` excepted: it is rebuilt from the
segments, so ``None`` holds its place), so writing back loses nothing; segments that a repair made
anew carry only the fields we can vouch for.
"""

from __future__ import annotations

import zlib
from typing import Any

import orjson

from ..errors import FormatError
from ..model import Segment, Transcript
from . import cloud, jsonkeyed, moss, textlist
from .jsonitems import dump_item, layout, segment

def parse_json(text: str) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise FormatError(f"invalid JSON: {exc.msg}", where=f"line {exc.lineno} column {exc.colno}",
                          hint="the file may be truncated; re-save the server's response") from None


def check_writable(doc: Any, where: str | None = None) -> None:
    """Refuse at read time what the writer could not write back (nesting deeper than
    orjson's limit), rather than failing after a whole repair."""
    try:
        orjson.dumps(doc)
    except orjson.JSONEncodeError as exc:
        raise _unwritable(exc, where) from None


def _unwritable(exc: orjson.JSONEncodeError, where: str | None = None) -> FormatError:
    return FormatError(f"JSON cannot be written back ({exc})", where=where,
                       hint="nesting is limited to 254 levels; flatten the document")


def shape_of(doc: Any) -> str:
    service = cloud.shape(doc)
    if service:
        return service
    if isinstance(doc, list):
        return textlist.SHAPE if textlist.is_text_list(doc) else "segments_list"
    if not isinstance(doc, dict):
        raise FormatError(f"unknown JSON shape: a top-level {type(doc).__name__}",
                          hint="expected an object with 'text' or 'segments', or a list of segments")
    from . import jsonturns
    other = jsonturns.shape(doc)
    if other:
        return other
    text = doc.get("text")
    if "segments" in doc:
        if isinstance(text, str) and moss.looks_like(text):
            return "sglang_verbose"
        return "segments_json"
    if isinstance(text, str):
        return "sglang_json" if moss.looks_like(text) else "text_json"
    if jsonkeyed.key_of(doc):
        return jsonkeyed.SHAPE
    raise FormatError("unknown JSON shape: no 'text' or 'segments' key", field="text",
                      hint="expected an SGLang-Omni/OpenAI response or a list of segments")


def loads(text: str) -> Transcript:
    return from_doc(parse_json(text), source=text)


def from_doc(doc, shape: str | None = None, *, from_json: bool = True, source: str | bytes | None = None) -> Transcript:
    """A Transcript from parsed JSON, checking its shape against ``shape`` if given.
    ``from_json``: the document came from a JSON parser (False for a printed Python dict,
    whose tuples and other values JSON cannot carry as they are). ``source``: the text or
    bytes it was parsed from, where the caller still has them (a shape that writes back
    in the file's own layout looks at it)."""
    found = shape_of(doc)
    # A top-level text (MOSS markup: half the file) is one string, which cannot nest, and
    # orjson wrote every string it read: checking the rest is enough, at half the cost.
    # (A printed Python dict may hold a string orjson cannot write: from_python checks it whole.)
    rest = {**doc, "text": None} if isinstance(doc, dict) and isinstance(doc.get("text"), str) else doc
    packed = None
    if found == "sglang_verbose" and from_json and isinstance(doc["segments"], list):
        # Packing serialises every item as deep as the document holds it: that is their check.
        packed = _packed_checked(doc["segments"])
        rest = {**rest, "segments": None}
    check_writable(rest)
    if shape is not None and found != shape:
        raise FormatError(f"this JSON is '{found}', not '{shape}'", hint=f"use --format {found}")
    if packed is not None:
        return read_sglang_verbose(doc, packed)
    if found == "sglang_verbose":
        return _read_sglang_verbose(doc, packed=from_json)
    if found == jsonkeyed.SHAPE:
        return jsonkeyed.read(doc, source if from_json else None, from_doc)
    return _READERS[found](doc)


def _packed_checked(items: list) -> "PackedItems":
    """``PackedItems(items)``, refusing what ``check_writable`` refuses in a document's
    segment list (packing writes each item one level deeper than its block, as deep as
    ``{"segments": [item]}`` holds it)."""
    try:
        return PackedItems(items)
    except orjson.JSONEncodeError as exc:
        raise _unwritable(exc) from None


def _segment_list(items: Any, field: str) -> list[Segment]:
    if not isinstance(items, list):
        raise FormatError(f"'{field}' is a {type(items).__name__}, not a list", field=field)
    return [segment(item, f"segment {i}") for i, item in enumerate(items)]


def _read_segments_list(doc: list) -> Transcript:
    segments = _segment_list(doc, "segments")
    return Transcript(tuple(segments), "segments_list", {"layout": layout(doc)})


def _read_segments_json(doc: dict) -> Transcript:
    items = doc["segments"]
    segments = _segment_list(items, "segments")
    top = doc.get("text")
    joined = "".join(s.extra["json"].get(s.extra["text_key"], "") for s in segments)
    mode = "concat" if top == joined else "space" if top == " ".join(s.text.strip() for s in segments) else "keep"
    return Transcript(tuple(segments), "segments_json", {"doc": doc, "layout": layout(items), "text_mode": mode})


def _read_sglang_verbose(doc: dict, packed: bool = True) -> Transcript:
    listed = doc["segments"]
    if not isinstance(listed, list):
        raise FormatError(f"'segments' is a {type(listed).__name__}, not a list", field="segments")
    return read_sglang_verbose(doc, PackedItems(listed) if packed else listed)


def read_sglang_verbose(doc: dict, listed) -> Transcript:
    """A verbose_json document whose segment items are ``listed`` (a list, or packed)."""
    # The raw markup is the truth: the server's regex drops an unclosed tail from
    # `segments`. Listed segments lend their other fields to the raw ones, in order.
    columns, build, _ = moss.parse_columns(doc["text"], listed)
    kept = _without_markup(doc)
    if isinstance(listed, PackedItems):
        kept["segments"] = None  # the items live on in ``build``, packed; the writer lists them anew
    return Transcript(format="sglang_verbose", meta={"doc": kept, "layout": layout(listed)},
                      columns=columns, build=build)


class PackedItems:
    """JSON values kept serialised, a block of them per string, each block parsed again
    when one of its items is asked for (the last block parsed is kept, so reading the
    items in order parses each block once). A segment item as a dict of Python objects
    takes about 380 bytes, twice the file's share of it; serialised, about 60. orjson
    writes every value it read so that it reads back equal (floats in their shortest
    round-trip form), so ``packed[i]`` equals the item read. Treat it as read-only."""

    BLOCK = 256  # items per block: a block parses in ~50 us, and one serialisation per block keeps its buffer small

    __slots__ = ("_blocks", "_size", "_parsed", "_compressed")

    def __init__(self, items: list):
        self._blocks = [self.pack(items[i:i + self.BLOCK]) for i in range(0, len(items), self.BLOCK)]
        self._size = len(items)
        self._parsed = (-1, [])
        self._compressed = False

    @staticmethod
    def pack(block: list, compress: bool = False) -> bytes:
        """One block of items serialised (and zlib-compressed if asked). Copied to an
        exact-size bytes: orjson's result keeps its growing buffer's spare room (about
        2.4 times the text here), and the copy lets that go at once."""
        # Written inside one more list, whose brackets are cut off (orjson writes no
        # spaces, so the bytes are the block's own): the items sit as deep as in
        # {"segments": [...]}, so a block that packs is a segment list that writes back
        # (compressed too: the streamed reader's items are checked by this alone).
        data = memoryview(orjson.dumps([block]))[1:-1]
        return zlib.compress(data, 1) if compress else bytes(data)

    @classmethod
    def from_blocks(cls, blocks: list[bytes], size: int, compressed: bool = False) -> "PackedItems":
        """Items packed already, ``BLOCK`` a block (``pack`` of each, with ``compressed``).
        Compressed, the items of a large file take a quarter of the room (segment items
        repeat their keys), for about 4% of its scan's time: what keeps a scan of a 300 MB
        response within three times its size."""
        packed = cls([])
        packed._blocks, packed._size, packed._compressed = blocks, size, compressed
        return packed

    def __len__(self) -> int:
        return self._size

    def __getitem__(self, i: int):
        if not 0 <= i < self._size:
            raise IndexError(i)
        block, k = divmod(i, self.BLOCK)
        if self._parsed[0] != block:
            data = self._blocks[block]
            self._parsed = (block, orjson.loads(zlib.decompress(data) if self._compressed else data))
        return self._parsed[1][k]


def _read_sglang_json(doc: dict) -> Transcript:
    columns, build, prefix = moss.parse_columns(doc["text"])
    return Transcript(format="sglang_json", meta={"doc": _without_markup(doc), "prefix": prefix},
                      columns=columns, build=build)


def _without_markup(doc: dict) -> dict:
    """The document as kept for writing back: its markup (as large as every segment's
    text together) is rebuilt from the segments on writing, so only its key is kept, in
    its place."""
    return {key: None if key == "text" else value for key, value in doc.items()}


def _read_text_json(doc: dict) -> Transcript:
    text = doc["text"]
    timed = _console_inside(text)
    if timed is not None:  # the console's meta (newlines, log lines, stamp style) writes "text" back alike
        return Transcript(timed.segments, "text_json", {"doc": doc, "console": timed.meta})
    segments = (Segment(None, None, text),) if text.strip() else ()
    return Transcript(segments, "text_json", {"doc": doc})


def _console_inside(text: str) -> Transcript | None:
    """whisper.cpp's server and LlamaEdge's whisper-api-server answer {"text": ...} with
    console lines ("[00:00:00.000 --> 00:00:03.400]  text"): their stamps are the timing."""
    from . import console
    if not console.looks_like(text):
        return None
    try:
        return console.loads(text)
    except FormatError:  # a stamp-like opening, yet no cue read: plain text after all
        return None


def _read_other(doc: dict) -> Transcript:
    from . import jsonturns
    if jsonturns.shape(doc) == "hf_chunks":
        return jsonturns.read_hf_chunks(doc)
    return jsonturns.read_turns(doc)


_READERS = {"segments_list": _read_segments_list, "segments_json": _read_segments_json,
            "sglang_verbose": _read_sglang_verbose, "sglang_json": _read_sglang_json,
            "text_json": _read_text_json, "hf_chunks": _read_other, "turns_json": _read_other,
            textlist.SHAPE: textlist.read, cloud.AWS: cloud.read_aws, cloud.AZURE: cloud.read_azure,
            jsonkeyed.SHAPE: lambda doc: jsonkeyed.read(doc, None, from_doc)}


def _dump_doc(doc: Any, meta: dict | None = None, compact: bool = False) -> str:
    if (meta or {}).get("python"):  # read from a printed Python dict: write one back
        import pprint
        return pprint.pformat(doc, sort_dicts=False) + "\n"
    return orjson.dumps(doc, option=0 if compact else orjson.OPT_INDENT_2).decode() + "\n"


def from_python(text: str) -> Transcript | None:
    """A printed Python dict or list (``pprint`` of a pipeline's output), or None."""
    from . import jsonturns
    found = jsonturns.python_literal(text)
    if found is None:
        return None
    check_writable(found[0])
    transcript = from_doc(found[0], from_json=False)
    transcript.meta["python"] = True
    if found[1]:  # a paste cut short: what it holds is read, the writer closes it
        transcript.meta["completed"] = found[1]
    return transcript


def dumps(transcript: Transcript) -> str:
    fmt, meta = transcript.format, transcript.meta
    segs = transcript.segments
    if fmt in ("hf_chunks", "turns_json"):
        from . import jsonturns
        return _dump_doc(jsonturns.dump_doc(transcript), meta)
    if fmt == textlist.SHAPE:
        return _dump_doc(textlist.dump_doc(transcript), meta)
    if fmt == jsonkeyed.SHAPE:
        doc, style = jsonkeyed.dump_doc(transcript, dumps), meta.get("style")
        return jsonkeyed.dumps_styled(doc, style) if style and not meta.get("python") else _dump_doc(doc, meta)
    if fmt in (cloud.AWS, cloud.AZURE):
        return _dump_doc(cloud.dump_aws(transcript) if fmt == cloud.AWS else cloud.dump_azure(transcript), meta)
    if fmt == "segments_list":
        shape = meta.get("layout") or layout([])
        return _dump_doc([dump_item(s, i, shape, False) for i, s in enumerate(segs)], meta)
    doc = dict(meta.get("doc") or {})
    if fmt in ("sglang_json", "sglang_verbose"):
        doc["text"] = meta.get("prefix", "") + moss.dumps_segments(segs)
    if fmt == "sglang_verbose":
        shape = meta.get("layout") or layout([])
        closed = [s for s in segs if s.closed]  # the server lists closed segments only
        doc["segments"] = [dump_item(s, i, shape, True) for i, s in enumerate(closed)]
    elif fmt == "segments_json":
        shape = meta.get("layout") or layout([])
        doc["segments"] = [dump_item(s, i, shape, False) for i, s in enumerate(segs)]
        mode = meta.get("text_mode", "space")
        if mode == "concat":
            doc["text"] = "".join(item.get("text", "") for item in doc["segments"])
        elif mode == "space" or any(s.extra.get("json") is None for s in segs):
            doc["text"] = " ".join(s.text.strip() for s in segs)
    elif fmt == "text_json" and meta.get("console") is not None:
        from . import console
        doc["text"] = console.dumps(Transcript(segs, "whisper_console", meta["console"]))
        return _dump_doc(doc, meta, compact=True)  # one line, as both servers send it
    elif fmt == "text_json":
        doc["text"] = " ".join(s.text for s in segs)
    return _dump_doc(doc, meta)
