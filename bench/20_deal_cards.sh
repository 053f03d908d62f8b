# deal_cards(desk) under pgbench: deals per second with 1 and 8 clients, each transaction one
# deal at a random desk of 100, next to (a) the SQL Server dealCards procedure ported to
# PL/pgSQL and (b) the same writes with fixed hands; (b) without its NOTIFY shows what
# Postgres's commit-time serialization of notifying transactions costs. The same runs deal at
# 100 other desks in provably fair mode, for the cost of the protocol (docs/provably_fair.md), as
# the owner and as a game server with the documented grants (which is not the house: its deals
# are kept unseen in their transaction).
# Each figure is the median of DEAL_BENCH_ROUNDS (default 3) runs of DEAL_BENCH_SECONDS
# (default 6) seconds; the variants
# take turns within a round, and every run starts from empty game, bid_record and note tables.
# shellcheck shell=bash
bench_sql -f "$ROOT/bench/deal_cards.sql"

deal_seconds=${DEAL_BENCH_SECONDS:-6}
deal_rounds=${DEAL_BENCH_ROUNDS:-3}
deal_dir=$(mktemp -d)
deal_script() { printf '\\set desk random(%s)\n%s\n' "${3:-1, 100}" "$2" >"$deal_dir/$1.sql"; }
deal_script deal_cards 'SELECT deal_cards(:desk);'
deal_script fair 'SELECT deal_cards(:desk);' '101, 200'
deal_script server 'SELECT deal_cards(:desk);'
deal_script fair_server 'SELECT deal_cards(:desk);' '101, 200'
deal_script ported 'CALL ported_deal_cards(:desk, NULL);'
deal_script fixed 'CALL fixed_hands_deal(:desk);'
deal_script fixed_silent 'CALL fixed_hands_deal(:desk, false);'

# Deals per second of one pgbench run: deal_tps SCRIPT CLIENTS. Checks that the tables hold one
# game per transaction pgbench counted. The scripts server and fair_server run as the game server.
deal_tps() {
  local user=()
  case $1 in server | fair_server) user=(-U dealcards_bench_server) ;; esac
  local out tps processed games threads=$(($2 < $(nproc) ? $2 : $(nproc)))
  bench_sql -c "TRUNCATE game, bid_record, note" -c "UPDATE desk SET cur_game_id = NULL" \
    -c "VACUUM ANALYZE desk, desk_player, game, bid_record, note" -c "CHECKPOINT"
  out=$("$PG_BIN/pgbench" -n -M prepared "${user[@]}" -f "$deal_dir/$1.sql" -c "$2" -j "$threads" \
    -T "$deal_seconds" "$BENCH_DB" 2>&1)
  tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' <<<"$out")
  processed=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' <<<"$out")
  games=$(psql -X -q -A -t -d "$BENCH_DB" -c "SELECT count(*) FROM game")
  if [ -z "$tps" ] || [ "$games" != "$processed" ]; then
    echo "deal benchmark $1 -c $2: $games games for $processed transactions" >&2
    echo "$out" >&2
    return 1
  fi
  printf '%.0f\n' "$tps"
}

echo "### deal_cards(desk): deals per second under pgbench (100 desks, ${deal_seconds} s runs, median of ${deal_rounds})"
echo
echo "| clients | deal_cards | (a) dealCards in PL/pgSQL | (b) fixed hands floor | deal_cards / (a) | deal_cards / (b) | (b) without NOTIFY |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
fair_rows=()
for clients in 1 8; do
  declare -A deal_runs=()
  for _ in $(seq "$deal_rounds"); do
    for variant in deal_cards fair server fair_server ported fixed fixed_silent; do
      deal_runs[$variant]+="$(deal_tps "$variant" "$clients") "
    done
  done
  for variant in deal_cards fair server fair_server ported fixed fixed_silent; do
    declare "deal_${variant}=$(median 0 <<<"${deal_runs[$variant]}")"
  done
  # shellcheck disable=SC2154
  echo "| $clients | $deal_deal_cards | $deal_ported | $deal_fixed | $(ratio "$deal_deal_cards" "$deal_ported") | $(ratio "$deal_deal_cards" "$deal_fixed" 2) | $deal_fixed_silent |"
  # shellcheck disable=SC2154
  fair_rows+=("| $clients | $deal_deal_cards | $deal_fair | $(ratio "$deal_fair" "$deal_deal_cards" 2) | $deal_server | $deal_fair_server | $(ratio "$deal_fair_server" "$deal_server" 2) |")
  unset deal_runs
done
echo
echo "### deal_cards in provably fair mode: deals per second, the same runs (100 other desks)"
echo
echo "| clients | deal_cards (owner) | provably fair (owner) | fair / normal | deal_cards (game server) | provably fair (game server) | fair / normal |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
printf '%s\n' "${fair_rows[@]}"
echo
rm -rf "$deal_dir"

# The cost of the other way to keep deal_cards on its own tables: the same function declared with
# SET search_path, which Postgres sets and restores around every call. Measured per call inside
# one statement, where no commit or network round trip hides it; the two take turns, each timed
# on its second statement on a fresh connection, from freshly vacuumed tables.
deal_per_call() {
  bench_sql -c "TRUNCATE game, bid_record, note" -c "VACUUM desk"
  psql -X -q -d "$BENCH_DB" -v ON_ERROR_STOP=1 -c '\timing on' \
    -c "SELECT count($1(1 + s % 100)) FROM generate_series(1, 2000) s" \
    -c "SELECT count($1(1 + s % 100)) FROM generate_series(1, 2000) s" |
    sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -1 | awk '{ printf "%.1f\n", $1 * 1000 / 2000 }'
}
deal_plain_runs="" deal_pinned_runs=""
for _ in $(seq "$BENCH_RUNS"); do
  deal_plain_runs+="$(deal_per_call deal_cards) "
  deal_pinned_runs+="$(deal_per_call deal_cards_with_search_path) "
done
deal_plain=$(tr ' ' '\n' <<<"$deal_plain_runs" | grep . | sort -g | awk '{ a[NR] = $1 } END { printf "%.1f", a[int((NR + 1) / 2)] }')
deal_pinned=$(tr ' ' '\n' <<<"$deal_pinned_runs" | grep . | sort -g | awk '{ a[NR] = $1 } END { printf "%.1f", a[int((NR + 1) / 2)] }')
echo "### deal_cards: microseconds per call within one statement (2000 deals, median of $BENCH_RUNS)"
echo
echo "| deal_cards (schema-qualified statements) | the same with SET search_path | difference |"
echo "|---:|---:|---:|"
echo "| $deal_plain | $deal_pinned | $(awk -v a="$deal_plain" -v b="$deal_pinned" 'BEGIN { printf "%+.1f (%+.0f%%)", b - a, (b - a) * 100 / a }') |"
echo
