//! dealcards on a Citus cluster (a coordinator and two workers, scripts/citus_cluster.sh), through
//! real client connections:
//!   - the stateless functions (shuffle_ints, shuffle_array, sample_ints, deal_hands,
//!     freecell_layout) run on the workers inside distributed queries over a table with shards on
//!     both, the seeded ones giving on every shard what they give on the coordinator;
//!   - dealcards_distribute() distributes the tables by desk and by queue, colocated, and the
//!     functions that touch them by their first argument, and every key includes the
//!     distribution column;
//!   - a deal (plain or provably fair), a reveal and a queue step are each one single-shard
//!     transaction on the worker holding the desk or the queue: one remote command, no
//!     two-phase commit, no intermediate results;
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
//! runs leave this file out). The tests share the database `dealcards`: each works at desks and
//! queues of its own, and those that move shards or distribute again hold [`TOPOLOGY`] for
//! writing meanwhile.
#![cfg(feature = "citus_tests")]

mod server;

use std::collections::{BTreeMap, BTreeSet};
use std::str::FromStr;
use std::sync::{Arc, Barrier, Mutex, OnceLock, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::thread;
use std::time::{Duration, Instant};

use postgres::fallible_iterator::FallibleIterator;
use postgres::{Client, Config, NoTls, SimpleQueryMessage};

/// Rows of the distributed test table: k = 1..ROWS.
const ROWS: i32 = 64;
/// Its name; the tests create it on the coordinator (dropped first if an earlier run left it).
const TABLE: &str = "citus_stateless_t";

/// The coordinator's connection string.
fn coordinator_dsn() -> String {
    std::env::var("DEALCARDS_CITUS_DSN").unwrap_or_else(|_| {
        panic!("DEALCARDS_CITUS_DSN is not set: run these tests with scripts/test_citus.sh")
    })
}

/// The workers' connection strings, DEALCARDS_CITUS_WORKER1_DSN, DEALCARDS_CITUS_WORKER2_DSN, ...
fn worker_dsns() -> Vec<String> {
    let dsns: Vec<String> = (1..)
        .map_while(|n| std::env::var(format!("DEALCARDS_CITUS_WORKER{n}_DSN")).ok())
        .collect();
    assert!(
        dsns.len() >= 2,
        "DEALCARDS_CITUS_WORKER1_DSN and DEALCARDS_CITUS_WORKER2_DSN must name the two workers"
    );
    dsns
}

fn connect_to(dsn: &str) -> Client {
    Client::connect(dsn, NoTls).unwrap_or_else(|e| panic!("cannot connect to {dsn}: {e}"))
}

/// One setting (port, host, ...) of a connection string.
fn setting(dsn: &str, name: &str) -> String {
    dsn.split_whitespace()
        .find_map(|kv| kv.strip_prefix(&format!("{name}=")))
        .unwrap_or_else(|| panic!("{name} missing from {dsn}"))
        .to_string()
}

/// The workers' ports, as the servers report them (inet_server_port()).
fn worker_ports() -> BTreeSet<i32> {
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

/// A connection to the coordinator, where the distributed test table exists (created once per
/// run of this file) with rows k = 1..ROWS spread over both workers.
fn coordinator() -> Client {
    let dsn = coordinator_dsn();
    static TABLE_READY: OnceLock<()> = OnceLock::new();
    TABLE_READY.get_or_init(|| {
        let mut c = connect_to(&dsn);
        c.batch_execute(&format!(
            "SET client_min_messages = warning;
             DROP TABLE IF EXISTS {TABLE};
             CREATE TABLE {TABLE} (k int PRIMARY KEY, note text);
             SET citus.shard_count = 8;
             SELECT create_distributed_table('{TABLE}', 'k');
             INSERT INTO {TABLE} SELECT g, 'row ' || g FROM generate_series(1, {ROWS}) g;"
        ))
        .unwrap();
    });
    connect_to(&dsn)
}

/// Runs `select` (which must return k and inet_server_port() first) over the distributed table
/// and checks that both workers answered, that no row was lost, and that the coordinator did
/// not answer for them. Returns the rows by k.
fn on_the_workers(c: &mut Client, select: &str) -> BTreeMap<i32, postgres::Row> {
    let coordinator_port: i32 = c
        .query_one("SELECT inet_server_port()", &[])
        .unwrap()
        .get(0);
    let rows = c
        .query(&format!("{select} FROM {TABLE}"), &[])
        .unwrap_or_else(|e| panic!("{select}: {e}"));
    let ports: BTreeSet<i32> = rows.iter().map(|r| r.get(1)).collect();
    assert!(
        !ports.contains(&coordinator_port),
        "{select}: rows computed on the coordinator"
    );
    assert_eq!(ports, worker_ports(), "{select}: not run on both workers");
    let by_k: BTreeMap<i32, postgres::Row> = rows.into_iter().map(|r| (r.get(0), r)).collect();
    assert_eq!(by_k.len(), ROWS as usize, "{select}: rows lost or doubled");
    by_k
}

/// Evaluates `expression` (of the row's key, written `{k}`) on the workers, a row at a time
/// ([`on_the_workers`]), checks that each row gives what the coordinator itself gives for the
/// same key (no distributed table), and returns the workers' values by key.
fn workers_agree_with_the_coordinator<T>(c: &mut Client, expression: &str) -> BTreeMap<i32, T>
where
    T: for<'a> postgres::types::FromSql<'a> + PartialEq + std::fmt::Debug,
{
    let rows = on_the_workers(
        c,
        &format!(
            "SELECT k, inet_server_port(), {}",
            expression.replace("{k}", "k")
        ),
    );
    let local: BTreeMap<i32, T> = c
        .query(
            &format!(
                "SELECT g, {} FROM generate_series(1, {ROWS}) g",
                expression.replace("{k}", "g")
            ),
            &[],
        )
        .unwrap()
        .into_iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    rows.iter()
        .map(|(k, row)| {
            let value: T = row.get(2);
            assert_eq!(value, local[k], "{expression}, k = {k}");
            (*k, value)
        })
        .collect()
}

fn is_permutation(values: &[i32], lo: i32, hi: i32) -> bool {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    sorted == (lo..=hi).collect::<Vec<_>>()
}

#[test]
fn dealcards_reached_every_worker() {
    let mut coordinator = coordinator();
    let version: String = coordinator
        .query_one(
            "SELECT extversion FROM pg_extension WHERE extname = 'dealcards'",
            &[],
        )
        .unwrap()
        .get(0);
    let seed = [7u8; 32];
    let reference: Vec<i32> = coordinator
        .query_one("SELECT shuffle_ints(1, 54, $1)", &[&&seed[..]])
        .unwrap()
        .get(0);
    for dsn in worker_dsns() {
        let mut worker = connect_to(&dsn);
        let rows = worker
            .query(
                "SELECT extversion FROM pg_extension WHERE extname = 'dealcards'",
                &[],
            )
            .unwrap();
        assert_eq!(rows.len(), 1, "dealcards is not installed on {dsn}");
        assert_eq!(rows[0].get::<_, String>(0), version, "on {dsn}");
        // The library loads there, and draws what the coordinator draws from the same seed.
        let drawn: Vec<i32> = worker
            .query_one("SELECT shuffle_ints(1, 54, $1)", &[&&seed[..]])
            .unwrap()
            .get(0);
        assert_eq!(drawn, reference, "seeded shuffle_ints differs on {dsn}");
    }
}

#[test]
fn the_test_table_has_shards_on_both_workers() {
    let mut c = coordinator();
    let placed: BTreeSet<i32> = c
        .query(
            "SELECT DISTINCT n.nodeport
               FROM pg_dist_shard s
               JOIN pg_dist_placement p USING (shardid)
               JOIN pg_dist_node n USING (groupid)
              WHERE s.logicalrelid = $1::text::regclass",
            &[&TABLE],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    let workers: BTreeSet<i32> = worker_dsns()
        .iter()
        .map(|d| setting(d, "port").parse().unwrap())
        .collect();
    assert_eq!(placed, workers, "placements of {TABLE}");
    // citus_shards agrees, and each worker holds rows.
    let rows_by_port: BTreeMap<i32, i64> = c
        .query(
            &format!("SELECT inet_server_port(), count(*) FROM {TABLE} GROUP BY 1"),
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_eq!(
        rows_by_port.keys().copied().collect::<BTreeSet<_>>(),
        worker_ports()
    );
    let in_citus_shards: BTreeSet<i32> = c
        .query(
            "SELECT DISTINCT nodeport FROM citus_shards WHERE table_name = $1::text::regclass",
            &[&TABLE],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(in_citus_shards, workers);
}

#[test]
fn shuffle_ints_in_a_distributed_query() {
    let mut c = coordinator();
    // A constant seed: the same deck on every shard. (`54 + 0 * k` keeps the coordinator from
    // folding the call into a constant: each worker computes it.)
    let decks = workers_agree_with_the_coordinator::<Vec<i32>>(
        &mut c,
        "shuffle_ints(1, 54 + 0 * {k}, sha256('citus'::bytea))",
    );
    assert_eq!(
        decks.values().collect::<BTreeSet<_>>().len(),
        1,
        "one seed, one deck"
    );
    // A seed per row: each shard gives what the coordinator gives for that seed.
    workers_agree_with_the_coordinator::<Vec<i32>>(
        &mut c,
        "shuffle_ints(1, 54, sha256({k}::text::bytea))",
    );
    // No seed: valid permutations, different ones.
    let rows = on_the_workers(
        &mut c,
        "SELECT k, inet_server_port(), shuffle_ints(1, 54 + 0 * k)",
    );
    let decks: BTreeSet<Vec<i32>> = rows.values().map(|r| r.get(2)).collect();
    for deck in &decks {
        assert!(is_permutation(deck, 1, 54), "{deck:?}");
    }
    assert!(
        decks.len() > ROWS as usize - 2,
        "unseeded decks repeat: {} distinct",
        decks.len()
    );
}

#[test]
fn shuffle_array_in_a_distributed_query() {
    let mut c = coordinator();
    workers_agree_with_the_coordinator::<Vec<String>>(
        &mut c,
        "shuffle_array(ARRAY['a', 'b', 'c', 'd', 'e', 'f', 'row ' || {k}], sha256('array'::bytea))",
    );
    let rows = on_the_workers(
        &mut c,
        "SELECT k, inet_server_port(), shuffle_array(ARRAY(SELECT generate_series(k, k + 53)))",
    );
    let mut orders = BTreeSet::new();
    for (k, row) in &rows {
        let shuffled: Vec<i32> = row.get(2);
        assert!(
            is_permutation(&shuffled, *k, k + 53),
            "k = {k}: {shuffled:?}"
        );
        orders.insert(shuffled.iter().map(|v| v - k).collect::<Vec<_>>());
    }
    assert!(
        orders.len() > ROWS as usize - 2,
        "unseeded orders repeat: {} distinct",
        orders.len()
    );
}

#[test]
fn sample_ints_in_a_distributed_query() {
    let mut c = coordinator();
    let samples = workers_agree_with_the_coordinator::<Vec<i64>>(
        &mut c,
        "sample_ints(1, 1000 + 0 * {k}, 10, sha256('sample'::bytea))",
    );
    assert_eq!(
        samples.values().collect::<BTreeSet<_>>().len(),
        1,
        "one seed, one sample"
    );
    let rows = on_the_workers(
        &mut c,
        "SELECT k, inet_server_port(), sample_ints(k, k + 999, 10)",
    );
    for (k, row) in &rows {
        let sample: Vec<i64> = row.get(2);
        let distinct: BTreeSet<i64> = sample.iter().copied().collect();
        assert_eq!(distinct.len(), 10, "k = {k}: {sample:?}");
        let (lo, hi) = (i64::from(*k), i64::from(*k) + 999);
        assert!(
            sample.iter().all(|v| (lo..=hi).contains(v)),
            "k = {k}: {sample:?}"
        );
    }
}

#[test]
fn deal_hands_in_a_distributed_query() {
    let mut c = coordinator();
    // deal_hands joined laterally to each row: the workers deal, one deck per row. (An argument
    // of the row makes it a call per row; `deal_hands()` alone is one call per shard query.)
    let hands = c
        .query(
            &format!(
                "SELECT t.k, inet_server_port(), d.seat, d.cards
                   FROM {TABLE} t CROSS JOIN LATERAL deal_hands(3, 17, 54 + 0 * t.k) d"
            ),
            &[],
        )
        .unwrap();
    let ports: BTreeSet<i32> = hands.iter().map(|r| r.get(1)).collect();
    assert_eq!(
        ports,
        worker_ports(),
        "deal_hands did not run on both workers"
    );
    let mut by_k: BTreeMap<i32, BTreeMap<i32, Vec<i32>>> = BTreeMap::new();
    for row in &hands {
        by_k.entry(row.get(0))
            .or_default()
            .insert(row.get(2), row.get(3));
    }
    assert_eq!(by_k.len(), ROWS as usize);
    let mut decks = BTreeSet::new();
    for (k, seats) in &by_k {
        let sizes: Vec<(i32, usize)> = seats.iter().map(|(s, c)| (*s, c.len())).collect();
        assert_eq!(sizes, [(0, 3), (1, 17), (2, 17), (3, 17)], "k = {k}");
        let all: Vec<i32> = seats.values().flatten().copied().collect();
        assert!(
            is_permutation(&all, 1, 54),
            "k = {k}: hands overlap or miss cards"
        );
        decks.insert(all);
    }
    assert!(
        decks.len() > ROWS as usize - 2,
        "deals repeat: {} distinct",
        decks.len()
    );
}

#[test]
fn freecell_layout_in_a_distributed_query() {
    let mut c = coordinator();
    workers_agree_with_the_coordinator::<String>(&mut c, "freecell_layout({k})");
}

// ---------------------------------------------------------------------------------------------
// The extension's tables on the cluster.

/// Tests that move shards or add a node hold this for writing; the others, which look up where
/// a desk's shard is and expect it to stay there, hold it for reading.
static TOPOLOGY: RwLock<()> = RwLock::new(());

fn same_topology() -> RwLockReadGuard<'static, ()> {
    TOPOLOGY.read().unwrap_or_else(|e| e.into_inner())
}

fn changing_topology() -> RwLockWriteGuard<'static, ()> {
    TOPOLOGY.write().unwrap_or_else(|e| e.into_inner())
}

/// A connection to the coordinator once the extension's tables and functions are distributed:
/// the first caller runs dealcards_distribute() (4 shards per table: quick moves).
fn distributed() -> Client {
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
fn node_dsn(port: i32) -> String {
    coordinator_dsn()
        .split_whitespace()
        .map(|kv| {
            if kv.starts_with("port=") {
                format!("port={port}")
            } else {
                kv.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A worker as the coordinator's metadata names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Node {
    port: i32,
    group: i32,
}

/// The active workers (citus_get_active_worker_nodes(), as a game server finds them).
fn active_workers(c: &mut Client) -> Vec<Node> {
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
fn holder(c: &mut Client, table: &str, key: i64) -> Node {
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
fn desks_by_holder(c: &mut Client, lo: i32, hi: i32) -> BTreeMap<Node, Vec<i32>> {
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

/// Desks lo..=hi, each with its three players seated (player d * 10 + seat), rid of whatever
/// an earlier run left there.
fn fresh_desks(c: &mut Client, lo: i32, hi: i32) {
    let range = format!("desk_id BETWEEN {lo} AND {hi}");
    c.batch_execute(&format!(
        "SET client_min_messages = warning;
         DELETE FROM bid_record WHERE {range};
         DELETE FROM note WHERE {range};
         DELETE FROM game WHERE {range};
         DELETE FROM desk_player WHERE {range};
         DELETE FROM desk WHERE {range};
         DELETE FROM fair_seed WHERE {range};
         INSERT INTO desk (desk_id) SELECT g FROM generate_series({lo}, {hi}) g;
         INSERT INTO desk_player (desk_id, player_no, player_id)
         SELECT d, s, d * 10 + s FROM generate_series({lo}, {hi}) d, generate_series(1, 3) s;
         RESET client_min_messages;"
    ))
    .unwrap_or_else(|e| panic!("desks {lo}..={hi}: {e}"));
}

/// The first column of the first row of a statement sent with the simple query protocol, as
/// text (jsonb in its output form: what a notification carries).
fn simple_value(c: &mut Client, sql: &str) -> Result<Option<String>, postgres::Error> {
    for message in c.simple_query(sql)? {
        if let SimpleQueryMessage::Row(row) = message {
            return Ok(row.get(0).map(str::to_string));
        }
    }
    Ok(None)
}

/// What one deal returned: its JSON as jsonb prints it, and the game id.
#[derive(Clone, Debug)]
struct Dealt {
    json: String,
    game: i64,
}

fn try_deal(c: &mut Client, desk: i32) -> Result<Dealt, postgres::Error> {
    let json = simple_value(c, &format!("SELECT deal_cards({desk})"))?.expect("a deal");
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(value["desk"], desk, "{json}");
    let game = value["game"].as_i64().unwrap_or_else(|| panic!("{json}"));
    Ok(Dealt { json, game })
}

fn deal(c: &mut Client, desk: i32) -> Dealt {
    try_deal(c, desk).unwrap_or_else(|e| {
        let why = e
            .as_db_error()
            .map_or_else(|| e.to_string(), |d| d.message().to_string());
        panic!("deal_cards({desk}): {} {why}", sqlstate(&e))
    })
}

fn sqlstate(e: &postgres::Error) -> String {
    e.code().map(|c| c.code().to_string()).unwrap_or_default()
}

fn count(c: &mut Client, sql: &str) -> i64 {
    c.query_one(sql, &[])
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .get(0)
}

/// The node range an id belongs to (Citus group id; 0 the coordinator's).
fn range_of(id: i64) -> i32 {
    (id >> 48) as i32
}

/// Games, notes and bids at desks lo..=hi: every game and note id appears once, each game has
/// its two opening bids and its note, and every desk points at a game of its own. Returns the
/// game ids by desk.
fn check_records(c: &mut Client, lo: i32, hi: i32) -> BTreeMap<i32, Vec<i64>> {
    let range = format!("desk_id BETWEEN {lo} AND {hi}");
    let games = c
        .query(
            &format!("SELECT desk_id, game_id FROM game WHERE {range} ORDER BY game_id"),
            &[],
        )
        .unwrap();
    let mut by_desk = BTreeMap::<i32, Vec<i64>>::new();
    let mut ids = BTreeSet::new();
    for row in &games {
        assert!(ids.insert(row.get::<_, i64>(1)), "game id twice");
        by_desk.entry(row.get(0)).or_default().push(row.get(1));
    }
    let notes: Vec<(i64, String)> = c
        .query(
            &format!("SELECT note_id, body FROM note WHERE {range}"),
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let note_ids: BTreeSet<i64> = notes.iter().map(|n| n.0).collect();
    assert_eq!(note_ids.len(), notes.len(), "note id twice");
    // A note's body is leader#game: one note per game.
    let noted: BTreeSet<i64> = notes
        .iter()
        .map(|n| n.1.split('#').nth(1).unwrap().parse().unwrap())
        .collect();
    assert_eq!(noted, ids, "a note per game");
    assert_eq!(notes.len(), ids.len(), "a note per game");
    let bids = count(
        c,
        &format!(
            "SELECT count(*) FROM bid_record b WHERE b.{range}
                AND EXISTS (SELECT FROM game g WHERE g.desk_id = b.desk_id AND g.game_id = b.game_id)"
        ),
    );
    let all_bids = count(c, &format!("SELECT count(*) FROM bid_record WHERE {range}"));
    assert_eq!(
        (bids, all_bids),
        (2 * ids.len() as i64, bids),
        "two bids a game"
    );
    for row in c
        .query(
            &format!(
                "SELECT desk_id, cur_game_id FROM desk WHERE {range} AND cur_game_id IS NOT NULL"
            ),
            &[],
        )
        .unwrap()
    {
        let (desk, game): (i32, i64) = (row.get(0), row.get(1));
        assert!(
            by_desk.get(&desk).is_some_and(|g| g.contains(&game)),
            "desk {desk} points at game {game}, not one of its own"
        );
    }
    by_desk
}

/// Moves the shard of `table` holding `key` (with its colocated shards) to `to`; returns how
/// long it took.
fn move_shard(c: &mut Client, table: &str, key: i64, to: Node) -> Duration {
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

// ---------------------------------------------------------------------------------------------
// What the coordinator sends: citus.log_remote_commands.

/// Notices of a session: (message, detail).
type Notices = Arc<Mutex<Vec<(String, String)>>>;

/// A coordinator connection that reports each command it sends to a worker
/// (citus.log_remote_commands) and each it runs on its own shards, as notices collected here.
fn traced_coordinator() -> (Client, Notices) {
    let notices: Notices = Arc::default();
    let sink = Arc::clone(&notices);
    let mut client = Config::from_str(&coordinator_dsn())
        .unwrap()
        .notice_callback(move |n| {
            sink.lock().unwrap().push((
                n.message().to_string(),
                n.detail().unwrap_or_default().to_string(),
            ))
        })
        .connect(NoTls)
        .unwrap();
    client
        .batch_execute(
            "SET citus.log_remote_commands = on;
             SET citus.log_local_commands = on;
             SET client_min_messages = log;",
        )
        .unwrap();
    (client, notices)
}

/// The commands the traced session sent while `run` ran: (command, port of the node).
fn remote_commands(notices: &Notices, run: impl FnOnce()) -> Vec<(String, i32)> {
    notices.lock().unwrap().clear();
    run();
    notices
        .lock()
        .unwrap()
        .iter()
        .filter_map(|(message, detail)| {
            let command = message.strip_prefix("issuing ")?;
            // "on server postgres@127.0.0.1:54601 connectionId: 3"
            let port = detail
                .split_whitespace()
                .find_map(|w| w.rsplit_once(':').and_then(|(_, p)| p.parse().ok()))
                .unwrap_or_else(|| panic!("no port in {detail:?}"));
            Some((command.to_string(), port))
        })
        .collect()
}

/// Two-phase commit records of one coordinator session (its pid is in each gid:
/// citus_<group>_<pid>_<transaction>_<connection>), on the coordinator.
fn my_2pc_records(c: &mut Client, pid: i32) -> i64 {
    count(
        c,
        &format!("SELECT count(*) FROM pg_dist_transaction WHERE gid LIKE 'citus\\_0\\_{pid}\\_%'"),
    )
}

/// On a worker: the two-phase commit records it keeps as a coordinator of its own (the gids of
/// pg_dist_transaction), and the gids of its prepared transactions.
fn worker_2pc_state(port: i32) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut w = connect_to(&node_dsn(port));
    let gids = |w: &mut Client, sql: &str| -> BTreeSet<String> {
        w.query(sql, &[])
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect()
    };
    (
        gids(&mut w, "SELECT gid FROM pg_dist_transaction"),
        gids(&mut w, "SELECT gid FROM pg_prepared_xacts"),
    )
}

/// The server log of the node listening on `port`: scripts/citus_cluster.sh keeps each node's
/// at DEALCARDS_CITUS_LOGS/<node>/server.log and its port in <node>/port, and
/// scripts/test_citus.sh has every node log every statement it receives.
fn server_log(port: i32) -> Vec<u8> {
    let dir = std::env::var("DEALCARDS_CITUS_LOGS")
        .expect("DEALCARDS_CITUS_LOGS: run these tests with scripts/test_citus.sh");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let node = entry.unwrap().path();
        let listens =
            std::fs::read_to_string(node.join("port")).is_ok_and(|p| p.trim() == port.to_string());
        if listens {
            return std::fs::read(node.join("server.log")).unwrap();
        }
    }
    panic!("no node of {dir} listens on {port}")
}

/// What the nodes on `ports` logged while `run` ran.
fn logged_during(ports: &[i32], run: impl FnOnce()) -> BTreeMap<i32, String> {
    let sizes: Vec<usize> = ports.iter().map(|&p| server_log(p).len()).collect();
    run();
    ports
        .iter()
        .zip(sizes)
        .map(|(&p, size)| {
            (
                p,
                String::from_utf8_lossy(&server_log(p)[size..]).into_owned(),
            )
        })
        .collect()
}

/// Runs `sql` on the traced coordinator session and checks it was one single-shard transaction
/// on the worker `on`: exactly one remote command, carrying `call`, sent there; no PREPARE
/// TRANSACTION, no COMMIT PREPARED, no intermediate results; no two-phase commit record of
/// this session on the coordinator, and none new on any worker (a worker running the call and
/// spreading it further would be a coordinator of its own). On the workers' side, their logs:
/// the call reached `on` alone, and no worker was asked to prepare a transaction of this
/// session. Returns the commands.
fn check_single_shard(
    c: &mut Client,
    notices: &Notices,
    workers: &[Node],
    sql: &str,
    call: &str,
    on: Node,
) -> Vec<(String, i32)> {
    check_single_shard_of(c, notices, workers, sql, call, on, |c| {
        c.batch_execute(sql)
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    })
}

/// [`check_single_shard`] of what `run` does on the traced session (`sql` names it).
fn check_single_shard_of(
    c: &mut Client,
    notices: &Notices,
    workers: &[Node],
    sql: &str,
    call: &str,
    on: Node,
    run: impl FnOnce(&mut Client),
) -> Vec<(String, i32)> {
    let pid: i32 = c.query_one("SELECT pg_backend_pid()", &[]).unwrap().get(0);
    let before: Vec<_> = workers.iter().map(|w| worker_2pc_state(w.port)).collect();
    let ports: Vec<i32> = workers.iter().map(|w| w.port).collect();
    let mut commands = Vec::new();
    let logs = logged_during(&ports, || {
        commands = remote_commands(notices, || run(c));
    });
    let carrying: Vec<_> = commands
        .iter()
        .filter(|(cmd, _)| cmd.contains(call))
        .collect();
    assert_eq!(
        carrying.len(),
        1,
        "{sql}: one remote command carrying {call}, got {commands:#?}"
    );
    assert_eq!(
        carrying[0].1, on.port,
        "{sql}: sent to the wrong worker: {commands:#?}"
    );
    for (cmd, port) in &commands {
        assert_eq!(
            *port, on.port,
            "{sql}: another node contacted: {commands:#?}"
        );
        for word in [
            "PREPARE TRANSACTION",
            "COMMIT PREPARED",
            "intermediate_result",
        ] {
            assert!(!cmd.contains(word), "{sql}: {word} in {commands:#?}");
        }
    }
    if sql.trim_start().starts_with("SELECT") {
        assert_eq!(commands.len(), 1, "{sql}: {commands:#?}");
    }
    assert_eq!(
        my_2pc_records(c, pid),
        0,
        "{sql}: a two-phase commit recorded"
    );
    for (worker, (records, _)) in workers.iter().zip(before) {
        let (after, prepared) = worker_2pc_state(worker.port);
        assert!(
            after.is_subset(&records),
            "{sql}: new two-phase commit records on {worker:?}: {after:?}"
        );
        let mine: Vec<_> = prepared
            .iter()
            .filter(|g| g.starts_with(&format!("citus_0_{pid}_")))
            .collect();
        assert!(mine.is_empty(), "{sql}: prepared on {worker:?}: {mine:?}");
        let log = &logs[&worker.port];
        assert_eq!(
            log.contains(&carrying[0].0),
            *worker == on,
            "{sql}: {worker:?} logged:\n{log}"
        );
        assert!(
            !log.contains(&format!("PREPARE TRANSACTION 'citus_0_{pid}_")),
            "{sql}: {worker:?} prepared a transaction:\n{log}"
        );
    }
    commands
}

// ---------------------------------------------------------------------------------------------
// 1, 2: one step distributes everything, by keys that include the distribution column.

/// The functions dealcards_distribute() distributes, with the table they are colocated with.
const DISTRIBUTED_FUNCTIONS: [(&str, &str); 12] = [
    ("deal_cards(integer)", "desk"),
    ("fair_mode_on(integer)", "desk"),
    ("fair_mode_off(integer)", "desk"),
    ("fair_reveal(integer)", "desk"),
    ("set_client_seed(integer,integer,text)", "desk"),
    ("fair_verify_desk(integer)", "desk"),
    ("shuffle_queue_next(bigint)", "shuffle_queue"),
    ("shuffle_queue_prev(bigint)", "shuffle_queue"),
    ("shuffle_queue_current(bigint)", "shuffle_queue"),
    ("shuffle_queue_add(bigint,bigint)", "shuffle_queue"),
    ("shuffle_queue_remove(bigint,bigint)", "shuffle_queue"),
    ("shuffle_queue_drop(bigint)", "shuffle_queue"),
];

/// The tables, with their distribution column and the table they are colocated with.
const DISTRIBUTED_TABLES: [(&str, &str, &str); 8] = [
    ("fair_seed", "desk_id", "fair_seed"),
    ("desk", "desk_id", "fair_seed"),
    ("desk_player", "desk_id", "desk"),
    ("game", "desk_id", "desk"),
    ("bid_record", "desk_id", "desk"),
    ("note", "desk_id", "desk"),
    ("shuffle_queue", "queue_id", "shuffle_queue"),
    ("shuffle_queue_track", "queue_id", "shuffle_queue"),
];

#[test]
fn dealcards_distribute_distributes_tables_and_functions() {
    let mut c = distributed();
    let _topology = changing_topology();
    // A second call (distributed() made the first) does not fail, and lists what it distributed.
    let listed: Vec<(String, String, Option<String>)> = c
        .query("SELECT * FROM dealcards_distribute()", &[])
        .unwrap_or_else(|e| panic!("dealcards_distribute() again: {e}"))
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    let mut expected: Vec<(String, String, Option<String>)> = DISTRIBUTED_TABLES
        .iter()
        .map(|(t, col, with)| {
            let with = (t != with).then(|| with.to_string());
            (t.to_string(), col.to_string(), with)
        })
        .collect();
    expected.extend(DISTRIBUTED_FUNCTIONS.iter().map(|(f, with)| {
        (
            f.replace(',', ", "),
            "$1".to_string(),
            Some(with.to_string()),
        )
    }));
    assert_eq!(listed, expected, "dealcards_distribute()'s rows");

    // pg_dist_partition: hash-distributed by their column, in two colocation groups.
    let mut colocation = BTreeMap::<&str, i32>::new();
    for (table, column, with) in DISTRIBUTED_TABLES {
        let row = c
            .query_opt(
                "SELECT partmethod::text, column_to_column_name(logicalrelid, partkey), colocationid
                   FROM pg_dist_partition WHERE logicalrelid = $1::text::regclass",
                &[&table],
            )
            .unwrap()
            .unwrap_or_else(|| panic!("{table} is not distributed"));
        assert_eq!(row.get::<_, String>(0), "h", "{table} by hash");
        assert_eq!(
            row.get::<_, String>(1),
            column,
            "{table}'s distribution column"
        );
        let group: i32 = row.get(2);
        assert_eq!(
            *colocation.entry(with).or_insert(group),
            group,
            "{table} is not colocated with {with}"
        );
    }
    assert_eq!(
        colocation["desk"], colocation["fair_seed"],
        "desks and their seeds are not colocated"
    );
    assert_ne!(
        colocation["desk"], colocation["shuffle_queue"],
        "desks and queues share a colocation group"
    );

    // pg_dist_object: each function by its first argument, colocated, force_delegation.
    for (function, with) in DISTRIBUTED_FUNCTIONS {
        let row = c
            .query_opt(
                "SELECT o.distribution_argument_index, o.colocationid, o.force_delegation
                   FROM pg_dist_object o
                  WHERE o.classid = 'pg_proc'::regclass AND o.objid = $1::text::regprocedure",
                &[&function],
            )
            .unwrap()
            .unwrap_or_else(|| panic!("{function} is not distributed"));
        let (index, group, forced): (Option<i32>, Option<i32>, Option<bool>) =
            (row.get(0), row.get(1), row.get(2));
        assert_eq!(index, Some(0), "{function}: distribution argument");
        assert_eq!(
            group,
            Some(colocation[with]),
            "{function}: colocated with {with}"
        );
        assert_eq!(forced, Some(true), "{function}: force_delegation");
    }
}

#[test]
fn every_key_includes_the_distribution_column() {
    let mut c = distributed();
    // Every table of the extension, its distribution column, and each unique index (primary
    // keys and unique constraints included) that lacks it.
    let tables: BTreeMap<String, Option<String>> = c
        .query(
            "SELECT c.relname::text, column_to_column_name(p.logicalrelid, p.partkey)
               FROM pg_depend d
               JOIN pg_class c ON d.classid = 'pg_class'::regclass AND c.oid = d.objid
               JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'dealcards'
               LEFT JOIN pg_dist_partition p ON p.logicalrelid = c.oid
              WHERE d.deptype = 'e' AND c.relkind IN ('r', 'p')",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let expected: BTreeMap<String, Option<String>> = DISTRIBUTED_TABLES
        .iter()
        .map(|(t, col, _)| (t.to_string(), Some(col.to_string())))
        .collect();
    assert_eq!(
        tables, expected,
        "the extension's tables and their distribution"
    );
    let unique = c
        .query(
            "SELECT c.relname::text, i.indexrelid::regclass::text, a.attname::text,
                    a.attnum = ANY (string_to_array(i.indkey::text, ' ')::int2[])
               FROM pg_dist_partition p
               JOIN pg_class c ON c.oid = p.logicalrelid
               JOIN pg_attribute a ON a.attrelid = c.oid
                AND a.attname = column_to_column_name(p.logicalrelid, p.partkey)
               JOIN pg_index i ON i.indrelid = c.oid AND i.indisunique
              WHERE c.relname = ANY ($1)",
            &[&expected.keys().collect::<Vec<_>>()],
        )
        .unwrap();
    let lacking: Vec<String> = unique
        .iter()
        .filter(|r| !r.get::<_, bool>(3))
        .map(|r| {
            format!(
                "{} ({} lacks {})",
                r.get::<_, String>(0),
                r.get::<_, String>(1),
                r.get::<_, String>(2)
            )
        })
        .collect();
    assert!(
        lacking.is_empty(),
        "unique indexes without the distribution column: {lacking:?}"
    );
    // desk, desk_player (2), game, bid_record, note, fair_seed (2), shuffle_queue, its tracks.
    assert!(unique.len() >= 10, "only {} unique indexes", unique.len());
    // The constraints say the same.
    let constraints = c
        .query(
            "SELECT c.relname::text, k.conname::text
               FROM pg_constraint k
               JOIN pg_class c ON c.oid = k.conrelid
               JOIN pg_dist_partition p ON p.logicalrelid = c.oid
               JOIN pg_attribute a ON a.attrelid = c.oid
                AND a.attname = column_to_column_name(p.logicalrelid, p.partkey)
              WHERE k.contype IN ('p', 'u') AND c.relname = ANY ($1)
                AND NOT a.attnum = ANY (k.conkey)",
            &[&expected.keys().collect::<Vec<_>>()],
        )
        .unwrap();
    assert!(
        constraints.is_empty(),
        "constraints without the distribution column: {:?}",
        constraints
            .iter()
            .map(|r| r.get::<_, String>(1))
            .collect::<Vec<_>>()
    );
}

// ---------------------------------------------------------------------------------------------
// 3: a deal is one single-shard transaction on the worker holding the desk.

#[test]
fn a_deal_is_one_single_shard_transaction_on_the_desks_worker() {
    let (lo, hi) = (3000, 3039);
    let mut c = distributed();
    let _topology = same_topology();
    fresh_desks(&mut c, lo, hi);
    let workers = active_workers(&mut c);
    let by_holder = desks_by_holder(&mut c, lo, hi);
    assert!(by_holder.len() >= 2, "desks {lo}..={hi} all on one worker");
    let queue: i64 = c
        .query_one(
            "SELECT shuffle_queue_create(ARRAY[1, 2, 3, 4, 5, 6, 7, 8]::bigint[])",
            &[],
        )
        .unwrap()
        .get(0);
    let queue_holder = holder(&mut c, "shuffle_queue", queue);
    let (mut traced, notices) = traced_coordinator();
    let mut seen = Vec::new();
    // A desk on each worker: a plain deal, in autocommit and in a transaction block; then the
    // desk in provably fair mode: fair_mode_on, a fair deal, fair_reveal.
    for (node, desks) in &by_holder {
        let desk = desks[0];
        for (sql, call) in [
            (format!("SELECT deal_cards({desk})"), "deal_cards("),
            (
                format!("BEGIN; SELECT deal_cards({desk}); COMMIT;"),
                "deal_cards(",
            ),
            (format!("SELECT fair_mode_on({desk})"), "fair_mode_on("),
            (format!("SELECT deal_cards({desk})"), "deal_cards("),
            (format!("SELECT * FROM fair_reveal({desk})"), "fair_reveal("),
        ] {
            let commands = check_single_shard(&mut traced, &notices, &workers, &sql, call, *node);
            seen.push((sql, commands));
        }
    }
    // A game server's prepared statement, its desk a parameter: each execution goes to the
    // desk's worker, with the generic plan too (after the fifth).
    let deal_at = traced.prepare("SELECT deal_cards($1)").unwrap();
    let desks: Vec<(Node, i32)> = (0..8)
        .map(|i| {
            let (node, desks) = by_holder.iter().nth(i % by_holder.len()).unwrap();
            assert!(desks.len() >= 2, "{by_holder:?}");
            (*node, desks[1 + (i / by_holder.len()) % (desks.len() - 1)])
        })
        .collect();
    for (node, desk) in desks {
        let sql = format!("EXECUTE deal_at({desk})");
        let commands = check_single_shard_of(
            &mut traced,
            &notices,
            &workers,
            &sql,
            "deal_cards(",
            node,
            |t| {
                t.query(&deal_at, &[&desk]).unwrap();
            },
        );
        assert_eq!(commands.len(), 1, "{commands:?}");
        seen.push((sql, commands));
    }
    let sql = format!("SELECT shuffle_queue_next({queue})");
    let commands = check_single_shard(
        &mut traced,
        &notices,
        &workers,
        &sql,
        "shuffle_queue_next(",
        queue_holder,
    );
    seen.push((sql, commands));
    for (sql, commands) in &seen {
        eprintln!("{sql}\n    -> {commands:?}");
    }
    // And the deals were recorded there: 2 plain and 1 fair game at the first desk of each
    // worker, 1 at those of the prepared statement.
    let games = check_records(&mut c, lo, hi);
    for (node, desks) in &by_holder {
        let ids = &games[&desks[0]];
        assert_eq!(ids.len(), 3, "desk {}: {ids:?}", desks[0]);
        for d in desks {
            let ids = games.get(d).map(Vec::as_slice).unwrap_or_default();
            assert!(
                ids.iter().all(|&g| range_of(g) == node.group),
                "{ids:?} not from {node:?}"
            );
        }
    }
    assert_eq!(
        games.values().map(Vec::len).sum::<usize>(),
        3 * by_holder.len() + 8
    );
}

// ---------------------------------------------------------------------------------------------
// 4: ids unique across the cluster, through a shard move, a new worker and a rebalance.

/// Deals once at every desk lo..=hi and checks each new game's id is from the range of the
/// worker holding the desk; returns the new games.
fn deal_everywhere(c: &mut Client, lo: i32, hi: i32) -> Vec<i64> {
    let by_holder = desks_by_holder(c, lo, hi);
    let mut games = Vec::new();
    for (node, desks) in &by_holder {
        for &desk in desks {
            let dealt = deal(c, desk);
            assert_eq!(
                range_of(dealt.game),
                node.group,
                "desk {desk} on {node:?} dealt game {}",
                dealt.game
            );
            games.push(dealt.game);
        }
    }
    games
}

/// Steps every queue on, checking each answer is one of its tracks.
fn step_queues(c: &mut Client, queues: &[i64]) {
    for &q in queues {
        let track: i64 = c
            .query_one(&format!("SELECT shuffle_queue_next({q})"), &[])
            .unwrap_or_else(|e| panic!("shuffle_queue_next({q}): {e}"))
            .get(0);
        assert!((1..=10).contains(&track), "queue {q}: {track}");
        let back: Option<i64> = c
            .query_one(&format!("SELECT shuffle_queue_prev({q})"), &[])
            .unwrap_or_else(|e| panic!("shuffle_queue_prev({q}): {e}"))
            .get(0);
        assert!(
            back.is_some_and(|t| (1..=10).contains(&t)),
            "queue {q}: {back:?}"
        );
        let again: i64 = c
            .query_one(&format!("SELECT shuffle_queue_next({q})"), &[])
            .unwrap()
            .get(0);
        assert!((1..=10).contains(&again));
    }
}

/// A provably fair round at `desk` verifies whole.
fn fair_round_verifies(c: &mut Client, desk: i32, deals: usize) {
    c.batch_execute(&format!("SELECT fair_mode_on({desk})"))
        .unwrap();
    for _ in 0..deals {
        deal(c, desk);
    }
    c.batch_execute(&format!("SELECT * FROM fair_reveal({desk})"))
        .unwrap();
    let verified: Vec<Option<bool>> = c
        .query(
            &format!("SELECT verified FROM fair_verify_desk({desk})"),
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert!(verified.len() >= deals, "desk {desk}: {verified:?}");
    assert!(
        verified.iter().all(|v| *v == Some(true)),
        "desk {desk}: {verified:?}"
    );
}

#[test]
fn ids_stay_unique_through_a_shard_move_a_new_worker_and_a_rebalance() {
    let (lo, hi) = (4000, 4039);
    let started = Instant::now();
    let mut c = distributed();
    let _topology = changing_topology();
    fresh_desks(&mut c, lo, hi);
    let workers = active_workers(&mut c);
    let by_holder = desks_by_holder(&mut c, lo, hi);
    assert!(
        by_holder.len() >= 2,
        "desks {lo}..={hi} on one worker: {by_holder:?}"
    );
    let queues: Vec<i64> = (0..8)
        .map(|_| {
            c.query_one(
                "SELECT shuffle_queue_create(ARRAY[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]::bigint[])",
                &[],
            )
            .unwrap()
            .get(0)
        })
        .collect();
    assert_eq!(queues.iter().collect::<BTreeSet<_>>().len(), queues.len());

    // Deals on both workers: ids from each worker's own range, none twice.
    let first = deal_everywhere(&mut c, lo, hi);
    check_records(&mut c, lo, hi);
    let note_ranges: BTreeSet<(i32, i32)> = c
        .query(
            &format!(
                "SELECT n.desk_id, (n.note_id >> 48)::int FROM note n WHERE n.desk_id BETWEEN {lo} AND {hi}"
            ),
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    for (node, desks) in &by_holder {
        for d in desks {
            assert!(
                note_ranges.contains(&(*d, node.group)),
                "desk {d}'s note not from {node:?}"
            );
        }
    }
    step_queues(&mut c, &queues);
    eprintln!(
        "game ids by worker: {:?}",
        first
            .iter()
            .fold(BTreeMap::<i32, (i64, i64)>::new(), |mut m, &g| {
                let e = m.entry(range_of(g)).or_insert((g, g));
                *e = (e.0.min(g), e.1.max(g));
                m
            })
    );

    // Move the shard of the first desk (and its colocated shards) to the other worker, and the
    // shard of the first queue likewise.
    let (&from, desks) = by_holder.iter().next().unwrap();
    let moved = desks[0];
    let to = *workers.iter().find(|w| **w != from).unwrap();
    let took = move_shard(&mut c, "desk", moved.into(), to);
    let queue_from = holder(&mut c, "shuffle_queue", queues[0]);
    let queue_to = *workers.iter().find(|w| **w != queue_from).unwrap();
    let queue_took = move_shard(&mut c, "shuffle_queue", queues[0], queue_to);
    eprintln!(
        "moved desk {moved}'s shard in {took:?}, queue {}'s in {queue_took:?}",
        queues[0]
    );

    // Deals on both sides: no duplicate key, ids from the new holder's range, none twice;
    // queues, bids and fair mode keep working.
    let second = deal_everywhere(&mut c, lo, hi);
    check_records(&mut c, lo, hi);
    step_queues(&mut c, &queues);
    fair_round_verifies(&mut c, moved, 2);
    check_records(&mut c, lo, hi);

    // A third worker, then a rebalance of the desks' and the queues' colocation groups.
    let spare = std::env::var("DEALCARDS_CITUS_SPARE_WORKER_DSN")
        .expect("DEALCARDS_CITUS_SPARE_WORKER_DSN: run these tests with scripts/test_citus.sh");
    let spare_port: i32 = setting(&spare, "port").parse().unwrap();
    let added = Instant::now();
    c.batch_execute(&format!(
        "SET client_min_messages = warning;
         SELECT citus_add_node('127.0.0.1', {spare_port});
         RESET client_min_messages;"
    ))
    .unwrap_or_else(|e| panic!("citus_add_node of the spare worker: {e}"));
    let add_took = added.elapsed();
    let version = count(
        &mut connect_to(&spare),
        "SELECT count(*) FROM pg_extension WHERE extname = 'dealcards'",
    );
    assert_eq!(version, 1, "dealcards did not reach the new worker");
    let rebalanced = Instant::now();
    c.batch_execute(
        "SET client_min_messages = warning;
         SELECT rebalance_table_shards('desk', shard_transfer_mode => 'block_writes');
         SELECT rebalance_table_shards('shuffle_queue', shard_transfer_mode => 'block_writes');
         RESET client_min_messages;",
    )
    .unwrap_or_else(|e| panic!("rebalance: {e}"));
    let rebalance_took = rebalanced.elapsed();
    let new_node = *active_workers(&mut c)
        .iter()
        .find(|w| w.port == spare_port)
        .expect("the new worker is active");
    let by_holder = desks_by_holder(&mut c, lo, hi);
    assert!(
        by_holder.contains_key(&new_node),
        "no desk {lo}..={hi} moved to the new worker: {by_holder:?}"
    );
    let third = deal_everywhere(&mut c, lo, hi);
    assert!(third.iter().any(|&g| range_of(g) == new_node.group));
    let all = check_records(&mut c, lo, hi);
    assert_eq!(
        all.values().map(Vec::len).sum::<usize>(),
        first.len() + second.len() + third.len() + 2,
        "games lost"
    );
    step_queues(&mut c, &queues);
    let on_new = (lo..=hi)
        .find(|&d| by_holder[&new_node].contains(&d))
        .unwrap();
    fair_round_verifies(&mut c, on_new, 2);
    check_records(&mut c, lo, hi);
    eprintln!(
        "add node {add_took:?}, rebalance {rebalance_took:?}; placement now {:?}; whole test {:?}",
        by_holder
            .iter()
            .map(|(n, d)| (n.port, d.len()))
            .collect::<Vec<_>>(),
        started.elapsed()
    );
}

// ---------------------------------------------------------------------------------------------
// 5: deal_cards in the caller's transaction.

/// Runs statements one at a time (each its own transaction).
fn run_each(c: &mut Client, statements: &[String]) {
    for sql in statements {
        c.batch_execute(sql)
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
}

/// (games, bids, notes, cur_game_id) of a desk.
fn desk_state(c: &mut Client, desk: i32) -> (i64, i64, i64, Option<i64>) {
    let row = c
        .query_one(
            &format!(
                "SELECT (SELECT count(*) FROM game WHERE desk_id = {desk}),
                        (SELECT count(*) FROM bid_record WHERE desk_id = {desk}),
                        (SELECT count(*) FROM note WHERE desk_id = {desk}),
                        (SELECT cur_game_id FROM desk WHERE desk_id = {desk})"
            ),
            &[],
        )
        .unwrap();
    (row.get(0), row.get(1), row.get(2), row.get(3))
}

#[test]
fn deal_cards_in_the_callers_transaction_is_all_or_nothing() {
    let (lo, hi) = (5000, 5019);
    let mut c = distributed();
    let _topology = same_topology();
    fresh_desks(&mut c, lo, hi);
    run_each(
        &mut c,
        &[
            "SET client_min_messages = warning".into(),
            "DROP TABLE IF EXISTS citus_tx_local, citus_tx_desk".into(),
            // A plain table of the coordinator's, and one distributed with the desks.
            "CREATE TABLE citus_tx_local (id int PRIMARY KEY, n int NOT NULL)".into(),
            "INSERT INTO citus_tx_local VALUES (1, 0)".into(),
            "CREATE TABLE citus_tx_desk (desk_id int PRIMARY KEY, n int NOT NULL)".into(),
            "SELECT create_distributed_table('citus_tx_desk', 'desk_id', colocate_with => 'desk')"
                .into(),
            format!("INSERT INTO citus_tx_desk SELECT g, 0 FROM generate_series({lo}, {hi}) g"),
            "RESET client_min_messages".into(),
        ],
    );
    let by_holder = desks_by_holder(&mut c, lo, hi);
    let mut on = by_holder.iter();
    let (&node_a, desks_a) = on.next().expect("desks on a worker");
    let (&node_b, desks_b) = on.next().expect("desks on a second worker");
    let (mut t, notices) = traced_coordinator();
    let local_n = |c: &mut Client| count(c, "SELECT n::bigint FROM citus_tx_local WHERE id = 1");

    // With a plain table of the coordinator: commits, one worker, no two-phase commit.
    let desk = desks_a[0];
    let mut dealt = None;
    let commands = remote_commands(&notices, || {
        t.batch_execute("BEGIN").unwrap();
        dealt = Some(deal(&mut t, desk));
        t.batch_execute("UPDATE citus_tx_local SET n = n + 1 WHERE id = 1; COMMIT")
            .unwrap();
    });
    let dealt = dealt.unwrap();
    assert_eq!(desk_state(&mut c, desk), (1, 2, 1, Some(dealt.game)));
    assert_eq!(local_n(&mut c), 1);
    eprintln!("deal + local table: {commands:?}");
    assert!(
        commands
            .iter()
            .all(|(cmd, port)| *port == node_a.port && !cmd.contains("PREPARE")),
        "{commands:#?}"
    );

    // Rolled back: nothing written; the next deal there takes a new id.
    let desk = desks_a[1];
    t.batch_execute("BEGIN").unwrap();
    let rolled = deal(&mut t, desk);
    t.batch_execute("UPDATE citus_tx_local SET n = n + 1 WHERE id = 1; ROLLBACK")
        .unwrap();
    assert_eq!(
        desk_state(&mut c, desk),
        (0, 0, 0, None),
        "a rolled back deal left rows"
    );
    assert_eq!(local_n(&mut c), 1);
    assert_eq!(
        count(
            &mut c,
            &format!("SELECT count(*) FROM game WHERE game_id = {}", rolled.game)
        ),
        0
    );
    let next = deal(&mut t, desk);
    assert_ne!(next.game, rolled.game);
    assert_eq!(desk_state(&mut c, desk), (1, 2, 1, Some(next.game)));

    // With a table distributed with the desks, same desk: one worker, commits.
    let desk = desks_b[0];
    let mut dealt = None;
    let commands = remote_commands(&notices, || {
        t.batch_execute("BEGIN").unwrap();
        dealt = Some(deal(&mut t, desk));
        t.batch_execute(&format!(
            "UPDATE citus_tx_desk SET n = n + 1 WHERE desk_id = {desk}; COMMIT"
        ))
        .unwrap();
    });
    eprintln!("deal + colocated table: {commands:?}");
    assert!(
        commands
            .iter()
            .all(|(cmd, port)| *port == node_b.port && !cmd.contains("PREPARE")),
        "{commands:#?}"
    );
    assert_eq!(
        desk_state(&mut c, desk),
        (1, 2, 1, Some(dealt.unwrap().game))
    );
    assert_eq!(
        count(
            &mut c,
            &format!("SELECT n::bigint FROM citus_tx_desk WHERE desk_id = {desk}")
        ),
        1
    );

    // Two workers with notifications on: two-phase commit, which PREPARE TRANSACTION refuses
    // after a NOTIFY. The whole transaction fails and nothing is written.
    let (da, db) = (desks_a[2], desks_b[1]);
    let mut failure = None;
    let commands = remote_commands(&notices, || {
        t.batch_execute("BEGIN").unwrap();
        failure = try_deal(&mut t, da)
            .and_then(|_| try_deal(&mut t, db))
            .and_then(|_| t.batch_execute("COMMIT"))
            .err();
        t.batch_execute("ROLLBACK").unwrap();
    });
    eprintln!("two workers, notify on: {commands:?}");
    let failure = failure.expect("a transaction dealing on two workers with NOTIFY committed");
    let db_error = failure.as_db_error().expect("an error of the server");
    eprintln!("  -> {} {:?}", sqlstate(&failure), db_error);
    let text = format!(
        "{} {:?} {:?}",
        db_error.message(),
        db_error.detail(),
        db_error.hint()
    );
    assert!(
        text.contains("PREPARE") && text.contains("NOTIFY"),
        "{}: {text}",
        sqlstate(&failure)
    );
    assert_eq!(sqlstate(&failure), "0A000", "{text}");
    assert_eq!(desk_state(&mut c, da), (0, 0, 0, None), "desk {da} written");
    assert_eq!(desk_state(&mut c, db), (0, 0, 0, None), "desk {db} written");
    let pid: i32 = t.query_one("SELECT pg_backend_pid()", &[]).unwrap().get(0);
    for node in [node_a, node_b] {
        let (_, prepared) = worker_2pc_state(node.port);
        assert!(
            !prepared
                .iter()
                .any(|g| g.starts_with(&format!("citus_0_{pid}_"))),
            "a prepared transaction left on {node:?}: {prepared:?}"
        );
    }

    // The same with dealcards.notify off for the transaction, sent along to the workers: both
    // deals commit (by two-phase commit).
    // (Each SET its own statement: Citus sends the SET LOCAL's whole query string along.)
    let mut games = Vec::new();
    let pid: i32 = t.query_one("SELECT pg_backend_pid()", &[]).unwrap().get(0);
    let mut commands = Vec::new();
    let logs = logged_during(&[node_a.port, node_b.port], || {
        commands = remote_commands(&notices, || {
            run_each(
                &mut t,
                &[
                    "SET citus.propagate_set_commands = 'local'".into(),
                    "BEGIN".into(),
                    "SET LOCAL dealcards.notify = off".into(),
                ],
            );
            games.push(deal(&mut t, da));
            games.push(deal(&mut t, db));
            run_each(
                &mut t,
                &["COMMIT".into(), "RESET citus.propagate_set_commands".into()],
            );
        });
    });
    eprintln!("two workers, notify off: {commands:?}");
    for node in [node_a, node_b] {
        let sent: Vec<&str> = commands
            .iter()
            .filter(|(_, port)| *port == node.port)
            .map(|(cmd, _)| cmd.as_str())
            .collect();
        assert!(
            sent[0].contains("SET LOCAL dealcards.notify = off"),
            "the setting did not reach {node:?}: {sent:#?}"
        );
        assert!(
            sent.iter()
                .any(|cmd| cmd.starts_with("PREPARE TRANSACTION")),
            "two workers without two-phase commit? {commands:#?}"
        );
        // What check_single_shard looks for in the workers' logs is there when it happens.
        assert!(
            logs[&node.port].contains(&format!("PREPARE TRANSACTION 'citus_0_{pid}_")),
            "{node:?} logged no PREPARE TRANSACTION of session {pid}"
        );
    }
    assert_eq!(desk_state(&mut c, da), (1, 2, 1, Some(games[0].game)));
    assert_eq!(desk_state(&mut c, db), (1, 2, 1, Some(games[1].game)));

    // Two deals at one desk in one transaction: two games.
    let desk = desks_b[2];
    t.batch_execute("BEGIN").unwrap();
    let first = deal(&mut t, desk);
    let second = deal(&mut t, desk);
    t.batch_execute("COMMIT").unwrap();
    assert_ne!(first.game, second.game);
    assert_eq!(desk_state(&mut c, desk), (2, 4, 2, Some(second.game)));
    check_records(&mut c, lo, hi);
}

// ---------------------------------------------------------------------------------------------
// 6: listeners.

/// Deals (or runs `sql`) on the coordinator and returns what each listener heard, the
/// listener on `expected` (if any) waited for first.
fn hear(
    listeners: &mut [(i32, Client)],
    expected: Option<i32>,
    run: impl FnOnce(),
) -> BTreeMap<i32, Vec<(String, String)>> {
    run();
    let mut all = BTreeMap::new();
    if let Some(port) = expected {
        let (_, l) = listeners.iter_mut().find(|(p, _)| *p == port).unwrap();
        let first = l
            .notifications()
            .timeout_iter(Duration::from_secs(10))
            .next()
            .unwrap()
            .map(|n| (n.channel().to_string(), n.payload().to_string()));
        let mut got: Vec<_> = first.into_iter().collect();
        got.extend(server::notifications(l, Duration::from_millis(300)));
        all.insert(port, got);
    }
    for (port, l) in listeners.iter_mut() {
        if Some(*port) != expected {
            all.insert(*port, server::notifications(l, Duration::from_millis(400)));
        }
    }
    all
}

#[test]
fn listeners_on_every_worker_hear_each_deal_once_on_the_desks_worker() {
    let (lo, hi) = (6000, 6009);
    let mut c = distributed();
    let _topology = changing_topology();
    fresh_desks(&mut c, lo, hi);
    let desk = lo;
    let channel = format!("dealcards_desk_{desk}");
    let coordinator_port: i32 = c
        .query_one("SELECT inet_server_port()", &[])
        .unwrap()
        .get(0);
    let workers = active_workers(&mut c);
    // A game server: a listener on each worker (and one on the coordinator, which hears
    // nothing).
    let mut listeners: Vec<(i32, Client)> = workers
        .iter()
        .map(|w| w.port)
        .chain([coordinator_port])
        .map(|port| {
            let mut l = connect_to(&node_dsn(port));
            l.batch_execute(&format!("LISTEN {channel}")).unwrap();
            (port, l)
        })
        .collect();
    let expect_once_on = |heard: &BTreeMap<i32, Vec<(String, String)>>, port: i32, json: &str| {
        for (p, got) in heard {
            if *p == port {
                assert_eq!(
                    got,
                    &[(channel.clone(), json.to_string())],
                    "on the desk's worker {p}"
                );
            } else {
                assert!(
                    got.is_empty(),
                    "heard on {p} (the desk is on {port}): {got:?}"
                );
            }
        }
    };

    let on = holder(&mut c, "desk", desk.into());
    let mut dealt = None;
    let got = hear(&mut listeners, Some(on.port), || {
        dealt = Some(deal(&mut c, desk))
    });
    expect_once_on(&got, on.port, &dealt.unwrap().json);

    // In a transaction: heard at the commit, once.
    let mut dealt = None;
    let got = hear(&mut listeners, Some(on.port), || {
        c.batch_execute("BEGIN").unwrap();
        dealt = Some(deal(&mut c, desk));
        c.batch_execute("COMMIT").unwrap();
    });
    expect_once_on(&got, on.port, &dealt.unwrap().json);

    // Rolled back: heard nowhere.
    let got = hear(&mut listeners, None, || {
        c.batch_execute("BEGIN").unwrap();
        deal(&mut c, desk);
        c.batch_execute("ROLLBACK").unwrap();
    });
    assert!(
        got.values().all(Vec::is_empty),
        "a rolled back deal was heard: {got:?}"
    );

    // The desk's shard moves: the same listeners hear the next deal on its new worker.
    let to = *workers.iter().find(|w| **w != on).unwrap();
    move_shard(&mut c, "desk", desk.into(), to);
    let mut dealt = None;
    let got = hear(&mut listeners, Some(to.port), || {
        dealt = Some(deal(&mut c, desk))
    });
    expect_once_on(&got, to.port, &dealt.unwrap().json);
    // Nothing more is pending anywhere.
    let rest = hear(&mut listeners, None, || {});
    assert!(rest.values().all(Vec::is_empty), "{rest:?}");
}

/// A call Citus does not delegate (anything but a bare `SELECT deal_cards(d)` or
/// `SELECT ... FROM deal_cards(d)`: here its result cast to text) runs on the coordinator,
/// which sends each of deal_cards' statements to the desk's worker: still one worker and no
/// two-phase commit, the game id from the coordinator's range (0), and the notification sent on
/// the coordinator: a game server hears such deals only if it listens there too.
#[test]
fn a_deal_citus_does_not_delegate_runs_on_the_coordinator() {
    let (lo, hi) = (6100, 6104);
    let mut c = distributed();
    let _topology = same_topology();
    fresh_desks(&mut c, lo, hi);
    let desk = lo;
    let on = holder(&mut c, "desk", desk.into());
    let coordinator_port: i32 = c
        .query_one("SELECT inet_server_port()", &[])
        .unwrap()
        .get(0);
    let mut listeners: Vec<(i32, Client)> = active_workers(&mut c)
        .iter()
        .map(|w| w.port)
        .chain([coordinator_port])
        .map(|port| {
            let mut l = connect_to(&node_dsn(port));
            l.batch_execute(&format!("LISTEN dealcards_desk_{desk}"))
                .unwrap();
            (port, l)
        })
        .collect();
    let (mut t, notices) = traced_coordinator();
    let mut json = String::new();
    let mut commands = Vec::new();
    let got = hear(&mut listeners, Some(coordinator_port), || {
        commands = remote_commands(&notices, || {
            json = simple_value(&mut t, &format!("SELECT deal_cards({desk})::text"))
                .unwrap()
                .unwrap();
        });
    });
    eprintln!("deal_cards({desk})::text: {commands:#?}");
    assert!(commands.len() > 1, "delegated after all? {commands:?}");
    assert!(
        commands.iter().all(|(cmd, port)| *port == on.port
            && !cmd.contains("PREPARE")
            && !cmd.contains("intermediate_result")),
        "{commands:#?}"
    );
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    let game = value["game"].as_i64().unwrap();
    assert_eq!(range_of(game), 0, "game {game}");
    for (port, heard) in &got {
        if *port == coordinator_port {
            assert_eq!(heard, &[(format!("dealcards_desk_{desk}"), json.clone())]);
        } else {
            assert!(heard.is_empty(), "heard on {port}: {heard:?}");
        }
    }
    assert_eq!(desk_state(&mut c, desk), (1, 2, 1, Some(game)));
    check_records(&mut c, lo, hi);
}

// ---------------------------------------------------------------------------------------------
// 7: what holds on a plain server.

fn is_deck(cards: &[i32]) -> bool {
    is_permutation(cards, 1, 54)
}

#[test]
fn deals_are_valid_and_desks_point_at_their_newest_game() {
    let (lo, hi) = (7000, 7019);
    let mut c = distributed();
    let _topology = same_topology();
    fresh_desks(&mut c, lo, hi);
    for desk in lo..=hi {
        let first = deal(&mut c, desk);
        let second = deal(&mut c, desk);
        for game in [first.game, second.game] {
            let row = c
                .query_one(
                    &format!(
                        "SELECT p1_cards, p2_cards, p3_cards, extra_cards, p1_id, p2_id, p3_id,
                                state_no, lord_no, leader
                           FROM game WHERE desk_id = {desk} AND game_id = {game}"
                    ),
                    &[],
                )
                .unwrap();
            let hands: Vec<Vec<i32>> = (0..4).map(|i| row.get(i)).collect();
            let sizes: Vec<usize> = hands.iter().map(Vec::len).collect();
            assert_eq!(sizes, [17, 17, 17, 3], "game {game}");
            assert!(is_deck(&hands.concat()), "game {game}: {hands:?}");
            let ids: Vec<i64> = (4..7).map(|i| row.get(i)).collect();
            let d = i64::from(desk);
            assert_eq!(ids, [d * 10 + 1, d * 10 + 2, d * 10 + 3]);
            assert_eq!((row.get::<_, i16>(7), row.get::<_, i16>(8)), (1, 0));
            assert!((1..=3).contains(&row.get::<_, i16>(9)));
        }
        assert_eq!(
            desk_state(&mut c, desk),
            (2, 4, 2, Some(second.game)),
            "desk {desk}"
        );
    }
    check_records(&mut c, lo, hi);
}

/// A deal that waited for its desk takes the seats as they are once it holds the lock: here it
/// waited on the desk's worker for a player sitting down (the insert into desk_player locks the
/// desk's row through the shards' foreign key), and deals to them.
#[test]
fn a_deal_that_waited_for_a_player_sitting_down_deals_to_them() {
    let desk = 7150;
    let mut c = distributed();
    let _topology = same_topology();
    fresh_desks(&mut c, desk, desk);
    deal(&mut c, desk);
    c.batch_execute(&format!(
        "DELETE FROM desk_player WHERE desk_id = {desk} AND player_no = 3"
    ))
    .unwrap();
    let worker = holder(&mut c, "desk", desk.into());
    let mut sitting = distributed();
    sitting
        .batch_execute(&format!(
            "BEGIN;
             INSERT INTO desk_player (desk_id, player_no, player_id) VALUES ({desk}, 3, 77);"
        ))
        .unwrap();
    let mut dealer = distributed();
    let waiting = thread::spawn(move || deal(&mut dealer, desk));
    let mut observer = connect_to(&node_dsn(worker.port));
    let blocked = (0..200).any(|_| {
        let waiting = count(
            &mut observer,
            "SELECT count(*) FROM pg_stat_activity
              WHERE wait_event_type = 'Lock' AND query LIKE '%deal_cards%'
                AND pid <> pg_backend_pid()",
        ) > 0;
        if !waiting {
            thread::sleep(Duration::from_millis(50));
        }
        waiting
    });
    assert!(blocked, "the deal did not wait for the desk on its worker");
    sitting.batch_execute("COMMIT").unwrap();
    let dealt = waiting.join().unwrap();
    let third: i64 = c
        .query_one(
            &format!(
                "SELECT p3_id FROM game WHERE desk_id = {desk} AND game_id = {}",
                dealt.game
            ),
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(third, 77, "the deal did not go to the player who sat down");
}

#[test]
fn errors_keep_their_sqlstates_and_write_nothing() {
    let (lo, hi) = (7100, 7109);
    let mut c = distributed();
    let _topology = same_topology();
    fresh_desks(&mut c, lo, hi);
    let (missing, two) = (hi, lo);
    run_each(
        &mut c,
        &[
            format!("DELETE FROM desk_player WHERE desk_id = {missing}"),
            format!("DELETE FROM desk WHERE desk_id = {missing}"),
            format!("DELETE FROM desk_player WHERE desk_id = {two} AND player_no = 2"),
        ],
    );
    for in_block in [false, true] {
        if in_block {
            c.batch_execute("BEGIN").unwrap();
        }
        let e = try_deal(&mut c, missing).expect_err("a deal at a desk that does not exist");
        assert_eq!(sqlstate(&e), "P0002", "{e}");
        assert!(
            e.as_db_error()
                .unwrap()
                .message()
                .contains(&format!("desk {missing} does not exist")),
            "{e:?}"
        );
        if in_block {
            c.batch_execute("ROLLBACK; BEGIN").unwrap();
        }
        let e = try_deal(&mut c, two).expect_err("a deal with two players seated");
        assert_eq!(sqlstate(&e), "55000", "{e}");
        assert!(
            e.as_db_error()
                .unwrap()
                .message()
                .contains("has 2 of 3 players seated"),
            "{e:?}"
        );
        if in_block {
            c.batch_execute("ROLLBACK").unwrap();
        }
    }
    assert_eq!(
        desk_state(&mut c, two),
        (0, 0, 0, None),
        "a refused deal wrote rows"
    );
    assert_eq!(
        count(
            &mut c,
            &format!("SELECT count(*) FROM game WHERE desk_id = {missing}")
        ),
        0
    );
    // The desk deals once its third player sits down.
    c.batch_execute(&format!(
        "INSERT INTO desk_player (desk_id, player_no, player_id) VALUES ({two}, 2, {})",
        two * 10 + 2
    ))
    .unwrap();
    let dealt = deal(&mut c, two);
    assert_eq!(desk_state(&mut c, two), (1, 2, 1, Some(dealt.game)));
}

#[test]
fn provably_fair_desks_verify_on_the_cluster() {
    let (lo, hi) = (7200, 7209);
    let mut c = distributed();
    let _topology = same_topology();
    fresh_desks(&mut c, lo, hi);
    let by_holder = desks_by_holder(&mut c, lo, hi);
    assert!(by_holder.len() >= 2);
    for (node, desks) in &by_holder {
        let desk = desks[0];
        let commitment: Vec<u8> = c
            .query_one(&format!("SELECT fair_mode_on({desk})"), &[])
            .unwrap()
            .get(0);
        for seat in 1..=3 {
            c.batch_execute(&format!(
                "SELECT set_client_seed({desk}, {seat}, 'seat {seat} of {desk}')"
            ))
            .unwrap();
        }
        let dealt: Vec<Dealt> = (0..3).map(|_| deal(&mut c, desk)).collect();
        for (n, d) in dealt.iter().enumerate() {
            let value: serde_json::Value = serde_json::from_str(&d.json).unwrap();
            assert_eq!(value["nonce"], n as i64, "{}", d.json);
            assert!(value["commitment"].is_string(), "{}", d.json);
            assert_eq!(range_of(d.game), node.group);
        }
        let row = c
            .query_one(
                &format!(
                    "SELECT server_seed, commitment, sha256(server_seed) FROM fair_reveal({desk})"
                ),
                &[],
            )
            .unwrap();
        let (seed, revealed, hashed): (Vec<u8>, Vec<u8>, Vec<u8>) =
            (row.get(0), row.get(1), row.get(2));
        assert_eq!(revealed, commitment);
        assert_eq!(
            hashed, commitment,
            "the seed does not hash to its commitment"
        );
        let verified: Vec<(i64, Option<bool>, Option<String>)> = c
            .query(&format!("SELECT * FROM fair_verify_desk({desk})"), &[])
            .unwrap()
            .iter()
            .map(|r| (r.get(0), r.get(3), r.get(4)))
            .collect();
        assert_eq!(verified.len(), 3, "{verified:?}");
        assert!(verified.iter().all(|v| v.1 == Some(true)), "{verified:?}");
        // Every stored game recomputes from the revealed seed.
        for d in &dealt {
            let game = c
                .query_one(
                    &format!(
                        "SELECT p1_cards, p2_cards, p3_cards, extra_cards, leader, client_seeds,
                                fair_nonce, fair_commitment
                           FROM game WHERE desk_id = {desk} AND game_id = {}",
                        d.game
                    ),
                    &[],
                )
                .unwrap();
            let seeds: Vec<String> = game.get(5);
            assert_eq!(
                seeds,
                (1..=3)
                    .map(|s| format!("seat {s} of {desk}"))
                    .collect::<Vec<_>>()
            );
            assert_eq!(game.get::<_, Vec<u8>>(7), commitment);
            let nonce: i64 = game.get(6);
            let again = c
                .query_one(
                    "SELECT p1_cards, p2_cards, p3_cards, extra_cards, leader FROM fair_deal($1, $2, $3)",
                    &[&seed, &seeds, &nonce],
                )
                .unwrap();
            for i in 0..4 {
                assert_eq!(
                    game.get::<_, Vec<i32>>(i),
                    again.get::<_, Vec<i32>>(i),
                    "game {}",
                    d.game
                );
            }
            assert_eq!(game.get::<_, i16>(4), again.get::<_, i16>(4));
        }
    }
}

#[test]
fn queues_stay_consistent_under_concurrent_next_and_prev() {
    let mut c = distributed();
    let _topology = same_topology();
    let tracks = 40i64;
    let queue: i64 = c
        .query_one(
            &format!(
                "SELECT shuffle_queue_create(ARRAY(SELECT generate_series(1, {tracks}::bigint)))"
            ),
            &[],
        )
        .unwrap()
        .get(0);
    let (sessions, steps) = (8, 30);
    let start = Arc::new(Barrier::new(sessions));
    let handles: Vec<_> = (0..sessions)
        .map(|s| {
            let start = Arc::clone(&start);
            thread::spawn(move || {
                let mut c = connect_to(&coordinator_dsn());
                start.wait();
                for i in 0..steps {
                    if (s + i) % 4 == 3 {
                        let back: Option<i64> = c
                            .query_one(&format!("SELECT shuffle_queue_prev({queue})"), &[])
                            .unwrap_or_else(|e| panic!("prev: {e}"))
                            .get(0);
                        assert!(back.is_none_or(|t| (1..=tracks).contains(&t)), "{back:?}");
                    } else {
                        let next: i64 = c
                            .query_one(&format!("SELECT shuffle_queue_next({queue})"), &[])
                            .unwrap_or_else(|e| panic!("next: {e}"))
                            .get(0);
                        assert!((1..=tracks).contains(&next), "{next}");
                    }
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let row = c
        .query_one(
            &format!(
                "SELECT front, tracks, history, behind FROM shuffle_queue WHERE queue_id = {queue}"
            ),
            &[],
        )
        .unwrap();
    let (front, length, history, behind): (i64, i64, i64, i64) =
        (row.get(0), row.get(1), row.get(2), row.get(3));
    assert_eq!(length, tracks);
    assert!(
        history <= length && (behind < history || behind == 0),
        "{history} {behind}"
    );
    assert!(front > 0, "no pick advanced the queue");
    let tape: Vec<(i64, i64)> = c
        .query(
            &format!("SELECT position, track FROM shuffle_queue_track WHERE queue_id = {queue} ORDER BY position"),
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let positions: Vec<i64> = tape.iter().map(|t| t.0).collect();
    assert_eq!(
        positions,
        (front..front + length).collect::<Vec<_>>(),
        "the tape"
    );
    let on_tape: BTreeSet<i64> = tape.iter().map(|t| t.1).collect();
    assert_eq!(on_tape, (1..=tracks).collect(), "tracks lost or doubled");
    let current: Option<i64> = c
        .query_one(&format!("SELECT shuffle_queue_current({queue})"), &[])
        .unwrap()
        .get(0);
    assert!(current.is_some_and(|t| (1..=tracks).contains(&t)));
    c.batch_execute(&format!("SELECT shuffle_queue_drop({queue})"))
        .unwrap();
    assert_eq!(
        count(
            &mut c,
            &format!("SELECT count(*) FROM shuffle_queue_track WHERE queue_id = {queue}")
        ),
        0
    );
}

#[test]
fn eight_sessions_deal_at_once_over_fifty_desks() {
    let (lo, hi) = (7300, 7349);
    let mut c = distributed();
    let _topology = same_topology();
    fresh_desks(&mut c, lo, hi);
    let (sessions, deals) = (8, 100);
    let start = Arc::new(Barrier::new(sessions));
    let started = Instant::now();
    let handles: Vec<_> = (0..sessions)
        .map(|s| {
            let start = Arc::clone(&start);
            thread::spawn(move || {
                let mut c = connect_to(&coordinator_dsn());
                start.wait();
                (0..deals)
                    .map(|i| {
                        let desk = lo + ((s * 37 + i * 11) % 50) as i32;
                        (desk, deal(&mut c, desk).game)
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let dealt: Vec<(i32, i64)> = handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    eprintln!(
        "{} deals by {sessions} sessions in {:?}",
        dealt.len(),
        started.elapsed()
    );
    assert_eq!(dealt.len(), sessions * deals);
    let ids: BTreeSet<i64> = dealt.iter().map(|d| d.1).collect();
    assert_eq!(ids.len(), dealt.len(), "a game id twice");
    let by_desk = check_records(&mut c, lo, hi);
    let stored: BTreeSet<i64> = by_desk.values().flatten().copied().collect();
    assert_eq!(stored, ids, "the games stored are not the games dealt");
    let by_holder = desks_by_holder(&mut c, lo, hi);
    for (node, desks) in &by_holder {
        for d in desks {
            assert!(
                by_desk[d].iter().all(|&g| range_of(g) == node.group),
                "desk {d}"
            );
        }
    }
}

/// `ALTER EXTENSION dealcards UPDATE` on a cluster whose tables are distributed, from 0.3.0 (the
/// first release with dealcards_distribute), as docs/citus.md says to run it: the update
/// reaches the coordinator, every worker and every shard, keeps every game and seed, and the
/// desks deal on under the commitments they had. Without the step that lets the workers' tables
/// change, the update is refused and changes nothing. In a database of its own on the nodes.
#[test]
fn an_update_of_a_distributed_cluster_reaches_every_shard_and_keeps_every_game() {
    const DB: &str = "dealcards_update";
    const FROM: &str = "0.3.0";
    let with_db = |dsn: &str, db: &str| -> String {
        dsn.split_whitespace()
            .map(|kv| {
                if kv.starts_with("dbname=") {
                    format!("dbname={db}")
                } else {
                    kv.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let nodes: Vec<String> = std::iter::once(coordinator_dsn())
        .chain(worker_dsns())
        .collect();
    for dsn in &nodes {
        let mut admin = connect_to(&with_db(dsn, "postgres"));
        admin
            .batch_execute(&format!("DROP DATABASE IF EXISTS {DB} WITH (FORCE)"))
            .unwrap();
        admin
            .batch_execute(&format!("CREATE DATABASE {DB}"))
            .unwrap();
        connect_to(&with_db(dsn, DB))
            .batch_execute("SET client_min_messages = warning; CREATE EXTENSION citus")
            .unwrap();
    }
    let mut c = connect_to(&with_db(&coordinator_dsn(), DB));
    let coordinator = coordinator_dsn();
    c.execute(
        "SELECT citus_set_coordinator_host($1, $2::text::int)",
        &[
            &setting(&coordinator, "host"),
            &setting(&coordinator, "port"),
        ],
    )
    .unwrap();
    for worker in worker_dsns() {
        c.execute(
            "SELECT citus_add_node($1, $2::text::int)",
            &[&setting(&worker, "host"), &setting(&worker, "port")],
        )
        .unwrap();
    }
    c.batch_execute(&format!(
        "SET client_min_messages = warning;
         CREATE EXTENSION dealcards VERSION '{FROM}';
         SELECT count(*) FROM dealcards_distribute();
         INSERT INTO desk (desk_id) SELECT generate_series(1, 8);
         INSERT INTO desk_player SELECT d, s, d * 10 + s FROM generate_series(1, 8) d, generate_series(1, 3) s;
         SELECT fair_mode_on(d) FROM generate_series(1, 4) d;
         SELECT deal_cards(d) FROM generate_series(1, 8) d;
         SELECT deal_cards(d) FROM generate_series(1, 8) d;"
    ))
    .unwrap();
    let versions = |c: &mut Client| -> Vec<String> {
        c.query(
            "SELECT result FROM run_command_on_all_nodes(
                 $$SELECT extversion FROM pg_extension WHERE extname = 'dealcards'$$)",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect()
    };
    // Every row of the desks, their games and seeds, as text, sorted (the cluster returns them
    // in any order).
    let rows = |c: &mut Client| -> Vec<String> {
        let mut rows: Vec<String> = c
            .query(
                "SELECT row_to_json(g)::text FROM (SELECT * FROM game ORDER BY desk_id, game_id) g
             UNION ALL
             SELECT row_to_json(s)::text FROM (SELECT desk_id, round, commitment, server_seed,
                    committed_at, revealed_at FROM fair_seed ORDER BY 1, 2) s
             UNION ALL
             SELECT row_to_json(d)::text FROM (SELECT * FROM desk ORDER BY desk_id) d",
                &[],
            )
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        rows.sort();
        rows
    };
    assert_eq!(versions(&mut c), vec![FROM; nodes.len()]);
    let before = rows(&mut c);
    assert_eq!(before.len(), 16 + 4 + 8);

    // Straight away: a worker's copy of the extension's guard refuses the new column there.
    let refused = c
        .batch_execute("ALTER EXTENSION dealcards UPDATE")
        .expect_err("the update went through with the workers' guards on");
    assert_eq!(sqlstate(&refused), "0A000", "{refused:?}");
    assert_eq!(versions(&mut c), vec![FROM; nodes.len()]);
    assert_eq!(rows(&mut c), before);

    // As docs/citus.md says.
    c.batch_execute(
        "SELECT run_command_on_workers('ALTER EVENT TRIGGER dealcards_keep_table_columns_end DISABLE');
         ALTER EXTENSION dealcards UPDATE;
         SELECT run_command_on_workers('ALTER EVENT TRIGGER dealcards_keep_table_columns_end ENABLE');",
    )
    .unwrap();
    let current = env!("CARGO_PKG_VERSION");
    assert_eq!(versions(&mut c), vec![current; nodes.len()]);
    assert_eq!(rows(&mut c), before, "the update changed rows");
    for (table, check) in [
        ("desk", "SELECT count(*) FROM pg_constraint WHERE conrelid = '%s'::regclass AND contype = 'f' AND conname LIKE 'desk_fair_round_fkey%%'"),
        ("fair_seed", "SELECT count(*) FROM pg_attribute WHERE attrelid = '%s'::regclass AND attname = 'unrevealed_round'"),
        ("game", "SELECT 1 - count(*) FROM pg_indexes WHERE tablename = '%s' AND indexname LIKE 'game_fair_nonce_idx%%'"),
    ] {
        let results: Vec<String> = c
            .query("SELECT result FROM run_command_on_shards($1::text::regclass, $2)", &[&table, &check])
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        assert!(
            !results.is_empty() && results.iter().all(|r| r == "1"),
            "{table}'s shards: {results:?}"
        );
    }
    let guards: Vec<String> = c
        .query(
            "SELECT result FROM run_command_on_workers(
                 $$SELECT evtenabled FROM pg_event_trigger WHERE evtname = 'dealcards_keep_table_columns_end'$$)",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(
        guards,
        vec!["O"; nodes.len() - 1],
        "a worker's guard stayed off"
    );

    // The fair desks deal on under their commitments, and verify once revealed.
    for desk in 1..=4 {
        let nonce: i64 = c
            .query_one("SELECT (deal_cards($1) ->> 'nonce')::bigint", &[&desk])
            .unwrap()
            .get(0);
        assert_eq!(nonce, 2, "desk {desk}");
        c.execute("SELECT fair_reveal($1)", &[&desk]).unwrap();
        let verified: bool = c
            .query_one(
                "SELECT count(*) = 3 AND bool_and(verified) FROM fair_verify_desk($1)",
                &[&desk],
            )
            .unwrap()
            .get(0);
        assert!(verified, "desk {desk}");
    }
    // And the key holds on the shards.
    let rewrite = c
        .batch_execute("UPDATE desk SET fair_round = 1 WHERE desk_id = 2")
        .expect_err("desk 2 was put back on its revealed round");
    assert_eq!(sqlstate(&rewrite), "23503", "{rewrite:?}");
}
