"""A list of strings, one utterance each: what a batch of a speech pipeline prints
(``['first text', 'second text']``, a Python list, or the same as a JSON array).

Each string is one untimed segment, and an utterance of its own (``meta["independent"]``,
as a manifest's rows: detection judges each alone); the list is written back as it was
read (a Python literal stays one, JSON stays JSON).
"""

from __future__ import annotations

from typing import Any

from ..model import Segment, Transcript

SHAPE = "text_list"


def is_text_list(doc: Any) -> bool:
    """A non-empty list whose items are all strings."""
    return isinstance(doc, list) and bool(doc) and all(isinstance(item, str) for item in doc)


def read(doc: list) -> Transcript:
    return Transcript(tuple(Segment(None, None, text, True, {}) for text in doc), SHAPE, {"independent": True})


def dump_doc(transcript: Transcript) -> list[str]:
    return [s.text for s in transcript.segments]
