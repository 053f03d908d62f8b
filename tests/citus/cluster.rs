//! The cluster: connection strings of the coordinator and the workers, the extension's tables
//! distributed once, where a desk's or a queue's shard is, and moving it ([`TOPOLOGY`] keeps the
//! tests that move shards apart from those that expect them to stay put).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::{Duration, Instant};

use postgres::{Client, NoTls};

/// The coordinator's connection string.
pub fn coordinator_dsn() -> String {
    std::env::var("DEALCARDS_CITUS_DSN").unwrap_or_else(|_| {
        panic!("DEALCARDS_CITUS_DSN is not set: run these tests with scripts/test_citus.sh")
    })
}

/// The workers' connection strings, DEALCARDS_CITUS_WORKER1_DSN, DEALCARDS_CITUS_WORKER2_DSN, ...
pub fn worker_dsns() -> Vec<String> {
    let dsns: Vec<String> = (1..)
        .map_while(|n| std::env::var(format!("DEALCARDS_CITUS_WORKER{n}_DSN")).ok())
        .collect();
    assert!(
        dsns.len() >= 2,
        "DEALCARDS_CITUS_WORKER1_DSN and DEALCARDS_CITUS_WORKER2_DSN must name the two workers"
    );
    dsns
}

pub fn connect_to(dsn: &str) -> Client {
    Client::connect(dsn, NoTls).unwrap_or_else(|e| panic!("cannot connect to {dsn}: {e}"))
}

/// One setting (port, host, ...) of a connection string.
pub fn setting(dsn: &str, name: &str) -> String {
    dsn.split_whitespace()
        .find_map(|kv| kv.strip_prefix(&format!("{name}=")))
        .unwrap_or_else(|| panic!("{name} missing from {dsn}"))
        .to_string()
}

/// The workers' ports, as the servers report them (inet_server_port()).
pub fn worker_ports() -> BTreeSet<i32> {
    worker_dsns()
        .iter()
        .map(|dsn| {
            connect_to(dsn)
                .query_one("SELECT inet_server_port()", &[])
                .unwrap()
                .get(0)
        })
        .collect()
}

/// Tests that move shards or add a node hold this for writing; the others, which look up where
/// a desk's shard is and expect it to stay there, hold it for reading.
pub static TOPOLOGY: RwLock<()> = RwLock::new(());

pub fn same_topology() -> RwLockReadGuard<'static, ()> {
    TOPOLOGY.read().unwrap_or_else(|e| e.into_inner())
}

pub fn changing_topology() -> RwLockWriteGuard<'static, ()> {
    TOPOLOGY.write().unwrap_or_else(|e| e.into_inner())
}

/// A connection to the coordinator once the extension's tables and functions are distributed:
/// the first caller runs dealcards_distribute() (4 shards per table: quick moves).
pub fn distributed() -> Client {
    static DONE: Mutex<bool> = Mutex::new(false);
    let dsn = coordinator_dsn();
    let mut done = DONE.lock().unwrap_or_else(|e| e.into_inner());
    if !*done {
        connect_to(&dsn)
            .batch_execute(
                "SET client_min_messages = warning;
                 SET citus.shard_count = 4;
                 SELECT * FROM dealcards_distribute();",
            )
            .unwrap_or_else(|e| panic!("dealcards_distribute(): {e}"));
        *done = true;
    }
    drop(done);
    connect_to(&dsn)
}

/// The connection string of the node listening on `port` (the coordinator's, another port).
pub fn node_dsn(port: i32) -> String {
    dsn_with(&coordinator_dsn(), "port", &port.to_string())
}

/// `dsn` with its setting `name` (port, user, dbname, ...) set to `value`.
pub fn dsn_with(dsn: &str, name: &str, value: &str) -> String {
    dsn.split_whitespace()
        .map(|kv| {
            if kv.starts_with(&format!("{name}=")) {
                format!("{name}={value}")
            } else {
                kv.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A worker as the coordinator's metadata names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Node {
    pub port: i32,
    pub group: i32,
}

/// The active workers (citus_get_active_worker_nodes(), as a game server finds them).
pub fn active_workers(c: &mut Client) -> Vec<Node> {
    c.query(
        "SELECT w.node_port::int, n.groupid
           FROM citus_get_active_worker_nodes() w
           JOIN pg_dist_node n ON n.nodename = w.node_name AND n.nodeport = w.node_port
          ORDER BY n.groupid",
        &[],
    )
    .unwrap()
    .iter()
    .map(|r| Node {
        port: r.get(0),
        group: r.get(1),
    })
    .collect()
}

/// The worker holding the shard of `table` (desk or shuffle_queue) for `key`.
pub fn holder(c: &mut Client, table: &str, key: i64) -> Node {
    let row = c
        .query_one(
            &format!(
                "SELECT n.nodeport, n.groupid
                   FROM pg_dist_placement p
                   JOIN pg_dist_node n USING (groupid)
                  WHERE p.shardid = get_shard_id_for_distribution_column('{table}', {key})
                    AND n.noderole = 'primary'"
            ),
            &[],
        )
        .unwrap_or_else(|e| panic!("where {table} {key} is: {e}"));
    Node {
        port: row.get(0),
        group: row.get(1),
    }
}

/// The desks lo..=hi by the worker holding them.
pub fn desks_by_holder(c: &mut Client, lo: i32, hi: i32) -> BTreeMap<Node, Vec<i32>> {
    let mut by = BTreeMap::<Node, Vec<i32>>::new();
    for row in c
        .query(
            &format!(
                "SELECT d, n.nodeport, n.groupid
                   FROM generate_series({lo}, {hi}) d
                   JOIN pg_dist_placement p
                     ON p.shardid = get_shard_id_for_distribution_column('desk', d)
                   JOIN pg_dist_node n ON n.groupid = p.groupid AND n.noderole = 'primary'
                  ORDER BY d"
            ),
            &[],
        )
        .unwrap()
    {
        let node = Node {
            port: row.get(1),
            group: row.get(2),
        };
        by.entry(node).or_default().push(row.get(0));
    }
    by
}

/// Moves the shard of `table` holding `key` (with its colocated shards) to `to`; returns how
/// long it took.
pub fn move_shard(c: &mut Client, table: &str, key: i64, to: Node) -> Duration {
    let from = holder(c, table, key);
    let started = Instant::now();
    c.batch_execute(&format!(
        "SELECT citus_move_shard_placement(
                    get_shard_id_for_distribution_column('{table}', {key}),
                    '127.0.0.1', {}, '127.0.0.1', {}, shard_transfer_mode => 'block_writes')",
        from.port, to.port
    ))
    .unwrap_or_else(|e| panic!("moving the shard of {table} {key} to {to:?}: {e}"));
    let took = started.elapsed();
    assert_eq!(
        holder(c, table, key),
        to,
        "the shard of {table} {key} moved"
    );
    took
}
