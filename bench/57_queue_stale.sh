# A queue from its first step in a server's real state: the queue tables hold 200 queues of 50
# tracks of every kind, each stepped 150 times, analyzed then and never again (autovacuum off on
# them, so that to the planner a new queue has no rows). Then, per kind, a new queue of 100,000
# tracks: its first next at once (ms, one psql statement) and pgbench's next latency right after
# (1 client, prepared, STALE_SECONDS, default 3), next to the latency of a 10-track queue of the
# same kind made alike. Then queues of 1,000, 100,000 and 1,000,000 tracks by artists and
# albums (groups and subgroups, 50 and 12.5 tracks each): each one's creation (ms and µs a
# track) and size in the tables; the largest's first next, a next, upcoming(500) and a save
# (ms), and pgbench's next latency on it against the 1,000-track queue's. Then paging: a queue
# of 100,000 tracks by artist looked at 500 tracks at a time to its end (upcoming with offsets
# 0, 500, ...): the time of all the pages and of the slowest. Autovacuum is set back on at the
# end.
# Sourced by scripts/bench.sh (bench/lib.sh loaded, PG* set).
# shellcheck shell=bash

stale_seconds=${STALE_SECONDS:-3}
stale_tables="shuffle_queue shuffle_queue_track shuffle_queue_unit shuffle_queue_member
  shuffle_queue_up_next shuffle_queue_skipped shuffle_queue_weight shuffle_queue_play
  shuffle_queue_ahead"
stale_dir=$(mktemp -d)
printf 'SELECT shuffle_queue_next(:queue);\n' >"$stale_dir/next.sql"

bench_sql -c "SELECT count(shuffle_queue_drop(queue_id)) FROM shuffle_queue" \
  -c "SELECT shuffle_queue_new(ARRAY(SELECT (k * 100 + i)::bigint FROM generate_series(1, 50) i),
        mode => CASE WHEN k % 4 = 1 THEN 'random' ELSE 'shuffle' END,
        \"window\" => CASE WHEN k % 4 = 1 THEN 10 END,
        groups => CASE WHEN k % 4 = 2 THEN ARRAY(SELECT 'a' || (i % 7) FROM generate_series(1, 50) i) END,
        weights => CASE WHEN k % 4 = 1 AND k % 8 = 5 THEN ARRAY(SELECT 1 + i % 5 FROM generate_series(1, 50) i) END,
        listener => CASE WHEN k % 5 = 0 THEN k END)
      FROM generate_series(1, 200) k" \
  -c "SELECT count(shuffle_queue_next(q)) FROM generate_series(1, 200) q, generate_series(1, 150)" \
  -c "ANALYZE"
for t in $stale_tables; do bench_sql -c "ALTER TABLE $t SET (autovacuum_enabled = false)"; done

# stale_new N OPTIONS: a queue of N tracks with the shuffle_queue_new options given (:n is N).
stale_new() {
  psql -X -q -At -d "$BENCH_DB" -v ON_ERROR_STOP=1 \
    -c "SELECT shuffle_queue_new(ARRAY(SELECT i::bigint FROM generate_series(1, $1) i)${2//:n/$1})"
}
# stale_latency QUEUE: pgbench's average next latency in ms.
stale_latency() {
  "$PG_BIN/pgbench" -n -M prepared -f "$stale_dir/next.sql" -D queue="$1" -c 1 -j 1 \
    -T "$stale_seconds" "$BENCH_DB" 2>&1 | sed -n 's/^latency average = \([0-9.]*\) ms$/\1/p'
}

