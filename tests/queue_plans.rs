#![cfg(feature = "server_tests")]
//! A queue is fast from its first step, however stale the statistics: a database whose queue
//! tables were analyzed while they held only small queues (so that, to the planner, a new queue
//! has no rows), autovacuum off on them, then a new queue of 20,000 tracks of every kind, stepped
//! at once. Every call of every kind (next, prev, add, remove, play next, jump, skip, and the
//! bulk add and remove on the kinds that take them) must read
//! at most a few hundred blocks, as `EXPLAIN (ANALYZE, BUFFERS)` of the call counts the blocks of
//! every statement it runs: each row reached by its whole key. A plan that reads the queue reads
//! about a block per track. The negative control gives the track table an index on the plain
//! columns (queue_id, track), which a lookup by position can take as well as the primary key,
//! and sees a step read the queue through it.
//!
//! Then the edits on played tracks (`played_tracks`): a queue of 100,000 tracks with 300 plays
//! against a 10-track queue of the same kind, call by call, with statistics stale and taken among
//! the dead rows of every queue dropped under a held snapshot (every kind), and fresh (a plain
//! queue); the negative control runs the history shift of before and the track index of before
//! in those states.
//! Run on every major by `make test` (about 30 seconds on two cores): the planner's choices are
//! each major's own.
mod server;

use postgres::Client;

/// The most blocks one call may read: a step's statements read tens of blocks each (the queue's
/// row, a few rows by key, their index pages); reading the queue's 20,000 tracks costs thousands.
const MOST_BLOCKS: i64 = 400;
const TRACKS: i64 = 20_000;

/// The queue tables, analyzed with small queues in them and kept from autovacuum.
const QUEUE_TABLES: [&str; 10] = [
    "shuffle_queue",
    "shuffle_queue_track",
    "shuffle_queue_unit",
    "shuffle_queue_member",
    "shuffle_queue_up_next",
    "shuffle_queue_skipped",
    "shuffle_queue_weight",
    "shuffle_queue_play",
    "shuffle_queue_ahead",
    "shuffle_queue_album",
];

/// A database whose statistics were taken with 20 small queues of every kind in it, each stepped
/// 150 times, and never again.
fn stale_database(name: &str) -> Client {
    let mut client = server::fresh_database(name);
    client.batch_execute("CREATE EXTENSION dealcards").unwrap();
    client
        .batch_execute(
            "SELECT shuffle_queue_new(ARRAY(SELECT (k * 100 + i)::bigint FROM generate_series(1, 50) i),
                    mode => CASE WHEN k % 2 = 1 AND k % 3 <> 0 THEN 'random' ELSE 'shuffle' END,
                    \"window\" => CASE WHEN k % 2 = 1 AND k % 3 <> 0 THEN 10 END,
                    groups => CASE WHEN k % 3 = 0
                                   THEN ARRAY(SELECT 'a' || (i % 7) FROM generate_series(1, 50) i) END,
                    listener => CASE WHEN k % 5 = 0 THEN k END)
               FROM generate_series(1, 20) k;
             SELECT count(shuffle_queue_next(q)) FROM generate_series(1, 20) q, generate_series(1, 150);
             SELECT count(shuffle_queue_next(q))
               FROM (SELECT shuffle_queue_new_albums(
                              ARRAY(SELECT (k * 100 + i)::bigint FROM generate_series(1, 50) i),
                              ARRAY(SELECT 'album ' || (i / 5) FROM generate_series(1, 50) i),
                              ARRAY(SELECT 'artist ' || (i / 15) FROM generate_series(1, 50) i)) AS q
                       FROM generate_series(21, 25) k) queues, generate_series(1, 150);
             ANALYZE;",
        )
        .unwrap();
    for table in QUEUE_TABLES {
        client
            .batch_execute(&format!(
                "ALTER TABLE {table} SET (autovacuum_enabled = false)"
            ))
            .unwrap();
    }
    client
}

