"""Where a finding of a manifest is: the line of the file its utterance was read from and
the audio it transcribes, so that a user can find the flagged row (a clip-relative time
names no row: every utterance starts at 0 s)."""

from __future__ import annotations

from ..formats.jsonl import line_number
from ..model import Transcript


def utterance_places(transcript: Transcript, findings) -> tuple[dict, ...]:
    """For each finding, ``{"line": N, "audio_filepath": PATH or None}`` of the utterance it
    starts in (an utterance-per-line finding never spans two)."""
    return tuple(place(transcript, f.segments[0]) for f in findings)


def place(transcript: Transcript, index: int) -> dict:
    item = transcript[index].extra.get("json")
    audio = item.get("audio_filepath") if isinstance(item, dict) else None
    return {"line": line_number(transcript, index), "audio_filepath": audio if isinstance(audio, str) else None}
