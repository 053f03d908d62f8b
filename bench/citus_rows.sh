# The row aggregates on a Citus table of 10^7 rows (int, md5 text, 1,000 groups, a weight;
# distributed by id into 32 shards over the two workers), next to what a Citus user writes today,
# and the same statements on the plain server beside the cluster (the same table, not
# distributed). Milliseconds, median of BENCH_RUNS (default 5) runs after a warm-up, each
# server with its default settings (up to 2 parallel workers per query or per shard query).
# Sourced by scripts/bench_citus.sh, with PGHOST/PGPORT/PGDATABASE naming the cluster's
# coordinator and PLAIN_PORT the plain server.
# shellcheck shell=bash
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
export PATH="$PG_BIN:$PATH"
citus_port=$PGPORT

# BENCH_DB and the port of a target: rows_on citus|plain COMMAND...
rows_on() {
  local target=$1
  shift
  if [ "$target" = citus ]; then
    PGPORT=$citus_port BENCH_DB=$PGDATABASE "$@"
  else
    PGPORT=$PLAIN_PORT BENCH_DB=$PGDATABASE "$@"
  fi
}

for target in plain citus; do
  distribute=""
  [ "$target" = citus ] && distribute="SELECT create_distributed_table('bench_rows', 'id', shard_count => 32)"
  rows_on "$target" bench_sql -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS bench_rows" \
    -c "CREATE TABLE bench_rows (id int, code text, grp int, w float8)" \
    ${distribute:+-c "$distribute"} \
    -c "INSERT INTO bench_rows
          SELECT i, md5(i::text), i % 1000, (1 + i % 97)::float8 FROM generate_series(1, 10000000) i" \
    -c "VACUUM ANALYZE bench_rows"
done

seed="decode(repeat('00', 32), 'hex')"
rows_row() {
  local label=$1 sql=$2 plain citus
  plain=$(rows_on plain median_ms "$sql")
  citus=$(rows_on citus median_ms "$sql")
  printf '| %s | %.0f | %.0f |\n' "$label" "$plain" "$citus"
}
echo "### Row samples on a Citus table of 10^7 rows: ms"
echo
echo "| query | plain server | Citus, 32 shards on 2 workers |"
echo "|---|---:|---:|"
rows_row "count(id) (the floor of a sample)" "SELECT count(id) FROM bench_rows"
rows_row "ORDER BY random() LIMIT 10" "SELECT count(*) FROM (SELECT id FROM bench_rows ORDER BY random() LIMIT 10) s"
rows_row "sample_agg(id, 10)" "SELECT cardinality(sample_agg(id, 10)) FROM bench_rows"
rows_row "sample_agg_seeded(id, 10, seed)" "SELECT cardinality(sample_agg_seeded(id, 10, $seed)) FROM bench_rows"
rows_row "ORDER BY -ln(1 - random()) / w LIMIT 10" "SELECT count(*) FROM (SELECT id FROM bench_rows ORDER BY -ln(1 - random()) / w LIMIT 10) s"
rows_row "sample_agg(id, 10, w)" "SELECT cardinality(sample_agg(id, 10, w)) FROM bench_rows"
rows_row "resample_agg(id, 10)" "SELECT cardinality(resample_agg(id, 10)) FROM bench_rows"
rows_row "sample_agg(id, 10) GROUP BY grp" "SELECT count(*) FROM (SELECT grp, sample_agg(id, 10) FROM bench_rows GROUP BY grp) s"
# Random rows without reading the table: the sampling method on each shard, and exactly k rows,
# next to ORDER BY random(). These take milliseconds, so each run is timed in a connection that
# ran the statement once before, untimed (as a pooled connection has: the library loaded on the
# coordinator and the workers, Citus's connections to the workers open).
warm_ms() {
  local sql=$1 times
  times=$(for _ in $(seq 1 "$BENCH_RUNS"); do
    psql -X -q -d "$BENCH_DB" -v ON_ERROR_STOP=1 -c "$sql" -c '\timing on' -c "$sql" |
      sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p'
  done | sort -g)
  awk '{ a[NR] = $1 } END { m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; printf "%.3f\n", m }' <<<"$times"
}
warm_row() {
  local label=$1 sql=$2 plain citus
  plain=$(rows_on plain warm_ms "$sql")
  citus=$(rows_on citus warm_ms "$sql")
  printf '| %s (warm connection) | %.1f | %.1f |\n' "$label" "$plain" "$citus"
}
warm_row "ORDER BY random() LIMIT 10" "SELECT count(*) FROM (SELECT id FROM bench_rows ORDER BY random() LIMIT 10) s"
warm_row "TABLESAMPLE sparse_bernoulli (0.0001) (about 10 rows)" "SELECT count(*) FROM bench_rows TABLESAMPLE sparse_bernoulli (0.0001)"
warm_row "sample_rows(NULL::bench_rows, 10)" "SELECT count(*) FROM sample_rows(NULL::bench_rows, 10)"
warm_row "ORDER BY random() LIMIT 1000" "SELECT count(*) FROM (SELECT id FROM bench_rows ORDER BY random() LIMIT 1000) s"
warm_row "sample_rows(NULL::bench_rows, 1000)" "SELECT count(*) FROM sample_rows(NULL::bench_rows, 1000)"
# The polymorphic form (numeric values): on Citus every row goes to the coordinator. One run.
whole_ms() { case $1 in '>'*) echo "$1" ;; *) printf '%.0f' "$1" ;; esac; }
numeric_sql="SELECT cardinality(sample_agg(id::numeric, 10)) FROM bench_rows"
printf '| %s | %s | %s |\n' "sample_agg(id::numeric, 10), one run (every row to the coordinator on Citus)" \
  "$(whole_ms "$(rows_on plain once_ms "$numeric_sql")")" "$(whole_ms "$(rows_on citus once_ms "$numeric_sql")")"
echo
for target in plain citus; do
  rows_on "$target" bench_sql -c "DROP TABLE bench_rows"
done