/// The kinds of queue, as the `shuffle_queue_new` arguments after the tracks (`{n}`: the count).
const KINDS: [(&str, &str); 6] = [
    ("shuffle", ""),
    ("random", ", mode => 'random', \"window\" => 10"),
    (
        "spread",
        ", groups => ARRAY(SELECT 'artist ' || (i % 1000) FROM generate_series(1, {n}) i)",
    ),
    (
        "weighted",
        ", mode => 'random', weights => ARRAY(SELECT 1 + i % 5 FROM generate_series(1, {n}) i)",
    ),
    ("seeded", ", seed => sha256('x')"),
    ("listener", ", listener => 7"),
];

fn make(client: &mut Client, options: &str, tracks: i64) -> i64 {
    let sql = format!(
        "SELECT shuffle_queue_new(ARRAY(SELECT i::bigint FROM generate_series(1, {tracks}) i){})",
        options.replace("{n}", &tracks.to_string())
    );
    client.query_one(&sql, &[]).unwrap().get(0)
}

/// The calls of a step, for a queue of `n` tracks (`Q`: the queue).
fn calls(kind: &str, n: i64) -> Vec<(&'static str, String)> {
    let add = match kind {
        "spread" => format!("shuffle_queue_add(Q, {}, 'artist 1')", n + 1),
        "weighted" => format!("shuffle_queue_add(Q, {}, 3)", n + 1),
        _ => format!("shuffle_queue_add(Q, {})", n + 1),
    };
    let mut calls = vec![
        ("next", "shuffle_queue_next(Q)".into()),
        (
            "upcoming",
            "(SELECT count(*) FROM shuffle_queue_upcoming(Q, 5))".into(),
        ),
        ("next", "shuffle_queue_next(Q)".into()),
        ("skip", "shuffle_queue_skip(Q)".into()),
        ("prev", "shuffle_queue_prev(Q)".into()),
        ("next", "shuffle_queue_next(Q)".into()),
        ("add", add),
        ("remove", "shuffle_queue_remove(Q, 17)".into()),
        (
            "play next",
            "shuffle_queue_play_next(Q, ARRAY[12]::bigint[])".into(),
        ),
        ("next", "shuffle_queue_next(Q)".into()),
        ("jump", "shuffle_queue_jump(Q, 19)".into()),
        ("skip", "shuffle_queue_skip_when_shuffling(Q, 18)".into()),
        ("next", "shuffle_queue_next(Q)".into()),
    ];
    // The bulk edits take plain and weighted queues (a spread queue refuses them).
    let add_many = match kind {
        "spread" => None,
        "weighted" => Some(format!(
            "shuffle_queue_add_many(Q, ARRAY[{}, {}]::bigint[], ARRAY[2, 4])",
            n + 2,
            n + 3
        )),
        _ => Some(format!(
            "shuffle_queue_add_many(Q, ARRAY[{}, {}]::bigint[])",
            n + 2,
            n + 3
        )),
    };
    if let Some(add_many) = add_many {
        calls.push(("add many", add_many));
        calls.push((
            "remove many",
            "shuffle_queue_remove_many(Q, ARRAY[15, 16]::bigint[])".into(),
        ));
        calls.push(("next", "shuffle_queue_next(Q)".into()));
    }
    calls
}

/// The shared blocks a call read and hit, every statement it ran included.
fn blocks(client: &mut Client, call: &str) -> i64 {
    server::explained_blocks(client, &format!("SELECT {call}"))
}

