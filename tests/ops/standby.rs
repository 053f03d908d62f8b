//! A hot standby (pg_basebackup -R of a primary with dealcards and data): every function that
//! only reads works there (the shuffles and samples, FreeCell, the verifications, what the house
//! publishes, a queue's current track, what is up next and its saved state), and every function that writes is refused with 25006
//! (read_only_sql_transaction) and a message that names the primary: no internal error. On the
//! primary, the functions that only read take no transaction id, in a READ ONLY transaction too.
//! A base backup of the primary started as a primary of its own deals nothing under the round in
//! force when it was copied until it reveals that round; promoted, the standby likewise.

use std::time::{Duration, Instant};

use postgres::Client;

use crate::catalog::callable_functions;
use crate::dealing::{populate, set_seeds};
use crate::servers::{bin_dir, value, Cluster};

/// The functions that only read, each called once (the queue and desk of `populate`; the
/// seeded ones with a seed, to compare the standby's answer with the primary's).
const READS: [(&str, &str); 34] = [
    ("room_kinds", "SELECT string_agg(kind, ' ' ORDER BY kind) FROM room_kinds()"),
    ("hand_pbn", "SELECT hand_pbn(max(hand_id)) FROM room_hand WHERE kind = 'bridge'"),
    ("card_label", "SELECT card_label(53)"),
    ("dealcards_written_here", "SELECT dealcards_written_here('3'::xid)"),
    (
        "dealcards_check",
        "SELECT count(*) FROM dealcards_check()",
    ),
    ("hand_labels", "SELECT hand_labels(ARRAY[54, 1, 9])"),
    ("sort_hand", "SELECT sort_hand(ARRAY[54, 1, 9])"),
    ("deal_hands", "SELECT count(*) FROM deal_hands()"),
    ("shuffle_ints", "SELECT shuffle_ints(1, 10, decode(repeat('01', 32), 'hex'))"),
    ("shuffle_array", "SELECT shuffle_array(ARRAY['a', 'b', 'c'], decode(repeat('02', 32), 'hex'))"),
    ("sample_array", "SELECT sample_array(ARRAY[1, 2, 3, 4], 2, decode(repeat('03', 32), 'hex'))"),
    ("sample_ints", "SELECT sample_ints(1, 100, 3, decode(repeat('04', 32), 'hex'))"),
    (
        "shuffle_spread",
        "SELECT shuffle_spread(ARRAY[1, 2, 3], ARRAY['a', 'a', 'b'], decode(repeat('05', 32), 'hex'))",
    ),
    ("freecell_layout", "SELECT freecell_layout(11982)"),
    ("freecell_cards", "SELECT count(*) FROM freecell_cards(1)"),
    ("freecell_board", "SELECT count(*) FROM freecell_board(1)"),
    (
        "fair_deal",
        "SELECT leader FROM fair_deal(sha256('x'), ARRAY['a', 'b', 'c'], 0)",
    ),
    (
        "fair_verify_desk",
        "SELECT string_agg(coalesce(verified::text, '-'), ',' ORDER BY round, nonce)
           FROM fair_verify_desk(10)",
    ),
    (
        "fair_verify_game",
        "SELECT verified FROM fair_verify_game((SELECT min(game_id) FROM game WHERE desk_id = 10))",
    ),
    ("fair_publication", "SELECT fair_publication(10)::text"),
    (
        "fair_receipt",
        "SELECT fair_receipt(max(game_id))::text FROM game WHERE desk_id = 10",
    ),
    (
        "shuffle_queue_current",
        "SELECT shuffle_queue_current((SELECT min(queue_id) FROM shuffle_queue))",
    ),
    (
        "shuffle_queue_played",
        "SELECT * FROM shuffle_queue_played((SELECT min(queue_id) FROM shuffle_queue), 5)",
    ),
    (
        "shuffle_queue_up_next",
        "SELECT shuffle_queue_up_next((SELECT max(queue_id) FROM shuffle_queue WHERE mode = 'spread'))",
    ),
    (
        "shuffle_queue_save",
        "SELECT shuffle_queue_save((SELECT max(queue_id) FROM shuffle_queue WHERE mode = 'spread'))",
    ),
    (
        "shuffle_queue_current",
        "SELECT shuffle_queue_current((SELECT max(queue_id) FROM shuffle_queue WHERE album_place IS NOT NULL))",
    ),
    (
        "sample_agg_seeded",
        "SELECT sample_agg_seeded(g, 3, decode(repeat('06', 32), 'hex')) FROM generate_series(1, 50) g",
    ),
    (
        "shuffle_agg_seeded",
        "SELECT shuffle_agg_seeded(g, decode(repeat('07', 32), 'hex')) FROM generate_series(1, 9) g",
    ),
    ("sample_agg", "SELECT cardinality(sample_agg(g, 3)) FROM generate_series(1, 50) g"),
    ("shuffle_agg", "SELECT cardinality(shuffle_agg(g)) FROM generate_series(1, 9) g"),
    ("resample_agg", "SELECT cardinality(resample_agg(g, 4)) FROM generate_series(1, 9) g"),
    ("shuffle_key", "SELECT shuffle_key(decode(repeat('08', 32), 'hex'), 42)"),
    (
        "sparse_bernoulli",
        "SELECT array_agg(game_id ORDER BY game_id) FROM game TABLESAMPLE sparse_bernoulli(50) REPEATABLE (1)",
    ),
    (
        "sample_rows",
        "SELECT array_agg(game_id ORDER BY game_id) FROM sample_rows(NULL::game, 3, sha256('x'))",
    ),
];

