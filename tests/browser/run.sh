#!/usr/bin/env bash
# Checks verifier/index.html in headless chromium: the golden deals of
# tests/reference/fair_golden.json, plus the deals of each DEALS.json given (a list of
# {server_seed, commitment, client_seeds, nonce, p1_cards, p2_cards, p3_cards, extra_cards, leader}).
#   tests/browser/run.sh [DEALS.json ...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

missing=()
command -v "${CHROMIUM:-chromium}" >/dev/null 2>&1 || missing+=(chromium)
command -v "${CHROMEDRIVER:-chromedriver}" >/dev/null 2>&1 || missing+=(chromedriver)
if [ ${#missing[@]} -gt 0 ]; then
  echo "tests/browser/run.sh: ${missing[*]} not found; install them with: apt-get install chromium chromium-driver" >&2
  exit 1
fi
command -v python3 >/dev/null 2>&1 || { echo "tests/browser/run.sh: python3 not found" >&2; exit 1; }

for f in "$@"; do
  [ -r "$f" ] || { echo "tests/browser/run.sh: cannot read $f" >&2; exit 1; }
done

exec python3 "$here/verify_page.py" "$@"