/// Every call of a new queue of each kind, after the same calls on a small queue of that kind in
/// the same connection (so that what a connection reads once, the catalog, is read): the blocks
/// of each, as "kind call: blocks".
fn steps(client: &mut Client, kinds: &[(&str, &str)]) -> Vec<(String, i64)> {
    let mut read = Vec::new();
    for (kind, options) in kinds {
        let small = make(client, options, 20);
        for (_, call) in calls(kind, 20) {
            let call = call
                .replace('Q', &small.to_string())
                .replace(", 17)", ", 3)")
                .replace("[12]", "[4]")
                .replace(", 19)", ", 5)")
                .replace(", 18)", ", 6)");
            client.batch_execute(&format!("SELECT {call}")).unwrap();
        }
        let queue = make(client, options, TRACKS);
        for (name, call) in calls(kind, TRACKS) {
            let call = call.replace('Q', &queue.to_string());
            read.push((format!("{kind} {name}"), blocks(client, &call)));
        }
    }
    read
}

/// How many calls [`steps`] makes on the large queues of `kinds`.
fn every_call(kinds: &[(&str, &str)]) -> usize {
    kinds
        .iter()
        .map(|(kind, _)| calls(kind, TRACKS).len())
        .sum()
}

#[test]
fn every_step_of_a_new_large_queue_reads_its_rows_by_key_under_stale_statistics() {
    let mut client = stale_database("dealcards_queue_plans");
    let read = steps(&mut client, &KINDS);
    assert_eq!(read.len(), every_call(&KINDS));
    let over: Vec<&(String, i64)> = read.iter().filter(|(_, b)| *b > MOST_BLOCKS).collect();
    assert!(
        over.is_empty(),
        "calls reading more than {MOST_BLOCKS} blocks: {over:?} (all: {read:?})"
    );
}

/// The same calls on a new queue of every kind in a database whose statistics were taken among
/// the dead rows of every queue, dropped while another transaction held a snapshot: to them the
/// tables are empty and every index is one page long.
#[test]
fn every_step_of_a_new_large_queue_reads_its_rows_by_key_after_the_dead_rows() {
    let mut client = played_tracks::dropped_database("dealcards_queue_plans_dead_rows", false);
    let read = steps(&mut client, &KINDS);
    assert_eq!(read.len(), every_call(&KINDS));
    let over: Vec<&(String, i64)> = read.iter().filter(|(_, b)| *b > MOST_BLOCKS).collect();
    assert!(
        over.is_empty(),
        "calls reading more than {MOST_BLOCKS} blocks: {over:?} (all: {read:?})"
    );
}

/// A new queue of whole albums (20,000 tracks, albums of 10 by 500 artists): each of its calls
/// reads its rows by key too, a look ahead across albums included.
#[test]
fn every_step_of_a_new_large_queue_of_albums_reads_its_rows_by_key_under_stale_statistics() {
    let mut client = stale_database("dealcards_queue_plans_albums");
    let make = |client: &mut Client, tracks: i64| -> i64 {
        let sql = format!(
            "SELECT shuffle_queue_new_albums(ARRAY(SELECT i::bigint FROM generate_series(1, {tracks}) i),
                    ARRAY(SELECT 'album ' || (i / 10) FROM generate_series(1, {tracks}) i),
                    ARRAY(SELECT 'artist ' || (i / 10 % 500) FROM generate_series(1, {tracks}) i))"
        );
        client.query_one(&sql, &[]).unwrap().get(0)
    };
    let calls = [
        ("next", "shuffle_queue_next(Q)"),
        (
            "upcoming",
            "(SELECT count(*) FROM shuffle_queue_upcoming(Q, 30))",
        ),
        ("next", "shuffle_queue_next(Q)"),
        ("prev", "shuffle_queue_prev(Q)"),
        ("prev", "shuffle_queue_prev(Q)"),
        ("current", "shuffle_queue_current(Q)"),
        ("next", "shuffle_queue_next(Q)"),
        (
            "upcoming",
            "(SELECT count(*) FROM shuffle_queue_upcoming(Q, 20, 40))",
        ),
    ];
    let small = make(&mut client, 20);
    for (_, call) in calls {
        let call = call.replace('Q', &small.to_string());
        client.batch_execute(&format!("SELECT {call}")).unwrap();
    }
    let queue = make(&mut client, TRACKS);
    let mut read = Vec::new();
    // Twice through: the second time each next ends an album or plays one drawn ahead.
    for _ in 0..2 {
        for (name, call) in calls {
            let call = call.replace('Q', &queue.to_string());
            read.push((name, blocks(&mut client, &call)));
        }
        for _ in 0..9 {
            client
                .batch_execute(&format!("SELECT shuffle_queue_next({queue})"))
                .unwrap();
        }
    }
    let over: Vec<&(&str, i64)> = read.iter().filter(|(_, b)| *b > MOST_BLOCKS).collect();
    assert!(
        over.is_empty(),
        "calls reading more than {MOST_BLOCKS} blocks: {over:?} (all: {read:?})"
    );
}

