#!/usr/bin/env bash
# A throwaway Citus cluster on this machine: a coordinator and two workers of the system's
# PostgreSQL 15, each on a free port on 127.0.0.1, with the database `dealcards` (DEALCARDS_CITUS_DB)
# holding the citus and dealcards extensions on every node. Data under target/citus-cluster/.
#   citus_cluster.sh start       initdb and set up what is missing, start what is stopped
#   citus_cluster.sh stop        stop every node
#   citus_cluster.sh wipe        stop every node and delete the cluster
#   citus_cluster.sh add-worker  one more worker (worker3, worker4, ...), registered on the
#                                coordinator (for rebalancing); prints its port
#   citus_cluster.sh spare-worker  one more worker, started with citus in the database but not
#                                registered (a test adds it with citus_add_node); the same one
#                                again while it exists; prints its port
#   citus_cluster.sh plain-server  a server with the nodes' settings but without Citus, its
#                                database holding dealcards (what the cluster is measured
#                                against); prints its port
#   citus_cluster.sh env         exports: PGHOST/PGPORT/PGUSER/PGDATABASE of the coordinator,
#                                DEALCARDS_CITUS_COORDINATOR_PORT, DEALCARDS_CITUS_WORKER<n>_PORT
#   citus_cluster.sh status      each node's port and state, and the coordinator's node list
# Needs Citus (scripts/citus.sh) and dealcards (scripts/install.sh) installed in PostgreSQL 15.
# DEALCARDS_CITUS_PGOPTIONS adds server options to every node; DEALCARDS_CITUS_CLUSTER_DIR puts a
# second cluster elsewhere (a directory the servers' user can write).
source "$(dirname "$0")/common.sh"
use_pg "$SYSTEM_PG_VERSION"

DB=${DEALCARDS_CITUS_DB:-dealcards}
HOST=127.0.0.1
if [ -n "${DEALCARDS_CITUS_CLUSTER_DIR:-}" ]; then
  dir=$DEALCARDS_CITUS_CLUSTER_DIR
  mkdir -p "$dir"
  [ "$AS_ROOT" = 0 ] || chown postgres: "$dir"
else
  dir=$(server_dir citus-cluster)
fi

port_in_use() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }

# The nodes that exist: coordinator first, then the workers in order, then the plain server.
nodes() {
  local n
  [ -d "$dir/coordinator" ] && echo coordinator
  for n in $(ls -d "$dir"/worker* 2>/dev/null | sed 's|.*/worker||' | sort -n); do
    echo "worker$n"
  done
  if [ -d "$dir/plain" ]; then echo plain; fi
}

port_of() { cat "$dir/$1/port"; }

running() {
  local data=$dir/$1/data
  [ -f "$data/postmaster.pid" ] && as_pg_user "$PG_BIN/pg_ctl" -D "$data" status >/dev/null 2>&1
}

# psql on one node, as the servers' user, stopping at the first error.
node_psql() {
  local node=$1 db=$2
  shift 2
  as_pg_user "$PG_BIN/psql" -X -q -At -v ON_ERROR_STOP=1 -h "$HOST" -p "$(port_of "$node")" \
    -U "$PG_OS_USER" -d "$db" "$@"
}

free_port() {
  local port=$1 taken
  taken=" $(cat "$dir"/*/port 2>/dev/null | tr '\n' ' ') "
  while port_in_use "$port" || [[ "$taken" == *" $port "* ]]; do port=$((port + 1)); done
  echo "$port"
}

