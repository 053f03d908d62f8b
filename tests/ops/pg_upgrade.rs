//! pg_upgrade of a cluster with dealcards and data, from the oldest supported major to the
//! newest (PyPI's builds, 14 to 18 in make test): every row of the extension's tables and every
//! sequence the same after it, every function giving what it gave before (seeded outputs equal,
//! live ones of the right shape, provably fair games verifying), and deals, rounds and queue
//! steps going on with the numbering where it was. The round in force deals nothing in the new
//! cluster's files until it is revealed there: the old cluster's files could deal under it or
//! reveal it still.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use postgres::{Client, SimpleQueryMessage};

use crate::catalog::callable_functions;
use crate::dealing::{deal, game_of, populate, set_seeds, snapshot, verify_desk};
use crate::servers::{bin_dir, free_port, major_of, rows, run_as_server_user, value, Cluster};

const SEED: &str =
    "decode('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f', 'hex')";

/// (function, a statement calling it that returns one value, the same wherever the library is
/// the same): seeded calls return their result, live ones a property of it.
fn calls() -> Vec<(&'static str, String)> {
    let calls: Vec<(&str, &str)> = vec![
        ("shuffle_ints", "SELECT shuffle_ints(1, 52, {S})::text"),
        ("shuffle_ints", "SELECT (SELECT array_agg(x ORDER BY x) FROM unnest(shuffle_ints(1, 52)) x) = ARRAY(SELECT generate_series(1, 52))"),
        ("shuffle_array", "SELECT shuffle_array(ARRAY['a', 'b', 'c', 'd', 'e', 'f'], {S})::text"),
        ("shuffle_array", "SELECT (SELECT array_agg(x ORDER BY x) FROM unnest(shuffle_array(ARRAY[3, 1, 2])) x)::text"),
        ("sample_array", "SELECT sample_array(ARRAY(SELECT generate_series(1, 30)), 5, {S})::text"),
        ("sample_array", "SELECT cardinality(sample_array(ARRAY(SELECT generate_series(1, 30)), 5))"),
        ("sample_ints", "SELECT sample_ints(1, 4611686018427387904, 4, {S})::text"),
        ("sample_ints", "SELECT cardinality(sample_ints(1, 100, 7))"),
        ("shuffle_spread", "SELECT shuffle_spread(ARRAY[1, 2, 3, 4, 5, 6], ARRAY['x', 'x', 'y', 'y', 'z', 'z'], {S})::text"),
        ("shuffle_spread", "SELECT shuffle_spread(ARRAY[1, 2, 3, 4, 5, 6], ARRAY['x', 'x', 'x', 'y', 'y', 'y'], ARRAY[1, 2, 1, 1, 2, 2], {S})::text"),
        ("shuffle_spread", "SELECT cardinality(shuffle_spread(ARRAY[1, 2, 3, 4], ARRAY[1, 1, 2, 2]))"),
        ("shuffle_spread", "SELECT cardinality(shuffle_spread(ARRAY[1, 2, 3, 4], ARRAY[1, 1, 2, 2], ARRAY[1, 2, 1, 2]))"),
        ("sample_agg_seeded", "SELECT sample_agg_seeded(g, 5, {S})::text FROM generate_series(1, 100) g"),
        ("shuffle_agg_seeded", "SELECT shuffle_agg_seeded(g, {S})::text FROM generate_series(1, 12) g"),
        ("sample_agg", "SELECT cardinality(sample_agg(g, 5)) FROM generate_series(1, 100) g"),
        ("sample_agg", "SELECT cardinality(sample_agg(g, 5, g::float8)) FROM generate_series(1, 100) g"),
        ("resample_agg", "SELECT cardinality(resample_agg(g, 50)) FROM generate_series(1, 10) g"),
        ("resample_agg", "SELECT cardinality(resample_agg(g, 50, 1.0)) FROM generate_series(1, 10) g"),
        ("shuffle_agg", "SELECT (SELECT array_agg(x ORDER BY x) FROM unnest(shuffle_agg(g)) x)::text FROM generate_series(1, 9) g"),
        ("shuffle_key", "SELECT shuffle_key({S}, 42)::text"),
        ("shuffle_key", "SELECT shuffle_key({S}, 'Zoë')::text"),
        ("sparse_bernoulli", "SELECT array_agg(game_id ORDER BY game_id)::text FROM game TABLESAMPLE sparse_bernoulli(50) REPEATABLE (1)"),
        ("sample_rows", "SELECT array_agg(game_id ORDER BY game_id)::text FROM sample_rows(NULL::game, 3, {S})"),
        ("deal_hands", "SELECT count(*) || ' ' || sum(cardinality(cards)) FROM deal_hands(3, 17, 54)"),
        ("card_label", "SELECT string_agg(card_label(c), ' ' ORDER BY c) FROM generate_series(1, 54) c"),
        ("sort_hand", "SELECT sort_hand(ARRAY[54, 1, 9, 12, 8, 53, 39])::text"),
        ("hand_labels", "SELECT hand_labels(ARRAY[54, 1, 9, 12, 8, 53, 39])"),
        ("freecell_layout", "SELECT freecell_layout(11982)::text"),
        ("freecell_cards", "SELECT freecell_cards(1)::text"),
        ("freecell_board", "SELECT string_agg(b, E'\\n') FROM freecell_board(617) AS f (b)"),
        ("fair_deal", "SELECT f::text FROM fair_deal({S}, ARRAY['alice', '', 'Zoë'], 2) f"),
        ("fair_verify_game", "SELECT string_agg(v::text, E'\\n') FROM (SELECT min(game_id) g FROM game WHERE desk_id = 10) first, fair_verify_game(first.g) v"),
        ("fair_verify_desk", "SELECT string_agg(v::text, E'\\n') FROM fair_verify_desk(10) v"),
        ("fair_publication", "SELECT fair_publication(10)::text"),
        ("fair_receipt", "SELECT fair_receipt(max(game_id))::text FROM game WHERE desk_id = 10"),
        ("dealcards_written_here", "SELECT bool_or(dealcards_written_here(xmin))::text FROM desk"),
        ("dealcards_distribute", "SELECT count(*) FROM dealcards_distribute()"),
        ("dealcards_check", "SELECT count(*)::text FROM dealcards_check()"),
        ("dealcards_sync_sequences", "SELECT string_agg(s.sequence::text || ' ' || coalesce(s.largest_id::text, '-') || ' ' || s.next_id, ', ' ORDER BY s.sequence::text) FROM dealcards_sync_sequences() s"),
        ("shuffle_queue_up_next", "SELECT shuffle_queue_up_next(3)::text"),
        ("shuffle_queue_upcoming", "SELECT array_agg(track ORDER BY place)::text FROM shuffle_queue_upcoming(3, 4)"),
        ("shuffle_queue_now", "SELECT n::text FROM shuffle_queue_now(3, 4) n"),
        ("shuffle_queue_played", "SELECT array_agg(p::text ORDER BY ago)::text FROM shuffle_queue_played(3) p"),
        ("shuffle_queue_save", "SELECT shuffle_queue_save(3)::text"),
        ("room_kinds", "SELECT string_agg(kind, ' ' ORDER BY kind) FROM room_kinds()"),
        ("hand_pbn", "SELECT hand_pbn(max(hand_id)) FROM room_hand WHERE kind = 'bridge'"),
    ];
    calls
        .into_iter()
        .map(|(f, sql)| (f, sql.replace("{S}", SEED)))
        .collect()
}

