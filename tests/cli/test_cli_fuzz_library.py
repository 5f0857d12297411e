"""degen.scan given the name of a folder or a FIFO: the str names something that exists,
so it is a path and the answer is an error, not a clean verdict on the name as text."""

import os

import pytest

import degen
from degen.errors import FormatError


def test_scan_of_a_folder_name_is_an_error_not_clean_text(tmp_path):
    with pytest.raises(FormatError, match="directory"):
        degen.scan(str(tmp_path))


def test_scan_of_a_fifo_name_is_an_error_not_clean_text(tmp_path):
    fifo = tmp_path / "out.json"
    os.mkfifo(fifo)
    with pytest.raises(FormatError, match="FIFO"):
        degen.scan(str(fifo))
