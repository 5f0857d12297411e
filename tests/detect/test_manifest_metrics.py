"""The metrics of an utterance-per-line manifest: each utterance is its own clip, starting
at 0 s, so time adds up across utterances and the compression ratio is each one's own."""

import orjson

import degen
from degen.detect import compression_ratio

LOOP = "okay " * 30
CLEAN = "we will look at the numbers again on friday"


def write_manifest(path, rows):
    path.write_bytes(b"".join(orjson.dumps({"audio_filepath": f"{k}.wav", "duration": d, "text": t}) + b"\n"
                              for k, (t, d) in enumerate(rows)))
    return path


def test_flagged_time_and_duration_add_up_across_utterances(tmp_path):
    rows = [(CLEAN, 4.0), (LOOP, 3.0), (CLEAN, 5.5), ("我们" * 40, 2.5), (CLEAN, 6.0)]
    report = degen.scan(write_manifest(tmp_path / "m.jsonl", rows))
    assert report.format == "manifest" and report.degenerate
    assert {f.segments for f in report.flagged} == {(1, 1), (3, 3)}
    assert report.metrics.flagged_seconds == 3.0 + 2.5  # a union on one axis gave 3.0
    assert report.metrics.duration == sum(d for _, d in rows)  # not the longest clip, 6.0


def test_the_compression_ratio_is_each_utterances_own(tmp_path):
    rows = [(CLEAN, 4.0)] * 3 + [(LOOP, 3.0), (CLEAN + " and then some", 4.0)]
    report = degen.scan(write_manifest(tmp_path / "m.jsonl", rows))
    ratios = [compression_ratio(t) for t, _ in rows]
    assert report.metrics.max_compression_ratio == max(ratios)
    assert report.metrics.windows_over_compression_ratio == sum(r > 2.4 for r in ratios) == 1


def test_an_archive_summary_counts_a_manifests_flagged_utterances(tmp_path):
    from degen.archive.batch import Settings, Summary, scan_paths
    path = write_manifest(tmp_path / "m.jsonl", [(LOOP, 1800.0), (CLEAN, 1800.0), (LOOP, 1800.0)])
    summary = Summary()
    for result in scan_paths([str(path)], Settings()):
        summary.add(result)
    assert summary.to_dict()["flagged_hours"] == 1.0
