"""Start-up cost: commands that judge no transcript never load numpy, the detectors, the
HTTP client or the audio reader (each import costs more than the interpreter's own start).

Each case runs in a fresh interpreter, since this test process has long imported all of
them; the child prints, as it exits, which of the heavy modules it loaded.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import assume, given, settings, strategies as st

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("numpy", "rapidfuzz", "httpx", "soundfile", "regex", "degen.detect", "degen.formats", "degen.repair")

# The child records what it loaded at exit, after click's sys.exit, then runs degen as
# `python -m degen` (the console script's target is the same degen.cli:main).
_CHILD = """
import atexit, sys
heavy = {heavy!r}
atexit.register(lambda: print("LOADED:" + ",".join(m for m in heavy if m in sys.modules), file=sys.__stderr__))
{body}
"""


def loaded_after(body: str, tmp_path) -> list[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", _CHILD.format(heavy=HEAVY, body=body)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)
    lines = [line for line in done.stderr.splitlines() if line.startswith("LOADED:")]
    assert lines, f"the child died before reporting: {done.stderr[-2000:]}"
    return [m for m in lines[-1].removeprefix("LOADED:").split(",") if m]


def run_degen(*args: str) -> str:
    return f"import runpy; sys.argv = ['degen', *{list(args)!r}]; runpy.run_module('degen', run_name='__main__')"


@pytest.mark.parametrize("args", [
    ("--help",),
    ("--version",),
    ("-h",),
    ("plan", "--gpu-mem", "80"),
    ("plan", "--gpu-mem", "80", "--json"),
    ("scan",),  # missing FILES: an argument error
    ("scan", "--jobs", "-1", "x.json"),
    ("fix", "x.json"),  # missing --audio
    ("filter", "m.jsonl"),  # missing --keep
    ("-q", "-v", "scan", "x.json"),
    ("nonsense",),
])
def test_commands_that_judge_nothing_load_nothing_heavy(args, tmp_path):
    assert loaded_after(run_degen(*args), tmp_path) == []


def test_import_degen_loads_nothing_heavy(tmp_path):
    assert loaded_after("import degen, degen.cli", tmp_path) == []


def test_public_names_still_resolve_on_first_use(tmp_path):
    """The lazy names are the real objects (the check above would also pass if they
    had simply been dropped from the package)."""
    body = ("import degen\n"
            "missing = [n for n in degen.__all__ if getattr(degen, n, None) is None]\n"
            "assert not missing, missing\n"
            "assert degen.DetectConfig is __import__('degen.detect', fromlist=['x']).DetectConfig\n"
            "assert degen.scan_text('[0.0][S01]' + '的' * 102 + '[4.0]').degenerate\n"
            "assert set(degen.__all__) <= set(dir(degen))\n"
            "assert degen.archive.rows.scan_batch is degen.scan_batch and degen.io.write_atomic is degen.write_atomic\n"
            "assert degen.report.Report is degen.Report and degen.detect.DEFAULT is degen.DEFAULT\n")
    assert "degen.detect" in loaded_after(body, tmp_path)


def test_unknown_attribute_is_an_attribute_error():
    import degen
    with pytest.raises(AttributeError, match="no attribute 'nonexistent'"):
        degen.nonexistent  # noqa: B018
    assert not hasattr(degen, "also_missing")


def test_scan_still_parses_and_checks_fail_on(tmp_path):
    """--fail-on reads its choices from degen.detect on first use: still refused with
    click's message and exit 2, still listed in the help."""
    from click.testing import CliRunner

    from degen.cli import main
    bad = CliRunner().invoke(main, ["scan", "--fail-on", "severe", "x.json"])
    assert bad.exit_code == 2
    assert "'severe' is not one of 'low', 'medium', 'high'" in bad.output
    assert "[low|medium|high]" in CliRunner().invoke(main, ["scan", "--help"]).output


def test_cli_keeps_openblas_to_one_thread_unless_told(tmp_path):
    """numpy's OpenBLAS would start a thread per core at import for no work degen does."""
    body = "import os, degen.cli\nprint('THREADS=' + os.environ.get('OPENBLAS_NUM_THREADS', ''), file=sys.__stderr__)"
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    for preset, expected in ((None, "1"), ("4", "4")):
        child_env = {**env, "PYTHONPATH": str(ROOT), **({"OPENBLAS_NUM_THREADS": preset} if preset else {})}
        done = subprocess.run([sys.executable, "-c", "import sys\n" + body], cwd=tmp_path, env=child_env,
                              capture_output=True, text=True, timeout=60)
        assert f"THREADS={expected}" in done.stderr, done.stderr


