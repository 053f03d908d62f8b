# shuffle_queue_next latency with pgbench: 1 and 8 clients, each client on a queue of its own,
# for queues of 10, 10,000 and 1,000,000 tracks (8 queues of each length, all in the table at
# once, so every length is measured against the same 8 million rows). Target: next on a
# 1,000,000-track queue within 1.5 times next on a 10-track queue.
# The machine may be shared: runs of the three lengths are interleaved, BENCH_RUNS rounds of
# PLAYLIST_SECONDS (default 3) each, and each figure is the median of its runs.
# Sourced by scripts/bench.sh (bench/lib.sh loaded, PG* set).
# shellcheck shell=bash

playlist_seconds=${PLAYLIST_SECONDS:-3}
playlist_pgbench=$PG_BIN/pgbench
playlist_script=$(mktemp)
cat >"$playlist_script" <<'SQL'
\set queue :base + :client_id
SELECT shuffle_queue_next(:queue);
SQL

# playlist_pgbench_next BASE CLIENTS SECONDS: "latency_ms tps" of next on queues
# BASE .. BASE + CLIENTS - 1; a failed run (pgbench stops on any error) fails the benchmark.
playlist_pgbench_next() {
  local out
  out=$("$playlist_pgbench" -n -M prepared -f "$playlist_script" -D base="$1" -c "$2" \
    -j "$(($2 < 2 ? $2 : 2))" -T "$3" "$BENCH_DB" 2>&1) || { echo "$out" >&2; return 1; }
  awk '/^latency average/ { l = $4 } /^tps/ { t = $3 } END { printf "%.3f %.0f\n", l, t }' <<<"$out"
}

declare -A playlist_base playlist_create_ms
for n in 10 10000 1000000; do
  # The first queue of each length alone, timed: what creating a playlist costs.
  ms=$(psql -X -q -At -d "$BENCH_DB" -v ON_ERROR_STOP=1 -c '\timing on' \
    -c "SELECT shuffle_queue_create(ARRAY(SELECT generate_series(1, $n)::bigint))" |
    sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p')
  base=$(psql -X -q -At -d "$BENCH_DB" -v ON_ERROR_STOP=1 -c "SELECT max(queue_id) FROM shuffle_queue")
  psql -X -q -At -d "$BENCH_DB" -v ON_ERROR_STOP=1 \
    -c "SELECT shuffle_queue_create(ARRAY(SELECT generate_series(1, $n)::bigint)) FROM generate_series(1, 7)" >/dev/null
  last=$(psql -X -q -At -d "$BENCH_DB" -v ON_ERROR_STOP=1 -c "SELECT max(queue_id) FROM shuffle_queue")
  [ "$((last - base))" = 7 ] || { echo "queues of $n tracks are not numbered $base..$((base + 7))" >&2; exit 1; }
  playlist_base[$n]=$base
  playlist_create_ms[$n]=$ms
done
bench_sql -c "VACUUM ANALYZE shuffle_queue, shuffle_queue_track"

for n in 10 10000 1000000; do
  playlist_pgbench_next "${playlist_base[$n]}" 8 2 >/dev/null # warm-up
done
playlist_runs=$(mktemp)
for _ in $(seq 1 "$BENCH_RUNS"); do
  for clients in 1 8; do
    for n in 10 10000 1000000; do
      run=$(playlist_pgbench_next "${playlist_base[$n]}" "$clients" "$playlist_seconds")
      echo "$n $clients $run" >>"$playlist_runs"
    done
  done
done
# playlist_figure N CLIENTS COLUMN: the median of a column (3: latency, 4: tps) over the runs.
playlist_figure() {
  awk -v n="$1" -v c="$2" -v k="$3" '$1 == n && $2 == c { print $k }' "$playlist_runs" | median 3
}

echo "### shuffle_queue_next: pgbench, each client on its own queue; median of $BENCH_RUNS runs of ${playlist_seconds} s"
echo
echo "| tracks per queue | create one queue (ms) | 1 client: latency (ms) | 1 client: tps | 8 clients: latency (ms) | 8 clients: tps |"
echo "|---:|---:|---:|---:|---:|---:|"
for n in 10 10000 1000000; do
  echo "| $n | ${playlist_create_ms[$n]} | $(playlist_figure "$n" 1 3) | $(playlist_figure "$n" 1 4 | cut -d. -f1) | $(playlist_figure "$n" 8 3) | $(playlist_figure "$n" 8 4 | cut -d. -f1) |"
done
echo
echo "$(psql -X -q -At -d "$BENCH_DB" -c "SELECT format('The tape table holds %s tracks in %s with its indexes; shared_buffers is %s.', (SELECT sum(tracks) FROM shuffle_queue), pg_size_pretty(pg_total_relation_size('shuffle_queue_track')), current_setting('shared_buffers'))")"
echo
echo "next on 1,000,000 tracks / next on 10 tracks (target at most 1.5): 1 client $(ratio "$(playlist_figure 1000000 1 3)" "$(playlist_figure 10 1 3)" 2)x, 8 clients $(ratio "$(playlist_figure 1000000 8 3)" "$(playlist_figure 10 8 3)" 2)x"
echo
rm -f "$playlist_runs"
for n in 10 10000 1000000; do
  bench_sql -c "SELECT shuffle_queue_drop(q) FROM generate_series(${playlist_base[$n]}, ${playlist_base[$n]} + 7) q"
done
rm -f "$playlist_script"
