"""What to do about what a scan found (filled in by the planning module)."""

from __future__ import annotations


def advise(report, transcript=None) -> tuple[str, ...]:
    return ()
