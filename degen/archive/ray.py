"""Ray Data: scan a dataset's text column on every CPU of a cluster
(``pip install 'degen-asr[ray]'``).

    >>> import ray, degen.ray                                       # doctest: +SKIP
    >>> ds = ray.data.read_json("s3://bucket/manifests/")            # doctest: +SKIP
    >>> degen.ray.scan(ds, column="text").filter(lambda r: not r["degenerate"])  # doctest: +SKIP

The work per batch is ``degen.scan_batch``, so verdicts equal ``degen.scan`` row by row.
"""

from __future__ import annotations

from .rows import scan_batch


def _scan_numpy_batch(batch: dict, **kwargs) -> dict:
    import numpy as np
    out = scan_batch(batch, **kwargs)
    return {k: np.asarray(v) if isinstance(v, list) else v for k, v in out.items()}


def scan(ds, column: str = "text", *, duration_column: str | None = None, config=None, format: str | None = None,
         utterances: bool = False, batch_size: int | None = 256, **map_batches_options):
    """``ds`` (a ``ray.data.Dataset``) with ``degenerate``, ``severity`` and ``findings``
    (JSON text) columns added for the texts in ``column``; lazy, like every Ray Data step.

    Args:
        ds: the dataset.
        column: the text column judged.
        duration_column: seconds of audio per row, as timing evidence (one utterance per row).
        utterances: each row is one utterance even without a duration column (never
            sniffed as a transcript file); utterances are judged a batch at a time.
        config: detection thresholds (``degen.DetectConfig``).
        format: skip format sniffing (e.g. ``"moss"``).
        batch_size: rows per task; other ``map_batches`` options (``concurrency``,
            ``num_cpus`` ...) pass through.
    """
    return ds.map_batches(_scan_numpy_batch, batch_format="numpy", batch_size=batch_size,
                          fn_kwargs={"column": column, "duration_column": duration_column, "config": config,
                                     "format": format, "utterances": utterances}, **map_batches_options)
