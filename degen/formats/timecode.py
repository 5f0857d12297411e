"""Clock stamps shared by the line-based readers: parsing with range checks, writing in the
style the file used, and end times for formats that only give starts.

>>> parse_clock("01:02:03.5", "line 1")
3723.5
>>> format_clock(3723.5, hours=True, digits=3)
'01:02:03.500'
"""

from __future__ import annotations

import re

from ..errors import FormatError

# No recording is 100 days long: a larger time is overflow garbage (a 309-digit hours field),
# refused here so that no report or writer meets it.
MAX_SECONDS = 10_000_000.0
CLOCK = r"(?:(\d+):)?(\d{1,2}):(\d{1,2})(?:[.,:](\d{1,3}))?"
_CLOCK = re.compile(CLOCK)


def clock_seconds(hours: str | None, minutes: str, seconds: str, fraction: str | None, where: str) -> float:
    """Seconds from the parts of ``[hh:]mm:ss[.fff]``; a FormatError naming ``where`` when out of range."""
    # Leading zeros dropped first: int() refuses any digit string past 4,300 digits, zeros too.
    hours, minutes, seconds = (None if p is None else p.lstrip("0") or "0" for p in (hours, minutes, seconds))
    for name, part in (("hours", hours), ("minutes", minutes), ("seconds", seconds)):
        if part is not None and len(part) > 6:  # no recording is a million minutes long
            raise FormatError(f"timecode {name} out of range ({part[:12]}{'...' if len(part) > 12 else ''})",
                              where=where, field="time", hint=f"times must be under {MAX_SECONDS:g} seconds")
    if int(minutes) > 59 and hours is not None or int(seconds) > 59:
        raise FormatError(f"timecode minutes/seconds out of range ({minutes}:{seconds})", where=where,
                          field="time")
    total_ms = ((int(hours or 0) * 60 + int(minutes)) * 60 + int(seconds)) * 1000 + int((fraction or "0").ljust(3, "0"))
    return check_seconds(total_ms / 1000, where)  # one division: 1.348 stays 1.348


def parse_clock(text: str, where: str) -> float:
    """Seconds from ``[hh:]mm:ss[.fff]`` (comma or dot), or a FormatError naming ``where``."""
    match = _CLOCK.fullmatch(text.strip())
    if not match:
        raise FormatError(f"bad time stamp {text.strip()!r}", where=where, field="time",
                          hint="use hh:mm:ss.mmm or mm:ss.mmm")
    return clock_seconds(*match.groups(), where)


def check_seconds(value: float, where: str, field: str = "time") -> float:
    """``value`` when it is a finite time within MAX_SECONDS, else a FormatError."""
    if value != value or not -MAX_SECONDS <= value <= MAX_SECONDS:
        raise FormatError(f"time {value:g} is out of range", where=where, field=field,
                          hint=f"times must be finite and under {MAX_SECONDS:g} seconds")
    return value


def format_clock(seconds: float, hours: bool = True, digits: int = 3, sep: str = ".") -> str:
    """``hh:mm:ss.fff`` (or ``mm:ss.ff``: minutes run past 59 when hours are left out)."""
    scale = 10 ** digits
    units = round(max(0.0, seconds) * scale)
    whole, frac = divmod(units, scale)
    h, rest = divmod(whole, 3600)
    m, s = divmod(rest, 60)
    clock = f"{h:02d}:{m:02d}:{s:02d}" if hours else f"{h * 60 + m:02d}:{s:02d}"
    return clock + (f"{sep}{frac:0{digits}d}" if digits else "")


def infer_ends(starts: list[float], last: float | None = None) -> list[float]:
    """End times for formats that give only starts (LRC, meeting notes): each line lasts until
    the next one starts. The last has no successor: it ends at ``last`` (a stated length) or
    after the median line duration, never at its own start (a zero-length span is a loop sign).
    """
    ends = [max(a, b) for a, b in zip(starts, starts[1:])]
    if starts:
        gaps = sorted(e - s for s, e in zip(starts, ends) if e > s)
        median = gaps[len(gaps) // 2] if gaps else 1.0
        ends.append(last if last is not None and last > starts[-1] else starts[-1] + median)
    return ends
