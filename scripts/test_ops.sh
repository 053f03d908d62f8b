#!/usr/bin/env bash
# The operations suite (tests/ops/): what database administrators do, with PostgreSQL's own
# tools and PgBouncer, each test on servers and a pooler of its own (under target/ops):
#   - pooler (PgBouncer from Debian, transaction and statement pooling), logical replication
#     (a publisher and a subscriber) and a hot standby (pg_basebackup of a primary) on one
#     major: OPS_PG_VERSION, by default the newest of PG_VERSIONS. None depends on the major for
#     what dealcards does: the pooler speaks the same protocol to every major, the extension's
#     tables replicate as any table does, and recovery refuses writes the same way on each (the
#     functions ask RecoveryInProgress()). One major keeps make test's time; the newest is what
#     a new replica or pooler is set up on.
#   - the crash test on OPS_PG_VERSION too: clients at work while the server is killed 24 times
#     (pg_ctl stop -m immediate, kill -9 of a backend), everything they saw committed checked
#     after each restart. Crash recovery is PostgreSQL's WAL replay, the same for the extension's
#     tables on every major.
#   - pg_dump and pg_restore (serial and parallel, custom and directory format) on OPS_PG_VERSION
#     too: what a restore does with the extension's tables depends on pg_restore, not on the
#     server's major; a dump of the oldest major restored into the newest runs with pg_upgrade's
#     two majors.
#   - pg_upgrade from the oldest to the newest major of PG_VERSIONS, both PyPI builds (Debian's
#     PostgreSQL 15 cannot be upgraded to a PyPI build whatever the extensions: its catalog has a
#     parameter those builds do not know), so 14 -> 18 by default; with fewer than two such
#     majors in PG_VERSIONS it does not run, and says so.
# The majors used get the extension installed first when they have none (make test has
# installed it into every major by then). Arguments go to cargo test (a test's name, or
# `-- --nocapture`).
source "$(dirname "$0")/common.sh"
cd "$ROOT"
"$ROOT/scripts/setup.sh"

sorted=$(printf '%s\n' $PG_VERSIONS | sort -n)
read -r first_major _ <<<"$PG_VERSIONS"
ops_major=${OPS_PG_VERSION:-$(tail -1 <<<"$sorted")}
pypi_majors=$(grep -vx "$SYSTEM_PG_VERSION" <<<"$sorted" || true)
upgrade_from=$(head -1 <<<"$pypi_majors")
upgrade_to=$(tail -1 <<<"$pypi_majors")

install_debian_packages " for the pooler test" pgbouncer

needed=$ops_major
[ -z "$upgrade_from" ] || [ "$upgrade_from" = "$upgrade_to" ] || needed="$needed $upgrade_from $upgrade_to"
for major in $(printf '%s\n' $needed | sort -un); do
  use_pg "$major"
  if [ ! -f "$("$PG_CONFIG" --sharedir)/extension/dealcards.control" ]; then
    PG_VERSION=$major "$ROOT/scripts/install.sh" --server-test
  fi
done

export DEALCARDS_OPS_DIR DEALCARDS_OPS_PG_BIN DEALCARDS_PGBOUNCER
DEALCARDS_OPS_DIR=$(server_dir ops)
DEALCARDS_OPS_PG_BIN=$(pg_bin_of "$ops_major")
DEALCARDS_PGBOUNCER=$(command -v pgbouncer || echo /usr/sbin/pgbouncer)
[ "$AS_ROOT" = 0 ] || export DEALCARDS_OPS_RUNAS=$PG_OS_USER

# A run that fails or is interrupted leaves no server behind: on exit, every PostgreSQL and
# PgBouncer still running from the suite's folder gets an immediate shutdown (a test stops its
# own servers when it ends, even when it fails; not when the run is killed).
stop_leftover_servers() {
  local pidfile pid
  for pidfile in "$DEALCARDS_OPS_DIR"/*/data/postmaster.pid "$DEALCARDS_OPS_DIR"/*/pgbouncer.pid; do
    [ -f "$pidfile" ] && read -r pid <"$pidfile" || continue
    case "$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" in
      *postgres*) kill -QUIT "$pid" 2>/dev/null || true ;;
      *pgbouncer*) kill -TERM "$pid" 2>/dev/null || true ;;
    esac
  done
}
stop_leftover_servers
trap stop_leftover_servers EXIT

# The tests that need two majors from PyPI: left out by name (and in make test's summary) when
# there are not two; run without their variables, they fail.
two_majors=(pg_upgrade:: extension_path::the_oldest_major_finds_the_library_through_dynamic_library_path
  restore::a_dump_of_the_oldest_major_restores_into_the_newest)
skip=()
if [ -n "$upgrade_from" ] && [ "$upgrade_from" != "$upgrade_to" ]; then
  export DEALCARDS_UPGRADE_FROM_BIN DEALCARDS_UPGRADE_TO_BIN
  DEALCARDS_UPGRADE_FROM_BIN=$(pg_bin_of "$upgrade_from")
  DEALCARDS_UPGRADE_TO_BIN=$(pg_bin_of "$upgrade_to")
  say "operations: PgBouncer and logical replication on PostgreSQL $ops_major, pg_upgrade from $upgrade_from to $upgrade_to"
else
  for test in "${two_majors[@]}"; do skip+=(--skip "$test"); done
  say "operations: PgBouncer and logical replication on PostgreSQL $ops_major; pg_upgrade does not run (PG_VERSIONS=\"$PG_VERSIONS\" has fewer than two majors from PyPI)"
  suite_left_out "operations: pg_upgrade, the oldest major's library path and a dump restored into a newer major need two majors from PyPI in PG_VERSIONS (\"$PG_VERSIONS\")"
fi
# The tests talk to their servers over connections: the build of the other server tests serves.
args=("$@")
if [ ${#skip[@]} -gt 0 ]; then
  case " $* " in
    *" -- "*) args+=("${skip[@]}") ;;
    *) args+=(-- "${skip[@]}") ;;
  esac
fi
cargo test --no-default-features --features "pg$first_major server_tests ops_tests" --test ops "${args[@]}"
if [ ${#skip[@]} -gt 0 ]; then
  suite_ran "operations on PostgreSQL $ops_major: pooler, replication, standby, crash, dump and restore, extension path"
else
  suite_ran "operations on PostgreSQL $ops_major: pooler, replication, standby, crash, dump and restore, extension path; pg_upgrade and a dump restored from $upgrade_from to $upgrade_to"
fi
