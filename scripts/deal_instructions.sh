#!/usr/bin/env bash
# Instructions per deal_cards call, counted by valgrind's callgrind in the backend that deals:
# a measure the machine's load does not move, where deals per second swing with whatever else
# runs. The PostgreSQL of PG_VERSION (default 15) runs under callgrind, on the data directory of
# scripts/cluster.sh (stopped first, left stopped: `scripts/cluster.sh start` brings it back);
# the installed build is measured (scripts/install.sh first). For each variant, the desks of
# bench/deal_cards.sql, one session deals once at each of its 100 desks and then FEW more times,
# another the same and then MANY more times, at random desks, each deal its own transaction
# (a prepared SELECT deal_cards, as pgbench -M prepared runs it); the difference of the two
# sessions' counts over MANY - FEW deals leaves out the connection, its first plans and the
# backend's first look at each desk. The variants: an ordinary deal and a provably fair one, as
# the tables' owner and as the game server with the documented grants.
#   DEAL_INSTRUCTIONS_FEW (default 50), DEAL_INSTRUCTIONS_MANY (default 350)
# Valgrind's CPU has no SHA extensions: SHA-256 runs in software under it, where the optimized
# build uses the SHA instructions of a CPU that has them, so the provably fair counts are higher
# than the instructions such a CPU runs.
source "$(dirname "$0")/common.sh"
cd "$ROOT"
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
few=${DEAL_INSTRUCTIONS_FEW:-50}
many=${DEAL_INSTRUCTIONS_MANY:-350}

"$ROOT/scripts/cluster.sh" start
eval "$("$ROOT/scripts/cluster.sh" env)"
fresh_database dealcards_bench
psql -X -q -d dealcards_bench -v ON_ERROR_STOP=1 -f bench/deal_cards.sql >/dev/null
# The desk table as dealing leaves it (its rows updated by every deal), not as freshly loaded:
# on two pages the planner reads it whole where it takes the key on a table in use.
psql -X -q -d dealcards_bench -v ON_ERROR_STOP=1 \
  -c "SELECT count(deal_cards(1 + s % 200)) FROM generate_series(0, 19999) s" \
  -c "TRUNCATE game, bid_record, note" -c "VACUUM ANALYZE desk, desk_player, game, bid_record, note" >/dev/null
"$ROOT/scripts/cluster.sh" stop

dir=$(server_dir "pgcluster-$PG_MAJOR")
out=$(server_dir "callgrind-$PG_MAJOR")
rm -f "$out"/cg.* "$out"/*.pid
as_pg_user valgrind --tool=callgrind --trace-children=yes --callgrind-out-file="$out/cg.%p" \
  "$PG_BIN/postgres" -D "$dir/data" -p "$PGPORT" -k "$dir" -c listen_addresses=127.0.0.1 \
  -c fsync=off -c autovacuum=off >"$out/server.log" 2>&1 &
server=$!
stop_server() { as_pg_user "$PG_BIN/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true; wait "$server" || true; }
trap stop_server EXIT
for _ in $(seq 120); do grep -q "ready to accept connections" "$out/server.log" && break; sleep 1; done

# Instructions of one session: ir VARIANT DEALS
ir() {
  local user=postgres first=1 script="$out/session.sql" pid
  case $1 in server | fair_server) user=dealcards_bench_server ;; esac
  case $1 in fair | fair_server) first=101 ;; esac
  [ "$AS_ROOT" = 1 ] || user=${user/postgres/$PGUSER}
  {
    echo "SELECT pg_backend_pid() \\g $out/session.pid"
    echo "PREPARE d(int) AS SELECT deal_cards(\$1);"
    for i in $(seq 0 99); do echo "EXECUTE d($((first + i)));"; done
    RANDOM=7
    for _ in $(seq "$2"); do echo "EXECUTE d($((first + RANDOM % 100)));"; done
  } >"$script"
  psql -X -q -d dealcards_bench -v ON_ERROR_STOP=1 -c "TRUNCATE game, bid_record, note" \
    -c "UPDATE desk SET cur_game_id = NULL" -c "VACUUM ANALYZE desk, desk_player, game, bid_record, note" >/dev/null
  psql -X -q -A -t -U "$user" -d dealcards_bench -v ON_ERROR_STOP=1 -f "$script" >/dev/null
  pid=$(tr -d '[:space:]' <"$out/session.pid")
  # callgrind writes the file as the backend exits.
  for _ in $(seq 120); do grep -q '^totals:' "$out/cg.$pid" 2>/dev/null && break; sleep 0.5; done
  sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$out/cg.$pid"
}

echo "### deal_cards: instructions per deal (callgrind, $((many - few)) deals, PostgreSQL $("$PG_CONFIG" --version | cut -d' ' -f2))"
echo
echo "| who deals | ordinary | provably fair | ordinary / provably fair |"
echo "|---|---:|---:|---:|"
declare -A per_deal=()
for variant in deal_cards fair server fair_server; do
  low=$(ir "$variant" "$few")
  high=$(ir "$variant" "$many")
  per_deal[$variant]=$(((high - low) / (many - few)))
done
for who in owner server; do
  normal=${per_deal[deal_cards]} fair=${per_deal[fair]}
  [ "$who" = owner ] || normal=${per_deal[server]} fair=${per_deal[fair_server]}
  label="the tables' owner"
  [ "$who" = owner ] || label="the game server"
  echo "| $label | $normal | $fair | $(awk -v a="$normal" -v b="$fair" 'BEGIN { printf "%.3f", a / b }') |"
done
echo
