"""5,000 fuzzed files (tests/fuzzing.py) through the library: each is read and scanned to
a report, or refused with one DegenError; none raises anything else, none hangs. What is
read is written back and read again to the same texts, speakers and times, and a file
re-encoded as UTF-16 or UTF-32 with a byte-order mark reads as the UTF-8 one does."""

import codecs
import traceback

import pytest

import degen
from degen import formats
from degen.errors import DegenError
from degen.present.text import render_text

from ..fuzzing import CASES, Hang, bounded, cases

SEED = 24
BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF16_LE, "utf-16"),
        (codecs.BOM_UTF16_BE, "utf-16"))
TIME_TOLERANCE = 0.0011  # a time written to the millisecond reads back within this


def _fields(transcript):
    return [(s.text, s.speaker) for s in transcript], [s.span for s in transcript]


def _same_times(a, b) -> bool:
    return all((x is None) == (y is None) and (x is None or (abs(x.start - y.start) <= TIME_TOLERANCE and
                                                             abs(x.end - y.end) <= TIME_TOLERANCE))
               for x, y in zip(a, b))


def check(path, data: bytes, work) -> str | None:
    """What is wrong with degen's handling of ``path`` (None: nothing). A DegenError from
    reading is a refusal, which is right for a broken file."""
    transcript = degen.read(path)
    report = degen.scan(transcript)
    report.to_json()
    render_text(report, width=80, verbose=True)
    again = work / f"again{path.suffix}"
    try:
        again.write_text(formats.dumps(transcript), encoding="utf-8")
        back = degen.read(again)
    except DegenError as exc:
        return f"read, but not written back and read again: {exc}"
    (fields, spans), (fields_back, spans_back) = _fields(transcript), _fields(back)
    if fields_back != fields:
        diff = next(((a, b) for a, b in zip(fields, fields_back) if a != b), (len(fields), len(fields_back)))
        return f"written back, reads as other text or speakers: {str(diff)[:300]}"
    if not _same_times(spans, spans_back):
        return "written back, reads with other times"
    for bom, codec in BOMS:
        if data.startswith(bom):
            plain = work / f"plain{path.suffix}"
            try:
                plain.write_bytes(data.decode(codec).encode("utf-8"))
                expected = _fields(degen.read(plain))[0]
            except (DegenError, UnicodeError):
                return None
            if expected != fields:
                return f"{codec} with a byte-order mark read otherwise than as UTF-8"
    return None


@pytest.mark.slow
def test_fuzzed_files_give_a_report_or_one_error_never_a_traceback_or_a_hang(tmp_path):
    failures = []
    for number, name, suffix, data in cases(SEED, CASES):
        path = tmp_path / f"case{suffix}"
        path.write_bytes(data)
        try:
            with bounded():
                problem = check(path, data, tmp_path)
        except DegenError:
            problem = None
        except Hang as exc:
            problem = f"hang ({exc})"
        except Exception:  # noqa: BLE001 - what the test is for
            problem = "traceback: " + traceback.format_exc(limit=-3).replace("\n", " | ")[-600:]
        if problem:
            failures.append(f"seed {SEED} case {number} (from {name}): {problem}")
    assert not failures, f"{len(failures)} of {CASES}:\n" + "\n".join(failures[:25])