initdb_node() {
  local node=$1 data=$dir/$1/data
  mkdir -p "$dir/$node"
  [ "$AS_ROOT" = 0 ] || chown postgres: "$dir/$node"
  as_pg_user "$PG_BIN/initdb" -D "$data" -A trust -U "$PG_OS_USER" --no-sync >"$dir/$node/initdb.log" 2>&1 \
    || { cat "$dir/$node/initdb.log" >&2; exit 1; }
  # In postgresql.conf, so that a node started by hand (pg_ctl -D ... start) is the same node.
  as_pg_user tee -a "$data/postgresql.conf" >/dev/null <<EOF

# citus_cluster.sh
listen_addresses = '$HOST'
unix_socket_directories = '$dir/$node'
$([ "$node" = plain ] || echo "shared_preload_libraries = 'citus'")
max_prepared_transactions = 100
max_connections = 200
fsync = off
synchronous_commit = off
full_page_writes = off
wal_level = logical
max_replication_slots = 20
max_wal_senders = 20
log_line_prefix = '%m [%p] %d '
EOF
  # Next to the coordinator's port, for a worker added later.
  local base=${DEALCARDS_CITUS_PORT:-$(($(server_port_base) + 200))}
  [ -f "$dir/coordinator/port" ] && base=$(port_of coordinator)
  free_port "$base" >"$dir/$node/port"
}

start_node() {
  local node=$1 data=$dir/$1/data port
  running "$node" && return 0
  port=$(port_of "$node")
  if port_in_use "$port"; then
    echo "port $port of the Citus $node is taken by another program: free it, or run '$0 wipe'" >&2
    exit 1
  fi
  # The server outlives this script: it must not inherit our open files.
  (
    for fd in $(ls /proc/$BASHPID/fd); do
      [ "$fd" -gt 2 ] && eval "exec $fd>&-"
    done
    # shellcheck disable=SC2086
    as_pg_user env -u RUST_BACKTRACE -u RUST_LIB_BACKTRACE "$PG_BIN/pg_ctl" -D "$data" -l "$dir/$node/server.log" \
      -w -t 60 -o "-p $port ${DEALCARDS_CITUS_PGOPTIONS:-}" start >/dev/null
  ) || { tail -20 "$dir/$node/server.log" >&2; exit 1; }
}

stop_node() {
  if running "$1"; then as_pg_user "$PG_BIN/pg_ctl" -D "$dir/$1/data" -m fast -w stop >/dev/null; fi
}

# The database with citus on a node (it must exist before the node joins the cluster).
prepare_node_db() {
  local node=$1
  if [ -z "$(node_psql "$node" postgres -c "SELECT 1 FROM pg_database WHERE datname = '$DB'")" ]; then
    node_psql "$node" postgres -c "CREATE DATABASE $DB"
  fi
  node_psql "$node" "$DB" -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS citus"
}

check_installed() {
  local sharedir
  sharedir=$("$PG_CONFIG" --sharedir)
  if [ ! -f "$("$PG_CONFIG" --pkglibdir)/citus.so" ]; then
    echo "Citus is not installed in PostgreSQL $PG_MAJOR: run scripts/citus.sh first" >&2
    exit 3
  fi
  if [ ! -f "$sharedir/extension/dealcards.control" ]; then
    echo "dealcards is not installed in PostgreSQL $PG_MAJOR ($sharedir/extension/dealcards.control is missing): run scripts/install.sh first" >&2
    exit 1
  fi
}

start() {
  check_installed
  # A cluster whose set-up did not finish is started over.
  if [ ! -f "$dir/ready" ] && [ -n "$(nodes)" ]; then wipe; fi
  if [ ! -f "$dir/ready" ]; then
    local node
    for node in coordinator worker1 worker2; do
      initdb_node "$node"
      start_node "$node"
      prepare_node_db "$node"
    done
    node_psql coordinator "$DB" \
      -c "SELECT citus_set_coordinator_host('$HOST', $(port_of coordinator))" \
      -c "SELECT citus_add_node('$HOST', $(port_of worker1))" \
      -c "SELECT citus_add_node('$HOST', $(port_of worker2))" >/dev/null
    # Created on the coordinator, Citus creates it on every worker.
    node_psql coordinator "$DB" -c "CREATE EXTENSION dealcards"
    for node in worker1 worker2; do
      if [ -z "$(node_psql "$node" "$DB" -c "SELECT 1 FROM pg_extension WHERE extname = 'dealcards'")" ]; then
        echo "CREATE EXTENSION dealcards on the coordinator did not reach $node" >&2
        exit 1
      fi
    done
    touch "$dir/ready"
    return 0
  fi
  for node in $(nodes); do start_node "$node"; done
}

