# A day of traffic, compressed: SOAK_CLIENTS (default 32) pgbench connections for SOAK_SECONDS
# (default 600) mixing ordinary deals, provably fair deals and reveals, a queue step of every
# kind and a row sample, with each operation's throughput and latency percentiles per minute,
# errors (pgbench fails the run on any), and the backends' private memory sampled every 10 s
# (start and end in the table: no growth). SOAK_SECONDS=0 skips it.
# shellcheck shell=bash
soak_seconds=${SOAK_SECONDS:-600}
soak_clients=${SOAK_CLIENTS:-32}
if [ "$soak_seconds" -gt 0 ]; then
  soak_dir=$(mktemp -d)
  chmod 777 "$soak_dir"
  # 1,000 ordinary desks, 200 provably fair ones (seeds not required: pgbench plays no client),
  # 200 queues of each kind over 200 tracks, and a 10^6-row table to sample.
  bench_sql <<'SQL' || { echo "the soak run's set-up failed" >&2; return 1 2>/dev/null || exit 1; }
TRUNCATE game, bid_record, note;
DELETE FROM desk_player WHERE desk_id BETWEEN 20001 AND 21200;
DELETE FROM desk WHERE desk_id BETWEEN 20001 AND 21200;
INSERT INTO desk (desk_id) SELECT d FROM generate_series(20001, 21200) d;
INSERT INTO desk_player SELECT d, s, d * 10 + s FROM generate_series(20001, 21200) d, generate_series(1, 3) s;
SELECT count(fair_mode_on(d, seeds_required => false)) FROM generate_series(21001, 21200) d;
DROP TABLE IF EXISTS soak_queue, soak_rows;
CREATE TABLE soak_queue (kind int, n int, queue_id bigint, PRIMARY KEY (kind, n));
INSERT INTO soak_queue
SELECT k, n, CASE k
         WHEN 1 THEN shuffle_queue_new(t)
         WHEN 2 THEN shuffle_queue_new(t, 'random', 20)
         WHEN 3 THEN shuffle_queue_new(t, groups => ARRAY(SELECT 'artist ' || i % 17 FROM unnest(t) i))
         WHEN 4 THEN shuffle_queue_new(t, listener => n)
         WHEN 5 THEN shuffle_queue_new(t, seed => sha256(int4send(n))) END
  FROM generate_series(1, 5) k, generate_series(1, 200) n,
       LATERAL (SELECT ARRAY(SELECT generate_series(1, 200)::bigint) AS t) a;
CREATE TABLE soak_rows (id int PRIMARY KEY, t text);
INSERT INTO soak_rows SELECT g, md5(g::text) FROM generate_series(1, 1000000) g;
VACUUM ANALYZE;
SQL
  soak_script() { printf '%s\n' "$2" >"$soak_dir/$1.sql"; }
  soak_script deal '\set desk random(20001, 21000)
SELECT deal_cards(:desk);'
  soak_script fair_deal '\set desk random(21001, 21200)
SELECT deal_cards(:desk);'
  soak_script fair_reveal '\set desk random(21001, 21200)
SELECT round FROM fair_reveal(:desk);'
  soak_script queue_next '\set kind random(1, 5)