/// The functions that write, each called once where it would write.
const WRITES: [(&str, &str); 30] = [
    ("hand_start", "SELECT hand_start(1, 'holdem', 2)"),
    ("hand_deal", "SELECT * FROM hand_deal(1)"),
    ("hand_draw", "SELECT * FROM hand_draw(1, 1, 1)"),
    ("hand_end", "SELECT hand_end(1)"),
    (
        "shuffle_queue_add_many",
        "SELECT shuffle_queue_add_many((SELECT min(queue_id) FROM shuffle_queue), ARRAY[1001, 1002]::bigint[])",
    ),
    (
        "shuffle_queue_remove_many",
        "SELECT shuffle_queue_remove_many((SELECT min(queue_id) FROM shuffle_queue), ARRAY[1]::bigint[])",
    ),
    ("deal_cards", "SELECT deal_cards(1)"),
    ("fair_mode_on", "SELECT fair_mode_on(2)"),
    ("fair_mode_off", "SELECT * FROM fair_mode_off(10)"),
    ("fair_reveal", "SELECT * FROM fair_reveal(10)"),
    ("set_client_seed", "SELECT set_client_seed(10, 1, 'x')"),
    (
        "shuffle_queue_create",
        "SELECT shuffle_queue_create(ARRAY[1, 2]::bigint[])",
    ),
    (
        "shuffle_queue_next",
        "SELECT shuffle_queue_next((SELECT min(queue_id) FROM shuffle_queue))",
    ),
    (
        "shuffle_queue_prev",
        "SELECT shuffle_queue_prev((SELECT min(queue_id) FROM shuffle_queue))",
    ),
    (
        "shuffle_queue_upcoming",
        "SELECT count(*) FROM shuffle_queue_upcoming((SELECT min(queue_id) FROM shuffle_queue), 3)",
    ),
    (
        "shuffle_queue_now",
        "SELECT * FROM shuffle_queue_now((SELECT min(queue_id) FROM shuffle_queue), 3)",
    ),
    (
        "shuffle_queue_add",
        "SELECT shuffle_queue_add((SELECT min(queue_id) FROM shuffle_queue), 1000)",
    ),
    (
        "shuffle_queue_remove",
        "SELECT shuffle_queue_remove((SELECT min(queue_id) FROM shuffle_queue), 1)",
    ),
    (
        "shuffle_queue_new",
        "SELECT shuffle_queue_new(ARRAY[1, 2]::bigint[], groups => ARRAY['a', 'b'])",
    ),
    (
        "shuffle_queue_new_albums",
        "SELECT shuffle_queue_new_albums(ARRAY[1, 2]::bigint[], ARRAY['a', 'b'])",
    ),
    (
        "shuffle_queue_play_next",
        "SELECT shuffle_queue_play_next(3, ARRAY[1]::bigint[])",
    ),
    (
        "shuffle_queue_play_later",
        "SELECT shuffle_queue_play_later(3, ARRAY[2]::bigint[])",
    ),
    (
        "shuffle_queue_clear_up_next",
        "SELECT shuffle_queue_clear_up_next(3)",
    ),
    ("shuffle_queue_jump", "SELECT shuffle_queue_jump(3, 4)"),
    ("shuffle_queue_skip", "SELECT shuffle_queue_skip(3)"),
    (
        "shuffle_queue_skip_when_shuffling",
        "SELECT shuffle_queue_skip_when_shuffling(3, 11, false)",
    ),
    (
        "shuffle_queue_restore",
        "SELECT shuffle_queue_restore(shuffle_queue_save(3))",
    ),
    ("shuffle_queue_forget", "SELECT shuffle_queue_forget(7)"),
    (
        "dealcards_sync_sequences",
        "SELECT * FROM dealcards_sync_sequences()",
    ),
    (
        "shuffle_queue_drop",
        "SELECT shuffle_queue_drop((SELECT min(queue_id) FROM shuffle_queue))",
    ),
];

