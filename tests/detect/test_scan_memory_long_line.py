"""One long segment that loops (a model writing one character until it is stopped, or a
one-line 50 MB file) must not take thousands of times its size in memory: a 52 MB line
of 'a' took 21 GB and died with MemoryError (exit 4), one of 的 was killed by the kernel
at 22.8 GB, and 52 MB of 'hello world' took 14.5 GB and 110 s."""

import tracemalloc

import pytest

import degen


@pytest.mark.parametrize("text", ["a" * 200_000, "的" * 200_000, "hello world " * 20_000])
def test_a_long_one_segment_loop_is_scanned_in_bounded_memory(text):
    tracemalloc.start()
    try:
        report = degen.scan_text(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert report.degenerate
    size = len(text.encode())
    assert peak < 64 * 2 ** 20, f"peak {peak / 2 ** 20:.0f} MB for {size / 2 ** 20:.1f} MB of text ({peak / size:.0f}x)"
