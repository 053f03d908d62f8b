#!/usr/bin/env python3
"""The soak run's report (bench/90_soak.sh): per operation and minute, from pgbench's
per-transaction logs, the transactions, throughput and the p50, p95, p99 and maximum latency;
then the backends' memory at the start and the end, from the samples the run took.

Usage: soak_report.py LOG_DIR NAMES MEMORY_FILE [ALLOCATOR_FILE]
  LOG_DIR      pgbench's logs (pgbench -l --log-prefix=LOG_DIR/soak): one line a transaction,
               "client transaction latency_us script epoch_s epoch_us"
  NAMES        the operations' names, comma-separated, in the order of pgbench's -f scripts
  MEMORY_FILE  lines "elapsed_s backends total_kib largest_kib heap_total_kib heap_largest_kib"
  ALLOCATOR_FILE
               lines "label elapsed_s pid system_bytes in_use_bytes": the C allocator's count
               (malloc_stats) of each backend, once warmed up and once near the end; and
               lines "context label pid name total_bytes": PostgreSQL's count of the same
               backend (pg_log_backend_memory_contexts), TopMemoryContext's children and the
               grand total (name "total")
"""
import glob
import os
import sys


def percentile(sorted_values, p):
    """The nearest-rank percentile of sorted values."""
    if not sorted_values:
        return 0
    rank = max(1, -(-len(sorted_values) * p // 100))
    return sorted_values[int(rank) - 1]


WARM_UP = 120


def main():
    log_dir, names, memory_file = sys.argv[1], sys.argv[2].split(","), sys.argv[3]
    allocator_file = sys.argv[4] if len(sys.argv) > 4 else None
    rows = []
    for path in glob.glob(os.path.join(log_dir, "soak*")):
        with open(path) as f:
            for line in f:
                fields = line.split()
                if len(fields) < 6:
                    continue
                latency, script = fields[2], int(fields[3])
                if not latency.isdigit():
                    # "failed" or "skipped": pgbench counts them; the run fails on any.
                    print(f"a transaction of {names[script]} {latency}", file=sys.stderr)
                    sys.exit(1)
                rows.append((int(fields[4]) + int(fields[5]) / 1e6, script, int(latency) / 1000.0))
    if not rows:
        print("no transactions logged", file=sys.stderr)
        sys.exit(1)
    start = min(r[0] for r in rows)
    buckets = {}
    for at, script, ms in rows:
        buckets.setdefault((int((at - start) // 60), script), []).append(ms)
    minutes = max(m for m, _ in buckets) + 1
    end = max(r[0] for r in rows)
    print("| operation | minute | transactions | per second | p50 ms | p95 ms | p99 ms | max ms |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for script, name in enumerate(names):
        for minute in range(minutes):
            values = sorted(buckets.get((minute, script), []))
            if not values:
                continue
            # The last minute may be part of one.
            seconds = max(1.0, min(60.0, end - start - 60 * minute))
            print(
                f"| {name} | {minute + 1} | {len(values)} | {len(values) / seconds:.1f} | "
                f"{percentile(values, 50):.2f} | {percentile(values, 95):.2f} | "
                f"{percentile(values, 99):.2f} | {values[-1]:.2f} |"
            )
    print()
    with open(memory_file) as f:
        samples = [line.split() for line in f if line.strip()]
    if samples:
        # A backend's caches fill in its first minutes (plans, catalog entries, each desk's
        # round, the allocator's pools): growth is measured from the first sample after WARM_UP
        # seconds, and the samples in between show whether it levels off.
        warm = next((s for s in samples if int(s[0]) >= WARM_UP), samples[-1])
        rows = [("start", samples[0]), ("warmed up", warm)]
        span = int(samples[-1][0]) - int(warm[0])
        for quarter in (1, 2, 3):
            at = int(warm[0]) + span * quarter // 4
            rows.append((f"{quarter}/4 after", next(s for s in samples if int(s[0]) >= at)))
        rows.append(("end", samples[-1]))
        print(
            "| backends' memory | at | backends | private, total MiB | private, largest MiB "
            "| heap, total MiB | heap, largest MiB |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|")
        for label, s in rows:
            mib = " | ".join(f"{int(v) / 1024:.1f}" for v in s[2:6])
            print(f"| {label} | {s[0]} s | {s[1]} | {mib} |")
        print()
        for what, i in (("private memory", 2), ("heap", 4)):
            grown = (int(samples[-1][i]) - int(warm[i])) / int(samples[-1][1])
            print(
                f"From warmed up to the end, {what}: {grown:+.0f} KiB a backend "
                f"({(int(samples[-1][i]) / int(warm[i]) - 1) * 100:+.1f}%)."
            )
    if allocator_file:
        allocator(allocator_file)


def allocator(path):
    """The C allocator's figures of the backends measured at both points."""
    points = {}
    with open(path) as f:
        for line in f:
            fields = line.split()
            if len(fields) == 5 and fields[0] != "context":
                label, at, pid, system, in_use = fields
                points.setdefault(label, {})[pid] = (int(at), int(system), int(in_use))
    warm, end = points.get("warmed_up", {}), points.get("end", {})
    both = sorted(set(warm) & set(end))
    print()
    if not both:
        print("The C allocator's figures: none (gdb is not installed, or no backend answered).")
        return
    print(
        "| C allocator (malloc_stats) | at | backends | system, total MiB "
        "| in use, total MiB | in use, largest MiB |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for label, point in (("warmed up", warm), ("end", end)):
        rows = [point[pid] for pid in both]
        print(
            f"| {label} | {min(r[0] for r in rows)} s | {len(rows)} | "
            f"{sum(r[1] for r in rows) / 2**20:.2f} | {sum(r[2] for r in rows) / 2**20:.2f} | "
            f"{max(r[2] for r in rows) / 2**20:.2f} |"
        )
    print()
    for what, i in (("held from the kernel", 1), ("in use", 2)):
        deltas = [(end[pid][i] - warm[pid][i]) / 1024 for pid in both]
        mean = sum(deltas) / len(deltas)
        # Each backend is stopped wherever it is in a transaction, holding that transaction's
        # memory: the spread of the backends' changes says how far the mean is from noise.
        spread = (sum((d - mean) ** 2 for d in deltas) / max(1, len(deltas) - 1)) ** 0.5
        error = spread / len(deltas) ** 0.5
        print(
            f"From warmed up to the end, the allocator's bytes {what}: {mean:+.1f} KiB a backend "
            f"(standard error {error:.1f} KiB; backends from {min(deltas):+.1f} to {max(deltas):+.1f})."
        )
    contexts(path, warm, end)


def change(deltas):
    """The mean of the backends' changes in KiB, with its standard error."""
    mean = sum(deltas) / len(deltas)
    spread = (sum((d - mean) ** 2 for d in deltas) / max(1, len(deltas) - 1)) ** 0.5
    return mean, spread / len(deltas) ** 0.5


def contexts(path, warm, end):
    """PostgreSQL's own count of the same backends (pg_log_backend_memory_contexts): the grand
    total of their memory contexts, the rest of the allocator's "in use" (memory outside the
    contexts), and the contexts under TopMemoryContext that changed the most."""
    counted = {}
    with open(path) as f:
        for line in f:
            fields = line.rstrip("\n").split(" ")
            if fields[0] == "context" and len(fields) >= 5:
                label, pid, size = fields[1], fields[2], int(fields[-1])
                name = " ".join(fields[3:-1])
                point = counted.setdefault(label, {}).setdefault(pid, {})
                point[name] = point.get(name, 0) + size
    cwarm, cend = counted.get("warmed_up", {}), counted.get("end", {})
    both = sorted(p for p in set(cwarm) & set(cend) & set(warm) & set(end)
                  if "total" in cwarm[p] and "total" in cend[p])
    print()
    if not both:
        print("PostgreSQL's memory contexts: none logged (no backend answered).")
        return
    total = [(cend[p]["total"] - cwarm[p]["total"]) / 1024 for p in both]
    outside = [((end[p][2] - cend[p]["total"]) - (warm[p][2] - cwarm[p]["total"])) / 1024
               for p in both]
    print(f"The same {len(both)} backends' memory contexts (pg_log_backend_memory_contexts), "
          "warmed up to the end, KiB a backend; each child of TopMemoryContext counts the "
          "contexts under it:")
    print()
    print("| memory | at warm-up | at the end | change | standard error |")
    print("|---|---:|---:|---:|---:|")
    rows = [("all contexts (grand total)", [cwarm[p]["total"] for p in both],
             [cend[p]["total"] for p in both], total),
            ("outside the contexts (in use minus the contexts)",
             [warm[p][2] - cwarm[p]["total"] for p in both],
             [end[p][2] - cend[p]["total"] for p in both], outside)]
    names = set()
    for p in both:
        names |= (set(cwarm[p]) | set(cend[p])) - {"total"}
    by_name = []
    for name in names:
        d = [(cend[p].get(name, 0) - cwarm[p].get(name, 0)) / 1024 for p in both]
        by_name.append((abs(sum(d)), name, d))
    for _, name, d in sorted(by_name, reverse=True)[:6]:
        rows.append((name, [cwarm[p].get(name, 0) for p in both],
                     [cend[p].get(name, 0) for p in both], d))
    for what, a, b, d in rows:
        mean, error = change(d)
        print(f"| {what} | {sum(a) / len(a) / 1024:.1f} | {sum(b) / len(b) / 1024:.1f} "
              f"| {mean:+.1f} | {error:.1f} |")


if __name__ == "__main__":
    main()
