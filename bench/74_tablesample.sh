# TABLESAMPLE sparse_bernoulli and sample_rows against what reads the whole table (count, ORDER BY random(),
# BERNOULLI) and against fetching random tids (the floor of random page reads), on 10^7 rows of
# (int, md5 text, int), serial; then after 90% of the rows are deleted without VACUUM. Each
# query with the pages it read (EXPLAIN (ANALYZE, BUFFERS): shared blocks hit and read).
# Milliseconds, median of BENCH_RUNS runs, each in a warm connection.
bench_sql -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS bench_sample" \
  -c "CREATE TABLE bench_sample WITH (autovacuum_enabled = off) AS SELECT i AS id, md5(i::text) AS t, i % 1000 AS grp FROM generate_series(1, 10000000) i" \
  -c "VACUUM ANALYZE bench_sample"
sample_pages=$(psql -X -A -t -d "$BENCH_DB" -c "SELECT relpages FROM pg_class WHERE relname = 'bench_sample'")
# Each run in a connection of its own that ran the statement once before, untimed (as a pooled
# connection has: the library loaded, the catalog and the prepared statements cached).
sample_ms() {
  local sql=$1 times
  times=$(for _ in $(seq 1 "$BENCH_RUNS"); do
    PGOPTIONS="-c max_parallel_workers_per_gather=0" psql -X -q -d "$BENCH_DB" -v ON_ERROR_STOP=1 \
      -c "$sql" -c '\timing on' -c "$sql" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p'
  done | sort -g)
  awk '{ a[NR] = $1 } END { m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; printf "%.3f\n", m }' <<<"$times"
}
# Shared blocks hit and read by the statement's plan, summed over its nodes, run once before in
# the same session (so that a function's own catalog lookups, which a new session makes on its
# first call, are not counted).
sample_blocks() {
  PGOPTIONS="-c max_parallel_workers_per_gather=0" psql -X -A -t -d "$BENCH_DB" -v ON_ERROR_STOP=1 -o /dev/null -c "$1" -c "
    DO \$\$ DECLARE plan json; BEGIN
      EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ' || \$q\$$1\$q\$ INTO plan;
      RAISE NOTICE '%', (plan -> 0 -> 'Plan' ->> 'Shared Hit Blocks')::bigint + (plan -> 0 -> 'Plan' ->> 'Shared Read Blocks')::bigint;
    END \$\$" 2>&1 | sed -n 's/^NOTICE:  //p'
}
declare -A sample_of
sample_row() {
  local label=$1 sql=$2 ms blocks
  ms=$(sample_ms "$sql")
  blocks=$(sample_blocks "$sql")
  sample_of[$label]=$ms
  printf '| %s | %.1f | %s |\n' "$label" "$ms" "$blocks"
}
# Random tids: k line pointers 1..107 of random pages (most hold a row); the tid scan reads one
# page per tid.
tids() { echo "SELECT count(*) FROM bench_sample WHERE ctid = ANY (ARRAY(SELECT format('(%s,%s)', floor(random() * $sample_pages)::int, 1 + floor(random() * 107)::int)::tid FROM generate_series(1, $1)))"; }
echo "### Random rows of 10^7 ($sample_pages pages): ms, serial, and shared blocks the plan touched"
echo
echo "| query | ms | blocks |"
echo "|---|---:|---:|"
sample_row "count(id)" "SELECT count(id) FROM bench_sample"
sample_row "ORDER BY random() LIMIT 10" "SELECT count(*) FROM (SELECT id FROM bench_sample ORDER BY random() LIMIT 10) s"
sample_row "TABLESAMPLE BERNOULLI (0.0001), about 10 rows" "SELECT count(*) FROM bench_sample TABLESAMPLE BERNOULLI (0.0001)"
sample_row "TABLESAMPLE sparse_bernoulli (0.0001), about 10 rows" "SELECT count(*) FROM bench_sample TABLESAMPLE sparse_bernoulli (0.0001)"
sample_row "sample_rows(NULL::bench_sample, 10)" "SELECT count(*) FROM sample_rows(NULL::bench_sample, 10)"
sample_row "10 random tids" "$(tids 10)"
sample_row "16 random tids" "$(tids 16)"
sample_row "ORDER BY random() LIMIT 1000" "SELECT count(*) FROM (SELECT id FROM bench_sample ORDER BY random() LIMIT 1000) s"
sample_row "TABLESAMPLE sparse_bernoulli (0.01), about 1,000 rows" "SELECT count(*) FROM bench_sample TABLESAMPLE sparse_bernoulli (0.01)"
sample_row "sample_rows(NULL::bench_sample, 1000)" "SELECT count(*) FROM sample_rows(NULL::bench_sample, 1000)"
echo
echo "10 rows: ORDER BY random() / sparse_bernoulli $(ratio "${sample_of["ORDER BY random() LIMIT 10"]}" "${sample_of["TABLESAMPLE sparse_bernoulli (0.0001), about 10 rows"]}" 0)x; sparse_bernoulli / 10 random tids $(ratio "${sample_of["TABLESAMPLE sparse_bernoulli (0.0001), about 10 rows"]}" "${sample_of["10 random tids"]}" 1)x"
echo "10 rows: ORDER BY random() / sample_rows $(ratio "${sample_of["ORDER BY random() LIMIT 10"]}" "${sample_of["sample_rows(NULL::bench_sample, 10)"]}" 0)x (target 200x); sample_rows / 10 random tids $(ratio "${sample_of["sample_rows(NULL::bench_sample, 10)"]}" "${sample_of["10 random tids"]}" 1)x, / 16 random tids $(ratio "${sample_of["sample_rows(NULL::bench_sample, 10)"]}" "${sample_of["16 random tids"]}" 1)x (target 3x)"
echo "1,000 rows: ORDER BY random() / sample_rows $(ratio "${sample_of["ORDER BY random() LIMIT 1000"]}" "${sample_of["sample_rows(NULL::bench_sample, 1000)"]}" 0)x (target 50x); ORDER BY random() / sparse_bernoulli $(ratio "${sample_of["ORDER BY random() LIMIT 1000"]}" "${sample_of["TABLESAMPLE sparse_bernoulli (0.01), about 1,000 rows"]}" 0)x"
echo
# The small queries again, interleaved so that a machine's changing load weighs on each alike:
# BENCH_ROUNDS rounds (default 15), each timing every query once in a warm connection of its
# own; quartiles.
echo "### Interleaved: ms over ${BENCH_ROUNDS:-15} rounds (first quartile, median, third quartile)"
echo
echo "| query | q1 | median | q3 |"
echo "|---|---:|---:|---:|"
round_labels=("sample_rows(NULL::bench_sample, 10)" "TABLESAMPLE sparse_bernoulli (0.0001), about 10 rows" "10 random tids" "16 random tids" "sample_rows(NULL::bench_sample, 1000)" "TABLESAMPLE sparse_bernoulli (0.01), about 1,000 rows")
round_queries=("SELECT count(*) FROM sample_rows(NULL::bench_sample, 10)" "SELECT count(*) FROM bench_sample TABLESAMPLE sparse_bernoulli (0.0001)" "$(tids 10)" "$(tids 16)" "SELECT count(*) FROM sample_rows(NULL::bench_sample, 1000)" "SELECT count(*) FROM bench_sample TABLESAMPLE sparse_bernoulli (0.01)")
rounds=$(for _ in $(seq 1 "${BENCH_ROUNDS:-15}"); do
  for i in "${!round_queries[@]}"; do
    printf '%s|' "$i"
    PGOPTIONS="-c max_parallel_workers_per_gather=0" psql -X -q -d "$BENCH_DB" -v ON_ERROR_STOP=1 \
      -c "${round_queries[$i]}" -c '\timing on' -c "${round_queries[$i]}" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p'
  done
done)
for i in "${!round_labels[@]}"; do
  grep "^$i|" <<<"$rounds" | cut -d'|' -f2 | sort -g | awk -v l="${round_labels[$i]}" \
    '{ a[NR] = $1 } END { printf "| %s | %.2f | %.2f | %.2f |\n", l, a[int((NR + 3) / 4)], a[(NR + 1) / 2], a[int((3 * NR + 3) / 4)] }'
