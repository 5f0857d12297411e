"""Ray Data: scan a dataset's text column on every CPU of a cluster
(``pip install 'degen-asr[ray]'``).

The public name of ``degen.archive.ray``:

    >>> import ray, degen.ray                                       # doctest: +SKIP
    >>> degen.ray.scan(ray.data.read_json("s3://bucket/manifests/"), column="text")  # doctest: +SKIP
"""

from .archive.ray import scan

__all__ = ["scan"]