echo "### A new queue of 100,000 tracks in a server's real state (statistics from before it)"
echo
echo "| kind | first next (ms) | next latency (ms) | 10-track queue's next (ms) | ratio |"
echo "|---|---:|---:|---:|---:|"
for kind in shuffle random spread weighted seeded listener; do
  case $kind in
    shuffle) opts="" ;;
    random) opts=", mode => 'random', \"window\" => 5" ;;
    spread) opts=", groups => ARRAY(SELECT 'artist ' || (i % greatest(:n / 12, 1)) FROM generate_series(1, :n) i)" ;;
    weighted) opts=", mode => 'random', weights => ARRAY(SELECT 1 + i % 5 FROM generate_series(1, :n) i)" ;;
    seeded) opts=", seed => sha256('bench')" ;;
    listener) opts=", listener => 7" ;;
  esac
  small=$(stale_new 10 "$opts")
  large=$(stale_new 100000 "$opts")
  first=$(once_ms "SELECT shuffle_queue_next($large)")
  large_ms=$(stale_latency "$large")
  small_ms=$(stale_latency "$small")
  echo "| $kind | $first | $large_ms | $small_ms | $(ratio "$large_ms" "$small_ms" 2) |"
done
echo

echo "### Queues by artists and albums, in the same state"
echo
# queue_bytes: the queue tables' size with their indexes, in bytes.
queue_bytes() {
  psql -X -q -At -d "$BENCH_DB" -v ON_ERROR_STOP=1 -c "SELECT sum(pg_total_relation_size(c.oid))
    FROM pg_class c WHERE c.relname = ANY (string_to_array('$(echo $stale_tables)', ' '))
      AND c.relnamespace = (SELECT extnamespace FROM pg_extension WHERE extname = 'dealcards')"
}
echo "| tracks | create (ms) | µs a track | size in the tables (MB) |"
echo "|---:|---:|---:|---:|"
declare -A by_size
for n in 1000 100000 1000000; do
  before=$(queue_bytes)
  made=$(psql -X -q -At -d "$BENCH_DB" -v ON_ERROR_STOP=1 -c '\timing on' \
    -c "SELECT shuffle_queue_new(ARRAY(SELECT i::bigint FROM generate_series(1, $n) i),
          groups => ARRAY(SELECT 'artist ' || (i % ($n / 50)) FROM generate_series(1, $n) i),
          subgroups => ARRAY(SELECT 'album ' || (i % ($n * 2 / 25)) FROM generate_series(1, $n) i))")
  by_size[$n]=$(head -1 <<<"$made")
  made_ms=$(sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' <<<"$made")
  echo "| $n | $made_ms | $(ratio "$made_ms" "$n" 3 | awk '{ printf "%.1f", $1 * 1000 }') | $(ratio "$(($(queue_bytes) - before))" 1048576 1) |"
done
million_id=${by_size[1000000]}
echo
echo "| 1,000,000 tracks | ms |"
echo "|---|---:|"
echo "| first next | $(once_ms "SELECT shuffle_queue_next($million_id)") |"
echo "| a next | $(once_ms "SELECT shuffle_queue_next($million_id)") |"
echo "| upcoming(500) | $(once_ms "SELECT count(*) FROM shuffle_queue_upcoming($million_id, 500)") |"
echo "| save | $(once_ms "SELECT length(shuffle_queue_save($million_id)::text)") |"
large_ms=$(stale_latency "$million_id")
small_ms=$(stale_latency "${by_size[1000]}")
echo
echo "next latency (pgbench, 1 client): 1,000,000 tracks $large_ms ms, 1,000 tracks $small_ms ms:" \
  "$(ratio "$large_ms" "$small_ms" 2)x"
echo

echo "### Paging through a queue of 100,000 tracks by artist, 500 at a time"
echo
paged=$(stale_new 100000 ", groups => ARRAY(SELECT 'artist ' || (i % 2000) FROM generate_series(1, :n) i)")
for k in $(seq 0 199); do
  echo "SELECT count(*) FROM shuffle_queue_upcoming($paged, 500, $((k * 500)));"
done >"$stale_dir/pages.sql"
psql -X -q -At -d "$BENCH_DB" -v ON_ERROR_STOP=1 -c '\timing on' -f "$stale_dir/pages.sql" |
  sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' |
  awk '{ all += $1; if ($1 > top) top = $1 } END { printf "200 pages: %.0f ms in all, the slowest %.0f ms\n", all, top }'
echo
for t in $stale_tables; do bench_sql -c "ALTER TABLE $t RESET (autovacuum_enabled)"; done
rm -rf "$stale_dir"