done
echo
# One read of every page (which prunes the deleted rows' pages and sets their hint bits) and a
# checkpoint: the table as it stands a while after the DELETE, not the reads that would otherwise
# write out the pages the DELETE dirtied as they evict them.
bench_sql -c "DELETE FROM bench_sample WHERE id % 10 <> 0" -c "SELECT count(*) FROM bench_sample" -c "CHECKPOINT"
echo "### After deleting 90% of the rows without VACUUM (10^6 rows left on the same pages)"
echo
echo "| query | ms | blocks |"
echo "|---|---:|---:|"
sample_row "ORDER BY random() LIMIT 10, deleted" "SELECT count(*) FROM (SELECT id FROM bench_sample ORDER BY random() LIMIT 10) s"
sample_row "TABLESAMPLE sparse_bernoulli (0.001), about 10 rows" "SELECT count(*) FROM bench_sample TABLESAMPLE sparse_bernoulli (0.001)"
sample_row "sample_rows(NULL::bench_sample, 10), statistics still of 10^7 rows" "SELECT count(*) FROM sample_rows(NULL::bench_sample, 10)"
sample_row "sample_rows(NULL::bench_sample, 1000), deleted" "SELECT count(*) FROM sample_rows(NULL::bench_sample, 1000)"
echo
bench_sql -c "DROP TABLE bench_sample"
