"""`degen scan manifest.jsonl` must give each line the findings it has alone (as
`degen filter` does): a repeat that runs on from one line into the next, searched as one
run that makes no finding, hid the loop inside one line; runs are now cut at each
utterance's edges (loops.within_texts)."""

import degen
from degen.archive.utterances import judge


def test_a_loop_that_runs_on_into_the_next_line_is_found_by_a_manifest_scan(tmp_path):
    manifest = tmp_path / "m.jsonl"
    manifest.write_text('{"audio_filepath": "a.wav", "duration": 10.0, "text": "了 了 了 了"}\n'
                        '{"audio_filepath": "b.wav", "duration": 17.0, "text": "了 了 了 了"}\n', encoding="utf-8")
    alone = judge("了 了 了 了", 17.0).findings
    assert alone and alone[0].kind == "char_loop"  # 8 units in 17 s: "slow"
    report = degen.scan(manifest)
    assert [(f.kind, f.segments) for f in report.findings] == [("char_loop", (1, 1))]
