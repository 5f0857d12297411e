"""The browser test cannot be skipped silently: the install script fails loudly, and in
CI a missing browser fails the test."""

import os
import shutil
import subprocess
import sys

from .conftest import ROOT

SCRIPT = ROOT / "scripts" / "ensure-chromium.sh"


def fake_path(tmp_path, uid: str, apt: str | None):
    """A PATH with the few tools the script uses, no chromium, and a scripted apt-get."""
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    for tool in ("bash", "mktemp", "tail", "rm", "cat"):
        os.symlink(shutil.which(tool), bin_ / tool)
    (bin_ / "id").write_text(f"#!{shutil.which('bash')}\necho {uid}\n")
    if apt is not None:
        (bin_ / "apt-get").write_text(f"#!{shutil.which('bash')}\n{apt}\n")
    for f in bin_.iterdir():
        if not f.is_symlink():
            f.chmod(0o755)
    return str(bin_)


def run_script(path, **env):
    return subprocess.run([shutil.which("bash"), str(SCRIPT)], capture_output=True, text=True,
                          env={"PATH": path, **env}, timeout=60)


def test_failed_install_exits_nonzero_and_shows_apt_error(tmp_path):
    apt = 'if [ "$1" = update ]; then exit 0; fi; echo "E: Unable to locate package chromium" >&2; exit 100'
    done = run_script(fake_path(tmp_path, "0", apt))
    assert done.returncode != 0
    assert "E: Unable to locate package chromium" in done.stderr


def test_not_root_exits_nonzero_and_says_why(tmp_path):
    done = run_script(fake_path(tmp_path, "1000", "exit 0"))
    assert done.returncode != 0 and "needs root" in done.stderr


def test_no_apt_exits_nonzero(tmp_path):
    done = run_script(fake_path(tmp_path, "0", None))
    assert done.returncode != 0 and "no apt-get" in done.stderr


def test_opt_out_works_outside_ci_only(tmp_path):
    path = fake_path(tmp_path, "1000", None)
    assert run_script(path, DEGEN_ALLOW_NO_BROWSER="1").returncode == 0
    assert run_script(path, DEGEN_ALLOW_NO_BROWSER="1", CI="true").returncode != 0


def test_browser_test_fails_in_ci_without_a_browser(tmp_path):
    env = {**os.environ, "PATH": str(tmp_path), "CI": "true", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "tests/present/test_html.py::test_browser_renders_timeline_and_findings"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stdout[-2000:]
    assert "CI must run the browser test" in done.stdout
    env.pop("CI")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs",
                           "tests/present/test_html.py::test_browser_renders_timeline_and_findings"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "SKIPPED" in done.stdout


def make_dry_run(target, tmp_path):
    done = subprocess.run(["make", "-n", target, f"VENV={tmp_path / 'venv'}"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_make_demo_installs_only_what_the_demo_uses(tmp_path):
    demo = make_dry_run("demo", tmp_path)
    assert "pip install --quiet -e ." in demo and "asr" not in demo and "test]" not in demo
    test = make_dry_run("test", tmp_path)
    assert "-e '.[test,asr,ray,datasets]'" in test and "ensure-chromium.sh" in test
