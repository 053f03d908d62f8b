//! What database administrators do to a server with dealcards, with PostgreSQL's own tools and
//! PgBouncer, each test on servers of its own (docs/operations.md says what these show):
//!   - `extension_path`: dealcards in a folder outside the installation, found through
//!     `extension_control_path` and `dynamic_library_path`, as CloudNativePG mounts an image;
//!   - `crash`: clients dealing, revealing and stepping queues while the server is killed over
//!     and over, and after every restart all they saw committed there, whole;
//!   - `pooler`: deals, provably fair rounds and queue steps from concurrent clients through
//!     PgBouncer in transaction and in statement pooling; settings and listeners behind it;
//!   - `replication`: a logical-replication subscriber that verifies the provably fair games,
//!     takes over, and deals on with new ids;
//!   - `pg_upgrade`: a cluster with dealcards and data upgraded from the oldest major to the
//!     newest, every row, the numbering and every function the same after it;
//!   - `restore`: pg_dump and pg_restore, serial and parallel, custom and directory format, over
//!     an existing database and into a newer major, every row kept;
//!   - `standby`: a hot standby where every function that only reads answers as on the primary,
//!     and every one that writes is refused with 25006; a base backup started as a primary, and
//!     the standby promoted, deal nothing under the round in force when they were copied until
//!     they reveal it.
//!
//! Run by scripts/test_ops.sh (make test-ops, and make test once), which installs the
//! extension into the majors these need and sets DEALCARDS_OPS_PG_BIN (the major of the pooler
//! and replication tests), DEALCARDS_UPGRADE_FROM_BIN and DEALCARDS_UPGRADE_TO_BIN (the two
//! majors of pg_upgrade), DEALCARDS_OPS_DIR (where the servers live) and, as root,
//! DEALCARDS_OPS_RUNAS (the OS user that runs them). Built with the feature ops_tests, which the
//! other server tests' runs leave out.
#![cfg(feature = "ops_tests")]

// The operations tests use its callable_functions alone.
#[allow(dead_code)]
#[path = "../server/catalog.rs"]
mod catalog;
mod dealing;
#[path = "../server/notify.rs"]
mod notify;
mod servers;

mod crash;
mod extension_path;
mod pg_upgrade;
mod pooler;
mod replication;
mod restore;
mod standby;
