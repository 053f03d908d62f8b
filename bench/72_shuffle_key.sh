# shuffle_key: 10^6 rows (bigint id, md5 text) put in a seeded order, next to the orders users
# write instead: md5(id::text), md5(seed || id) (the seed a text), random() (not replayable), and
# PostgreSQL's own unkeyed bigint hash, hashint8extended (the floor of "a hash, then a sort of
# bigints"). A whole order is sorted to its last row (OFFSET); a page is the top 50 after a key.
# Milliseconds, median of BENCH_RUNS runs, serial and with 2 workers.
bench_sql -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS bench_order" \
  -c "CREATE TABLE bench_order AS SELECT i::bigint AS id, md5(i::text) AS code FROM generate_series(1, 1000000) i" \
  -c "VACUUM ANALYZE bench_order"
seed="'\\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f'::bytea"
key_serial_ms() { PGOPTIONS="-c max_parallel_workers_per_gather=0" median_ms "$1"; }
key_parallel_ms() { PGOPTIONS="-c max_parallel_workers_per_gather=2" median_ms "$1"; }
declare -A key_ms
key_row() {
  local label=$1 sql=$2 s p
  s=$(key_serial_ms "$sql")
  p=$(key_parallel_ms "$sql")
  key_ms[$label]=$s
  printf '| %s | %.0f | %.0f |\n' "$label" "$s" "$p"
}
whole() { echo "SELECT id FROM bench_order ORDER BY $1 OFFSET 999999"; }
echo "### shuffle_key: ordering 10^6 rows, ms"
echo
echo "| query | serial | 2 workers |"
echo "|---|---:|---:|"
key_row "ORDER BY md5(id::text)" "$(whole "md5(id::text)")"
key_row "ORDER BY md5('seed' || id)" "$(whole "md5('a0eebc99' || id)")"
key_row "ORDER BY random()" "$(whole "random()")"
key_row "ORDER BY hashint8extended(id, 42)" "$(whole "hashint8extended(id, 42)")"
key_row "ORDER BY shuffle_key(seed, id)" "$(whole "shuffle_key($seed, id)")"
key_row "ORDER BY md5(code)" "$(whole "md5(code)")"
key_row "ORDER BY shuffle_key(seed, code)" "$(whole "shuffle_key($seed, code)")"
key_row "a page: WHERE md5(id::text) > last ORDER BY 1 LIMIT 50" \
  "SELECT md5(id::text), id FROM bench_order WHERE md5(id::text) > '8' ORDER BY 1 LIMIT 50"
key_row "a page: WHERE shuffle_key(seed, id) > last ORDER BY 1 LIMIT 50" \
  "SELECT shuffle_key($seed, id), id FROM bench_order WHERE shuffle_key($seed, id) > 0 ORDER BY 1 LIMIT 50"
echo
echo "shuffle_key(seed, id) / md5(id::text), serial: $(ratio "${key_ms["ORDER BY shuffle_key(seed, id)"]}" "${key_ms["ORDER BY md5(id::text)"]}" 2) (target: at most 1.5)"
echo
bench_sql -c "DROP TABLE bench_order"
