#!/usr/bin/env bash
# The HTML report is tested in a real browser: Debian's chromium. Install it when it is
# missing and we may (root with apt); otherwise say why, and the browser test skips.
if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
    exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing chromium for the HTML report test (Debian package) ..."
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null 2>&1 \
        || echo "could not install chromium: the browser test will be skipped"
else
    echo "chromium is not installed and cannot be installed here (needs root and apt): the browser test will be skipped"
fi
exit 0
