//! dealcards behind PgBouncer (Debian's package): clients dealing, playing provably fair rounds
//! and stepping one shuffle queue at once through a pool of fewer server connections than
//! clients, in transaction pooling and in statement pooling (every call here is one statement),
//! a look-ahead through the pool played by other clients, and what docs/operations.md says of settings and listeners behind a pooler: a session `SET`
//! leaks to the next client of the server connection, `SET LOCAL` does not, and a listener hears
//! deals made through the pool when it is connected directly or through a session pool.
//!
//! Clients use the simple query protocol, as a client behind PgBouncer 1.18 in transaction or
//! statement pooling must (no protocol-level prepared statements before 1.21).

use std::collections::{BTreeSet, HashSet};
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::Duration;

use postgres::Client;

use crate::dealing::{deal, fair_rounds, game_of, seat_players, verify_desk};
use crate::servers::{bin_dir, rows, value, Bouncer, Cluster};

const CLIENTS: usize = 12;
const POOL_SIZE: u32 = 3;
const DEALS_PER_CLIENT: usize = 10;
const SHARED_DESKS: i32 = 4;
const QUEUE_TRACKS: i64 = 1000;
const STEPS_PER_CLIENT: usize = 20;

fn cluster(name: &str) -> Cluster {
    let mut cluster = Cluster::init(&bin_dir("DEALCARDS_OPS_PG_BIN"), name, &[]);
    cluster.start();
    cluster.database_with_dealcards("pooled");
    cluster
}

/// What each client saw: (desk, game, server pid) of its plain deals, its fair games, and the
/// tracks its steps of the shared queue played.
struct Seen {
    deals: Vec<(i32, i64, i32)>,
    fair_games: Vec<i64>,
    tracks: Vec<i64>,
}

fn client_work(mut client: Client, index: usize, queue: i64) -> Seen {
    let mut deals = Vec::new();
    for k in 0..DEALS_PER_CLIENT {
        let desk = 1 + ((index + k) as i32 % SHARED_DESKS);
        let row = &rows(
            &mut client,
            &format!("SELECT deal_cards({desk})::text, pg_backend_pid()"),
        )[0];
        let dealt: serde_json::Value = serde_json::from_str(row[0].as_ref().unwrap()).unwrap();
        assert_eq!(dealt["desk"], desk, "{dealt}");
        deals.push((
            desk,
            game_of(&dealt),
            row[1].as_ref().unwrap().parse().unwrap(),
        ));
    }
    // Two provably fair rounds at a desk of its own: mode on, each seat's seed, two deals,
    // reveal, seeds again, two deals, mode off (which reveals the round in force).
    let fair_desk = 100 + index as i32;
    let fair_games = fair_rounds(&mut client, fair_desk, 1, 2);
    rows(
        &mut client,
        &format!("SELECT * FROM fair_mode_off({fair_desk})"),
    );
    let tracks = (0..STEPS_PER_CLIENT)
        .map(|_| {
            value(&mut client, &format!("SELECT shuffle_queue_next({queue})"))
                .parse()
                .unwrap()
        })
        .collect();
    Seen {
        deals,
        fair_games,
        tracks,
    }
}

/// CLIENTS clients at once through a pool of POOL_SIZE server connections in `mode`.
fn work_through_pool(mode: &str) {
    let cluster = cluster(&format!("pooler-{mode}"));
    let mut direct = cluster.connect("pooled");
    for desk in 1..=SHARED_DESKS {
        seat_players(&mut direct, desk);
    }
    for index in 0..CLIENTS {
        seat_players(&mut direct, 100 + index as i32);
    }
    let bouncer = Bouncer::start(
        &cluster,
        &format!("pgbouncer-{mode}"),
        "pooled",
        &[("pooled", mode, POOL_SIZE)],
    );
    let queue: i64 = value(
        &mut bouncer.connect("pooled"),
        &format!(
            "SELECT shuffle_queue_create(ARRAY(SELECT generate_series(1, {QUEUE_TRACKS})::bigint))"
        ),
    )
    .parse()
    .unwrap();

    let seen = run_the_clients(&bouncer, queue);
    check_the_deals(&mut direct, &seen);
    check_fair_games_and_picks(&mut direct, &seen, queue);
    check_the_other_steps(&bouncer, &mut direct, queue);
}

/// CLIENTS clients through the pool, started together, each doing its work; what each saw.
fn run_the_clients(bouncer: &Bouncer, queue: i64) -> Vec<Seen> {
    let start = Arc::new(Barrier::new(CLIENTS));
    let handles: Vec<_> = (0..CLIENTS)
        .map(|index| {
            let client = bouncer.connect("pooled");
            let start = Arc::clone(&start);
            thread::spawn(move || {
                start.wait();
                client_work(client, index, queue)
            })
        })
        .collect();
    handles.into_iter().map(|h| h.join().unwrap()).collect()
}

