# shuffle_queue_next latency by kind of queue, next to the plain queue of the same mode and
# length, with pgbench (1 client, prepared): a queue spread by artist (groups of about 12
# tracks), a weighted random queue (weights 1 to 5) next to a plain random one, and a track put
# up next before each next (shuffle_queue_play_next then shuffle_queue_next in one transaction)
# next to next alone (four statements against one), and 400 nexts that take tracks put up next
# (one a transaction) against 400 of the plain queue. 10^3, 10^5 and 10^6 tracks, one queue of
# each kind and length, all in the tables at once. Target: each kind within 1.5 times its plain
# queue.
# Runs are interleaved, BENCH_RUNS rounds of PLAYLIST_SECONDS (default 3) each; each figure is
# the median of its runs.
# Sourced by scripts/bench.sh (bench/lib.sh loaded, PG* set).
# shellcheck shell=bash

kinds_seconds=${PLAYLIST_SECONDS:-3}
kinds_sizes="1000 100000 1000000"
kinds_dir=$(mktemp -d)
cat >"$kinds_dir/next.sql" <<'SQL'
SELECT shuffle_queue_next(:queue);
SQL
cat >"$kinds_dir/up_next.sql" <<'SQL'
\set track random(1, :tracks)
BEGIN;
SELECT shuffle_queue_play_next(:queue, ARRAY[:track]::bigint[]);
SELECT shuffle_queue_next(:queue);
COMMIT;
SQL

# kinds_new N SQL: makes a queue of N tracks with the expression SQL (where n is N) and prints
# "id milliseconds".
kinds_new() {
  local sql=${2//:n/$1} out
  out=$(psql -X -q -At -d "$BENCH_DB" -v ON_ERROR_STOP=1 -c '\timing on' -c "SELECT $sql")
  printf '%s %s\n' "$(head -1 <<<"$out")" "$(sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' <<<"$out")"
}

declare -A kinds_queue kinds_create_ms
for n in $kinds_sizes; do
  items="ARRAY(SELECT generate_series(1, :n)::bigint)"
  read -r q ms < <(kinds_new "$n" "shuffle_queue_create($items)")
  kinds_queue[shuffle,$n]=$q kinds_create_ms[shuffle,$n]=$ms
  read -r q ms < <(kinds_new "$n" "shuffle_queue_new($items,
      groups => ARRAY(SELECT 'artist ' || (g % greatest(:n / 12, 1)) FROM generate_series(1, :n) g))")
  kinds_queue[spread,$n]=$q kinds_create_ms[spread,$n]=$ms
  read -r q ms < <(kinds_new "$n" "shuffle_queue_create($items, 'random')")
  kinds_queue[random,$n]=$q kinds_create_ms[random,$n]=$ms
  read -r q ms < <(kinds_new "$n" "shuffle_queue_new($items, 'random',
      weights => ARRAY(SELECT 1 + g % 5 FROM generate_series(1, :n) g))")
  kinds_queue[weighted,$n]=$q kinds_create_ms[weighted,$n]=$ms
  read -r q ms < <(kinds_new "$n" "shuffle_queue_create($items)")
  kinds_queue[up_next,$n]=$q kinds_create_ms[up_next,$n]=$ms
done
bench_sql -c "VACUUM ANALYZE shuffle_queue, shuffle_queue_track, shuffle_queue_unit,
  shuffle_queue_member, shuffle_queue_weight, shuffle_queue_up_next"

# kinds_run KIND N SECONDS: "latency_ms tps"; a failed run fails the benchmark.
kinds_run() {
  local script=$kinds_dir/next.sql out
  [ "$1" = up_next ] && script=$kinds_dir/up_next.sql
  out=$("$PG_BIN/pgbench" -n -M prepared -f "$script" -D queue="${kinds_queue[$1,$2]}" \
    -D tracks="$2" -c 1 -j 1 -T "$3" "$BENCH_DB" 2>&1) || { echo "$out" >&2; return 1; }
  awk '/^latency average/ { l = $4 } /^tps/ { t = $3 } END { printf "%.3f %.0f\n", l, t }' <<<"$out"
}

kinds_all="shuffle spread random weighted up_next"
for n in $kinds_sizes; do
  for kind in $kinds_all; do kinds_run "$kind" "$n" 1 >/dev/null; done # warm-up
done
kinds_runs=$kinds_dir/runs
for _ in $(seq 1 "$BENCH_RUNS"); do
  for n in $kinds_sizes; do
    for kind in $kinds_all; do
      echo "$kind $n $(kinds_run "$kind" "$n" "$kinds_seconds")" >>"$kinds_runs"
    done
  done
done
kinds_latency() {
  awk -v k="$1" -v n="$2" '$1 == k && $2 == n { print $3 }' "$kinds_runs" | median 3
}

echo "### shuffle_queue_next by kind of queue: pgbench, 1 client; median of $BENCH_RUNS runs of ${kinds_seconds} s"
echo
echo "| queue | tracks | create (ms) | latency (ms) | against its plain queue |"
echo "|---|---:|---:|---:|---:|"
for n in $kinds_sizes; do
  for kind in $kinds_all; do
    case $kind in
      spread | up_next) plain=shuffle ;;
      weighted) plain=random ;;
      *) plain=$kind ;;
    esac
    latency=$(kinds_latency "$kind" "$n")
    echo "| $kind | $n | ${kinds_create_ms[$kind,$n]} | $latency | $(ratio "$latency" "$(kinds_latency "$plain" "$n")" 2)x |"
  done