/// What each call of [`calls`] gives in this database (its SQLSTATE when it fails), for the
/// functions the database has.
fn outputs(client: &mut Client) -> BTreeMap<String, String> {
    let present = callable_functions(client);
    calls()
        .into_iter()
        .filter(|(f, _)| present.contains(*f))
        .map(|(_, sql)| {
            let got = match client.simple_query(&sql) {
                Ok(messages) => {
                    let values: Vec<Option<String>> = messages
                        .iter()
                        .filter_map(|m| match m {
                            SimpleQueryMessage::Row(row) => Some(row.get(0).map(str::to_string)),
                            _ => None,
                        })
                        .collect();
                    format!("{values:?}")
                }
                Err(e) => format!("error {}", e.code().map(|c| c.code()).unwrap_or("?")),
            };
            (sql, got)
        })
        .collect()
}

/// The functions that write, which the test calls after the upgrade rather than before and
/// after (their results are live).
const WRITERS: &[&str] = &[
    "deal_cards",
    "fair_mode_on",
    "set_client_seed",
    "fair_reveal",
    "fair_mode_off",
    "shuffle_queue_create",
    "shuffle_queue_next",
    "shuffle_queue_prev",
    "shuffle_queue_current",
    "shuffle_queue_add",
    "shuffle_queue_remove",
    "shuffle_queue_drop",
    "shuffle_queue_new",
    "shuffle_queue_new_albums",
    "shuffle_queue_play_next",
    "shuffle_queue_play_later",
    "shuffle_queue_clear_up_next",
    "shuffle_queue_jump",
    "shuffle_queue_skip",
    "shuffle_queue_skip_when_shuffling",
    "shuffle_queue_restore",
    "shuffle_queue_forget",
    "shuffle_queue_add_many",
    "shuffle_queue_remove_many",
    "hand_start",
    "hand_deal",
    "hand_draw",
    "hand_end",
];

