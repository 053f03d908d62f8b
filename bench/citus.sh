# dealcards on a Citus cluster of one machine (a coordinator and two workers), next to a plain
# PostgreSQL server on the same machine: deal_cards(desk) under pgbench with 1 and 8 clients, each
# transaction one deal at a random desk of 100, and beside it on the cluster the deal a Citus user
# would write by hand (bench/citus_baseline.sql); then shuffle_queue_next with one client over 100
# queues of 100 tracks. Each figure is the median of CITUS_BENCH_ROUNDS (default 3) runs of
# CITUS_BENCH_SECONDS (default 10) seconds; the variants take turns within a round. Deal runs
# start from empty game, bid_record and note tables and are checked afterwards: one game, two
# bids and one note per transaction pgbench counted.
# Sourced by scripts/bench_citus.sh, with PGHOST/PGPORT/PGUSER/PGDATABASE naming the cluster's
# coordinator (scripts/citus_cluster.sh env) and PLAIN_PORT the plain server
# (scripts/citus_cluster.sh plain-server), whose database of the same name holds the extension.
# shellcheck shell=bash
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"

citus_seconds=${CITUS_BENCH_SECONDS:-10}
citus_rounds=${CITUS_BENCH_ROUNDS:-3}
citus_dir=$(mktemp -d)

# Where each target is: port and database, and the ports of all its servers (for CHECKPOINT).
declare -A target_port=([citus]=$PGPORT [plain]=$PLAIN_PORT)
declare -A target_db=([citus]=$PGDATABASE [plain]=$PGDATABASE)
declare -A target_nodes=(
  [citus]="$DEALCARDS_CITUS_COORDINATOR_PORT $DEALCARDS_CITUS_WORKER1_PORT $DEALCARDS_CITUS_WORKER2_PORT"
  [plain]=$PLAIN_PORT
)

# psql on a target's database: on TARGET ARGS...
on() {
  local target=$1
  shift
  "$PG_BIN/psql" -X -q -A -t -h 127.0.0.1 -p "${target_port[$target]}" -d "${target_db[$target]}" \
    -v ON_ERROR_STOP=1 "$@"
}

# Desks 1 to 100 of three players each and 100 shuffle queues of tracks 1 to 100, on each target;
# on the cluster they are then distributed (the one documented step, which moves the rows into
# the shards), and the hand-written deal is created and distributed with them.
for target in plain citus; do
  on "$target" -c "INSERT INTO desk (desk_id) SELECT d FROM generate_series(1, 100) d" \
    -c "INSERT INTO desk_player (desk_id, player_no, player_id)
        SELECT d, s, d * 10 + s FROM generate_series(1, 100) d, generate_series(1, 3) s" \
    -c "SELECT count(shuffle_queue_create(ARRAY(SELECT t::bigint FROM generate_series(1, 100) t)))
          FROM generate_series(1, 100)" >/dev/null
done
on citus -c "SET client_min_messages = warning" -c "SELECT count(*) FROM dealcards_distribute()" >/dev/null
on citus -f "$ROOT/bench/citus_baseline.sql" >/dev/null

# The pgbench scripts: TARGET_VARIANT.sql
for target in plain citus; do
  printf '\\set desk random(1, 100)\nSELECT deal_cards(:desk);\n' >"$citus_dir/${target}_deal_cards.sql"
  # The queues' ids: 100 in a row (on the cluster too, created on the coordinator).
  read -r queue_lo queue_hi <<<"$(on "$target" -F ' ' -c "SELECT min(queue_id), max(queue_id) FROM shuffle_queue HAVING count(*) = 100 AND max(queue_id) - min(queue_id) = 99")"
  if [ -z "${queue_hi:-}" ]; then
    echo "Citus benchmark: the 100 shuffle queues on $target do not have consecutive ids" >&2
    exit 1
  fi
  printf '\\set queue random(%s, %s)\nSELECT shuffle_queue_next(:queue);\n' "$queue_lo" "$queue_hi" \
    >"$citus_dir/${target}_queue.sql"
done
printf '\\set desk random(1, 100)\nSELECT baseline_deal(:desk);\n' >"$citus_dir/citus_baseline.sql"

# Flushes every server of a target, so that no checkpoint falls into the next run.
checkpoint() {
  local port
  for port in ${target_nodes[$1]}; do
    "$PG_BIN/psql" -X -q -h 127.0.0.1 -p "$port" -d postgres -v ON_ERROR_STOP=1 -c "CHECKPOINT"
  done
}

# One pgbench run: citus_pgbench TARGET SCRIPT CLIENTS; prints pgbench's report.
citus_pgbench() {
  local threads=$(($3 < $(nproc) ? $3 : $(nproc)))
  "$PG_BIN/pgbench" -n -M prepared -f "$citus_dir/$1_$2.sql" -c "$3" -j "$threads" -T "$citus_seconds" \
    -h 127.0.0.1 -p "${target_port[$1]}" "${target_db[$1]}" 2>&1 \
    || { echo "Citus benchmark: pgbench $1 $2 -c $3 failed" >&2; return 1; }
}

