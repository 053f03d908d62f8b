#!/usr/bin/env bash
# The Citus suite (tests/citus/) on a fresh one-machine Citus cluster of PostgreSQL 15:
#   1. scripts/citus.sh: Citus installed into PostgreSQL 15 (built once from the vendored tarball)
#   2. scripts/citus_cluster.sh: a coordinator and two workers, started from nothing every run,
#      and a spare third worker, running but not in the cluster (a test adds it and rebalances)
#   3. cargo test --test citus, with the coordinator's and the workers' connection strings
# Exit status 3 when Citus is unavailable (no installed Citus and no tarball to build it from):
# a caller such as `make test` can report that and go on; under CI (CI=true) it fails instead. Arguments go to cargo test (for
# example `-- --nocapture` to see what the tests observed).
source "$(dirname "$0")/common.sh"
cd "$ROOT"
# Citus 13 and Debian 12 share one PostgreSQL major: the system's 15.
PG_VERSION=$SYSTEM_PG_VERSION
export PG_VERSION
use_pg "$PG_VERSION"

say "Citus for PostgreSQL $PG_MAJOR"
rc=0
"$ROOT/scripts/citus.sh" || rc=$?
if [ "$rc" = 3 ]; then
  suite_left_out "the Citus suite: Citus is unavailable for PostgreSQL $PG_MAJOR (see the message above)"
  exit 3
fi
[ "$rc" = 0 ] || exit "$rc"

# The cluster loads the installed extension: install it when this major has none yet.
if [ ! -f "$("$PG_CONFIG" --sharedir)/extension/dealcards.control" ]; then
  "$ROOT/scripts/install.sh" --server-test
fi

say "a fresh Citus cluster: a coordinator and two workers (and a spare worker)"
# Every statement a node receives in its log: the tests read there what ran on each worker
# (the workers see each distributed call as one statement; what it runs inside is not logged).
export DEALCARDS_CITUS_PGOPTIONS="${DEALCARDS_CITUS_PGOPTIONS:-} -c log_statement=all"
"$ROOT/scripts/citus_cluster.sh" wipe
trap '"$ROOT/scripts/citus_cluster.sh" stop' EXIT
"$ROOT/scripts/citus_cluster.sh" start
spare_port=$("$ROOT/scripts/citus_cluster.sh" spare-worker)
eval "$("$ROOT/scripts/citus_cluster.sh" env)"
"$ROOT/scripts/citus_cluster.sh" status

say "Citus tests over real connections"
dsn() { echo "host=$PGHOST port=$1 user=$PGUSER dbname=$DEALCARDS_CITUS_DB"; }
export DEALCARDS_CITUS_DSN DEALCARDS_CITUS_WORKER1_DSN DEALCARDS_CITUS_WORKER2_DSN
export DEALCARDS_CITUS_SPARE_WORKER_DSN
DEALCARDS_CITUS_DSN=$(dsn "$DEALCARDS_CITUS_COORDINATOR_PORT")
DEALCARDS_CITUS_WORKER1_DSN=$(dsn "$DEALCARDS_CITUS_WORKER1_PORT")
DEALCARDS_CITUS_WORKER2_DSN=$(dsn "$DEALCARDS_CITUS_WORKER2_PORT")
DEALCARDS_CITUS_SPARE_WORKER_DSN=$(dsn "$spare_port")
# The Rust helpers of the other server tests (tests/server) point at the coordinator.
export DEALCARDS_TEST_DSN=$DEALCARDS_CITUS_DSN
export DEALCARDS_PG_BIN=$PG_BIN
cargo test --no-default-features --features "pg$PG_MAJOR server_tests citus_tests" --test citus "$@"
