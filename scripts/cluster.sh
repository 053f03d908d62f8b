#!/usr/bin/env bash
# A throwaway PostgreSQL cluster of the project's own, one per major (PG_VERSION), on a free port.
#   cluster.sh start   initdb if needed, start if not running; prints nothing else
#   cluster.sh stop    stop it
#   cluster.sh env     print PGHOST/PGPORT/PGUSER exports for it, and PATH with its psql first
# DEALCARDS_PGOPTIONS adds server options; DEALCARDS_SERVER_ENV adds NAME=VALUE words to the
# server's environment (which otherwise has no RUST_BACKTRACE, as on a user's server).
source "$(dirname "$0")/common.sh"

dir=$(server_dir "pgcluster-$PG_MAJOR")
data=$dir/data
log=$dir/server.log

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

running() { [ -f "$data/postmaster.pid" ] && as_pg_user "$PG_BIN/pg_ctl" -D "$data" status >/dev/null 2>&1; }

start() {
  if [ ! -f "$data/PG_VERSION" ]; then
    # Into a folder of its own first: an initdb interrupted half-way leaves no cluster to start.
    rm -rf "$data.partial"
    as_pg_user "$PG_BIN/initdb" -D "$data.partial" -A trust -U "$PG_OS_USER" --no-sync >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; exit 1; }
    rm -rf "$data"
    mv "$data.partial" "$data"
  fi
  if running; then return 0; fi
  local port=${DEALCARDS_PGPORT:-$(($(server_port_base) + PG_MAJOR))}
  while port_in_use "$port"; do port=$((port + 1)); done
  echo "$port" >"$dir/port"
  # The server outlives this script: it must not inherit our open files (a caller's lock file,
  # a pipe someone waits on).
  (
    for fd in $(ls /proc/$BASHPID/fd); do
      [ "$fd" -gt 2 ] && eval "exec $fd>&-"
    done
    # shellcheck disable=SC2086
    as_pg_user env -u RUST_BACKTRACE -u RUST_LIB_BACKTRACE ${DEALCARDS_SERVER_ENV:-} "$PG_BIN/pg_ctl" -D "$data" -l "$log" -w -t 60 \
      -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60 -c max_prepared_transactions=10 ${DEALCARDS_PGOPTIONS:-}" \
      start >/dev/null
  ) || { tail -20 "$log" >&2; exit 1; }
}

case "${1:-}" in
  start) start ;;
  stop) if running; then as_pg_user "$PG_BIN/pg_ctl" -D "$data" -m fast -w stop >/dev/null; fi ;;
  restart) if running; then as_pg_user "$PG_BIN/pg_ctl" -D "$data" -m fast -w stop >/dev/null; fi; start ;;
  env)
    echo "export PGHOST=$dir PGPORT=$(cat "$dir/port") PGUSER=$PG_OS_USER PGDATA=$data PATH=$PG_BIN:\$PATH"
    ;;
  *) echo "usage: $0 start|stop|restart|env" >&2; exit 2 ;;
esac
