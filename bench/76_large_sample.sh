# TABLESAMPLE sparse_bernoulli and sample_rows on 10^8 rows of (int, md5 text, int), next to
# ORDER BY random() and random tids, with the table's pages in memory (warm: median of 3, each in
# a connection that ran the statement once before) and with none of them in memory (cold: the
# server restarted and the kernel's page cache dropped before each statement, one run each; the
# new connection first loads the library and reads the table's catalog entries, so that only
# the table's pages come from the disk). The table takes about 7 GB and its load as much WAL: it
# runs only with BENCH_LARGE=1 (`BENCH_LARGE=1 BENCH_ONLY=76 make bench`), and drops the table
# at the end. Dropping the page cache needs root; without it the cold column says so.
# shellcheck shell=bash
if [ "${BENCH_LARGE:-}" != 1 ]; then
  echo "(Random rows of 10^8, warm and cold: BENCH_LARGE=1 BENCH_ONLY=76 make bench, about 7 GB.)"
  echo
  return 0
fi
bench_sql -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS bench_large" \
  -c "CREATE TABLE bench_large WITH (autovacuum_enabled = off) AS SELECT i AS id, md5(i::text) AS t, i % 1000 AS grp FROM generate_series(1, 100000000) i" \
  -c "VACUUM ANALYZE bench_large" -c "CHECKPOINT"
large_pages=$(psql -X -A -t -d "$BENCH_DB" -c "SELECT relpages FROM pg_class WHERE relname = 'bench_large'")
large_serial="-c max_parallel_workers_per_gather=0"

large_warm_ms() {
  local sql=$1
  for _ in 1 2 3; do
    PGOPTIONS=$large_serial psql -X -q -d "$BENCH_DB" -v ON_ERROR_STOP=1 \
      -c "$sql" -c '\timing on' -c "$sql" </dev/null | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p'
  done | sort -g | sed -n 2p
}

# The page cache can be dropped (root, and a writable /proc/sys).
large_can_drop() { sync && { echo 1 >/proc/sys/vm/drop_caches; } 2>/dev/null; }

large_cold_ms() {
  local sql=$1
  "$ROOT/scripts/cluster.sh" restart </dev/null >/dev/null
  large_can_drop || { echo "not cold"; return; }
  PGOPTIONS=$large_serial psql -X -q -d "$BENCH_DB" -v ON_ERROR_STOP=1 \
    -c "LOAD 'dealcards'" -c "SELECT NULL::bench_large IS NULL, count(*) FROM pg_attribute WHERE attrelid = 'bench_large'::regclass" \
    -c '\timing on' -c "$sql" </dev/null | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p'
}

large_tids() { echo "SELECT count(*) FROM bench_large WHERE ctid = ANY (ARRAY(SELECT format('(%s,%s)', floor(random() * $large_pages)::int, 1 + floor(random() * 107)::int)::tid FROM generate_series(1, $1)))"; }

echo "### Random rows of 10^8 ($large_pages pages): ms, serial, warm (median of 3) and cold (one run)"
echo
echo "| query | warm | cold |"
echo "|---|---:|---:|"
while IFS='|' read -r label sql; do
  printf '| %s | %s | %s |\n' "$label" "$(large_warm_ms "$sql")" "$(large_cold_ms "$sql")"
done <<EOF
ORDER BY random() LIMIT 10|SELECT count(*) FROM (SELECT id FROM bench_large ORDER BY random() LIMIT 10) s
TABLESAMPLE sparse_bernoulli (0.00001), about 10 rows|SELECT count(*) FROM bench_large TABLESAMPLE sparse_bernoulli (0.00001)
sample_rows(NULL::bench_large, 10)|SELECT count(*) FROM sample_rows(NULL::bench_large, 10)
10 random tids|$(large_tids 10)
16 random tids|$(large_tids 16)
ORDER BY random() LIMIT 1000|SELECT count(*) FROM (SELECT id FROM bench_large ORDER BY random() LIMIT 1000) s
sample_rows(NULL::bench_large, 1000)|SELECT count(*) FROM sample_rows(NULL::bench_large, 1000)
EOF
echo
bench_sql -c "DROP TABLE bench_large" -c "CHECKPOINT"
