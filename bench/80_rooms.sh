# Card rooms' hands under pgbench, next to deal_cards on the same server (docs/card_rooms.md):
# - a nine-seat Hold'em hand: hand_start, the hole cards, the flop, the turn and the river
#   (hand_deal four times) and hand_end, each statement its own transaction, as a game server
#   sends them; hands per second, and the calls per second that makes (six a hand);
# - a blackjack shoe of eight decks drawn one card a call (hand_draw to seat 1), each draw its
#   own transaction, at a random shoe of 400 opened before: draws per second;
# - deal_cards at a random desk of 100 (bench/deal_cards.sql's desks), each deal its own
#   transaction: deals per second.
# Target: a call of a hand costs no more than a deal_cards call (calls per second at least the
# deals per second). Each figure is the median of ROOM_BENCH_ROUNDS (default 3) runs of
# ROOM_BENCH_SECONDS (default 6) seconds at 1 and 8 clients, the three taking turns; each run
# checks the cards its calls wrote.
# Sourced by scripts/bench.sh (bench/lib.sh loaded, PG* set); alone: BENCH_ONLY=80 make bench.
# shellcheck shell=bash

room_seconds=${ROOM_BENCH_SECONDS:-6}
room_rounds=${ROOM_BENCH_ROUNDS:-3}
room_dir=$(mktemp -d)
bench_sql -f "$ROOT/bench/deal_cards.sql"
cat >"$room_dir/holdem.sql" <<'SQL'
\set t random(1, 1000)
SELECT hand_start(:t, 'holdem', 9) AS h \gset
SELECT cards FROM hand_deal(:h);
SELECT cards FROM hand_deal(:h);
SELECT cards FROM hand_deal(:h);
SELECT cards FROM hand_deal(:h);
SELECT hand_end(:h);
SQL
printf '\\set h random(1, 400) + :first - 1\nSELECT cards FROM hand_draw(:h, 1);\n' >"$room_dir/shoe.sql"
printf '\\set desk random(1, 100)\nSELECT deal_cards(:desk);\n' >"$room_dir/deal.sql"

# One pgbench run: room_tps SCRIPT CLIENTS; prints transactions (scripts) per second. Checks what
# the run wrote: 26 cards a Hold'em hand, one a draw, one game a deal.
room_tps() {
  local out tps processed written first=0 threads=$(($2 < $(nproc) ? $2 : $(nproc)))
  bench_sql -c "TRUNCATE game, bid_record, note" -c "UPDATE desk SET cur_game_id = NULL" \
    -c "TRUNCATE room_hand, room_card, room_hand_key"
  if [ "$1" = shoe ]; then
    # 400 eight-deck shoes to their last card, burned and opened: 166,400 draws to take.
    bench_sql -c "SELECT count(hand_start(s, 'blackjack', 1, decks => 8, penetration => 1)) FROM generate_series(1, 400) s" \
      -c "SELECT count(*) FROM room_hand, LATERAL hand_deal(hand_id)" \
      -c "SELECT count(*) FROM room_hand, LATERAL hand_deal(hand_id)"
    first=$(psql -X -q -A -t -d "$BENCH_DB" -c "SELECT min(hand_id) FROM room_hand")
  fi
  bench_sql -c "VACUUM ANALYZE desk, desk_player, game, bid_record, note, room_hand, room_card, room_hand_key" -c "CHECKPOINT"
  out=$("$PG_BIN/pgbench" -n -M prepared -D first="$first" -f "$room_dir/$1.sql" -c "$2" -j "$threads" \
    -T "$room_seconds" "$BENCH_DB" 2>&1)
  tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' <<<"$out")
  processed=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' <<<"$out")
  case $1 in
    holdem) written=$(psql -X -q -A -t -d "$BENCH_DB" -c "SELECT count(*) / 26 FROM room_card") ;;
    shoe) written=$(psql -X -q -A -t -d "$BENCH_DB" -c "SELECT count(*) FROM room_card WHERE stage = 'play'") ;;
    deal) written=$(psql -X -q -A -t -d "$BENCH_DB" -c "SELECT count(*) FROM game") ;;
  esac
  if [ -z "$tps" ] || [ "$written" != "$processed" ]; then
    echo "rooms benchmark $1 -c $2: $written written for $processed transactions" >&2
    echo "$out" >&2
    return 1
  fi
  printf '%.0f\n' "$tps"
}

echo "### Card rooms: a nine-seat Hold'em hand and a shoe's draws against deal_cards (${room_seconds} s runs, median of ${room_rounds})"
echo
echo "| clients | Hold'em hands / s | their calls / s (6 a hand) | shoe draws / s | deal_cards / s | hand calls / deal_cards | draws / deal_cards |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
for clients in 1 8; do
  declare -A room_runs=()
  for _ in $(seq "$room_rounds"); do
    for variant in holdem shoe deal; do
      room_runs[$variant]+="$(room_tps "$variant" "$clients") "
    done
  done
  holdem=$(median 0 <<<"${room_runs[holdem]}")
  shoe=$(median 0 <<<"${room_runs[shoe]}")
  deal=$(median 0 <<<"${room_runs[deal]}")
  echo "| $clients | $holdem | $((holdem * 6)) | $shoe | $deal | $(ratio $((holdem * 6)) "$deal" 2) | $(ratio "$shoe" "$deal" 2) |"
  unset room_runs
done
echo
bench_sql -c "TRUNCATE room_hand, room_card, room_hand_key"
rm -rf "$room_dir"