/// dealcards_distribute writes on a Citus coordinator only: without Citus it refuses with
/// 55000 first, on a standby as anywhere.
const DISTRIBUTE: (&str, &str) = (
    "dealcards_distribute",
    "SELECT * FROM dealcards_distribute()",
);

/// What a statement gives as text (its first column of every row), or its error's SQLSTATE and
/// message.
fn outcome(client: &mut Client, sql: &str) -> Outcome {
    match client.query(&format!("SELECT q::text FROM ({sql}) q"), &[]) {
        Ok(rows) => Ok(rows.iter().map(|r| r.get(0)).collect()),
        Err(e) => {
            let db = e.as_db_error().unwrap_or_else(|| panic!("{sql}: {e}"));
            Err((db.code().code().to_string(), db.message().to_string()))
        }
    }
}

#[test]
fn a_standby_reads_everything_and_refuses_every_write_with_25006() {
    let bin = bin_dir("DEALCARDS_OPS_PG_BIN");
    let mut primary = Cluster::init(&bin, "standby-primary", &[]);
    primary.start();
    let mut on_primary = primary.database_with_dealcards("dealcards_standby");
    populate(&mut on_primary);

    check_every_function_is_listed(&mut on_primary);

    let on_primary_reads = read_on_the_primary(&mut on_primary);

    let mut standby = Cluster::standby_of(&primary, "standby-standby");
    standby.start();
    let mut on_standby = standby.connect("dealcards_standby");
    assert_eq!(value(&mut on_standby, "SELECT pg_is_in_recovery()"), "t");
    let deadline = Instant::now() + Duration::from_secs(60);
    while value(&mut on_standby, "SELECT count(*) FROM game")
        != value(&mut on_primary, "SELECT count(*) FROM game")
    {
        assert!(Instant::now() < deadline, "the standby never caught up");
        std::thread::sleep(Duration::from_millis(100));
    }

    check_the_standby_reads_and_refuses(&mut on_standby, &mut on_primary, &on_primary_reads);
    check_a_copy_started_as_a_primary(&primary, &mut on_primary);

    check_the_promoted_standby(&mut standby, &mut on_standby);
    standby.stop();
    primary.stop();
}

