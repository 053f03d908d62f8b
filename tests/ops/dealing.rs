//! What the tests do with dealcards on a server, in statements of their own (each commits by
//! itself, as through a pooler, and as a provably fair deal requires: it uses only a round,
//! seats and client seeds committed before its transaction), and what they compare: every row
//! of the extension's tables and its sequences.

use std::collections::BTreeMap;

use postgres::Client;

use crate::servers::{rows, value};

/// A desk with players 10 * desk + 1..3 in seats 1..3.
pub fn seat_players(client: &mut Client, desk: i32) {
    client
        .batch_execute(&format!(
            "INSERT INTO desk (desk_id) VALUES ({desk});
             INSERT INTO desk_player (desk_id, player_no, player_id)
             VALUES ({desk}, 1, {p}1), ({desk}, 2, {p}2), ({desk}, 3, {p}3);",
            p = desk
        ))
        .unwrap();
}

/// One deal at `desk`, in a statement of its own: what deal_cards returned.
pub fn deal(client: &mut Client, desk: i32) -> serde_json::Value {
    serde_json::from_str(&value(client, &format!("SELECT deal_cards({desk})"))).unwrap()
}

/// The game id of a deal's result.
pub fn game_of(dealt: &serde_json::Value) -> i64 {
    dealt["game"]
        .as_i64()
        .unwrap_or_else(|| panic!("no game in {dealt}"))
}

/// Every seat's client seed for the round in force, each in a statement of its own.
pub fn set_seeds(client: &mut Client, desk: i32, tag: &str) {
    for seat in 1..=3 {
        rows(
            client,
            &format!("SELECT FROM set_client_seed({desk}, {seat}, 'seat {seat} {tag}')"),
        );
    }
}

/// A provably fair desk's rounds: `rounds` revealed ones and then one in force, `deals` deals
/// each, every step a statement of its own. Returns the games dealt.
pub fn fair_rounds(client: &mut Client, desk: i32, rounds: usize, deals: usize) -> Vec<i64> {
    let mut games = Vec::new();
    value(client, &format!("SELECT fair_mode_on({desk}) IS NOT NULL"));
    for round in 0..=rounds {
        set_seeds(client, desk, &format!("round {round}"));
        for _ in 0..deals {
            games.push(game_of(&deal(client, desk)));
        }
        if round < rounds {
            rows(client, &format!("SELECT * FROM fair_reveal({desk})"));
        }
    }
    games
}

/// (games, verified, not revealed yet, failed) of fair_verify_desk(desk), rows without a game
/// (a broken chain head, a round left unrevealed) counted as failed.
pub fn verify_desk(client: &mut Client, desk: i32) -> (i64, i64, i64, i64) {
    let row = &rows(
        client,
        &format!(
            "SELECT count(*), count(*) FILTER (WHERE verified),
                    count(*) FILTER (WHERE verified IS NULL),
                    count(*) FILTER (WHERE NOT verified)
               FROM fair_verify_desk({desk})"
        ),
    )[0];
    let n = |i: usize| row[i].as_ref().unwrap().parse().unwrap();
    (n(0), n(1), n(2), n(3))
}