#[test]
fn an_upgraded_cluster_keeps_every_row_the_numbering_and_every_function() {
    let from = bin_dir("DEALCARDS_UPGRADE_FROM_BIN");
    let to = bin_dir("DEALCARDS_UPGRADE_TO_BIN");
    assert!(
        major_of(&from) < major_of(&to),
        "pg_upgrade goes to a newer major"
    );

    let mut old = Cluster::init(&from, "upgrade-from", &[]);
    old.start();
    let mut client = old.database_with_dealcards("upgraded");
    populate(&mut client);
    tune_and_check_every_function_is_called(&mut client);

    // The provably fair desk: 3 games of a revealed round verified, 3 of the round in force not
    // revealed yet.
    assert_eq!(verify_desk(&mut client, 10), (6, 3, 3, 0));
    let token_before = value(&mut client, TOKEN);
    let outputs_before = outputs(&mut client);
    // After the calls: shuffle_queue_upcoming keeps the steps it drew, which the upgrade keeps
    // too (and the same call then shows them again).
    let rows_before = snapshot(&mut client);
    let next_game: i64 = value(
        &mut client,
        "SELECT last_value + 1 FROM game_game_id_seq WHERE is_called",
    )
    .parse()
    .unwrap();
    drop(client);
    old.stop();

    // The new cluster, initialized as the old one was, and pg_upgrade between them.
    let mut new = Cluster::init(&to, "upgrade-to", &[]);
    pg_upgrade(&old, &new, &from, &to);
    new.start();
    let mut client = new.connect("upgraded");
    check_everything_came_over(&mut client, &rows_before, &token_before, &outputs_before);

    // Writing goes on: the next game takes the next id, the round in force is refused until its
    // reveal and verifies after it, a new round deals, and the queues.
    check_the_desks_and_a_queue_go_on(&mut client, next_game);
    check_the_seeded_queue_goes_on(&mut client);
    check_the_albums_and_the_version(&mut client);
    check_a_hand_and_a_rescan(&mut client);
}

/// The writers of card rooms and of a library rescan, after the upgrade: a blackjack shoe
/// burns, opens, draws and ends; a queue takes tracks and gives them back in one call each.
fn check_a_hand_and_a_rescan(client: &mut Client) {
    let hand = value(client, "SELECT hand_start(3, 'blackjack', 2, decks => 1)");
    for (sql, want) in [
        (
            format!("SELECT dealt_stage || ' ' || cards FROM hand_deal({hand})"),
            "burn 1",
        ),
        (
            format!("SELECT dealt_stage || ' ' || cards FROM hand_deal({hand})"),
            "play 0",
        ),
        (
            format!("SELECT cards || ' ' || cards_left FROM hand_draw({hand}, 1, 2)"),
            "2 49",
        ),
        (format!("SELECT hand_end({hand})::text"), ""),
        (
            format!("SELECT count(*)::text FROM room_card WHERE hand_id = {hand}"),
            "3",
        ),
    ] {
        assert_eq!(value(client, &sql), want, "{sql}");
    }
    let queue = value(
        client,
        "SELECT shuffle_queue_create(ARRAY[1, 2, 3]::bigint[])",
    );
    assert_eq!(
        value(
            client,
            &format!("SELECT shuffle_queue_add_many({queue}, ARRAY[10, 11]::bigint[])")
        ),
        "5"
    );
    assert_eq!(
        value(
            client,
            &format!("SELECT shuffle_queue_remove_many({queue}, ARRAY[1, 10]::bigint[])")
        ),
        "3"
    );
}

/// What the server's token is read with.
const TOKEN: &str = "SELECT token::text FROM dealcards_instance";