add_worker() {
  start
  local n=1
  while [ -d "$dir/worker$n" ]; do n=$((n + 1)); done
  local node=worker$n
  initdb_node "$node"
  start_node "$node"
  prepare_node_db "$node"
  node_psql coordinator "$DB" -c "SELECT citus_add_node('$HOST', $(port_of "$node"))" >/dev/null
  node_psql "$node" "$DB" -c "SELECT extversion FROM pg_extension WHERE extname = 'dealcards'" | grep -q . \
    || { echo "dealcards did not reach the new $node" >&2; exit 1; }
  echo "$node on port $(port_of "$node")"
}

spare_worker() {
  start
  local node n=1
  for node in $(nodes | grep worker); do
    if [ -f "$dir/$node/spare" ]; then
      prepare_node_db "$node"
      port_of "$node"
      return 0
    fi
  done
  while [ -d "$dir/worker$n" ]; do n=$((n + 1)); done
  node=worker$n
  initdb_node "$node"
  start_node "$node"
  prepare_node_db "$node"
  touch "$dir/$node/spare"
  port_of "$node"
}

plain_server() {
  check_installed
  [ -d "$dir/plain/data" ] || initdb_node plain
  start_node plain
  if [ -z "$(node_psql plain postgres -c "SELECT 1 FROM pg_database WHERE datname = '$DB'")" ]; then
    node_psql plain postgres -c "CREATE DATABASE $DB"
  fi
  node_psql plain "$DB" -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS dealcards"
  port_of plain
}

stop() {
  local node
  for node in $(nodes | tac); do stop_node "$node"; done
}

wipe() {
  stop
  rm -rf "${dir:?}"/coordinator "$dir"/worker* "$dir/plain" "$dir/ready"
}

env_exports() {
  [ -f "$dir/ready" ] || { echo "no Citus cluster: run '$0 start'" >&2; exit 1; }
  local node line
  line="export PGHOST=$HOST PGPORT=$(port_of coordinator) PGUSER=$PG_OS_USER PGDATABASE=$DB"
  line+=" DEALCARDS_CITUS_DB=$DB DEALCARDS_CITUS_HOST=$HOST DEALCARDS_CITUS_COORDINATOR_PORT=$(port_of coordinator)"
  for node in $(nodes | grep worker); do
    line+=" DEALCARDS_CITUS_${node^^}_PORT=$(port_of "$node")"
  done
  echo "$line DEALCARDS_CITUS_LOGS=$dir PATH=$PG_BIN:\$PATH"
}

status() {
  local node
  for node in $(nodes); do
    if running "$node"; then
      echo "$node: running on $HOST:$(port_of "$node") ($dir/$node)"
    else
      echo "$node: stopped ($dir/$node)"
    fi
  done
  if [ -f "$dir/ready" ] && running coordinator; then
    node_psql coordinator "$DB" -P footer=off -F ' ' \
      -c "SELECT 'node ' || nodeid, nodename || ':' || nodeport, CASE WHEN groupid = 0 THEN 'coordinator' ELSE 'worker' END, CASE WHEN isactive THEN 'active' ELSE 'inactive' END FROM pg_dist_node ORDER BY nodeid"
  fi
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  wipe) wipe ;;
  add-worker) add_worker ;;
  spare-worker) spare_worker ;;
  plain-server) plain_server ;;
  env) env_exports ;;
  status) status ;;
  *) echo "usage: $0 start|stop|wipe|add-worker|spare-worker|plain-server|env|status" >&2; exit 2 ;;
esac
