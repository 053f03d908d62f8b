#!/usr/bin/env bash
# Benchmarks on one server, from one run: bench/*.sh in order, each printing a Markdown table.
# The optimized build is installed first. BENCH_RUNS (default 5) sets the runs per median.
source "$(dirname "$0")/common.sh"
cd "$ROOT"
"$ROOT/scripts/setup.sh"
"$ROOT/scripts/install.sh"
"$ROOT/scripts/cluster.sh" restart
eval "$("$ROOT/scripts/cluster.sh" env)"
PGOPTIONS="-c client_min_messages=warning" psql -q -X -d postgres -v ON_ERROR_STOP=1 -c "DROP DATABASE IF EXISTS dealcards_bench" \
  -c "CREATE DATABASE dealcards_bench"
psql -q -X -d dealcards_bench -v ON_ERROR_STOP=1 -c "CREATE EXTENSION dealcards"
source "$ROOT/bench/lib.sh"
say "benchmarks"
echo "Machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1); PostgreSQL $("$PG_CONFIG" --version | cut -d' ' -f2); $(date -u +%Y-%m-%d)"
echo
for b in bench/[0-9]*.sh; do
  # shellcheck source=/dev/null
  source "$b"
done
