# The row aggregates next to the SQL they replace, on a table of 10^7 rows (int, md5 text, a
# group column of 1,000 groups, a weight), serial (max_parallel_workers_per_gather = 0) and
# with 2 workers; the floor beside them: count(value) for a sample (every aggregate reads every
# row), array_agg(value) for a shuffle. Milliseconds, median of BENCH_RUNS runs.
bench_sql -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS bench_rows, bench_rows_1m" \
  -c "CREATE TABLE bench_rows AS
        SELECT i AS id, md5(i::text) AS code, i % 1000 AS grp, (1 + i % 97)::float8 AS w
          FROM generate_series(1, 10000000) i" \
  -c "CREATE TABLE bench_rows_1m AS SELECT * FROM bench_rows WHERE id <= 1000000" \
  -c "VACUUM ANALYZE bench_rows" -c "VACUUM ANALYZE bench_rows_1m"
seed="decode(repeat('00', 32), 'hex')"
serial_ms() { PGOPTIONS="-c max_parallel_workers_per_gather=0" median_ms "$1"; }
parallel_ms() { PGOPTIONS="-c max_parallel_workers_per_gather=2" median_ms "$1"; }
row() {
  local label=$1 sql=$2 s p
  s=$(serial_ms "$sql")
  p=$(parallel_ms "$sql")
  printf '| %s | %.0f | %.0f |\n' "$label" "$s" "$p"
}
echo "### Row samples and shuffles against the SQL they replace: ms, 10^7 rows unless said"
echo
echo "| query | serial | 2 workers |"
echo "|---|---:|---:|"
row "count(id) (the floor of a sample)" "SELECT count(id) FROM bench_rows"
row "ORDER BY random() LIMIT 10" "SELECT count(*) FROM (SELECT id FROM bench_rows ORDER BY random() LIMIT 10) s"
row "sample_agg(id, 10)" "SELECT cardinality(sample_agg(id, 10)) FROM bench_rows"
row "sample_agg_seeded(id, 10, seed)" "SELECT cardinality(sample_agg_seeded(id, 10, $seed)) FROM bench_rows"
row "ORDER BY -ln(1 - random()) / w LIMIT 10" "SELECT count(*) FROM (SELECT id FROM bench_rows ORDER BY -ln(1 - random()) / w LIMIT 10) s"
row "sample_agg(id, 10, w)" "SELECT cardinality(sample_agg(id, 10, w)) FROM bench_rows"
row "resample_agg(id, 10)" "SELECT cardinality(resample_agg(id, 10)) FROM bench_rows"
row "row_number() OVER (PARTITION BY grp ORDER BY random()) <= 10" \
  "SELECT count(*) FROM (SELECT id, row_number() OVER (PARTITION BY grp ORDER BY random()) AS rn FROM bench_rows) s WHERE rn <= 10"
row "sample_agg(id, 10) GROUP BY grp" "SELECT count(*) FROM (SELECT grp, sample_agg(id, 10) FROM bench_rows GROUP BY grp) s"
# Many groups: the states of the typed form share one memory context (see src/rows/state_type.rs).
row "sample_agg(id, 3) GROUP BY id % 200000" "SELECT count(*) FROM (SELECT id % 200000, sample_agg(id, 3) AS s FROM bench_rows GROUP BY 1 OFFSET 0) g WHERE s IS NOT NULL"
row "sample_agg(id::oid, 3) GROUP BY id % 200000 (the polymorphic form)" "SELECT count(*) FROM (SELECT id % 200000, sample_agg(id::oid, 3) AS s FROM bench_rows GROUP BY 1 OFFSET 0) g WHERE s IS NOT NULL"
row "10^6 rows: array_agg(id) (the floor of a shuffle)" "SELECT cardinality(array_agg(id)) FROM bench_rows_1m"
row "10^6 rows: array_agg(id ORDER BY random())" "SELECT cardinality(array_agg(id ORDER BY random())) FROM bench_rows_1m"
row "10^6 rows: shuffle_agg(id)" "SELECT cardinality(shuffle_agg(id)) FROM bench_rows_1m"
row "10^6 rows: array_agg(code)" "SELECT cardinality(array_agg(code)) FROM bench_rows_1m"
row "10^6 rows: array_agg(code ORDER BY random())" "SELECT cardinality(array_agg(code ORDER BY random())) FROM bench_rows_1m"
row "10^6 rows: shuffle_agg(code)" "SELECT cardinality(shuffle_agg(code)) FROM bench_rows_1m"
echo
# Peak memory: a fresh backend's peak resident set (VmHWM) after the query, over that of one
# that ran count(id) over the same table (which touches the same shared buffers).
rows_peak_kb() {
  PGOPTIONS="-c max_parallel_workers_per_gather=0" psql -X -q -A -t -d "$BENCH_DB" -v ON_ERROR_STOP=1 <<SQL | tail -1
SELECT pg_backend_pid() AS pid \gset
\setenv DEALCARDS_BENCH_PID :pid
SELECT ($1) IS NULL;
\! sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' /proc/\$DEALCARDS_BENCH_PID/status
SQL
}
floor_kb=$(rows_peak_kb "SELECT count(id) FROM bench_rows")
sample_kb=$(rows_peak_kb "SELECT sample_agg(id, 10) FROM bench_rows")
echo "Peak memory of sample_agg(id, 10) over 10^7 rows, above count(id): $(awk -v a="$sample_kb" -v b="$floor_kb" 'BEGIN { printf "%.1f", (a - b) / 1024 }') MB"
echo
bench_sql -c "DROP TABLE bench_rows, bench_rows_1m"
