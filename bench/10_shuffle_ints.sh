# shuffle_ints(1, n) against what users write today; cost per call, measured inside one statement.
bench_sql -f "$ROOT/bench/shuffle_ints.sql"

echo "### shuffle_ints(1, n): milliseconds per call"
echo
echo "| n | shuffle_ints | (a) dealCards retry loop | (b) array_agg ORDER BY random() | (c) PL/pgSQL Fisher-Yates | (d) array_fill floor | (b) / shuffle_ints | shuffle_ints / (d) |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|"
for n in 54 10000 1000000; do
  case $n in
    54) calls=20000 slow_calls=200 ;;
    10000) calls=500 slow_calls=5 ;;
    1000000) calls=5 slow_calls=1 ;;
  esac
  # Every argument depends on the row (s * 0), so no call is folded into a constant or an initplan.
  per_call() {
    case $1 in
      ">"*) awk -v t="${1#>}" -v c="$2" 'BEGIN { printf ">%.0f", t / c }' ;;
      *) awk -v t="$1" -v c="$2" 'BEGIN { printf "%.4f", t / c }' ;;
    esac
  }
  ours=$(median_ms "SELECT count(shuffle_ints(1, $n + s * 0)) FROM generate_series(1, $calls) s")
  if [ "$n" -ge 1000000 ]; then
    # Superlinear at this size (minutes a call): one run, capped.
    retry=$(once_ms "SELECT count(ported_retry_loop($n + s * 0)) FROM generate_series(1, $slow_calls) s")
  else
    retry=$(median_ms "SELECT count(ported_retry_loop($n + s * 0)) FROM generate_series(1, $slow_calls) s")
  fi
  agg=$(median_ms "SELECT count((SELECT array_agg(g ORDER BY random()) FROM generate_series(1, $n + s * 0) g)) FROM generate_series(1, $slow_calls) s")
  plpgsql=$(median_ms "SELECT count(plpgsql_fisher_yates($n + s * 0)) FROM generate_series(1, $slow_calls) s")
  fill=$(median_ms "SELECT count(array_fill(1 + s * 0, ARRAY[$n])) FROM generate_series(1, $calls) s")
  o=$(per_call "$ours" "$calls"); a=$(per_call "$retry" "$slow_calls"); b=$(per_call "$agg" "$slow_calls")
  c=$(per_call "$plpgsql" "$slow_calls"); d=$(per_call "$fill" "$calls")
  echo "| $n | $o | $a | $b | $c | $d | $(ratio "$b" "$o") | $(ratio "$o" "$d" 2) |"
done
echo