done
echo
echo "(spread: by artist, about 12 tracks an artist; weighted: random play, weights 1 to 5, against"
echo "plain random play; up_next: shuffle_queue_play_next of one track, then shuffle_queue_next,"
echo "in one transaction, against next alone.)"
echo
# next taking tracks put up next, as a player takes them (one next a transaction): 400 nexts of
# the up_next queue with 500 tracks put up next before each run (the tables vacuumed), against 400
# nexts of the plain queue, the two runs taken in turn (such short runs feel every change of the
# machine's speed), at least 5 pairs.
kinds_taken=400
kinds_pairs=$((BENCH_RUNS > 5 ? BENCH_RUNS : 5))
kinds_taken_once() { # QUEUE [FILL]: the nexts' latency (ms)
  local out
  if [ -n "${2:-}" ]; then
    bench_sql -c "SELECT shuffle_queue_clear_up_next($1)" \
      -c "SELECT shuffle_queue_play_later($1, ARRAY(SELECT generate_series(1, 500)::bigint))"
  fi
  bench_sql -c "VACUUM ANALYZE shuffle_queue, shuffle_queue_track, shuffle_queue_up_next"
  out=$("$PG_BIN/pgbench" -n -M prepared -f "$kinds_dir/next.sql" -D queue="$1" -c 1 -j 1 \
    -t "$kinds_taken" "$BENCH_DB" 2>&1) || { echo "$out" >&2; return 1; }
  awk '/^latency average/ { print $4 }' <<<"$out"
}
echo "### shuffle_queue_next taking tracks up next: $kinds_taken nexts, one a transaction, median of $kinds_pairs pairs of runs"
echo
echo "| tracks | plain queue: latency (ms) | from up next: latency (ms) | up next / plain |"
echo "|---:|---:|---:|---:|"
for n in $kinds_sizes; do
  : >"$kinds_dir/plain" && : >"$kinds_dir/up"
  for _ in $(seq 1 "$kinds_pairs"); do
    kinds_taken_once "${kinds_queue[shuffle,$n]}" >>"$kinds_dir/plain"
    kinds_taken_once "${kinds_queue[up_next,$n]}" fill >>"$kinds_dir/up"
  done
  plain_ms=$(median 3 <"$kinds_dir/plain")
  up_ms=$(median 3 <"$kinds_dir/up")
  echo "| $n | $plain_ms | $up_ms | $(ratio "$up_ms" "$plain_ms" 2)x |"
done
echo

for key in "${!kinds_queue[@]}"; do
  bench_sql -c "SELECT shuffle_queue_drop(${kinds_queue[$key]})"
done
rm -rf "$kinds_dir"