# Deals per second of one run: citus_deal_tps TARGET VARIANT CLIENTS. Checks that the tables hold
# one game, two opening bids and one note per transaction pgbench counted.
citus_deal_tps() {
  local out tps processed counts
  on "$1" -c "TRUNCATE game, bid_record, note" -c "UPDATE desk SET cur_game_id = NULL" \
    -c "VACUUM ANALYZE desk, desk_player, game, bid_record, note"
  checkpoint "$1"
  out=$(citus_pgbench "$1" "$2" "$3") || { echo "$out" >&2; return 1; }
  tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' <<<"$out")
  processed=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' <<<"$out")
  counts=$(on "$1" -F ' ' -c "SELECT (SELECT count(*) FROM game), (SELECT count(*) FROM bid_record) / 2, (SELECT count(*) FROM note)")
  if [ -z "$tps" ] || [ "$counts" != "$processed $processed $processed" ]; then
    echo "Citus benchmark $1 $2 -c $3: games, bid pairs, notes $counts for $processed transactions" >&2
    echo "$out" >&2
    return 1
  fi
  printf '%.0f\n' "$tps"
}

# Average latency in ms and steps per second of one shuffle_queue_next run on TARGET, 1 client.
# Checks that every queue still holds its 100 tracks once each.
citus_queue_run() {
  local out latency tps whole
  on "$1" -c "VACUUM ANALYZE shuffle_queue, shuffle_queue_track"
  checkpoint "$1"
  out=$(citus_pgbench "$1" queue 1) || { echo "$out" >&2; return 1; }
  latency=$(sed -n 's/^latency average = \([0-9.]*\) ms.*/\1/p' <<<"$out")
  tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' <<<"$out")
  whole=$(on "$1" -c "SELECT count(*) FROM (SELECT queue_id FROM shuffle_queue_track GROUP BY queue_id
    HAVING count(*) = 100 AND count(DISTINCT track) = 100 AND min(track) = 1 AND max(track) = 100) q")
  if [ -z "$latency" ] || [ -z "$tps" ] || [ "$whole" != 100 ]; then
    echo "Citus benchmark $1 queue: $whole of 100 queues whole after the run" >&2
    echo "$out" >&2
    return 1
  fi
  echo "$latency $tps"
}

# The median of the numbers on stdin, with DECIMALS decimals: citus_median DECIMALS
citus_median() {
  sort -g | awk -v d="$1" '{ a[NR] = $1 } END { m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; printf "%.*f\n", d, m }'
}

echo "### deal_cards on Citus: deals per second under pgbench (coordinator and 2 workers on one machine; 100 desks, ${citus_seconds} s runs, median of ${citus_rounds})"
echo
echo "| clients | deal_cards, plain server | deal_cards, Citus | hand-written PL/pgSQL deal, Citus | Citus / plain | deal_cards / hand-written, Citus |"
echo "|---:|---:|---:|---:|---:|---:|"
citus_variants=(plain:deal_cards citus:deal_cards citus:baseline)
citus_target_ratios=()
for clients in 1 8; do
  declare -A citus_runs=()
  for _ in $(seq "$citus_rounds"); do
    for variant in "${citus_variants[@]}"; do
      citus_runs[$variant]+="$(citus_deal_tps "${variant%%:*}" "${variant#*:}" "$clients") "
    done
  done
  declare -A citus_tps=()
  for variant in "${citus_variants[@]}"; do
    citus_tps[$variant]=$(tr ' ' '\n' <<<"${citus_runs[$variant]}" | grep . | citus_median 0)
  done
  citus_vs_baseline=$(ratio "${citus_tps[citus:deal_cards]}" "${citus_tps[citus:baseline]}" 2)
  citus_target_ratios+=("$clients client$([ "$clients" = 1 ] || echo s): $citus_vs_baseline")
  echo "| $clients | ${citus_tps[plain:deal_cards]} | ${citus_tps[citus:deal_cards]} | ${citus_tps[citus:baseline]} | $(ratio "${citus_tps[citus:deal_cards]}" "${citus_tps[plain:deal_cards]}" 2) | $citus_vs_baseline |"
  unset citus_runs citus_tps
done
echo
citus_met=yes
for r in "${citus_target_ratios[@]}"; do
  awk -v r="${r##*: }" 'BEGIN { exit !(r < 1) }' && citus_met=no
done
echo "Target, deal_cards at least as fast as the hand-written deal on the cluster: $citus_met ($(printf '%s, ' "${citus_target_ratios[@]}" | sed 's/, $//'))."
echo "On one machine the extra hop between coordinator and worker dominates: each deal is a round trip"
echo "from the coordinator to the worker that holds the desk (the call is delegated there whole, one"
echo "single-shard transaction), and the three servers share the machine's $(nproc) cores with pgbench, so the"
echo "cluster deals slower than one plain server. Workers on machines of their own add throughput instead."
echo

echo "### shuffle_queue_next on Citus: one client over 100 queues of 100 tracks (${citus_seconds} s runs, median of ${citus_rounds})"
echo
declare -A citus_queue=()
for _ in $(seq "$citus_rounds"); do
  for target in plain citus; do
    citus_queue[$target]+="$(citus_queue_run "$target");"
  done
done
echo "| server | latency average (ms) | steps per second |"
echo "|---|---:|---:|"
for target in plain citus; do
  declare "citus_latency_$target=$(tr ';' '\n' <<<"${citus_queue[$target]}" | grep . | cut -d' ' -f1 | citus_median 3)"
  declare "citus_steps_$target=$(tr ';' '\n' <<<"${citus_queue[$target]}" | grep . | cut -d' ' -f2 | citus_median 0)"
done
# shellcheck disable=SC2154
echo "| plain server | $citus_latency_plain | $citus_steps_plain |"
# shellcheck disable=SC2154
echo "| Citus (coordinator and 2 workers) | $citus_latency_citus | $citus_steps_citus |"
echo
echo "On the cluster a step takes $(ratio "$citus_latency_citus" "$citus_latency_plain" 1) times as long as on the plain server: the same extra hop."
echo
rm -rf "$citus_dir"
