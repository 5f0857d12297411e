#!/usr/bin/env bash
# The main job on the bundled example: scan a degenerate 50-minute MOSS transcript, then
# repair it against the bundled SGLang-Omni-compatible test server on loopback.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-.venv/bin}
mkdir -p out
echo "== degen scan fixtures/seed/degenerate.json"
"$BIN/degen" scan fixtures/seed/degenerate.json --html out/seed-scan.html || true
echo
[ -f out/seed.wav ] || "$BIN/python" -m degen.testing audio --session fixtures/seed/truth.json --out out/seed.wav
rm -f out/port
"$BIN/python" -m degen.testing serve --session fixtures/seed/truth.json --audio out/seed.wav \
    --port 0 --port-file out/port > out/server.log 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s out/port ] && break; sleep 0.1; done
url="http://127.0.0.1:$(cat out/port)"
echo "== degen fix against the test server at $url"
"$BIN/degen" fix fixtures/seed/degenerate.json --audio out/seed.wav --server "$url" \
    --out out/fixed.json --html out/fix.html
echo
echo "== degen scan out/fixed.json"
"$BIN/degen" scan out/fixed.json --html out/scan.html
echo
echo "repaired transcript: out/fixed.json; every edit and attempt: out/fixed.json.degen.json"
echo "to run degen yourself: source .venv/bin/activate (once per shell), then degen --help; or .venv/bin/degen"
