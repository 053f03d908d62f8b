# The two commands a newcomer needs are `make demo` and `make test`; both install what is
# missing first (scripts/setup.sh) and are quick when everything is there.
.PHONY: demo test test-citus test-ops test-package package image release bench bench-citus fairness fuzz setup install cluster stop clean

demo:
	@scripts/demo.sh

test:
	@scripts/test.sh

# The Citus suite alone (make test runs it too): Citus built once from its source, a coordinator
# and two workers on this machine, tests/citus/ over real connections.
test-citus: setup
	@scripts/test_citus.sh

# The operations suite alone (make test runs it too): PgBouncer, logical replication and
# pg_upgrade, on servers of its own (docs/operations.md).
test-ops: setup
	@scripts/test_ops.sh

# One Debian package per major of PG_VERSIONS, optimized builds, into target/packages/
# (docs/operations.md#packages).
package: setup
	@scripts/package.sh

# One OCI image per major from 18 on, for CloudNativePG's image volumes, into target/images/,
# written without a container daemon (docs/operations.md#cloudnativepg).
image: setup
	@scripts/image.sh

# Every artifact of a release (packages, images, the PGXN zip, the verifier, SHA256SUMS), built
# from HEAD and checked together, into target/release/<version>/ (scripts/release.sh).
release: setup
	@scripts/release.sh

# Checks the packages of `make package`: their fields and files, apt-get install, pg_regress and
# apt-get purge on the system's PostgreSQL 15, and the library loading into the other majors.
test-package: package
	@scripts/test_package.sh

bench:
	@scripts/bench.sh

# Deals per second on a one-machine Citus cluster next to a plain server and a hand-written
# distributed PL/pgSQL deal, and shuffle_queue_next latency there (BENCHMARKS.md).
bench-citus: install
	@scripts/bench_citus.sh

# The statistical fairness report on a live server and its heat map (docs/fairness.md).
fairness:
	@scripts/fairness.sh

# Random SQL against the extension (sqlsmith, then random calls of every function) as a plain
# role, with a new seed each run; fails on a crash or an internal error raised inside the
# extension, printing the seed and the statement. FUZZ_SECONDS (default 60), FUZZ_CALLS,
# FUZZ_SEED (repeat a run), FUZZ_QUERIES; FUZZ_FIXED=1 runs the seeds of make test.
fuzz:
	@scripts/fuzz.sh

setup:
	@scripts/setup.sh

install: setup
	@scripts/install.sh

# A throwaway server with the extension's functions, for trying things by hand:
#   make cluster && eval "$(scripts/cluster.sh env)" && psql postgres
cluster: install
	@scripts/cluster.sh start

stop:
	@scripts/cluster.sh stop

# `make stop` stops the cluster of PG_VERSION (default 15); this stops every major's.
clean:
	@for v in 14 15 16 17 18; do PG_VERSION=$$v scripts/cluster.sh stop; done
	cargo clean
