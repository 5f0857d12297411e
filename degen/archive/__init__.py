"""Archives: many files, manifests and datasets.

    batch       files, folders and globs scanned on every core, results in input order
    reports     ``degen scan ... --output FILE``: the reports of an archive, resumable
    utterances  one utterance judged alone, and many judged at once with the same verdicts
    filter      a NeMo-style manifest split into kept and quarantined lines, resumable
    rows        a batched map function for dataset engines (``degen.scan_batch``)
    ray         the same over Ray Data (``degen.ray.scan``)
    pool        the one process pool they share
"""
