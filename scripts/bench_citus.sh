#!/usr/bin/env bash
# The Citus benchmark (bench/citus.sh), from one run: a Citus cluster of its own on this machine
# (a coordinator and two workers, target/citus-bench/) and a plain PostgreSQL 15 server next to
# it (target/citus-bench/plain), both started here and stopped on exit, on ports from
# CITUS_BENCH_PORT (default 54600) up. Deals per second with 1 and 8 clients and shuffle queue
# steps, each figure the median of CITUS_BENCH_ROUNDS (default 3) pgbench runs of
# CITUS_BENCH_SECONDS (default 10) seconds; about 5 minutes with the defaults.
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
export DEALCARDS_CITUS_CLUSTER_DIR=$bench_dir DEALCARDS_CITUS_PORT=${CITUS_BENCH_PORT:-54600}
plain_dir=$bench_dir/plain
plain_data=$plain_dir/data

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
plain_running() {
  [ -f "$plain_data/postmaster.pid" ] && as_pg_user "$PG_BIN/pg_ctl" -D "$plain_data" status >/dev/null 2>&1
}
stop_all() {
  if plain_running; then as_pg_user "$PG_BIN/pg_ctl" -D "$plain_data" -m fast -w stop >/dev/null || true; fi
  "$ROOT/scripts/citus_cluster.sh" stop || true
}
trap stop_all EXIT

say "Citus benchmark: starting a Citus cluster and a plain server in $bench_dir"
# Both start from nothing, with the dealcards installed now.
stop_all
"$ROOT/scripts/citus_cluster.sh" wipe
rm -rf "$plain_dir"
"$ROOT/scripts/citus_cluster.sh" start
eval "$("$ROOT/scripts/citus_cluster.sh" env)"

# The plain server: the same settings as the cluster's nodes (scripts/citus_cluster.sh) but
# without Citus, on a port none of the nodes has.
mkdir -p "$plain_dir"
[ "$AS_ROOT" = 0 ] || chown postgres: "$plain_dir"
as_pg_user "$PG_BIN/initdb" -D "$plain_data" -A trust -U "$PG_OS_USER" --no-sync >"$plain_dir/initdb.log" 2>&1 \
  || { cat "$plain_dir/initdb.log" >&2; exit 1; }
as_pg_user tee -a "$plain_data/postgresql.conf" >/dev/null <<EOF

# scripts/bench_citus.sh
listen_addresses = '127.0.0.1'
unix_socket_directories = '$plain_dir'
max_connections = 200
fsync = off
synchronous_commit = off
full_page_writes = off
EOF
PLAIN_PORT=$((DEALCARDS_CITUS_PORT + 50))
taken=" $(cat "$bench_dir"/*/port 2>/dev/null | tr '\n' ' ') "
while port_in_use "$PLAIN_PORT" || [[ "$taken" == *" $PLAIN_PORT "* ]]; do PLAIN_PORT=$((PLAIN_PORT + 1)); done
echo "$PLAIN_PORT" >"$plain_dir/port"
(
  # The server must not inherit our open files.
  for fd in /proc/"$BASHPID"/fd/*; do
    fd=${fd##*/}
    [ "$fd" -gt 2 ] && eval "exec $fd>&-"
  done
  as_pg_user env -u RUST_BACKTRACE -u RUST_LIB_BACKTRACE "$PG_BIN/pg_ctl" -D "$plain_data" \
    -l "$plain_dir/server.log" -w -t 60 -o "-p $PLAIN_PORT" start >/dev/null
) || { tail -20 "$plain_dir/server.log" >&2; exit 1; }
export PLAIN_PORT
PGOPTIONS="-c client_min_messages=warning" "$PG_BIN/psql" -X -q -h 127.0.0.1 -p "$PLAIN_PORT" -d postgres \
  -v ON_ERROR_STOP=1 -c "CREATE DATABASE dealcards_bench"
"$PG_BIN/psql" -X -q -h 127.0.0.1 -p "$PLAIN_PORT" -d dealcards_bench -v ON_ERROR_STOP=1 \
  -c "CREATE EXTENSION dealcards"

say "Citus benchmarks"
echo "Machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1); PostgreSQL $("$PG_CONFIG" --version | cut -d' ' -f2); Citus $("$PG_BIN/psql" -X -A -t -c "SELECT split_part(citus_version(), ' ', 2)"); $(date -u +%Y-%m-%d)"
echo
# shellcheck source=bench/citus.sh
source "$ROOT/bench/citus.sh"