/// The clients shared the pool's server connections; every plain deal is a game of its own,
/// whole.
fn check_the_deals(direct: &mut Client, seen: &[Seen]) {
    let pids: HashSet<i32> = seen
        .iter()
        .flat_map(|s| s.deals.iter().map(|d| d.2))
        .collect();
    assert!(
        pids.len() <= POOL_SIZE as usize,
        "{} server connections served the deals, more than the pool's {POOL_SIZE}",
        pids.len()
    );

    // Every plain deal is a game of its own, whole, with its two opening bids, and each desk
    // points at its newest game.
    let games: Vec<i64> = seen
        .iter()
        .flat_map(|s| s.deals.iter().map(|d| d.1))
        .collect();
    let distinct: BTreeSet<i64> = games.iter().copied().collect();
    assert_eq!(
        distinct.len(),
        CLIENTS * DEALS_PER_CLIENT,
        "a game id was returned twice"
    );
    let checks = &rows(
        direct,
        &format!(
            "SELECT count(*),
                    count(*) FILTER (WHERE (SELECT array_agg(c ORDER BY c)
                                              FROM unnest(p1_cards || p2_cards || p3_cards || extra_cards) c)
                                           = ARRAY(SELECT generate_series(1, 54))),
                    (SELECT count(*) FROM bid_record b WHERE b.desk_id <= {SHARED_DESKS}),
                    (SELECT count(*) FROM desk d WHERE d.desk_id <= {SHARED_DESKS}
                        AND d.cur_game_id = (SELECT max(game_id) FROM game g WHERE g.desk_id = d.desk_id))
               FROM game WHERE desk_id <= {SHARED_DESKS}"
        ),
    )[0];
    let total = (CLIENTS * DEALS_PER_CLIENT).to_string();
    assert_eq!(checks[0].as_deref(), Some(total.as_str()), "games stored");
    assert_eq!(checks[1].as_deref(), Some(total.as_str()), "whole decks");
    assert_eq!(
        checks[2].as_deref(),
        Some((2 * CLIENTS * DEALS_PER_CLIENT).to_string().as_str()),
        "opening bids"
    );
    assert_eq!(
        checks[3].as_deref(),
        Some(SHARED_DESKS.to_string().as_str()),
        "desks pointing at their newest game"
    );
}

/// Every provably fair game verifies, its round revealed.
fn check_fair_games_and_picks(direct: &mut Client, seen: &[Seen], queue: i64) {
    for (index, s) in seen.iter().enumerate() {
        assert_eq!(s.fair_games.len(), 4);
        assert_eq!(verify_desk(direct, 100 + index as i32), (4, 4, 0, 0));
    }

    // The queue's picks: each step got the next one, none twice (fewer picks than the window),
    // and together they are exactly what the queue records as played.
    let picks: Vec<i64> = seen.iter().flat_map(|s| s.tracks.iter().copied()).collect();
    let picked: BTreeSet<i64> = picks.iter().copied().collect();
    assert_eq!(
        picked.len(),
        CLIENTS * STEPS_PER_CLIENT,
        "a track was picked twice"
    );
    let played: BTreeSet<i64> = rows(
        direct,
        &format!(
            "SELECT t.track FROM shuffle_queue q JOIN shuffle_queue_track t USING (queue_id)
              WHERE q.queue_id = {queue} AND q.behind = 0
                AND t.position >= q.front + q.tracks - q.history"
        ),
    )
    .iter()
    .map(|r| r[0].as_ref().unwrap().parse().unwrap())
    .collect();
    assert_eq!(played, picked);
}

/// The other steps, through the pool.
fn check_the_other_steps(bouncer: &Bouncer, direct: &mut Client, queue: i64) {
    let mut client = bouncer.connect("pooled");
    check_previous_look_ahead_and_skip(bouncer, &mut client, queue);
    check_albums_and_changes(bouncer, &mut client, direct, queue);
}

/// Previous, then a look-ahead through the pool that promises every client, and a skip.
fn check_previous_look_ahead_and_skip(bouncer: &Bouncer, client: &mut Client, queue: i64) {
    let previous = value(client, &format!("SELECT shuffle_queue_prev({queue})"));
    assert_eq!(
        value(client, &format!("SELECT shuffle_queue_current({queue})")),
        previous
    );
    // A look-ahead through the pool promises every client: the next presses, each by a client
    // of its own, play what it showed (the replay after Previous, then the shuffle's).
    let shown: Vec<String> = rows(
        client,
        &format!("SELECT track FROM shuffle_queue_upcoming({queue}, 6) ORDER BY place"),
    )
    .iter()
    .map(|r| r[0].clone().unwrap())
    .collect();
    let pressed: Vec<String> = (0..6)
        .map(|_| {
            value(
                &mut bouncer.connect("pooled"),
                &format!("SELECT shuffle_queue_next({queue})"),
            )
        })
        .collect();
    assert_eq!(
        pressed, shown,
        "the tracks a look-ahead through the pool showed"
    );
    // A skip through the pool keeps the skipped track in the history for another client.
    let skipped = value(client, &format!("SELECT shuffle_queue_current({queue})"));
    let after = value(
        &mut bouncer.connect("pooled"),
        &format!("SELECT shuffle_queue_skip({queue})"),
    );
    assert_ne!(after, skipped);
    assert_eq!(
        value(
            &mut bouncer.connect("pooled"),
            &format!("SELECT shuffle_queue_prev({queue})")
        ),
        skipped
    );
}

