#!/usr/bin/env bash
# Benchmarks on one server, from one run: bench/*.sh in order, each printing a Markdown table.
# The optimized build is installed first, into the PostgreSQL of PG_VERSION (default 15).
# BENCH_RUNS (default 5) sets the runs per median; BENCH_ONLY=45 runs bench/45*.sh alone.
source "$(dirname "$0")/common.sh"
cd "$ROOT"
"$ROOT/scripts/setup.sh"
"$ROOT/scripts/install.sh"
"$ROOT/scripts/cluster.sh" restart
eval "$("$ROOT/scripts/cluster.sh" env)"
fresh_database dealcards_bench
source "$ROOT/bench/lib.sh"
say "benchmarks"
echo "Machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1); PostgreSQL $("$PG_CONFIG" --version | cut -d' ' -f2); $(date -u +%Y-%m-%d)"
echo
for b in bench/${BENCH_ONLY:-[0-9]}*.sh; do
  # shellcheck source=/dev/null
  source "$b"
done
echo "The same deals on a one-machine Citus cluster, next to a hand-written distributed deal: make bench-citus"
