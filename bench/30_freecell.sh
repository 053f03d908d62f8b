# freecell_layout(game_no) over all of Windows' games 1..1,000,000, against the same algorithm in
# PL/pgSQL and against the floor for returning a 160-byte text per row.
bench_sql -f "$ROOT/bench/freecell.sql"

# The PL/pgSQL version must deal the same boards, in all three of FreeCell Pro's ranges.
freecell_mismatches=$(psql -X -qAt -d "$BENCH_DB" -v ON_ERROR_STOP=1 -c "
  SELECT count(*) FROM (SELECT g + r AS g FROM generate_series(1, 1000) g,
                               unnest(ARRAY[0, 2147483647, 4294967295, 8589933591]::bigint[]) r) games
   WHERE plpgsql_freecell_layout(g) IS DISTINCT FROM freecell_layout(g)")

freecell_n=1000000
# PL/pgSQL is run over the first 20,000 games only; its rate is scaled from those.
freecell_slow_n=20000
# Every argument depends on the row, so no call is folded into a constant.
freecell_ours=$(median_ms "SELECT count(freecell_layout(g)) FROM generate_series(1, $freecell_n) g")
freecell_plpgsql=$(median_ms "SELECT count(plpgsql_freecell_layout(g)) FROM generate_series(1, $freecell_slow_n) g")
freecell_floor=$(median_ms "SELECT count(repeat('x', 160 + g * 0)) FROM generate_series(1, $freecell_n) g")
# The scan and count alone, without any function: what every row costs before its text.
freecell_scan=$(median_ms "SELECT count(g) FROM generate_series(1, $freecell_n) g")
freecell_per_second() { awk -v n="$1" -v ms="$2" 'BEGIN { printf "%.0f", n / (ms / 1000) }'; }
freecell_ours_rate=$(freecell_per_second "$freecell_n" "$freecell_ours")
freecell_plpgsql_rate=$(freecell_per_second "$freecell_slow_n" "$freecell_plpgsql")
freecell_floor_rate=$(freecell_per_second "$freecell_n" "$freecell_floor")
freecell_scan_rate=$(freecell_per_second "$freecell_n" "$freecell_scan")

echo "### freecell_layout(g) for games 1..1,000,000: layouts per second"
echo
echo "| query | rows | median ms | rows per second | freecell_layout is |"
echo "|---|---:|---:|---:|---:|"
echo "| \`count(freecell_layout(g))\` | $freecell_n | $freecell_ours | $freecell_ours_rate | |"
echo "| \`count(plpgsql_freecell_layout(g))\` (bench/freecell.sql; games 1..$freecell_slow_n, rate scaled) | $freecell_slow_n | $freecell_plpgsql | $freecell_plpgsql_rate | $(ratio "$freecell_ours_rate" "$freecell_plpgsql_rate")x faster |"
echo "| \`count(repeat('x', 160 + g * 0))\` (floor: a 160-byte text per row) | $freecell_n | $freecell_floor | $freecell_floor_rate | $(ratio "$freecell_ours" "$freecell_floor" 2)x the floor's time |"
echo "| \`count(g)\` (the scan and count alone) | $freecell_n | $freecell_scan | $freecell_scan_rate | |"
echo
echo "PL/pgSQL and freecell_layout boards that differ, over 4,000 games in all three ranges: $freecell_mismatches."
echo
