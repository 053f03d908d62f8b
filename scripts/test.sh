#!/usr/bin/env bash
# Every test suite, on real PostgreSQL servers of every major in PG_VERSIONS (all supported ones
# unless narrowed: PG_VERSIONS="15 17" make test):
#   1. cargo fmt --check and cargo clippy -D warnings, the functions' lengths, and the unit tests of
#      the pgrx-free crates
#      (crates/core, crates/fairness: no server needed)
#   then, for each major:
#   2. cargo pgrx test: the extension crate's unit tests and #[pg_test]s (a server of pgrx's own)
#   3. pg_regress: tests/pg_regress against the installed extension on a throwaway cluster
#   4. server tests: real client connections (tests/*.rs), the upgrade from every earlier
#      release among them, and again with the library preloaded
#   5. on the first major, the players' verifier page in headless chromium against deals the
#      extension made (scripts/test_browser.sh), the card rooms' hands judged by PokerKit and
#      endplay (scripts/test_judges.sh), and a short fuzzing pass with fixed seeds
#      (scripts/fuzz.sh: sqlsmith and random calls)
#   6. the major's Debian package (scripts/package.sh, from the build installed for 3 and 4) and its
#      checks (scripts/test_package.sh: its files; on the system's 15 apt-get install, pg_regress
#      and apt-get purge; elsewhere the library loading into that major's server)
#   then, once: 7. the operations suite (scripts/test_ops.sh): PgBouncer and logical replication
#      on the newest major, pg_upgrade from the oldest to the newest
#   8. the Citus suite (scripts/test_citus.sh) on a one-machine cluster of
#      PostgreSQL 15 (left out when Citus is unavailable; under CI that fails the run)
# The last lines list every suite that ran and every one left out, and why (SUITE_LEDGER): under
# CI (CI=true) a suite that cannot run fails the run instead.
source "$(dirname "$0")/common.sh"
cd "$ROOT"
# A CI run builds everything once from an empty target/: incremental compilation would only add
# its files (more than a gigabyte) to a disk that may be small.
[ "${CI:-}" = true ] && export CARGO_INCREMENTAL=0
"$ROOT/scripts/setup.sh"
read -r first_major _ <<<"$PG_VERSIONS"
# The ledger of this run (scripts/common.sh): each suite says that it ran, or why it was left out;
# it is printed last, and a run that left one out never says that all suites passed.
export SUITE_LEDGER=$ROOT/target/test-suites.txt
mkdir -p "$ROOT/target"
: >"$SUITE_LEDGER"
# The statistical tests of the queues (tests/queue_*_stats.rs, named queue_statistics::...)
# measure the distribution the Rust code draws, the same on every major: they run on one, 16
# when the run has it (else the first), and are left out by name on the others
# (docs/development.md).
statistics_major=$first_major
case " $PG_VERSIONS " in *" 16 "*) statistics_major=16 ;; esac
statistics_prefix=queue_statistics::

say "cargo fmt --check"
cargo fmt --all -- --check
say "cargo clippy -D warnings"
cargo clippy --all-targets --no-default-features --features "pg$first_major pg_test server_tests citus_tests ops_tests" -- -D warnings
cargo clippy --all-targets -p dealcards-core -p dealcards-fairness -- -D warnings
say "no function over 80 lines in src, crates, tests and tools, deal_cards at most 60 (scripts/function_lengths.py)"
python3 scripts/function_lengths.py
python3 scripts/function_lengths.py --limit 60 src/deal_cards.rs
say "unit tests of crates/core and crates/fairness"
cargo test -p dealcards-core -p dealcards-fairness
# The golden files those unit tests read are what the independent references write.
python3 tests/reference/fair_golden.py --check
python3 tests/reference/seeded_rooms.py --check
suite_ran "cargo fmt, clippy, function lengths, unit tests of crates/core and crates/fairness, golden files"

# --- the fairness report's tool (make fairness), a crate of its own: keep it compiling and clean.
say "tools/fairness: cargo fmt --check and cargo clippy -D warnings"
cargo fmt --manifest-path tools/fairness/Cargo.toml -- --check
cargo clippy --manifest-path tools/fairness/Cargo.toml -- -D warnings
suite_ran "tools/fairness: cargo fmt, clippy"
# ---

# The server tests only talk to a server over connections: one build serves every major.
server_tests=(cargo test --no-default-features --features "pg$first_major server_tests" --test "*")

# What a failed server test leaves to read: the end of the server's log, and the disk's free space
# (a server that cannot write fails in ways only its log explains).
server_log_tail() {
  say "PostgreSQL $major: the end of the server's log, and the free disk space"
  tail -60 "$PGHOST/server.log" >&2 || true
  df -h "$PGHOST" "$ROOT/target" >&2 || true
}

