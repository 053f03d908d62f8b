# Helpers for bench/*.sh, sourced by scripts/bench.sh with PGHOST/PGPORT/PGUSER set and the
# database dealcards_bench holding the extension.
# shellcheck shell=bash

BENCH_DB=dealcards_bench
BENCH_RUNS=${BENCH_RUNS:-5}

# Runs SQL files or statements in the bench database, quietly.
bench_sql() { psql -X -q -d "$BENCH_DB" -v ON_ERROR_STOP=1 "$@" >/dev/null; }

# Median wall time in milliseconds of one SQL statement over BENCH_RUNS runs (after one warm-up),
# timed by the server-side clock inside psql's \timing.
median_ms() {
  local sql=$1 times
  times=$(for _ in $(seq 0 "$BENCH_RUNS"); do
    psql -X -q -d "$BENCH_DB" -v ON_ERROR_STOP=1 -c '\timing on' -c "$sql" |
      sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p'
  done | tail -n +2 | sort -g)
  awk '{ a[NR] = $1 } END { m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; printf "%.3f\n", m }' <<<"$times"
}

# The median of the numbers on standard input (separated by spaces or lines), to DECIMALS
# decimals: median DECIMALS
median() {
  tr -s ' \t' '\n\n' | grep . | sort -g |
    awk -v d="$1" '{ a[NR] = $1 } END { m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; printf "%.*f\n", d, m }'
}

# Division to a fixed number of decimals: ratio A B [DECIMALS]
ratio() { awk -v a="$1" -v b="$2" -v d="${3:-1}" 'BEGIN { printf "%.*f", d, a / b }'; }

# Wall time in milliseconds of one run of a slow statement, or ">LIMIT" when it does not finish
# within LIMIT seconds (default BENCH_SLOW_LIMIT, else 180).
once_ms() {
  local sql=$1 limit=${2:-${BENCH_SLOW_LIMIT:-180}} out
  # psql prints the time of a cancelled statement too: only a statement that succeeded counts.
  if out=$(PGOPTIONS="-c statement_timeout=${limit}s" psql -X -q -d "$BENCH_DB" -v ON_ERROR_STOP=1 \
    -c '\timing on' -c "$sql" 2>/dev/null); then
    sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' <<<"$out"
  else
    printf '>%s\n' $((limit * 1000))
  fi
}
