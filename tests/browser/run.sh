#!/usr/bin/env bash
# Checks verifier/index.html in headless chromium, and tools/verify_deal.py: the golden deals and
# chains of tests/reference/fair_golden.json, the deals of each DEALS.json given (a list of
# {server_seed, commitment, client_seeds, nonce, p1_cards, p2_cards, p3_cards, extra_cards,
# leader}), and a desk's receipts (fair_receipt's, one a line) against its publication
# (fair_publication), as dealt and tampered with (tests/browser/verify_page.py says how).
#   tests/browser/run.sh [--publication PUB.json --receipts RECEIPTS.jsonl [--notified N.jsonl]] [DEALS.json ...]
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
  case "$f" in --*) continue ;; esac
  [ -r "$f" ] || { echo "tests/browser/run.sh: cannot read $f" >&2; exit 1; }
done

exec python3 "$here/verify_page.py" "$@"
