"""The one process pool of archive work (``degen scan --jobs``, ``degen filter --jobs``).

Results come back in input order. A worker the system kills (the OOM killer, a crash in
a native library) breaks the pool: the caller learns which item was the first without a
result (``PoolBroken``) instead of waiting for ever, as ``multiprocessing.Pool`` did.
Ctrl-C goes to the whole process group; the workers ignore it and the parent stops them.
"""

from __future__ import annotations

import os
from typing import Callable, Iterable, Iterator, TypeVar

T = TypeVar("T")
R = TypeVar("R")


class PoolBroken(Exception):
    """A worker process died; ``done`` items had their results before it."""

    def __init__(self, done: int, cause: BaseException):
        super().__init__(str(cause))
        self.done, self.cause = done, cause


def resolve_jobs(jobs: int) -> int:
    """``jobs`` processes, 0 meaning one per core this process may use."""
    if jobs > 0:
        return jobs
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def quiet_worker(parent: int | None = None) -> None:
    """A worker's set-up: Ctrl-C is the parent's to handle, and the worker dies with its
    parent. After ``kill -9`` of ``degen scan --jobs 2 -o`` its workers went on scanning
    for seconds (until they next wrote to the pipe the parent no longer read)."""
    import signal  # here: only pool workers need it
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent(parent)


PR_SET_PDEATHSIG = 1  # prctl(2): the signal this process gets when its parent dies


def _die_with_parent(parent: int | None) -> None:
    """Ask Linux to kill this process when its parent dies (a worker holds nothing to save:
    the parent writes every result); then check that the parent did not die already."""
    import signal
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: the pool's own pipes end the worker later
        return
    if parent is not None and os.getppid() != parent:
        os._exit(1)


class Workers:
    """``jobs`` worker processes (none for one job: the work runs here), used as a
    context manager; ``map`` may be called many times on the same processes."""

    def __init__(self, jobs: int):
        self.jobs = resolve_jobs(jobs)
        self._pool = None
        if self.jobs > 1:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor
            self._pool = ProcessPoolExecutor(self.jobs, mp_context=multiprocessing.get_context(),
                                             initializer=quiet_worker, initargs=(os.getpid(),))

    def map(self, fn: Callable[[T], R], items: Iterable[T], chunksize: int = 1) -> Iterator[R]:
        """``fn`` of each item, in order, as they complete.

        Raises:
            PoolBroken: a worker process died before every result came back.
        """
        if self._pool is None:
            yield from map(fn, items)
            return
        from concurrent.futures.process import BrokenProcessPool
        done = 0
        try:
            for result in self._pool.map(fn, items, chunksize=chunksize):
                done += 1
                yield result
        except BrokenProcessPool as exc:
            raise PoolBroken(done, exc) from None

    def __enter__(self) -> "Workers":
        return self

    def __exit__(self, *exc) -> None:
        if self._pool is not None:  # Ctrl-C, or the reader stopped early: drop the items not started
            self._pool.shutdown(wait=True, cancel_futures=True)