#[test]
fn the_check_sees_a_step_that_reads_the_queue() {
    // The track table's index on the plain columns (queue_id, track), as before 0.7.0, instead
    // of the array: a lookup by position can take it as well as the primary key, and to these
    // statistics the two look alike, so a step reads the queue through the wrong one.
    let mut client = stale_database("dealcards_queue_plans_control");
    client
        .batch_execute(
            "SET dealcards.allow_own_objects = on;
             DROP INDEX shuffle_queue_track_track;
             CREATE INDEX shuffle_queue_track_track ON shuffle_queue_track (queue_id, track);
             RESET dealcards.allow_own_objects;",
        )
        .unwrap();
    let read = steps(&mut client, &KINDS[..1]);
    let most = read.iter().map(|(_, b)| *b).max().unwrap();
    assert!(
        most > 5 * MOST_BLOCKS,
        "no call read the queue through the index on the plain columns: {read:?}"
    );
}

/// Edits on played tracks cost on a large queue what they cost on a 10-track queue, in every
/// state of the statistics a database can be in: taken while only small queues existed (stale),
/// taken among the dead rows of every queue dropped under a held snapshot (dropped), and taken
/// with the large queue in place (fresh). The large queue has 100,000 tracks and 300 plays: a
/// plan that reads it reads about a thousand blocks, one that reads every queue many more; a
/// call reached by key reads the same blocks on both queues (one set of indexes serves both).
mod played_tracks {
    use super::*;

    pub const BIG: i64 = 100_000;
    pub const BIG_PLAYS: i64 = 300;
    /// The 10-track queue's plays (its history holds at most 5).
    pub const SMALL_PLAYS: i64 = 4;
    /// Blocks a call on the large queue may read beyond twice the same call on the small one:
    /// a few index pages of another depth, a heap page more.
    pub const ALLOWANCE: i64 = 150;
    /// A removal deep in the history moves the tracks of its shorter side one place, in one
    /// statement on one key range: per track moved, its heap row and two index entries.
    const PER_TRACK_MOVED: i64 = 20;
    /// How far back the deep edits reach on the large queue: past the 32 plays an exact jump
    /// keeps, and nearer the oldest play than the newest, so a removal moves 99 tracks.
    pub const DEEP: i64 = 200;

    /// The track played `back` plays before the newest (a queue spread by group keeps only its
    /// history on the tape, from its front).
    pub fn played(client: &mut Client, queue: i64, back: i64) -> i64 {
        client
            .query_one(
                "SELECT t.track FROM shuffle_queue_track t, shuffle_queue q
                  WHERE q.queue_id = $1 AND t.queue_id = $1
                    AND t.position = q.front - 1 - $2
                        + CASE WHEN q.mode = 'spread' THEN q.history ELSE q.tracks END",
                &[&queue, &back],
            )
            .unwrap()
            .get(0)
    }

