# A library rescan on a queue of 100,000 tracks with 1,000 plays: 10,000 tracks added by one
# shuffle_queue_add_many, 10,000 removed by one shuffle_queue_remove_many (every tenth track, so
# some are in the history), against a plain INSERT (and DELETE) of 10,000 rows of a table of
# (queue_id bigint, track bigint) with a primary key that holds 100,000 rows already, and
# against 10,000 single calls. Each statement runs in a transaction rolled back, so every run
# starts from the same queue: the median of BENCH_RUNS runs after one warm-up (ms, psql's
# \timing, the statement alone).
# Sourced by scripts/bench.sh (bench/lib.sh loaded, PG* set); alone: BENCH_ONLY=59 make bench.
# shellcheck shell=bash

# bulk_ms SQL: the median ms of SQL, each run rolled back.
bulk_ms() {
  local script="\\timing on"
  for _ in $(seq 0 "$BENCH_RUNS"); do
    script+=$'\n'"BEGIN;"$'\n'"$1;"$'\n'"ROLLBACK;"
  done
  psql -X -q -d "$BENCH_DB" -v ON_ERROR_STOP=1 <<<"$script" |
    sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | awk 'NR % 3 == 2' | tail -n +2 | sort -g |
    awk '{ a[NR] = $1 } END { m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; printf "%.2f\n", m }'
}

bulk_queue=$(psql -X -q -At -d "$BENCH_DB" -v ON_ERROR_STOP=1 \
  -c "SELECT shuffle_queue_new(ARRAY(SELECT i::bigint FROM generate_series(1, 100000) i))")
bench_sql -c "SELECT count(shuffle_queue_next($bulk_queue)) FROM generate_series(1, 1000)" \
  -c "DROP TABLE IF EXISTS bulk_plain" \
  -c "CREATE TABLE bulk_plain (queue_id bigint, track bigint, PRIMARY KEY (queue_id, track))" \
  -c "INSERT INTO bulk_plain SELECT 1, i FROM generate_series(1, 100000) i" \
  -c "ANALYZE"

bulk_added="ARRAY(SELECT i::bigint FROM generate_series(1000001, 1010000) i)"
bulk_gone="ARRAY(SELECT i::bigint FROM generate_series(10, 100000, 10) i)"
bulk_insert=$(bulk_ms "INSERT INTO bulk_plain SELECT 1, i FROM generate_series(1000001, 1010000) i")

echo "### A library rescan: 10,000 changes on a queue of 100,000 tracks"
echo
echo "| statement | ms | ratio to the INSERT |"
echo "|---|---:|---:|"
while IFS='|' read -r name sql; do
  ms=$(bulk_ms "$sql")
  echo "| $name | $ms | $(ratio "$ms" "$bulk_insert" 2) |"
done <<EOF_CALLS
INSERT of 10,000 rows (queue_id, track) into a table of 100,000|INSERT INTO bulk_plain SELECT 1, i FROM generate_series(1000001, 1010000) i
DELETE of 10,000 of its rows|DELETE FROM bulk_plain WHERE queue_id = 1 AND track = ANY ($bulk_gone)
shuffle_queue_add_many, 10,000 tracks|SELECT shuffle_queue_add_many($bulk_queue, $bulk_added)
shuffle_queue_remove_many, 10,000 tracks|SELECT shuffle_queue_remove_many($bulk_queue, $bulk_gone)
10,000 shuffle_queue_add, one statement|SELECT count(shuffle_queue_add($bulk_queue, i)) FROM generate_series(1000001::bigint, 1010000) i
10,000 shuffle_queue_remove, one statement|SELECT count(shuffle_queue_remove($bulk_queue, i)) FROM generate_series(10::bigint, 100000, 10) i
EOF_CALLS
echo

bench_sql -c "SELECT shuffle_queue_drop($bulk_queue)" -c "DROP TABLE bulk_plain"
