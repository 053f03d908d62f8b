#!/usr/bin/env bash
# Every test suite, on real PostgreSQL servers:
#   1. cargo fmt --check and cargo clippy -D warnings
#   2. cargo pgrx test: the pure-Rust unit tests and the #[pg_test]s (a server of pgrx's own)
#   3. pg_regress: tests/pg_regress against the installed extension on a throwaway cluster
#   4. server tests: real client connections (tests/*.rs), also with the library preloaded
source "$(dirname "$0")/common.sh"
cd "$ROOT"
"$ROOT/scripts/setup.sh"

say "cargo fmt --check"
cargo fmt --all -- --check
say "cargo clippy -D warnings"
cargo clippy --all-targets --features "pg$PG_MAJOR pg_test server_tests" -- -D warnings

# --- the fairness report's tool (make fairness), a crate of its own: keep it compiling and clean.
say "tools/fairness: cargo fmt --check and cargo clippy -D warnings"
cargo fmt --manifest-path tools/fairness/Cargo.toml -- --check
cargo clippy --manifest-path tools/fairness/Cargo.toml -- -D warnings
# ---

say "unit tests and #[pg_test]s"
pgrx_data=$(server_dir pgrx-test-data)
rm -rf "${pgrx_data:?}"/"$PG_MAJOR"-*
cargo pgrx test "pg$PG_MAJOR" --runas "$PG_OS_USER" --pgdata "$pgrx_data"

"$ROOT/scripts/install.sh" --debug

say "pg_regress"
"$ROOT/scripts/cluster.sh" restart
eval "$("$ROOT/scripts/cluster.sh" env)"
regress_out=$ROOT/target/regress
rm -rf "$regress_out" && mkdir -p "$regress_out"
tests=$(cd tests/pg_regress/sql && ls -- *.sql | sed 's/\.sql$//' | sort)
# shellcheck disable=SC2086
if ! "$("$PG_CONFIG" --pkglibdir)/pgxs/src/test/regress/pg_regress" \
  --inputdir=tests/pg_regress --outputdir="$regress_out" --bindir="$PG_BIN" \
  --host="$PGHOST" --port="$PGPORT" --user="$PGUSER" \
  --dbname=dealcards_regress --load-extension=dealcards $tests; then
  cat "$regress_out/regression.diffs" >&2 || true
  exit 1
fi

say "server tests over real connections"
PGOPTIONS="-c client_min_messages=warning" psql -q -X -d postgres -v ON_ERROR_STOP=1 -c "DROP DATABASE IF EXISTS dealcards_test" \
  -c "CREATE DATABASE dealcards_test"
psql -q -X -d dealcards_test -v ON_ERROR_STOP=1 -c "CREATE EXTENSION dealcards"
export DEALCARDS_TEST_DSN="host=$PGHOST port=$PGPORT user=$PGUSER dbname=dealcards_test"
cargo test --features "pg$PG_MAJOR server_tests" --test '*'
say "server tests again, with dealcards in shared_preload_libraries"
DEALCARDS_PGOPTIONS="-c shared_preload_libraries=dealcards" "$ROOT/scripts/cluster.sh" restart
DEALCARDS_EXPECT_PRELOAD=1 cargo test --features "pg$PG_MAJOR server_tests" --test backends
"$ROOT/scripts/cluster.sh" restart

say "all test suites passed"