    /// A new queue of `tracks` tracks of a kind ([`KINDS`]' options), stepped `plays` times.
    pub fn new_queue(client: &mut Client, tracks: i64, plays: i64, options: &str) -> i64 {
        let queue = make(client, options, tracks);
        client
            .query_one(
                "SELECT count(shuffle_queue_next($1)) FROM generate_series(1, $2::bigint)",
                &[&queue, &plays],
            )
            .unwrap();
        queue
    }

    /// The blocks of a call, rolled back: every call starts from the same queue.
    pub fn rolled_back(client: &mut Client, call: &str) -> i64 {
        client.batch_execute("BEGIN").unwrap();
        let read = blocks(client, call);
        client.batch_execute("ROLLBACK").unwrap();
        read
    }

    /// The calls on a queue of `tracks` tracks: `near` the track played 2 before, `deep` one
    /// played further back, and how many tracks a removal of `deep` moves.
    fn calls(
        kind: &str,
        queue: i64,
        tracks: i64,
        near: i64,
        deep: i64,
    ) -> Vec<(&'static str, String)> {
        let q = queue;
        let add = super::calls(kind, tracks)[6].1.replace('Q', &q.to_string());
        vec![
            ("next", format!("shuffle_queue_next({q})")),
            ("prev", format!("shuffle_queue_prev({q})")),
            (
                "upcoming",
                format!("(SELECT count(*) FROM shuffle_queue_upcoming({q}, 5))"),
            ),
            ("skip", format!("shuffle_queue_skip({q})")),
            ("add", add),
            (
                "remove played",
                format!("shuffle_queue_remove({q}, {near})"),
            ),
            ("jump played", format!("shuffle_queue_jump({q}, {near})")),
            (
                "skip when shuffling played",
                format!("shuffle_queue_skip_when_shuffling({q}, {near})"),
            ),
            (
                "play next played",
                format!("shuffle_queue_play_next({q}, ARRAY[{near}]::bigint[])"),
            ),
            ("jump deep", format!("shuffle_queue_jump({q}, {deep})")),
            ("remove deep", format!("shuffle_queue_remove({q}, {deep})")),
            (
                "skip when shuffling deep",
                format!("shuffle_queue_skip_when_shuffling({q}, {deep})"),
            ),
        ]
    }

    /// The most blocks a call on the large queue may read, the same call on the small one having
    /// read `small`: a removal of a deep track also moves `moved` tracks.
    pub fn most_blocks(name: &str, small: i64, moved: i64) -> i64 {
        let moving = name.ends_with("deep") && !name.starts_with("jump");
        2 * small + ALLOWANCE + if moving { PER_TRACK_MOVED * moved } else { 0 }
    }

    /// Every call on a 10-track queue (twice: the first reads the catalog) and on the large
    /// queue, each rolled back; the calls the large queue read too much for, with all figures.
    pub fn compare(client: &mut Client, (kind, options): (&str, &str)) -> (Vec<String>, String) {
        let small = new_queue(client, 10, SMALL_PLAYS, options);
        let big = new_queue(client, BIG, BIG_PLAYS, options);
        let (s_near, s_deep) = (played(client, small, 2), played(client, small, 3));
        let (b_near, b_deep) = (played(client, big, 2), played(client, big, DEEP));
        // A removal moves the shorter side of the history: none on the small queue (the oldest
        // play), the 99 plays older than the deep one on the large queue.
        let moved = (BIG_PLAYS - 1 - DEEP).min(DEEP);
        let small_calls = calls(kind, small, 10, s_near, s_deep);
        for (_, call) in &small_calls {
            rolled_back(client, call);
        }
        let mut over = Vec::new();
        let mut all = String::new();
        for ((name, s_call), (_, b_call)) in small_calls
            .iter()
            .zip(calls(kind, big, BIG, b_near, b_deep))
        {
            let s = rolled_back(client, s_call);
            let b = rolled_back(client, &b_call);
            // A step of a queue spread by group refreshes its lookahead of groups now and then:
            // a few dozen rows, each by key, among 1,000 groups where the 10-track queue has 10.
            let most = most_blocks(name, s, moved) + if kind == "spread" { 400 } else { 0 };
            all.push_str(&format!("{kind} {name}: {s} / {b}; "));
            if b > most {
                over.push(format!("{kind} {name}: {b} blocks, at most {most}"));
            }
        }
        (over, all)
    }