# What a scan of a JSON transcript has no use for: the repair side, the HTML page, the
# temporary files of an atomic write (a scan writes nothing), the process pool of --jobs
# and its workers' signal set-up, and the traceback module of an internal error.
NOT_FOR_A_SCAN = ("httpx", "soundfile", "degen.repair", "degen.present.html", "degen.capacity", "tempfile",
                  "multiprocessing", "concurrent.futures", "signal", "traceback")


def test_scan_of_a_json_file_loads_only_what_it_judges_with(tmp_path):
    """And the speaker-text patterns (~7 ms to compile) stay uncompiled: sniffing JSON
    never asks them."""
    body = ("atexit.register(lambda: print('SPEAKER_PATTERNS=%d' % sys.modules['degen.formats.speakers']"
            "._compiled.cache_info().currsize, file=sys.__stderr__))\n"
            "atexit.register(lambda: print('UNNEEDED=' + ','.join(m for m in {unneeded!r} if m in sys.modules), "
            "file=sys.__stderr__))\n").format(unneeded=NOT_FOR_A_SCAN)
    body += run_degen("scan", str(ROOT / "fixtures" / "seed" / "clean.json"))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", _CHILD.format(heavy=HEAVY, body=body)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "UNNEEDED=\n" in done.stderr, done.stderr[-2000:]
    assert "SPEAKER_PATTERNS=0" in done.stderr, done.stderr[-2000:]
    assert "degen.detect" in done.stderr.split("LOADED:")[-1]  # the child did judge the file


def test_speaker_text_still_compiles_its_patterns_when_sniffed(tmp_path):
    """The other side of the lazy patterns: a speaker-labelled file is still recognised."""
    from click.testing import CliRunner

    from degen.cli import main
    source = tmp_path / "meeting.txt"
    source.write_text("SPEAKER_00: So the plan is to ship it.\nSPEAKER_01: Right, next week.\n"
                      "SPEAKER_00: Good.\n", encoding="utf-8")
    done = CliRunner().invoke(main, ["scan", str(source)])
    assert done.exit_code == 0, done.output
    assert "[speaker_text]" in done.output


def test_small_scan_whose_segments_all_differ_never_loads_rapidfuzz(tmp_path):
    """zh_char.json: six segments, none a near copy of the one before (by the set bound in
    detect.segments), so the similarity scorer is never needed."""
    loaded = loaded_after(run_degen("scan", str(ROOT / "fixtures" / "shapes" / "loops" / "zh_char.json")), tmp_path)
    assert "degen.detect" in loaded and "rapidfuzz" not in loaded


# Keys from a small alphabet, so that near copies (a character changed, added or dropped) are common.
_KEY = st.text(alphabet="abcde 的了", min_size=0, max_size=24)


@settings(max_examples=300, deadline=None)
@given(a=_KEY, b=_KEY, ratio=st.sampled_from([50.0, 75.0, 90.0, 95.0]))
def test_set_bound_never_drops_a_near_pair(a, b, ratio):
    from rapidfuzz.distance import Indel

    from degen.detect.segments import _may_be_near
    assume(a or b)
    cutoff = 1.0 - ratio / 100.0
    if Indel.normalized_distance(a, b) <= cutoff:
        assert _may_be_near(a, b, cutoff)


def _drifting(draw_keys: list[str], edits: list[tuple[int, int, str]]) -> list[str]:
    keys = list(draw_keys)
    for index, position, char in edits:  # a copy of the key before, one character changed
        if 0 < index < len(keys) and keys[index - 1]:
            before = keys[index - 1]
            at = position % len(before)
            keys[index] = before[:at] + char + before[at + 1:]
    return keys


@settings(max_examples=200, deadline=None)
@given(keys=st.lists(_KEY, min_size=0, max_size=30),
       edits=st.lists(st.tuples(st.integers(0, 29), st.integers(0, 23), st.sampled_from("abcxyz的")), max_size=12),
       ratio=st.sampled_from([75.0, 90.0]))
def test_segment_ids_are_the_same_with_and_without_the_set_bound(keys, edits, ratio):
    from degen.detect import segments
    keys = _drifting(keys, edits)
    with_bound = segments.segment_ids(keys, ratio)
    saved, segments.FEW_PAIRS = segments.FEW_PAIRS, -1  # every pair goes to rapidfuzz, as before the bound
    try:
        assert segments.segment_ids(keys, ratio).tolist() == with_bound.tolist()
    finally:
        segments.FEW_PAIRS = saved


def test_a_drifting_loop_in_a_short_transcript_is_still_one_loop():
    from degen.detect.segments import segment_ids
    line = "and then we went back to the station again"
    keys = [line, line + "s", line.replace("station", "stations"), "x" + line, "something else entirely"]
    ids = segment_ids(keys, 90.0).tolist()
    assert ids[0] == ids[1] == ids[2] == ids[3] != ids[4]