\set n random(1, 200)
SELECT shuffle_queue_next(queue_id) FROM soak_queue WHERE kind = :kind AND n = :n;'
  soak_script sample_rows 'SELECT count(*) FROM sample_rows(NULL::soak_rows, 10);'
  names=deal,fair_deal,fair_reveal,queue_next,sample_rows
  # Backends' memory every 10 s: elapsed seconds, backends, then the total and the largest of
  # two measures, in KiB: private memory (Private_Clean + Private_Dirty of /proc/PID/smaps), and
  # the part of it that is the backend's own heap (Private_Dirty of the [heap] and of unnamed
  # anonymous mappings). Private memory also counts pages of shared memory and of the library
  # and binary that no other process has touched yet, which move as the workload touches new
  # buffers and code; the heap is what the backend allocated.
  (
    start=$(date +%s)
    while sleep 10; do
      pids=$(psql -X -q -A -t -d "$BENCH_DB" -c \
        "SELECT pid FROM pg_stat_activity WHERE application_name = 'pgbench' AND backend_type = 'client backend'")
      [ -n "$pids" ] || continue
      for p in $pids; do
        awk '/^[0-9a-f]+-[0-9a-f]+ / { own = ($6 == "" || $6 == "[heap]") }
             /^Private_(Clean|Dirty):/ { s += $2 }
             /^Private_Dirty:/ && own { h += $2 }
             END { print s + 0, h + 0 }' "/proc/$p/smaps" 2>/dev/null
      done | awk -v t=$(($(date +%s) - start)) \
        '{ n++; s += $1; if ($1 > m) m = $1; h += $2; if ($2 > hm) hm = $2 }
         END { if (n) print t, n, s, m, h, hm }'
    done >"$soak_dir/memory"
  ) &
  sampler=$!
  # The C allocator's own count, in bytes, of each pgbench backend: malloc_stats() called in the
  # backend by gdb (it prints to the backend's stderr, the server log), once warmed up and once
  # a minute before the end. "system" is what the allocator holds from the kernel, "in use" what
  # is allocated now (palloc's blocks, the Rust side's and the C libraries' allocations): in use
  # flat while system grows is the allocator's fragmentation, in use growing is a leak. Lines:
  # label elapsed_s pid system_bytes in_use_bytes. Without gdb the table says so.
  soak_log="$(server_dir "pgcluster-$PG_MAJOR")/server.log"
  (
    command -v gdb >/dev/null || exit 0
    start=$(date +%s)
    for point in warmed_up end; do
      if [ "$point" = warmed_up ]; then
        at=$((soak_seconds > 300 ? 130 : soak_seconds / 3))
      else
        at=$((soak_seconds > 300 ? soak_seconds - 60 : soak_seconds * 2 / 3))
      fi
      wait_s=$((at - ($(date +%s) - start)))
      [ "$wait_s" -le 0 ] || sleep "$wait_s"
      for p in $(psql -X -q -A -t -d "$BENCH_DB" -c \
        "SELECT pid FROM pg_stat_activity WHERE application_name = 'pgbench' AND backend_type = 'client backend'"); do
        offset=$(stat -c %s "$soak_log")
        gdb -nx -batch -iex 'set debuginfod enabled off' -p "$p" -ex 'call (void) malloc_stats()' \
          >/dev/null 2>&1 || continue
        tail -c +$((offset + 1)) "$soak_log" | awk -v l="$point" -v t=$(($(date +%s) - start)) -v p="$p" \
          '/^Total \(incl. mmap\):/ { total = 1; next }
           total && /^system bytes/ { sys = $NF }
           total && /^in use bytes/ { print l, t, p, sys, $NF; exit }'
        # PostgreSQL's own count of the same backend: its memory contexts, as
        # pg_log_backend_memory_contexts writes them to the log (the backend answers at its next
        # interrupt check), each line a context's own blocks, depth first. Lines: context label
        # pid name total_bytes, for each child of TopMemoryContext with everything under it
        # (TopMemoryContext is level 0 before PostgreSQL 18, 1 from 18 on), TopMemoryContext's
        # own blocks, and the grand total (name "total"). The rest of "in use" is memory outside
        # the contexts: the Rust side's, the C libraries'.
        offset=$(stat -c %s "$soak_log")
        psql -X -q -A -t -d "$BENCH_DB" -c "SELECT pg_log_backend_memory_contexts($p)" >/dev/null || continue
        for _ in $(seq 50); do
          tail -c +$((offset + 1)) "$soak_log" | grep -q "\[$p\].*Grand total:" && break
          sleep 0.1
        done
        tail -c +$((offset + 1)) "$soak_log" | grep "\[$p\]" | awk -v l="$point" -v p="$p" '
          match($0, /level: [0-9]+; /) {
            level = substr($0, RSTART + 7, RLENGTH - 9) + 0
            rest = substr($0, RSTART + RLENGTH)
            if (match(rest, /: [0-9]+ total in/)) {
              name = substr(rest, 1, RSTART - 1); bytes = substr(rest, RSTART + 2, RLENGTH - 11) + 0
            } else if (match(rest, /containing [0-9]+ total/)) {
              name = ""; bytes = substr(rest, RSTART + 11, RLENGTH - 17) + 0
            } else next
            if (name == "TopMemoryContext") { top = level; sum["TopMemoryContext"] += bytes; next }
            if (level == top + 1) { cur = name != "" ? name : "more child contexts"; if (!(cur in sum)) order[++n] = cur }
            sum[cur] += bytes
          }
          match($0, /Grand total: [0-9]+ bytes/) {
            for (i = 1; i <= n; i++) print "context", l, p, order[i], sum[order[i]]
            print "context", l, p, "TopMemoryContext", sum["TopMemoryContext"]
            split(substr($0, RSTART, RLENGTH), f, " "); print "context", l, p, "total", f[3]; exit
          }'
      done
    done >"$soak_dir/allocator"
  ) &
  allocator=$!
  if ! out=$("$PG_BIN/pgbench" -n -M prepared -c "$soak_clients" -j "$(nproc)" -T "$soak_seconds" \
    -f "$soak_dir/deal.sql@40" -f "$soak_dir/fair_deal.sql@15" -f "$soak_dir/fair_reveal.sql@1" \
    -f "$soak_dir/queue_next.sql@40" -f "$soak_dir/sample_rows.sql@4" \
    -l --log-prefix="$soak_dir/soak" "$BENCH_DB" 2>&1); then
    kill "$sampler" "$allocator" 2>/dev/null
    echo "$out" >&2
    echo "the soak run failed" >&2
    return 1 2>/dev/null || exit 1
  fi
  kill "$sampler" 2>/dev/null
  wait "$sampler" 2>/dev/null || true
  wait "$allocator" 2>/dev/null || true
  echo "### A day of traffic: $soak_clients connections for $soak_seconds s"
  echo
  echo "pgbench: $(sed -n 's/^number of transactions actually processed: \(.*\)/\1 transactions/p' <<<"$out"), $(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' <<<"$out") a second, none failed (pgbench fails the run on an error)"
  echo
  python3 "$ROOT/bench/soak_report.py" "$soak_dir" "$names" "$soak_dir/memory" "$soak_dir/allocator"
  echo
  rm -rf "$soak_dir"
fi