    /// [`compare`] for each kind of queue.
    pub fn compare_kinds(client: &mut Client, kinds: &[(&str, &str)]) -> (Vec<String>, String) {
        let mut over = Vec::new();
        let mut all = String::new();
        for (kind, options) in kinds {
            // A random queue's window fits 10 tracks.
            let options = options.replace("\"window\" => 10", "\"window\" => 5");
            let (o, a) = compare(client, (kind, &options));
            over.extend(o);
            all.push_str(&a);
        }
        (over, all)
    }

    /// A database where every queue was dropped while another transaction held a snapshot, and
    /// the tables were analyzed with the dead rows: the statistics say the tables are empty and
    /// their pages full of nothing.
    /// `old_index`: with the track index of before, `(track, queue_id)`, beside the others.
    pub fn dropped_database(name: &str, old_index: bool) -> Client {
        let mut client = server::fresh_database(name);
        client.batch_execute("CREATE EXTENSION dealcards").unwrap();
        if old_index {
            client
                .batch_execute(
                    "SET dealcards.allow_own_objects = on;
                     CREATE INDEX old_track_track ON shuffle_queue_track (track, queue_id);
                     RESET dealcards.allow_own_objects;",
                )
                .unwrap();
        }
        for table in QUEUE_TABLES {
            client
                .batch_execute(&format!(
                    "ALTER TABLE {table} SET (autovacuum_enabled = false)"
                ))
                .unwrap();
        }
        client
            .batch_execute(
                "SELECT shuffle_queue_new(ARRAY(SELECT (k * 100000 + i)::bigint
                                                 FROM generate_series(1, 20000) i),
                        groups => CASE WHEN k = 3 THEN ARRAY(SELECT 'a' || (i % 700)
                                                               FROM generate_series(1, 20000) i) END)
                   FROM generate_series(1, 4) k;
                 SELECT count(shuffle_queue_next(q)) FROM generate_series(1, 4) q, generate_series(1, 200);",
            )
            .unwrap();
        let user: String = client.query_one("SELECT current_user", &[]).unwrap().get(0);
        let mut holder = server::connect_as(name, &user);
        holder
            .batch_execute(
                "BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM shuffle_queue_track",
            )
            .unwrap();
        client
            .batch_execute("SELECT shuffle_queue_drop(queue_id) FROM shuffle_queue; ANALYZE;")
            .unwrap();
        holder.batch_execute("COMMIT").unwrap();
        client
    }
}

#[test]
fn edits_on_played_tracks_of_a_large_queue_cost_what_they_cost_on_10_tracks_stale_statistics() {
    let mut client = stale_database("dealcards_queue_plans_played_stale");
    let (over, all) = played_tracks::compare_kinds(&mut client, &KINDS);
    eprintln!("blocks, 10 tracks / {} tracks: {all}", played_tracks::BIG);
    assert!(over.is_empty(), "{over:?} (small / large: {all})");
}

#[test]
fn edits_on_played_tracks_of_a_large_queue_cost_what_they_cost_on_10_tracks_fresh_statistics() {
    let mut client = stale_database("dealcards_queue_plans_played_fresh");
    // The statistics taken with the large queue in place (it is made first, then analyzed).
    played_tracks::new_queue(&mut client, played_tracks::BIG, 10, "");
    client.batch_execute("ANALYZE").unwrap();
    let (over, all) = played_tracks::compare_kinds(&mut client, &KINDS[..1]);
    eprintln!("blocks, 10 tracks / {} tracks: {all}", played_tracks::BIG);
    assert!(over.is_empty(), "{over:?} (small / large: {all})");
}

