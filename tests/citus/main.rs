//! dealcards on a Citus cluster (a coordinator and two workers, scripts/citus_cluster.sh), through
//! real client connections:
//!   - the stateless functions (shuffle_ints, shuffle_array, sample_ints, deal_hands,
//!     freecell_layout) run on the workers inside distributed queries over a table with shards on
//!     both, the seeded ones giving on every shard what they give on the coordinator;
//!   - dealcards_distribute() distributes the tables by desk and by queue, colocated, and the
//!     functions that touch them by their first argument, and every key includes the
//!     distribution column; read from the catalog, every function of the extension that runs
//!     statements is distributed by its desk or queue (but a few, listed with why) and called by
//!     a test here;
//!   - a deal (plain or provably fair), a reveal, every queue call and every call on a card
//!     room's hand are each one single-shard transaction on the worker holding the desk, the
//!     queue or the hand: one remote command, no two-phase commit, no intermediate results, one
//!     shard of each table;
//!   - ids never meet across the nodes, through a shard move, a new worker and a rebalance;
//!   - deal_cards in the caller's transaction is all or nothing, and a transaction spanning two
//!     workers commits when it turns dealcards.notify off (PREPARE TRANSACTION refuses NOTIFY);
//!   - a game server listening on every worker hears each committed deal once, on the worker
//!     holding the desk, wherever the desk's shard moves;
//!   - what holds on a plain server holds here: valid deals, SQLSTATEs, provably fair desks,
//!     queues under concurrent steps, eight sessions dealing at once.
//!
//! Run by scripts/test_citus.sh (make test-citus), which starts the cluster and sets
//! DEALCARDS_CITUS_DSN (the coordinator), DEALCARDS_CITUS_WORKER<n>_DSN (each worker) and
//! DEALCARDS_CITUS_SPARE_WORKER_DSN (a running node not yet in the cluster, which one test adds
//! before rebalancing), and builds them with the feature citus_tests (the other server tests'
//! runs leave this target out). The tests share the database `dealcards`: each works at desks and
//! queues of its own, and those that move shards or distribute again hold [`cluster::TOPOLOGY`]
//! for writing meanwhile.
//!
//! One module per concern; the shared helpers are in `cluster` (nodes, shards, topology),
//! `desks` (seating, dealing, the records a deal leaves) and `trace` (what the coordinator sends
//! and the workers log).
#![cfg(feature = "citus_tests")]

#[path = "../server/mod.rs"]
mod server;

mod cluster;
mod desks;
mod trace;

mod concurrent_deals;
mod distributed_functions;
mod distribution;
mod extension_update;
mod hands;
mod listeners;
mod plain_server;
mod provably_fair;
mod pure_functions;
mod queues;
mod row_fairness;
mod row_samples;
mod shard_moves;
mod single_shard;
mod transactions;
mod workers;
