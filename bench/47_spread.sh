# shuffle_spread against shuffle_array on the same int[] (an order with no artist twice in a row
# against a plain shuffle), 40 groups with Zipf-like sizes (item g in group floor(40^u) for u
# spread evenly, so group r holds about 1/r as many as group 1); milliseconds per call, measured
# inside one statement, the seed depending on the row so nothing is folded into a constant.
bench_sql -c "DROP TABLE IF EXISTS bench_spread" \
  -c "CREATE TABLE bench_spread AS
        SELECT n, array_agg(g ORDER BY g) AS items,
               array_agg(floor(power(40, (g - 1)::float8 / n))::int ORDER BY g) AS artists
          FROM (VALUES (1000), (100000), (1000000)) v(n), generate_series(1, n) g GROUP BY n" \
  -c "ANALYZE bench_spread"
per_call() { awk -v t="$1" -v c="$2" 'BEGIN { printf "%.3f", t / c }'; }
seed_of_row="decode(lpad(to_hex(s), 64, '0'), 'hex')"

echo "### shuffle_spread and shuffle_array on an int[] stored in a table, 40 artists: milliseconds per call"
echo
echo "| items | shuffle_array (seeded) | shuffle_spread (seeded) | shuffle_spread (live) | spread / shuffle |"
echo "|---:|---:|---:|---:|---:|"
for n in 1000 100000 1000000; do
  calls=$((n >= 1000000 ? 3 : n >= 100000 ? 20 : 500))
  rows="FROM bench_spread, generate_series(1, $calls) s WHERE n = $n"
  shuffle=$(median_ms "SELECT sum(array_length(shuffle_array(items, $seed_of_row), 1)) $rows")
  seeded=$(median_ms "SELECT sum(array_length(shuffle_spread(items, artists, $seed_of_row), 1)) $rows")
  live=$(median_ms "SELECT sum(array_length(shuffle_spread(items, artists), 1) + s * 0) $rows")
  sh=$(per_call "$shuffle" "$calls"); se=$(per_call "$seeded" "$calls"); li=$(per_call "$live" "$calls")
  echo "| $n | $sh | $se | $li | $(ratio "$se" "$sh") |"
done
echo