#[test]
fn edits_on_played_tracks_of_a_large_queue_cost_what_they_cost_on_10_tracks_after_the_dead_rows() {
    let mut client = played_tracks::dropped_database("dealcards_queue_plans_played_dropped", false);
    let (over, all) = played_tracks::compare_kinds(&mut client, &KINDS);
    eprintln!("blocks, 10 tracks / {} tracks: {all}", played_tracks::BIG);
    assert!(over.is_empty(), "{over:?} (small / large: {all})");
}

/// The shift of the history before, one UPDATE joining the queue's rows to themselves on
/// position - 1: the statement a removal of the deep track ran.
const OLD_SHIFT: &str = "UPDATE shuffle_queue_track t SET track = p.track
      FROM shuffle_queue_track p
     WHERE t.queue_id = Q AND t.position > START AND t.position <= HOLE
       AND p.queue_id = Q AND p.position = t.position - 1";

/// The old shapes, in the states of the statistics above, read more than the checks allow: the
/// old history shift (stale statistics, and after the dead rows), and a step's lookup by
/// position with the old track index `(track, queue_id)` analyzed among the dead rows.
#[test]
fn the_check_sees_the_old_history_shift_and_the_old_track_index() {
    use played_tracks::*;
    let mut stale = stale_database("dealcards_queue_plans_played_control");
    let mut dropped = dropped_database("dealcards_queue_plans_played_control_dropped", false);
    for client in [&mut stale, &mut dropped] {
        let small = new_queue(client, 10, SMALL_PLAYS, "");
        let big = new_queue(client, BIG, BIG_PLAYS, "");
        let (deep, s_deep) = (played(client, big, DEEP), played(client, small, 3));
        let call = format!("shuffle_queue_remove({small}, {s_deep})");
        rolled_back(client, &call);
        let moved = (BIG_PLAYS - 1 - DEEP).min(DEEP);
        let most = most_blocks("remove deep", rolled_back(client, &call), moved);
        let row = client
            .query_one(
                "SELECT front + tracks - history, front + tracks - 1 - $2 FROM shuffle_queue
                  WHERE queue_id = $1",
                &[&big, &DEEP],
            )
            .unwrap();
        let (start, hole): (i64, i64) = (row.get(0), row.get(1));
        let shift = OLD_SHIFT
            .replace('Q', &big.to_string())
            .replace("START", &start.to_string())
            .replace("HOLE", &hole.to_string());
        client.batch_execute("BEGIN").unwrap();
        let read = server::explained_blocks(client, &shift);
        client.batch_execute("ROLLBACK").unwrap();
        assert!(
            read > 10 * most,
            "the old shift of {moved} tracks (deep track {deep}) read {read} blocks, the check allows {most}"
        );
    }
    // A step's lookup of one position, as next runs it.
    let lookup = |client: &mut Client, queue: i64| -> i64 {
        let front: i64 = client
            .query_one(
                "SELECT front FROM shuffle_queue WHERE queue_id = $1",
                &[&queue],
            )
            .unwrap()
            .get(0);
        server::explained_blocks(
            client,
            &format!(
                "SELECT track FROM shuffle_queue_track WHERE queue_id = {queue} AND position = {}",
                front + 5
            ),
        )
    };
    drop(dropped);
    let mut old = dropped_database("dealcards_queue_plans_played_control_old", true);
    // No plays: with this index, every step of the large queue reads as much as this lookup.
    let small = new_queue(&mut old, 10, 0, "");
    let big = new_queue(&mut old, BIG, 0, "");
    lookup(&mut old, small);
    let most = 2 * lookup(&mut old, small) + ALLOWANCE;
    let read = lookup(&mut old, big);
    assert!(
        read > 10 * most,
        "a lookup by position with the old track index read {read} blocks, the check allows {most}"
    );
}
