# shuffle_array and sample_array next to PostgreSQL's own C built-ins array_shuffle and
# array_sample (16 and later: non-cryptographic generator, not replayable); microseconds per
# call, measured inside one statement over arrays stored in a table, so both sides read the same
# array the same way. On a server before 16 this prints how to run it on 17.
server_version_num=$(psql -X -A -t -d "$BENCH_DB" -c "SHOW server_version_num")
if [ "$server_version_num" -lt 160000 ]; then
  echo "### Against array_shuffle / array_sample: needs PostgreSQL 16 or later (PG_VERSION=17 make bench)"
  echo
else
  bench_sql -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS bench_builtin_arrays" \
    -c "CREATE TABLE bench_builtin_arrays AS
          SELECT kind, n,
                 CASE WHEN kind = 'int' THEN (SELECT array_agg(g) FROM generate_series(1, n) g) END AS ints,
                 CASE kind WHEN 'short text' THEN (SELECT array_agg(g::text) FROM generate_series(1, n) g)
                           WHEN 'md5 text' THEN (SELECT array_agg(md5(g::text)) FROM generate_series(1, n) g) END AS texts
            FROM unnest(ARRAY['int', 'short text', 'md5 text']) kind, unnest(ARRAY[54, 10000, 1000000]) n" \
    -c "ANALYZE bench_builtin_arrays"
  # Calls per statement for each size, so that each statement takes long enough to time.
  calls_for() { case $1 in 54) echo 20000 ;; 10000) echo 200 ;; *) echo 5 ;; esac; }
  column_of() { if [ "$1" = int ]; then echo ints; else echo texts; fi; }
  per_call() { awk -v t="$1" -v c="$2" 'BEGIN { printf "%.2f", t * 1000 / c }'; }

  echo "### shuffle_array next to array_shuffle, sample_array next to array_sample: microseconds per call"
  echo
  echo "| elements | n | shuffle_array | array_shuffle | array_shuffle / shuffle_array |"
  echo "|---|---:|---:|---:|---:|"
  for kind in int 'short text' 'md5 text'; do
    col=$(column_of "$kind")
    for n in 54 10000 1000000; do
      calls=$(calls_for "$n")
      rows="FROM bench_builtin_arrays, generate_series(1, $calls) s WHERE kind = '$kind' AND n = $n"
      ours=$(per_call "$(median_ms "SELECT sum(cardinality(shuffle_array($col))) $rows")" "$calls")
      theirs=$(per_call "$(median_ms "SELECT sum(cardinality(array_shuffle($col))) $rows")" "$calls")
      echo "| $kind | $n | $ours | $theirs | $(ratio "$theirs" "$ours" 2) |"
    done
  done
  echo
  echo "| elements | sample of 10 out of n | sample_array | array_sample | array_sample / sample_array |"
  echo "|---|---:|---:|---:|---:|"
  for kind in int 'short text' 'md5 text'; do
    col=$(column_of "$kind")
    calls=5
    rows="FROM bench_builtin_arrays, generate_series(1, $calls) s WHERE kind = '$kind' AND n = 1000000"
    ours=$(per_call "$(median_ms "SELECT sum(cardinality(sample_array($col, 10))) $rows")" "$calls")
    theirs=$(per_call "$(median_ms "SELECT sum(cardinality(array_sample($col, 10))) $rows")" "$calls")
    echo "| $kind | 1000000 | $ours | $theirs | $(ratio "$theirs" "$ours" 2) |"
  done
  echo
  bench_sql -c "DROP TABLE bench_builtin_arrays"
fi
