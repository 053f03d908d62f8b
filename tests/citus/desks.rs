//! Desks on the cluster: seating players, dealing, and checking what the deals recorded.

use std::collections::{BTreeMap, BTreeSet};

use postgres::{Client, SimpleQueryMessage};

/// Desks lo..=hi, each with its three players seated (player d * 10 + seat), rid of whatever
/// an earlier run left there.
pub fn fresh_desks(c: &mut Client, lo: i32, hi: i32) {
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
pub fn simple_value(c: &mut Client, sql: &str) -> Result<Option<String>, postgres::Error> {
    for message in c.simple_query(sql)? {
        if let SimpleQueryMessage::Row(row) = message {
            return Ok(row.get(0).map(str::to_string));
        }
    }
    Ok(None)
}

/// What one deal returned: its JSON as jsonb prints it, and the game id.
#[derive(Clone, Debug)]
pub struct Dealt {
    pub json: String,
    pub game: i64,
}

pub fn try_deal(c: &mut Client, desk: i32) -> Result<Dealt, postgres::Error> {
    let json = simple_value(c, &format!("SELECT deal_cards({desk})"))?.expect("a deal");
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(value["desk"], desk, "{json}");
    let game = value["game"].as_i64().unwrap_or_else(|| panic!("{json}"));
    Ok(Dealt { json, game })
}

pub fn deal(c: &mut Client, desk: i32) -> Dealt {
    try_deal(c, desk).unwrap_or_else(|e| {
        let why = e
            .as_db_error()
            .map_or_else(|| e.to_string(), |d| d.message().to_string());
        panic!("deal_cards({desk}): {} {why}", sqlstate(&e))
    })
}

pub fn sqlstate(e: &postgres::Error) -> String {
    e.code().map(|c| c.code().to_string()).unwrap_or_default()
}

pub fn count(c: &mut Client, sql: &str) -> i64 {
    c.query_one(sql, &[])
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .get(0)
}

/// The node range an id belongs to (Citus group id; 0 the coordinator's).
pub fn range_of(id: i64) -> i32 {
    (id >> 48) as i32
}

/// Games, notes and bids at desks lo..=hi: every game and note id appears once, each game has
/// its two opening bids and its note, and every desk points at a game of its own. Returns the
/// game ids by desk.
pub fn check_records(c: &mut Client, lo: i32, hi: i32) -> BTreeMap<i32, Vec<i64>> {
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

/// Runs statements one at a time (each its own transaction).
pub fn run_each(c: &mut Client, statements: &[String]) {
    for sql in statements {
        c.batch_execute(sql)
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
}

/// (games, bids, notes, cur_game_id) of a desk.
pub fn desk_state(c: &mut Client, desk: i32) -> (i64, i64, i64, Option<i64>) {
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

pub fn is_permutation(values: &[i32], lo: i32, hi: i32) -> bool {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    sorted == (lo..=hi).collect::<Vec<_>>()
}
