#!/usr/bin/env bash
# Screenshots of the demo's HTML reports for the README (run `make demo` first).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p docs
for page in scan fix; do
    [ -f "out/$page.html" ] || { echo "out/$page.html missing: run make demo first"; exit 1; }
done
if command -v fc-list >/dev/null 2>&1 && [ -z "$(fc-list :lang=zh 2>/dev/null)" ]; then
    echo "warning: no Chinese font installed; CJK text will show as boxes (apt-get install fonts-noto-cjk)" >&2
fi
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
shot() {
    chromium --headless --no-sandbox --disable-gpu --disable-background-networking --no-first-run \
        --user-data-dir="$profile" --window-size="$3" --screenshot="$2" "file://$PWD/$1" 2>/dev/null
}
shot out/seed-scan.html docs/scan-report.png 1300,620 || true
shot out/fix.html docs/fix-report.png 1300,900
