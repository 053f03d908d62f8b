#!/usr/bin/env bash
# The Citus benchmark (bench/citus.sh), from one run: a Citus cluster of its own on this machine
# (a coordinator and two workers, target/citus-bench/) and a plain PostgreSQL 15 server next to
# it (target/citus-bench/plain), both started here and stopped on exit, on ports from
# CITUS_BENCH_PORT (default 15700) up. Deals per second with 1 and 8 clients and shuffle queue
# steps, each figure the median of CITUS_BENCH_ROUNDS (default 3) pgbench runs of
# CITUS_BENCH_SECONDS (default 10) seconds; about 5 minutes with the defaults. Then the row
# aggregates on a table of 10^7 rows (bench/citus_rows.sh), about 5 minutes more.
# It benchmarks the dealcards installed in PostgreSQL 15; CITUS_BENCH_INSTALL=1 builds and
# installs the optimized build first (scripts/install.sh).
# Without Citus (scripts/citus.sh exits 3) it says so and exits 0.
# shellcheck source-path=SCRIPTDIR/..
# shellcheck source=scripts/common.sh
source "$(dirname "$0")/common.sh"
use_pg "$SYSTEM_PG_VERSION"
# A failing command inside $(...) fails the benchmark too.
shopt -s inherit_errexit

if "$ROOT/scripts/citus.sh" >/dev/null; then
  :
else
  status=$?
  if [ "$status" = 3 ]; then
    echo "Citus is unavailable: no Citus benchmark (scripts/citus.sh says what to install)"
    exit 0
  fi
  exit "$status"
fi
if [ "${CITUS_BENCH_INSTALL:-}" = 1 ]; then
  "$ROOT/scripts/install.sh"
fi

bench_dir=$(server_dir citus-bench)
export DEALCARDS_CITUS_CLUSTER_DIR=$bench_dir DEALCARDS_CITUS_PORT=${CITUS_BENCH_PORT:-$(($(server_port_base) + 300))}
stop_all() { "$ROOT/scripts/citus_cluster.sh" stop || true; }
trap stop_all EXIT

say "Citus benchmark: starting a Citus cluster and a plain server in $bench_dir"
# Both start from nothing, with the dealcards installed now.
stop_all
"$ROOT/scripts/citus_cluster.sh" wipe
"$ROOT/scripts/citus_cluster.sh" start
eval "$("$ROOT/scripts/citus_cluster.sh" env)"

# The plain server: the nodes' settings, without Citus.
PLAIN_PORT=$("$ROOT/scripts/citus_cluster.sh" plain-server)
export PLAIN_PORT

say "Citus benchmarks"
echo "Machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1); PostgreSQL $("$PG_CONFIG" --version | cut -d' ' -f2); Citus $("$PG_BIN/psql" -X -A -t -c "SELECT split_part(citus_version(), ' ', 2)"); $(date -u +%Y-%m-%d)"
echo
# CITUS_BENCH_ONLY=deals or =rows runs one of the two.
if [ "${CITUS_BENCH_ONLY:-}" != rows ]; then
  # shellcheck source=bench/citus.sh
  source "$ROOT/bench/citus.sh"
fi
if [ "${CITUS_BENCH_ONLY:-}" != deals ]; then
  # shellcheck source=bench/citus_rows.sh
  source "$ROOT/bench/citus_rows.sh"
fi
