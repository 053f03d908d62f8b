#!/usr/bin/env bash
# A throwaway PostgreSQL cluster of the project's own, on a free port.
#   cluster.sh start   initdb if needed, start if not running; prints nothing else
#   cluster.sh stop    stop it
#   cluster.sh env     print PGHOST/PGPORT/PGUSER exports for it
source "$(dirname "$0")/common.sh"

dir=$(server_dir pgcluster)
data=$dir/data
log=$dir/server.log

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

running() { [ -f "$data/postmaster.pid" ] && as_pg_user "$PG_BIN/pg_ctl" -D "$data" status >/dev/null 2>&1; }

start() {
  if [ ! -f "$data/PG_VERSION" ]; then
    as_pg_user "$PG_BIN/initdb" -D "$data" -A trust -U "$PG_OS_USER" --no-sync >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; exit 1; }
  fi
  if running; then return 0; fi
  local port=${DEALCARDS_PGPORT:-54315}
  while port_in_use "$port"; do port=$((port + 1)); done
  echo "$port" >"$dir/port"
  # The server outlives this script: it must not inherit our open files (a caller's lock file,
  # a pipe someone waits on). And without RUST_BACKTRACE, as on a user's server, errors carry
  # no Rust backtrace.
  (
    for fd in $(ls /proc/$BASHPID/fd); do
      [ "$fd" -gt 2 ] && eval "exec $fd>&-"
    done
    as_pg_user env -u RUST_BACKTRACE -u RUST_LIB_BACKTRACE "$PG_BIN/pg_ctl" -D "$data" -l "$log" -w -t 60 \
      -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60 ${DEALCARDS_PGOPTIONS:-}" \
      start >/dev/null
  ) || { tail -20 "$log" >&2; exit 1; }
}

case "${1:-}" in
  start) start ;;
  stop) if running; then as_pg_user "$PG_BIN/pg_ctl" -D "$data" -m fast -w stop >/dev/null; fi ;;
  restart) if running; then as_pg_user "$PG_BIN/pg_ctl" -D "$data" -m fast -w stop >/dev/null; fi; start ;;
  env)
    echo "export PGHOST=$dir PGPORT=$(cat "$dir/port") PGUSER=$PG_OS_USER PGDATA=$data"
    ;;
  *) echo "usage: $0 start|stop|restart|env" >&2; exit 2 ;;
esac
