#!/usr/bin/env bash
# The fairness report: the statistical battery of crates/fairness against a live server, on the
# OS-keyed generator, then on broken shuffles that must fail; writes the heat map PNG. Then
# random rows: TABLESAMPLE sparse_bernoulli and sample_rows on tables of uneven pages, and the
# broken samplers of rows (whole pages, sparse pages favoured, first line pointers) that must fail.
# Then card rooms: every built-in kind of hand dealt by the server, the card at each slot tested,
# and a biased deck and a peeked stage that must fail every kind.
# Sizes (defaults take a few minutes on 2 cores; see "Fairness evidence" in README.md):
#   FAIRNESS_ORDERS (10000000)  FAIRNESS_DECKS (4000000)  FAIRNESS_DEALS (200000)
#   FAIRNESS_BACKENDS (8)  FAIRNESS_BACKEND_DECKS (20000)  FAIRNESS_ROWS (10000)
#   FAIRNESS_HANDS (10000)
# Output: the report on stdout and in target/fairness.txt, the picture in FAIRNESS_PNG
# (default target/fairness.png).
source "$(dirname "$0")/common.sh"
cd "$ROOT"
"$ROOT/scripts/setup.sh"
"$ROOT/scripts/install.sh"
# The library preloaded into the postmaster: the set-up in which forked backends could share
# one generator if it were keyed too early.
DEALCARDS_PGOPTIONS="-c shared_preload_libraries=dealcards" "$ROOT/scripts/cluster.sh" restart
eval "$("$ROOT/scripts/cluster.sh" env)"
fresh_database dealcards_fairness

say "building the fairness report"
cargo build --release --quiet --manifest-path tools/fairness/Cargo.toml

say "fairness report"
status=0
tools/fairness/target/release/dealcards-fairness-report \
  "host=$PGHOST port=$PGPORT user=$PGUSER dbname=dealcards_fairness" | tee target/fairness.txt || status=$?
# Back to the plain server the other targets expect.
"$ROOT/scripts/cluster.sh" restart
exit "$status"
