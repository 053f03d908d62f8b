# Peak memory of one call, for the largest cases: the growth of a fresh backend's peak resident
# set (VmHWM, read from /proc while the backend lives) over that of a backend that ran nothing,
# in MB. It holds the input, the result and the working memory; dealcards.max_working_memory
# bounds the last (default 1 GB), and is raised to 4 GB here so the largest cases run.
peak_kb() {
  psql -X -q -A -t -d "$BENCH_DB" -v ON_ERROR_STOP=1 <<SQL | tail -1
SELECT pg_backend_pid() AS pid \gset
\setenv DEALCARDS_BENCH_PID :pid
SET dealcards.max_working_memory = '4GB';
SELECT ($1) IS NULL;
\! sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' /proc/\$DEALCARDS_BENCH_PID/status
SQL
}
baseline=$(peak_kb "1")
echo "### Peak memory of one call: MB above a backend that ran nothing"
echo
echo "| call | peak MB |"
echo "|---|---:|"
while IFS='|' read -r label sql; do
  echo "| \`$label\` | $(awk -v a="$(peak_kb "$sql")" -v b="$baseline" 'BEGIN { printf "%.0f", (a - b) / 1024 }') |"
done <<'CASES'
shuffle_ints(1, 10^8): 400 MB result|shuffle_ints(1, 100000000)
shuffle_array of 10^7 int: 40 MB in and out|shuffle_array(array_fill(7, ARRAY[10000000]))
shuffle_array of 10^7 short text: 30 MB in and out|shuffle_array(array_fill('ab'::text, ARRAY[10000000]))
shuffle_array of 10^6 md5 text: 34 MB in and out|shuffle_array(ARRAY(SELECT md5(g::text) FROM generate_series(1, 1000000) g))
sample_ints(1, 2^40, 10^7): 80 MB result|sample_ints(1, 1099511627776, 10000000)
sample_ints(1, 10^8, 10^8): 800 MB result|sample_ints(1, 100000000, 100000000)
sort_hand of 10^8 cards: 400 MB in and out|sort_hand(array_fill(7, ARRAY[100000000]))
deal_hands(1, 1, 10^8): 400 MB of hands|(SELECT count(*) FROM deal_hands(1, 1, 100000000))
CASES
echo