/// What the tests put in a database: plain deals at desks 1-3, a provably fair desk 10 with a
/// revealed round and one in force, and four shuffle queues: a plain one stepped, a random one, a
/// seeded one spread by artist for a listener (stepped, with a track up next and one skipped) and
/// a weighted one.
pub fn populate(client: &mut Client) {
    for desk in 1..=3 {
        seat_players(client, desk);
        for _ in 0..4 {
            deal(client, desk);
        }
    }
    seat_players(client, 10);
    fair_rounds(client, 10, 1, 3);
    let queue = value(
        client,
        "SELECT shuffle_queue_create(ARRAY(SELECT generate_series(1, 40)::bigint))",
    );
    for _ in 0..7 {
        value(client, &format!("SELECT shuffle_queue_next({queue})"));
    }
    value(client, &format!("SELECT shuffle_queue_prev({queue})"));
    // Tracks drawn ahead, which a copy of the database must keep and play.
    value(
        client,
        &format!("SELECT count(*) FROM shuffle_queue_upcoming({queue}, 8)"),
    );
    value(
        client,
        "SELECT shuffle_queue_create(ARRAY[5, 6, 7]::bigint[], 'random', 1)",
    );
    let spread = value(
        client,
        "SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 12)::bigint),
                groups => ARRAY(SELECT 'artist ' || g % 4 FROM generate_series(1, 12) g),
                seed => decode(repeat('0a', 32), 'hex'), listener => 7)",
    );
    for _ in 0..5 {
        value(client, &format!("SELECT shuffle_queue_next({spread})"));
    }
    value(
        client,
        &format!("SELECT shuffle_queue_play_next({spread}, ARRAY[12]::bigint[])"),
    );
    value(
        client,
        &format!("SELECT shuffle_queue_skip_when_shuffling({spread}, 11)"),
    );
    value(
        client,
        "SELECT shuffle_queue_new(ARRAY[1, 2, 3]::bigint[], 'random', weights => ARRAY[1, 2, 3])",
    );
    // A queue of whole albums, in the middle of an album, with albums drawn ahead.
    let albums = value(
        client,
        "SELECT shuffle_queue_new_albums(ARRAY(SELECT generate_series(1, 12)::bigint),
                ARRAY(SELECT 'album ' || g / 3 FROM generate_series(1, 12) g),
                ARRAY(SELECT 'artist ' || g / 6 FROM generate_series(1, 12) g))",
    );
    for _ in 0..4 {
        value(client, &format!("SELECT shuffle_queue_next({albums})"));
    }
    value(
        client,
        &format!("SELECT count(*) FROM shuffle_queue_upcoming({albums}, 6)"),
    );
    // A bridge board dealt: its cards, and the PBN written from them, come through every copy.
    let board = value(client, "SELECT hand_start(5, 'bridge', board => 7)");
    value(client, &format!("SELECT cards FROM hand_deal({board})"));
}

/// The extension's tables and sequences, schema-qualified, with their relkind ('r' or 'S').
pub fn member_relations(client: &mut Client) -> Vec<(String, String)> {
    rows(
        client,
        "SELECT c.oid::regclass::text, c.relkind::text
           FROM pg_depend d
           JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'dealcards'
           JOIN pg_class c ON c.oid = d.objid
          WHERE d.classid = 'pg_class'::regclass AND d.refclassid = 'pg_extension'::regclass
            AND d.deptype = 'e' AND c.relkind IN ('r', 'S')
          ORDER BY 1",
    )
    .into_iter()
    .map(|r| (r[0].clone().unwrap(), r[1].clone().unwrap()))
    .collect()
}

/// Every row of every table of the extension (as text, in order) and every sequence's state.
pub fn snapshot(client: &mut Client) -> BTreeMap<String, String> {
    snapshot_of(client, "rS")
}

/// Every row of every table of the extension (as text, in order).
pub fn table_rows(client: &mut Client) -> BTreeMap<String, String> {
    snapshot_of(client, "r")
}

fn snapshot_of(client: &mut Client, kinds: &str) -> BTreeMap<String, String> {
    let mut snap = BTreeMap::new();
    for (name, kind) in member_relations(client) {
        // dealcards_instance is each server's own (its token, which a restore's or a replica's
        // CREATE EXTENSION makes anew): tests that carry it (pg_upgrade) compare it themselves.
        if !kinds.contains(kind.as_str()) || name.ends_with("dealcards_instance") {
            continue;
        }
        let sql = if kind == "r" {
            format!(
                "SELECT COALESCE(string_agg(t::text, E'\\n' ORDER BY t::text), '') FROM {name} t"
            )
        } else {
            format!("SELECT last_value || ' ' || is_called FROM {name}")
        };
        snap.insert(name, value(client, &sql));
    }
    snap
}
