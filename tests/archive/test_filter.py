"""`degen filter`: manifests split into kept and quarantined lines, exactly, resumably."""

import base64
import tempfile
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import degen
from degen.archive import filter as manifest_filter
from degen.archive.utterances import judge
from degen.cli import main

LOOP = "okay " * 30
CLEAN = "we will look at the numbers again on friday"


def row(text, duration=4.0, field="text", **extra):
    return orjson.dumps({"audio_filepath": "a.wav", "duration": duration, field: text, **extra}) + b"\n"


def original_of(line: bytes) -> object:
    """What a quarantined line stood for: the raw line, or the object without 'degen'."""
    doc = orjson.loads(line)
    info = doc.pop("degen")
    if "raw" in info:
        return info["raw"].encode()
    if "raw_base64" in info:
        return base64.b64decode(info["raw_base64"])
    return doc


def assert_partition(lines: list[bytes], kept: list[bytes], quarantined: list[bytes]) -> None:
    """Each input line is the next kept line (byte for byte) or the next quarantined one."""
    k = q = 0
    for raw in lines:
        if not raw.strip():
            continue
        if k < len(kept) and kept[k] == raw:
            k += 1
            continue
        assert q < len(quarantined), raw
        original = original_of(quarantined[q])
        assert original == (raw.rstrip(b"\n") if isinstance(original, bytes) else orjson.loads(raw)), raw
        q += 1
    assert (k, q) == (len(kept), len(quarantined))


def run_filter(tmp: Path, lines: list[bytes], **kw):
    source = tmp / "in.jsonl"
    if not source.exists() or source.read_bytes() != b"".join(lines):  # same file: a resume
        source.write_bytes(b"".join(lines))
    counts = manifest_filter.filter_manifest(source, tmp / "keep.jsonl", tmp / "q.jsonl", **kw)
    return counts, (tmp / "keep.jsonl").read_bytes().splitlines(True), (tmp / "q.jsonl").read_bytes().splitlines(True)


texts = st.one_of(st.text(max_size=40), st.sampled_from([LOOP, CLEAN, "的" * 40, "[laughter] {x}", "no, no, no"]),
                  st.builds(lambda w, n: (w + " ") * n, st.sampled_from(["yes", "thank you", "ja"]),
                            st.integers(1, 40)))
good = st.builds(row, texts, st.one_of(st.floats(0.1, 30), st.just(None)), st.sampled_from(["text", "pred_text"]))
bad = st.one_of(st.just(b"not json\n"), st.just(b"[1, 2]\n"), st.just(b'{"duration": 2}\n'),
                st.just(b"\xff\xfe broken\n"), st.just(b'{"text": 3}\n'), st.just(b"\n"))
manifests = st.lists(st.one_of(good, good, bad), max_size=15)


@settings(max_examples=60, deadline=None)
@given(manifests)
def test_the_two_outputs_partition_the_input_exactly(lines):
    with tempfile.TemporaryDirectory() as tmp:
        counts, kept, quarantined = run_filter(Path(tmp), lines)
    assert_partition(lines, kept, quarantined)
    assert counts.lines == len(lines) and counts.blank == sum(1 for x in lines if not x.strip())
    assert counts.kept + counts.quarantined + counts.blank == counts.lines


def test_verdicts_match_degen_scan_line_by_line(tmp_path):
    lines = [row(CLEAN), row(LOOP), row("的" * 40, 2.0), row("no, no, no"), row("ha " * 20, None)]
    counts, kept, quarantined = run_filter(tmp_path, lines)
    assert kept == [lines[0], lines[3]] and counts.quarantined == 3
    for line in quarantined:
        doc = orjson.loads(line)
        report = degen.scan(degen.Transcript([degen.Segment(
            None if doc["duration"] is None else degen.Span(0, doc["duration"]), None, doc["text"])]))
        assert doc["degen"]["degenerate"] is True and report.degenerate
        assert [f["kind"] for f in doc["degen"]["findings"]] == [f.kind for f in report.findings]
        assert doc["degen"]["severity"] in ("medium", "high")


def test_duration_is_evidence():
    text = "thank you " * 6  # six copies: a loop only when the time cannot hold them
    assert judge(text, 0.5).degenerate
    assert not judge(text, 10.0).degenerate


