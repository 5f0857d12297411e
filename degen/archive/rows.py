"""A batched map function for dataset engines (Hugging Face ``datasets``, Ray Data):
each row's text judged as ``degen.scan`` judges it, utterances a batch at a time."""

from __future__ import annotations

import orjson

from ..detect import DEFAULT, DetectConfig
from ..errors import FormatError
from ..report import Report
from .utterances import as_duration, judge_many, worst_of


def _row_reports(texts, durations, config: DetectConfig, format: str | None,
                 utterances: bool = False) -> list[Report | None]:
    """degen.scan of each dataset row's text (None: no finding at all). A row with a
    duration, or a blank or missing text, or any row with ``utterances``, is one
    utterance (``judge``, the rows judged together); any other text is sniffed as a
    transcript (MOSS markup, JSON, subtitles, plain text), read as plain text when it is
    none of them, never as a path. A missing text (None, NaN) is blank.

    Raises:
        ValueError: a text that is neither a string nor missing (it is not called clean).
    """
    texts = [_text(t, k) for k, t in enumerate(texts)]
    reports: list[Report | None] = [None] * len(texts)
    alone = [i for i, (t, d) in enumerate(zip(texts, durations)) if utterances or d is not None or not t.strip()]
    judged = judge_many([texts[i] for i in alone],
                        [as_duration(durations[i]) for i in alone], config, ["<row>"] * len(alone))
    for i, report in zip(alone, judged):
        reports[i] = report
    for i in sorted(set(range(len(texts))) - set(alone)):
        reports[i] = _sniffed_report(texts[i], config, format)
    return reports


def _text(value, row: int) -> str:
    if isinstance(value, str):
        return value
    if value is None or (isinstance(value, float) and value != value):  # missing (pandas writes NaN)
        return ""
    raise ValueError(f"scan_batch: row {row} of the batch: the text is {type(value).__name__}, not a string; "
                     f"decode or convert that column to text first")


def _sniffed_report(text: str, config: DetectConfig, format: str | None) -> Report:
    from .. import formats, scan
    try:
        transcript = formats.loads(text, format)
    except FormatError:
        transcript = formats.loads(text, "text")
    return scan(transcript, config, name="<row>")


def scan_batch(batch: dict, column: str = "text", *, duration_column: str | None = None,
               config: DetectConfig | None = None, format: str | None = None, utterances: bool = False) -> dict:
    """A batched map function: ``batch`` (a dict of equal-length columns) with three
    columns added for the texts in ``column``:

    - ``degenerate`` (bool): loops at or above ``config.fail_on``;
    - ``severity`` (str): the worst finding's severity, "" when there is none;
    - ``findings`` (str): the findings as JSON text (a list of objects, as in ``--json``).

    Each text is judged as ``degen.scan`` judges it (its format sniffed, plain text when
    none fits); with ``duration_column`` each row is one utterance and that column's
    seconds are timing evidence, as in ``degen filter``; with ``utterances`` each row is
    one utterance even without a duration (never sniffed as a file). Utterances are
    judged a batch at a time (``utterances.judge_many``: the same verdicts, about ten
    times faster than a transcript per row).

    Example:
        >>> out = scan_batch({"text": ["okay " * 40, "okay, okay."]})
        >>> out["degenerate"], out["severity"]
        ([True, False], ['high', ''])

        With Hugging Face datasets: ``ds.map(degen.scan_batch, batched=True)``, or
        ``fn_kwargs={"column": "pred_text", "duration_column": "duration"}``.

    Raises:
        ValueError: the duration column's length is not the text column's, or a text is
            neither a string nor missing (None, NaN).
    """
    config = config or DEFAULT
    texts = batch[column]
    durations = list(batch[duration_column]) if duration_column else [None] * len(texts)  # by position
    if len(durations) != len(texts):
        raise ValueError(f"scan_batch: column {duration_column!r} holds {len(durations)} values and {column!r} "
                         f"{len(texts)}; a batch's columns must be of equal length")
    # With a duration column every row is one utterance, its duration missing or not (as
    # a line of `degen filter` is): never sniffed as a transcript file.
    reports = _row_reports(texts, durations, config, format, utterances or duration_column is not None)
    findings = [() if r is None else r.findings for r in reports]
    fail_on = config.fail_on
    return {**batch, "degenerate": [any(f.at_least(fail_on) for f in found) for found in findings],
            "severity": [worst_of(found) or "" for found in findings],
            "findings": [orjson.dumps([f.to_dict() for f in found]).decode() for found in findings]}