for major in $PG_VERSIONS; do
  use_pg "$major"
  export PG_VERSION=$major

  say "PostgreSQL $major: the extension's unit tests and #[pg_test]s"
  pgrx_data=$(server_dir pgrx-test-data)
  rm -rf "${pgrx_data:?}"/"$major"-*
  cargo pgrx test "pg$major" --runas "$PG_OS_USER" --pgdata "$pgrx_data"
  # Its cluster has served (pgrx stopped it): its files go, as the majors' clusters do below.
  rm -rf "${pgrx_data:?}"/"$major"-*

  "$ROOT/scripts/install.sh" --server-test

  say "PostgreSQL $major: pg_regress"
  "$ROOT/scripts/cluster.sh" restart
  eval "$("$ROOT/scripts/cluster.sh" env)"
  regress_out=$ROOT/target/regress-$major
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

  say "PostgreSQL $major: server tests over real connections"
  fresh_database dealcards_test
  export DEALCARDS_TEST_DSN="host=$PGHOST port=$PGPORT user=$PGUSER dbname=dealcards_test"
  export DEALCARDS_PG_BIN=$PG_BIN
  statistics=(-- --skip "$statistics_prefix")
  [ "$major" != "$statistics_major" ] || statistics=()
  # libtest's --skip matches anywhere in a test's name: it must name these tests alone.
  if [ "$major" = "$first_major" ]; then
    others=$("${server_tests[@]}" -- --list 2>/dev/null | grep -F "$statistics_prefix" | grep -v "^$statistics_prefix" || true)
    [ -z "$others" ] || { printf 'the skip of the queue statistics would skip these too:\n%s\n' "$others" >&2; exit 1; }
  fi
  "${server_tests[@]}" "${statistics[@]}" || { server_log_tail; exit 1; }
  if [ "$major" = "$first_major" ]; then
    if command -v "${CHROMIUM:-chromium}" >/dev/null && command -v "${CHROMEDRIVER:-chromedriver}" >/dev/null; then
      say "PostgreSQL $major: the verifier page in headless chromium"
      "$ROOT/scripts/test_browser.sh"
      suite_ran "PostgreSQL $major: the verifier page in headless chromium, and tools/verify_deal.py"
    else
      suite_left_out "the verifier page: chromium or chromedriver is not installed (apt-get install chromium chromium-driver)"
    fi
    # The hands' deal is the library's, the same on every major: one major is enough.
    say "PostgreSQL $major: card rooms' hands judged by PokerKit and endplay"
    "$ROOT/scripts/test_judges.sh"
    suite_ran "PostgreSQL $major: card rooms' hands judged by PokerKit and endplay (scripts/test_judges.sh)"
  fi
  say "PostgreSQL $major: server tests again, with dealcards in shared_preload_libraries and RUST_BACKTRACE set"
  DEALCARDS_PGOPTIONS="-c shared_preload_libraries=dealcards" DEALCARDS_SERVER_ENV="RUST_BACKTRACE=1" \
    "$ROOT/scripts/cluster.sh" restart
  DEALCARDS_EXPECT_PRELOAD=1 cargo test --no-default-features --features "pg$first_major server_tests" --test backends \
    || { server_log_tail; exit 1; }
  # A short fuzzing pass on one major, with the fixed seeds of tests/fuzz/seeds (about 12,000
  # queries, 1,500 random calls and a sweep of every case per seed; the same statements on every
  # run): it fails when sqlsmith ran no query or a function of the extension got no call.
  # make fuzz explores new seeds.
  if [ "$major" = "$first_major" ]; then
    "$ROOT/scripts/cluster.sh" restart
    FUZZ_NO_INSTALL=1 FUZZ_FIXED=1 FUZZ_QUERIES=4000 FUZZ_SECONDS=300 FUZZ_CALLS=500 "$ROOT/scripts/fuzz.sh"
    suite_ran "PostgreSQL $major: fuzzing with the fixed seeds of tests/fuzz/seeds (one major: the random SQL is the same on each)"
  fi
  "$ROOT/scripts/cluster.sh" stop
  # The major's cluster has served its tests: its files go (about 650 MB each).
  rm -rf "$(server_dir "pgcluster-$major")/data"

  # The package of the build installed above (make package builds the release ones).
  "$ROOT/scripts/package.sh" --profile server-test "$major"
  "$ROOT/scripts/test_package.sh" "$major"
  # From 18 on, the CloudNativePG image of the same files (the operations suite runs a server
  # from such an image's layer).
  if [ "$major" -ge 18 ]; then
    "$ROOT/scripts/image.sh" --staged "$major"
  fi
  done_here="#[pg_test]s, pg_regress, server tests (and again preloaded), the Debian package"
  [ "$major" != "$statistics_major" ] || done_here="$done_here, the queue statistics (this major only: the distribution is the Rust code's, the same on every major)"
  [ "$major" -lt 18 ] || done_here="$done_here, the CloudNativePG image (18 on: extension_control_path)"
  suite_ran "PostgreSQL $major: $done_here"
done

"$ROOT/scripts/test_ops.sh"

# Citus (PostgreSQL 15 only): a coordinator and two workers on this machine.
citus_rc=0
"$ROOT/scripts/test_citus.sh" || citus_rc=$?
case $citus_rc in
  0) suite_ran "the Citus suite on a coordinator and two workers of PostgreSQL 15" ;;
  3) ;; # left out, in the ledger (under CI, test_citus.sh failed instead)
  *) exit "$citus_rc" ;;
esac

say "the suites of this run"
cat "$SUITE_LEDGER"
left_out=$(grep -c '^LEFT OUT' "$SUITE_LEDGER" || true)
if [ "$left_out" = 0 ]; then
  say "all test suites passed on PostgreSQL $PG_VERSIONS, and on a Citus cluster"
else
  say "the suites that ran passed; $left_out left out (LEFT OUT above): not every suite ran"
fi