def test_text_field_option_and_unreadable_lines(tmp_path):
    lines = [orjson.dumps({"text": LOOP, "pred_text": CLEAN}) + b"\n", b"{oops\n"]
    counts, kept, quarantined = run_filter(tmp_path, lines, text_field="pred_text")
    assert kept == [lines[0]] and counts.unreadable == 1
    assert "line 2: invalid JSON" in orjson.loads(quarantined[0])["degen"]["error"]


def test_an_interrupted_run_resumes_to_the_same_outputs(tmp_path, monkeypatch):
    lines = [row(LOOP if k % 7 == 0 else f"{CLEAN} {k}") for k in range(50)] + [b"junk\n"]
    clean_run = tmp_path / "whole"
    clean_run.mkdir()
    _, want_kept, want_q = run_filter(clean_run, lines, checkpoint_lines=10)
    real = manifest_filter.judge_lines

    def dies_at_line_37(numbered, *args):
        if any(number == 37 for _, number in numbered):
            raise KeyboardInterrupt
        return real(numbered, *args)

    monkeypatch.setattr(manifest_filter, "judge_lines", dies_at_line_37)
    with pytest.raises(KeyboardInterrupt):
        run_filter(tmp_path, lines, checkpoint_lines=10)
    assert not (tmp_path / "keep.jsonl").exists()  # outputs appear only when complete
    assert manifest_filter.progress_path(tmp_path / "keep.jsonl").exists()
    monkeypatch.setattr(manifest_filter, "judge_lines", real)
    counts, kept, quarantined = run_filter(tmp_path, lines, checkpoint_lines=10)
    assert (kept, quarantined) == (want_kept, want_q)
    assert counts.resumed_at == 30 and counts.lines == 51 and counts.quarantined == 9
    assert not manifest_filter.progress_path(tmp_path / "keep.jsonl").exists()


def test_a_changed_input_starts_over(tmp_path):
    lines = [row(CLEAN)] * 5
    source = tmp_path / "in.jsonl"
    source.write_bytes(b"".join(lines))
    progress = manifest_filter.progress_path(tmp_path / "keep.jsonl")
    progress.write_bytes(b'{"identity": "something else", "offset": 99}')
    counts = manifest_filter.filter_manifest(source, tmp_path / "keep.jsonl", tmp_path / "q.jsonl")
    assert counts.resumed_at == 0 and counts.kept == 5


def test_cli_counts_exit_codes_and_bad_arguments(tmp_path):
    source = tmp_path / "m.jsonl"
    source.write_bytes(row(CLEAN) + row(LOOP))
    args = ["filter", str(source), "--keep", str(tmp_path / "k.jsonl"), "--quarantine", str(tmp_path / "q.jsonl")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1 and "2 lines: 1 kept, 1 quarantined" in result.stderr
    source.write_bytes(row(CLEAN))
    assert CliRunner().invoke(main, args).exit_code == 0
    same = ["filter", str(source), "--keep", str(source), "--quarantine", str(tmp_path / "q.jsonl")]
    result = CliRunner().invoke(main, same)
    assert result.exit_code == 2 and "three different files" in result.output and "Traceback" not in result.output
    missing = CliRunner().invoke(main, ["filter", str(tmp_path / "nope.jsonl"), *args[2:]])
    assert missing.exit_code == 2 and "nope.jsonl" in missing.output


def test_worker_processes_write_the_same_outputs(tmp_path):
    lines = [row(LOOP if k % 5 == 0 else f"{CLEAN} {k}") for k in range(80)] + [b"junk\n", b"\n"]
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    assert run_filter(one, lines, checkpoint_lines=16)[1:] == run_filter(two, lines, checkpoint_lines=16, jobs=2)[1:]


def test_a_lost_partial_output_starts_over_instead_of_padding(tmp_path, monkeypatch):
    lines = [row(LOOP if k % 3 == 0 else f"{CLEAN} {k}") for k in range(30)]
    real = manifest_filter.judge_lines

    def dies(numbered, *args):
        if any(number == 25 for _, number in numbered):
            raise KeyboardInterrupt
        return real(numbered, *args)

    monkeypatch.setattr(manifest_filter, "judge_lines", dies)
    with pytest.raises(KeyboardInterrupt):
        run_filter(tmp_path, lines, checkpoint_lines=10)
    (tmp_path / "keep.jsonl.partial").unlink()
    monkeypatch.setattr(manifest_filter, "judge_lines", real)
    counts, kept, quarantined = run_filter(tmp_path, lines, checkpoint_lines=10)
    assert counts.resumed_at == 0 and len(kept) + len(quarantined) == 30
    assert_partition(lines, kept, quarantined)
