#!/usr/bin/env bash
# The HTML report is tested in a real browser: Debian's chromium. Install it when it is
# missing and we may (root with apt). When it is missing and cannot be installed, exit 1
# and show why (apt's own error): `make test` must not pass with the browser test skipped.
# Outside CI, DEGEN_ALLOW_NO_BROWSER=1 downgrades that to a warning (the test then skips).
set -uo pipefail

if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
    exit 0
fi

fail() {
    echo "ensure-chromium: $1" >&2
    if [ "${DEGEN_ALLOW_NO_BROWSER:-}" = 1 ] && [ "${CI:-}" != true ]; then
        echo "ensure-chromium: DEGEN_ALLOW_NO_BROWSER=1: going on; the browser test will be skipped" >&2
        exit 0
    fi
    echo "ensure-chromium: install chromium yourself (or run as root with apt-get), then rerun" >&2
    exit 1
}

if [ "$(id -u)" != 0 ]; then
    fail "chromium is not installed and cannot be installed here: installing needs root (uid is $(id -u))"
fi
if ! command -v apt-get >/dev/null 2>&1; then
    fail "chromium is not installed and cannot be installed here: no apt-get on this machine"
fi

echo "installing chromium for the HTML report test (Debian package) ..."
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 chromium; } >"$log" 2>&1; then
    echo "ensure-chromium: apt-get failed; its last lines:" >&2
    tail -n 20 "$log" >&2
    fail "could not install chromium"
fi
if ! command -v chromium >/dev/null 2>&1; then
    fail "apt-get reported success but no chromium command is on PATH"
fi
echo "chromium installed: $(chromium --version 2>/dev/null)"