/// An index of the user's own on an extension table, made where allowed: pg_dump would not
/// keep it, pg_upgrade does (docs/operations.md); what a DBA tunes on a hot table. Then: every
/// function is called here, or after the upgrade among the writers.
fn tune_and_check_every_function_is_called(client: &mut Client) {
    for sql in [
        "SET dealcards.allow_own_objects = on",
        "CREATE INDEX users_own_index ON game (dealt_at)",
        "RESET dealcards.allow_own_objects",
        // What a DBA tunes on a hot table (kept by a dump through dealcards_table_setting).
        "ALTER TABLE game SET (fillfactor = 85, autovacuum_vacuum_scale_factor = 0.02)",
        "ALTER TABLE game ALTER COLUMN desk_id SET STATISTICS 300",
    ] {
        client.batch_execute(sql).unwrap();
    }

    // Every function is called here, or after the upgrade among the writers.
    let functions = callable_functions(client);
    let covered: BTreeSet<String> = calls()
        .iter()
        .map(|(f, _)| f.to_string())
        .chain(WRITERS.iter().map(|f| f.to_string()))
        .collect();
    let missed: Vec<&String> = functions.difference(&covered).collect();
    assert!(
        missed.is_empty(),
        "functions this test does not call: {missed:?}"
    );
}

/// pg_upgrade from the old cluster's files (made by `from`) to the new one's (`to`).
fn pg_upgrade(old: &Cluster, new: &Cluster, from: &Path, to: &Path) {
    let (old_data, new_data) = (
        old.data.display().to_string(),
        new.data.display().to_string(),
    );
    let (old_bin, new_bin) = (from.display().to_string(), to.display().to_string());
    let (old_port, new_port) = (free_port().to_string(), free_port().to_string());
    run_as_server_user(
        &to.join("pg_upgrade"),
        &[
            "--old-bindir",
            &old_bin,
            "--new-bindir",
            &new_bin,
            "--old-datadir",
            &old_data,
            "--new-datadir",
            &new_data,
            "--old-port",
            &old_port,
            "--new-port",
            &new_port,
            "--username",
            crate::servers::SUPERUSER,
            "--copy",
            "--no-sync",
        ],
        &new.dir,
    );
}

/// The rows, the token, the user's index and tuning, and every function's output came over.
fn check_everything_came_over(
    client: &mut Client,
    rows_before: &BTreeMap<String, String>,
    token_before: &str,
    outputs_before: &BTreeMap<String, String>,
) {
    assert_eq!(
        snapshot(client),
        *rows_before,
        "the extension's rows and sequences"
    );
    // The server's token comes over with the files (the data directory is another one).
    assert_eq!(value(client, TOKEN), token_before);
    assert_eq!(
        value(
            client,
            "SELECT count(*) FROM pg_index WHERE indexrelid = to_regclass('users_own_index')
                AND indrelid = 'game'::regclass AND indisvalid"
        ),
        "1",
        "the user's index on game"
    );
    assert_eq!(
        value(
            client,
            "SELECT c.reloptions::text || ' ' || a.attstattarget
               FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'desk_id'
              WHERE c.oid = 'game'::regclass"
        ),
        "{fillfactor=85,autovacuum_vacuum_scale_factor=0.02} 300",
        "the storage parameters and statistics target of game"
    );
    let outputs_after = outputs(client);
    for (sql, before) in outputs_before {
        assert_eq!(outputs_after.get(sql), Some(before), "{sql}");
    }
    assert_eq!(outputs_after.len(), outputs_before.len());
}

