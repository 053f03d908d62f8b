# shuffle_array against what users write today (array_agg ORDER BY random() over unnest), and
# sample_ints against shuffle_ints and the DISTINCT random() idiom; milliseconds per call,
# measured inside one statement. Every argument depends on the row, so nothing is folded into a
# constant or an initplan.
bench_sql -c "DROP TABLE IF EXISTS bench_text_arrays" \
  -c "CREATE TABLE bench_text_arrays AS
        SELECT 'short: g::text' AS elements, array_agg(g::text) AS a FROM generate_series(1, 1000000) g
        UNION ALL
        SELECT 'md5(g::text)', array_agg(md5(g::text)) FROM generate_series(1, 1000000) g" \
  -c "ANALYZE bench_text_arrays"
per_call() { awk -v t="$1" -v c="$2" 'BEGIN { printf "%.3f", t / c }'; }
seed_of_row="decode(lpad(to_hex(s), 64, '0'), 'hex')"

echo "### shuffle_array on a 10^6-element text[] stored in a table: milliseconds per call"
echo
echo "| elements | array size | shuffle_array | shuffle_array (seeded) | (a) array_agg(x ORDER BY random()) over unnest | (b) reading the array: array_length | (a) / shuffle_array |"
echo "|---|---:|---:|---:|---:|---:|---:|"
calls=5 slow_calls=1
for elements in 'short: g::text' 'md5(g::text)'; do
  # The array once per row of generate_series: one call per row.
  rows() { echo "FROM bench_text_arrays, generate_series(1, $1) s WHERE elements = '$elements'"; }
  ours=$(median_ms "SELECT sum(array_length(shuffle_array(a), 1)) $(rows $calls)")
  seeded=$(median_ms "SELECT sum(array_length(shuffle_array(a, $seed_of_row), 1)) $(rows $calls)")
  agg=$(median_ms "SELECT sum(array_length((SELECT array_agg(x ORDER BY random()) FROM unnest(a) x), 1)) $(rows $slow_calls)")
  read=$(median_ms "SELECT sum(array_length(a, 1) + s * 0) $(rows $calls)")
  size=$(psql -X -q -A -t -d "$BENCH_DB" -c "SELECT pg_size_pretty(pg_column_size(a)::bigint) FROM bench_text_arrays WHERE elements = '$elements'")
  o=$(per_call "$ours" "$calls"); d=$(per_call "$seeded" "$calls"); a=$(per_call "$agg" "$slow_calls")
  r=$(per_call "$read" "$calls")
  echo "| $elements | $size | $o | $d | $a | $r | $(ratio "$a" "$o") |"
done
echo

echo "### sample_ints: 10^4 distinct values, milliseconds per call"
echo
echo "| shuffle_ints(1, 10^4) | sample_ints(1, 10^4, 10^4) | sample_ints(1, 2^40, 10^4) | sample_ints(whole int8 range, 10^4) | (c) SELECT DISTINCT (random() * 2^40)::bigint ... LIMIT 10^4 | sample_ints 2^40 / shuffle_ints | (c) / sample_ints 2^40 |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
calls=500 slow_calls=20
shuffle=$(median_ms "SELECT count(shuffle_ints(1, 10000 + s * 0)) FROM generate_series(1, $calls) s")
dense=$(median_ms "SELECT count(sample_ints(1, 10000 + s * 0, 10000)) FROM generate_series(1, $calls) s")
huge=$(median_ms "SELECT count(sample_ints(1, (2 ^ 40)::bigint + s * 0, 10000)) FROM generate_series(1, $calls) s")
whole=$(median_ms "SELECT count(sample_ints(-9223372036854775808 + s * 0, 9223372036854775807, 10000)) FROM generate_series(1, $calls) s")
distinct=$(median_ms "SELECT count((SELECT array_agg(v) FROM (SELECT DISTINCT (random() * 2 ^ 40)::bigint + s * 0 AS v FROM generate_series(1, 20000) LIMIT 10000) d)) FROM generate_series(1, $slow_calls) s")
sh=$(per_call "$shuffle" "$calls"); de=$(per_call "$dense" "$calls"); hu=$(per_call "$huge" "$calls")
wh=$(per_call "$whole" "$calls"); di=$(per_call "$distinct" "$slow_calls")
echo "| $sh | $de | $hu | $wh | $di | $(ratio "$hu" "$sh") | $(ratio "$di" "$hu") |"
echo