/// A queue of whole albums: what a look-ahead showed, other clients play; then a track added
/// and removed, and the queue dropped.
fn check_albums_and_changes(
    bouncer: &Bouncer,
    client: &mut Client,
    direct: &mut Client,
    queue: i64,
) {
    let albums = value(
        client,
        "SELECT shuffle_queue_new_albums(ARRAY(SELECT generate_series(1, 20)::bigint),
                ARRAY(SELECT (g / 4)::text FROM generate_series(1, 20) g),
                ARRAY(SELECT (g / 8)::text FROM generate_series(1, 20) g))",
    );
    let shown: Vec<String> = rows(
        client,
        &format!("SELECT track FROM shuffle_queue_upcoming({albums}, 10) ORDER BY place"),
    )
    .iter()
    .map(|r| r[0].clone().unwrap())
    .collect();
    let pressed: Vec<String> = (0..10)
        .map(|_| {
            value(
                &mut bouncer.connect("pooled"),
                &format!("SELECT shuffle_queue_next({albums})"),
            )
        })
        .collect();
    assert_eq!(pressed, shown, "a queue of albums through the pool");
    assert_eq!(
        value(client, &format!("SELECT shuffle_queue_add({queue}, 5000)")),
        (QUEUE_TRACKS + 1).to_string()
    );
    assert_eq!(
        value(
            client,
            &format!("SELECT shuffle_queue_remove({queue}, 5000)")
        ),
        QUEUE_TRACKS.to_string()
    );
    rows(client, &format!("SELECT shuffle_queue_drop({queue})"));
    assert_eq!(
        value(
            direct,
            &format!("SELECT count(*) FROM shuffle_queue_track WHERE queue_id = {queue}")
        ),
        "0"
    );
}

#[test]
fn clients_deal_play_fair_rounds_and_step_a_queue_through_transaction_pooling() {
    work_through_pool("transaction");
}

#[test]
fn clients_deal_play_fair_rounds_and_step_a_queue_through_statement_pooling() {
    work_through_pool("statement");
}

/// The notifications `client` receives until `expected` have come (or a minute passed), then
/// any more within `quiet`: the game of each.
fn notified_games(client: &mut Client, expected: usize, quiet: Duration) -> Vec<i64> {
    crate::notify::expected_notifications(client, expected, quiet)
        .iter()
        .map(|(channel, payload)| {
            assert_eq!(channel, "dealcards_desk_1");
            game_of(&serde_json::from_str(payload).unwrap())
        })
        .collect()
}

#[test]
fn set_local_turns_notify_off_for_one_transaction_and_a_session_set_leaks() {
    let cluster = cluster("pooler-settings");
    let mut direct = cluster.connect("pooled");
    seat_players(&mut direct, 1);
    // One server connection behind the transaction pool: every client of it gets that one.
    let bouncer = Bouncer::start(
        &cluster,
        "pgbouncer-settings",
        "pooled",
        &[("one", "transaction", 1), ("session", "session", 2)],
    );

    // Listeners: one connected directly, one through a session pool.
    let mut listeners = [cluster.connect("pooled"), bouncer.connect("session")];
    for listener in &mut listeners {
        listener.batch_execute("LISTEN dealcards_desk_1").unwrap();
    }

    // SET LOCAL: this deal sends nothing, and the next client finds the setting as it was.
    let mut first = bouncer.connect("one");
    first
        .simple_query("BEGIN; SET LOCAL dealcards.notify = off; SELECT deal_cards(1); COMMIT")
        .unwrap();
    drop(first);
    let mut second = bouncer.connect("one");
    assert_eq!(value(&mut second, "SHOW dealcards.notify"), "on");
    let heard = game_of(&deal(&mut second, 1));
    for listener in &mut listeners {
        assert_eq!(
            notified_games(listener, 1, Duration::from_millis(500)),
            vec![heard]
        );
    }

    // A session SET through the transaction pool stays on the server connection: the next
    // client of the pool has notifications off without asking, and its deals go unheard.
    second.simple_query("SET dealcards.notify = off").unwrap();
    drop(second);
    let mut third = bouncer.connect("one");
    assert_eq!(value(&mut third, "SHOW dealcards.notify"), "off");
    deal(&mut third, 1);
    for listener in &mut listeners {
        assert_eq!(
            notified_games(listener, 0, Duration::from_secs(1)),
            Vec::<i64>::new()
        );
    }
    // Negative control of the listeners: with the setting back on, they hear the deal.
    third.simple_query("RESET dealcards.notify").unwrap();
    let heard = game_of(&deal(&mut third, 1));
    for listener in &mut listeners {
        assert_eq!(
            notified_games(listener, 1, Duration::from_millis(500)),
            vec![heard]
        );
    }
    assert_eq!(
        value(&mut direct, "SELECT count(*) FROM game WHERE desk_id = 1"),
        "4"
    );
}