/// Every function of the extension is one of the two lists, but what its aggregates and its
/// types call (their support functions), its trigger and its event triggers.
fn check_every_function_is_listed(on_primary: &mut Client) {
    let functions = callable_functions(on_primary);
    let listed: Vec<&str> = READS
        .iter()
        .chain(&WRITES)
        .chain([&DISTRIBUTE])
        .map(|c| c.0)
        .collect();
    let missing: Vec<&String> = functions
        .iter()
        .filter(|f| !listed.contains(&f.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "functions this test does not call: {missing:?}"
    );
}

/// What a statement gives, as [`outcome`] says.
type Outcome = Result<Vec<Option<String>>, (String, String)>;

/// On the primary, in a READ ONLY transaction: the reads answer and take no transaction id.
fn read_on_the_primary(on_primary: &mut Client) -> Vec<Vec<Option<String>>> {
    on_primary.batch_execute("BEGIN READ ONLY").unwrap();
    let mut on_primary_reads = Vec::new();
    for (function, sql) in READS {
        let answer = outcome(on_primary, sql)
            .unwrap_or_else(|e| panic!("{function} on the primary, read only: {e:?}"));
        on_primary_reads.push(answer);
    }
    assert_eq!(
        value(
            on_primary,
            "SELECT pg_current_xact_id_if_assigned() IS NULL"
        ),
        "t",
        "a function that only reads took a transaction id"
    );
    on_primary.batch_execute("COMMIT").unwrap();
    on_primary_reads
}

/// Every read answers on the standby, the seeded and stored ones as on the primary; every
/// write is refused with 25006, and says where to go; the primary deals on.
fn check_the_standby_reads_and_refuses(
    on_standby: &mut Client,
    on_primary: &mut Client,
    on_primary_reads: &[Vec<Option<String>>],
) {
    for ((function, sql), on_primary) in READS.iter().zip(on_primary_reads) {
        let answer =
            outcome(on_standby, sql).unwrap_or_else(|e| panic!("{function} on the standby: {e:?}"));
        let live = matches!(
            *function,
            "deal_hands" | "sample_agg" | "shuffle_agg" | "resample_agg"
        );
        if !live {
            assert_eq!(
                &answer, on_primary,
                "{function}: the standby answers otherwise"
            );
        }
    }
    // Every write is refused with 25006, and says where to go.
    for (function, sql) in WRITES {
        let (code, message) =
            outcome(on_standby, sql).expect_err(&format!("{function} wrote on a standby"));
        assert_eq!(code, "25006", "{function}: {message}");
        assert!(message.contains("hot standby"), "{function}: {message}");
    }
    let (code, _) = outcome(on_standby, DISTRIBUTE.1).expect_err("dealcards_distribute ran");
    assert_eq!(code, "55000");
    // The check can fail: the primary deals, at the provably fair desk too.
    assert_eq!(value(on_primary, "SELECT (deal_cards(1)->>'desk')"), "1");
    assert_eq!(value(on_primary, "SELECT (deal_cards(10)->>'desk')"), "10");
}

/// A base backup started as a primary (neither standby.signal nor recovery.signal): the same
/// token, timeline and files as the original, in another data directory. It deals nothing
/// under the round in force when it was copied, which the original deals under and then
/// reveals (its seed public), until the round is revealed in the copy; the original deals on.
/// Here, where the primary and its data are already made, it adds one base backup and one
/// start to the suite's time.
fn check_a_copy_started_as_a_primary(primary: &Cluster, on_primary: &mut Client) {
    let mut copy = Cluster::copy_of(primary, "standby-copy");
    copy.start();
    let mut on_copy = copy.connect("dealcards_standby");
    assert_eq!(value(&mut on_copy, "SELECT pg_is_in_recovery()"), "f");
    let same = "SELECT token::text || ' ' || timeline_id
                  FROM dealcards_instance, pg_control_checkpoint()";
    assert_eq!(value(&mut on_copy, same), value(on_primary, same));
    let round = value(on_primary, "SELECT fair_round FROM desk WHERE desk_id = 10");
    assert_eq!(value(on_primary, "SELECT (deal_cards(10)->>'desk')"), "10");
    value(on_primary, "SELECT count(*) FROM fair_reveal(10)");
    let (code, message) = outcome(&mut on_copy, "SELECT deal_cards(10)")
        .expect_err("the copy dealt under a round its original revealed");
    assert_eq!(code, "55000", "{message}");
    assert!(
        message.contains(&format!("under round {round} "))
            && message.contains("another database or data directory"),
        "{message}"
    );
    // Ordinary desks deal on; the step after a restore makes the desk deal again, under a
    // round of the copy's own.
    assert_eq!(value(&mut on_copy, "SELECT (deal_cards(1)->>'desk')"), "1");
    value(&mut on_copy, "SELECT count(*) FROM fair_reveal(10)");
    set_seeds(&mut on_copy, 10, "in the copy");
    assert_eq!(
        value(&mut on_copy, "SELECT (deal_cards(10)->>'nonce')"),
        "0"
    );
    // The original deals on under the round it committed after its reveal.
    set_seeds(on_primary, 10, "after the copy");
    assert_eq!(value(on_primary, "SELECT (deal_cards(10)->>'nonce')"), "0");
    drop(on_copy);
    copy.stop();
}

/// Promoted, the standby goes on under a new timeline: it deals nothing under the round in
/// force it replicated (a reveal committed on the primary after the standby's last replayed
/// record could be public while lost here) until the round is revealed here. A connection
/// from before the promotion and a new one alike.
fn check_the_promoted_standby(standby: &mut Cluster, on_standby: &mut Client) {
    standby.promote();
    let mut new_connection = standby.connect("dealcards_standby");
    for client in [&mut *on_standby, &mut new_connection] {
        let (code, message) =
            outcome(client, "SELECT deal_cards(10)").expect_err("dealt under the old timeline");
        assert_eq!(code, "55000", "{message}");
        assert!(message.contains("timeline"), "{message}");
    }
    // Ordinary desks deal on; the step after a restore makes the desk deal again.
    assert_eq!(value(on_standby, "SELECT (deal_cards(1)->>'desk')"), "1");
    value(on_standby, "SELECT count(*) FROM fair_reveal(10)");
    set_seeds(on_standby, 10, "after the promotion");
    assert_eq!(
        value(&mut new_connection, "SELECT (deal_cards(10)->>'nonce')"),
        "0"
    );
}