/// The next game takes the next id; the round in force deals nothing in the new cluster (its
/// `global/pg_control` is a new file, the place the round records is another) until it is
/// revealed there, and verifies after its reveal; a new round deals; queue 1 plays on, and a new
/// queue is made and dropped.
fn check_the_desks_and_a_queue_go_on(client: &mut Client, next_game: i64) {
    assert_eq!(game_of(&deal(client, 1)), next_game);
    let refused = client
        .batch_execute("SELECT deal_cards(10)")
        .expect_err("dealt under the round in force after pg_upgrade");
    let db = refused.as_db_error().expect("a server error");
    assert_eq!(db.code().code(), "55000", "{db:?}");
    assert!(
        db.message().contains("another database or data directory"),
        "{db:?}"
    );
    rows(client, "SELECT * FROM fair_reveal(10)");
    assert_eq!(verify_desk(client, 10), (6, 6, 0, 0));
    set_seeds(client, 10, "after the upgrade");
    deal(client, 10);
    rows(client, "SELECT * FROM fair_mode_off(10)");
    assert_eq!(verify_desk(client, 10), (7, 7, 0, 0));
    let played: i64 = value(client, "SELECT shuffle_queue_next(1)")
        .parse()
        .unwrap();
    assert!((1..=40).contains(&played));
    assert_eq!(
        value(client, "SELECT shuffle_queue_prev(1) IS NOT NULL"),
        "t"
    );
    assert_eq!(
        value(client, "SELECT shuffle_queue_current(1) IS NOT NULL"),
        "t"
    );
    assert_eq!(value(client, "SELECT shuffle_queue_add(1, 41)"), "41");
    assert_eq!(value(client, "SELECT shuffle_queue_remove(1, 41)"), "40");
    assert_eq!(
        value(client, "SELECT shuffle_queue_create(ARRAY[1, 2]::bigint[])"),
        "6"
    );
    rows(client, "SELECT shuffle_queue_drop(6)");
}

/// The seeded queue spread by artist goes on as its saved state says: a copy restored
/// before the upgrade's new steps plays what the queue plays.
fn check_the_seeded_queue_goes_on(client: &mut Client) {
    let copy = value(
        client,
        "SELECT shuffle_queue_restore(shuffle_queue_save(3))",
    );
    let steps = |client: &mut Client, queue: &str| {
        value(
            client,
            &format!(
                "SELECT array_agg(shuffle_queue_next({queue}) ORDER BY g)::text
                   FROM generate_series(1, 8) g"
            ),
        )
    };
    let (played, copied) = (steps(client, "3"), steps(client, &copy));
    assert_eq!(played, copied);
    assert!(played.starts_with("{12,"), "up next first: {played}");
    assert_eq!(
        value(
            client,
            "SELECT shuffle_queue_play_next(3, ARRAY[1]::bigint[])"
        ),
        "1"
    );
    assert_eq!(
        value(
            client,
            "SELECT shuffle_queue_play_later(3, ARRAY[2]::bigint[])"
        ),
        "2"
    );
    assert_eq!(
        value(client, "SELECT shuffle_queue_up_next(3)::text"),
        "{1,2}"
    );
    assert_eq!(value(client, "SELECT shuffle_queue_clear_up_next(3)"), "2");
    assert_eq!(value(client, "SELECT shuffle_queue_jump(3, 4)"), "4");
    // Skipped without counting, 4 stays in the history: Previous returns to it.
    value(client, "SELECT shuffle_queue_skip(3)");
    assert_eq!(value(client, "SELECT shuffle_queue_prev(3)"), "4");
    value(client, "SELECT shuffle_queue_next(3)");
    assert_eq!(
        value(
            client,
            "SELECT shuffle_queue_skip_when_shuffling(3, 11, false)"
        ),
        "12"
    );
    assert_eq!(
        value(
            client,
            "SELECT shuffle_queue_add(4, 9, 5) = 4 AND shuffle_queue_next(4) BETWEEN 1 AND 9"
        ),
        "t"
    );
    assert_ne!(value(client, "SELECT shuffle_queue_forget(7)"), "0");
}

/// The queue of albums (5) plays the tracks it showed before the upgrade; a new one plays; the
/// extension is at the default version.
fn check_the_albums_and_the_version(client: &mut Client) {
    let promised = value(
        client,
        "SELECT array_agg(track ORDER BY place)::text FROM shuffle_queue_upcoming(5, 6)",
    );
    assert_eq!(
        value(
            client,
            "SELECT array_agg(shuffle_queue_next(5) ORDER BY g)::text FROM generate_series(1, 6) g"
        ),
        promised
    );
    assert_eq!(
        value(
            client,
            "SELECT shuffle_queue_next(shuffle_queue_new_albums(ARRAY[7, 8]::bigint[], ARRAY['a', 'a']))"
        ),
        "7"
    );
    assert_eq!(
        value(
            client,
            "SELECT extversion FROM pg_extension WHERE extname = 'dealcards'"
        ),
        value(
            client,
            "SELECT default_version FROM pg_available_extensions WHERE name = 'dealcards'"
        )
    );
}
