#![cfg(feature = "server_tests")]
//! shuffle_queue_played and shuffle_queue_now through real connections. What played is the
//! history Previous walks back through: `ago` k is what k presses of Previous play, after skips,
//! prevs, jumps and removals alike, paged as shuffle_queue_upcoming pages. Now playing, its pass
//! and place, and the tracks Next plays after it come from one state of the queue: a connection
//! pressing Next in a loop never makes a call disagree with what Next then plays, and a call
//! that waits for a Next gives the state after it, where shuffle_queue_current beside
//! shuffle_queue_upcoming in one SELECT gives the track before it (the negative control).
//! Run by `make test` against its throwaway cluster (needs DEALCARDS_TEST_DSN).

mod server;

use std::thread;

use postgres::error::SqlState;
use postgres::Client;
use server::queues::{current, database, new_queue, next, prev};

/// One row of shuffle_queue_played: (track, pass, place), checked to be numbered from
/// `after + 1` on.
type Played = (i64, i64, i64);

fn played(client: &mut Client, queue: i64, n: i32, after: i32) -> Vec<Played> {
    let rows = client
        .query(
            "SELECT ago, track, pass, place FROM shuffle_queue_played($1, $2, $3)",
            &[&queue, &n, &after],
        )
        .unwrap();
    rows.iter()
        .enumerate()
        .map(|(i, row)| {
            assert_eq!(row.get::<_, i32>(0), after + i as i32 + 1, "ago in order");
            (row.get(1), row.get(2), row.get(3))
        })
        .collect()
}

fn played_tracks(client: &mut Client, queue: i64) -> Vec<i64> {
    played(client, queue, 1000, 0).iter().map(|p| p.0).collect()
}

/// What shuffle_queue_now gives: (playing, pass, place, tracks, upcoming, sources).
type Now = (
    Option<i64>,
    Option<i64>,
    Option<i64>,
    Option<i64>,
    Vec<i64>,
    Vec<String>,
);

fn now(client: &mut Client, queue: i64, n: i32) -> Now {
    let row = client
        .query_one("SELECT * FROM shuffle_queue_now($1, $2)", &[&queue, &n])
        .unwrap();
    (
        row.get(0),
        row.get(1),
        row.get(2),
        row.get(3),
        row.get(4),
        row.get(5),
    )
}

/// Presses Previous once per track shuffle_queue_played lists, each time expecting the next
/// one, then once more (the oldest remembered plays again), and Next as many times back to
/// where the queue was.
fn previous_walks_what_played(client: &mut Client, queue: i64) {
    let list = played_tracks(client, queue);
    let playing = current(client, queue);
    for (k, &track) in list.iter().enumerate() {
        assert_eq!(
            prev(client, queue),
            Some(track),
            "press {} of {list:?}",
            k + 1
        );
    }
    assert_eq!(prev(client, queue), list.last().copied().or(playing));
    for _ in 0..list.len() {
        next(client, queue);
    }
    assert_eq!(current(client, queue), playing);
    assert_eq!(played_tracks(client, queue), list);
}

#[test]
fn what_played_is_newest_first_and_pages() {
    let mut client = database("dealcards_queue_played_pages");
    let queue = new_queue(
        &mut client,
        "SELECT shuffle_queue_create(ARRAY(SELECT generate_series(1, 40)::bigint))",
    );
    assert!(
        played(&mut client, queue, 50, 0).is_empty(),
        "nothing played"
    );
    let picks: Vec<i64> = (0..30).map(|_| next(&mut client, queue)).collect();
    // 40 tracks, window 20: 21 plays remembered, the one playing and 20 before it.
    let expected: Vec<i64> = picks[9..29].iter().rev().copied().collect();
    assert_eq!(played_tracks(&mut client, queue), expected);
    let pages: Vec<i64> = [(0, 7), (7, 7), (14, 7)]
        .iter()
        .flat_map(|&(after, n)| played(&mut client, queue, n, after))
        .map(|p| p.0)
        .collect();
    assert_eq!(pages, expected, "three pages of 7 are the list");
    assert_eq!(played(&mut client, queue, 3, 19).len(), 1, "the last page");
    assert!(played(&mut client, queue, 3, 20).is_empty());
    assert!(played(&mut client, queue, 0, 0).is_empty());
    // Defaults: 50 from the newest.
    let by_default: i64 = client
        .query_one("SELECT count(*) FROM shuffle_queue_played($1)", &[&queue])
        .unwrap()
        .get(0);
    assert_eq!(by_default, 20);
    previous_walks_what_played(&mut client, queue);
}

#[test]
fn skips_prevs_jumps_and_removals_show_as_previous_walks_them() {
    let mut client = database("dealcards_queue_played_edits");
    let queue = new_queue(
        &mut client,
        "SELECT shuffle_queue_create(ARRAY(SELECT generate_series(1, 20)::bigint))",
    );
    let mut t: Vec<i64> = (0..4).map(|_| next(&mut client, queue)).collect();
    let skipped: i64 = client
        .query_one("SELECT shuffle_queue_skip($1)", &[&queue])
        .unwrap()
        .get(0);
    t.push(skipped);
    // A skip is a play: the track skipped from is in what played.
    assert_eq!(played_tracks(&mut client, queue), [t[3], t[2], t[1], t[0]]);
    // After Previous, the track left is ahead again (a replay), no longer behind.
    assert_eq!(prev(&mut client, queue), Some(t[3]));
    assert_eq!(prev(&mut client, queue), Some(t[2]));
    assert_eq!(played_tracks(&mut client, queue), [t[1], t[0]]);
    assert_eq!(now(&mut client, queue, 2).4, [t[3], t[4]], "the replays");
    assert_eq!(next(&mut client, queue), t[3]);
    assert_eq!(played_tracks(&mut client, queue), [t[2], t[1], t[0]]);
    // A jump leaves the replay: the jumped track plays after every track remembered.
    let tapped = (1..=20).find(|x| !t.contains(x)).unwrap();
    client
        .execute("SELECT shuffle_queue_jump($1, $2)", &[&queue, &tapped])
        .unwrap();
    assert_eq!(
        played_tracks(&mut client, queue),
        [t[4], t[3], t[2], t[1], t[0]]
    );
    // A removed track leaves what played; the rest keeps its order.
    client
        .execute("SELECT shuffle_queue_remove($1, $2)", &[&queue, &t[2]])
        .unwrap();
    assert_eq!(played_tracks(&mut client, queue), [t[4], t[3], t[1], t[0]]);
    // A jump to a track that played moves it: it plays now, and is gone from its old place.
    client
        .execute("SELECT shuffle_queue_jump($1, $2)", &[&queue, &t[1]])
        .unwrap();
    assert_eq!(current(&mut client, queue), Some(t[1]));
    assert_eq!(
        played_tracks(&mut client, queue),
        [tapped, t[4], t[3], t[0]]
    );
    previous_walks_what_played(&mut client, queue);
}

#[test]
fn a_spread_queue_with_skips_and_up_next_shows_as_previous_walks_it() {
    let mut client = database("dealcards_queue_played_spread");
    let queue = new_queue(
        &mut client,
        "SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 12)::bigint), \
                groups => ARRAY(SELECT (i % 4)::text FROM generate_series(1, 12) i))",
    );
    for round in 0..6 {
        next(&mut client, queue);
        client
            .query_one("SELECT shuffle_queue_skip($1)", &[&queue])
            .unwrap();
        if round == 2 {
            client
                .execute(
                    "SELECT shuffle_queue_play_next($1, ARRAY[11]::bigint[])",
                    &[&queue],
                )
                .unwrap();
        }
        next(&mut client, queue);
        prev(&mut client, queue);
    }
    assert!(!played_tracks(&mut client, queue).is_empty());
    previous_walks_what_played(&mut client, queue);
}

/// A plain queue's pass is a turn of its circle, `tracks` picks; a spread queue's is its own,
/// every track once. Places count 1 ..= tracks, Previous counts back across the boundary.
#[test]
fn n_of_m_crosses_a_pass_boundary() {
    let mut client = database("dealcards_queue_played_passes");
    for sql in [
        "SELECT shuffle_queue_create(ARRAY[1, 2, 3, 4, 5]::bigint[])",
        "SELECT shuffle_queue_new(ARRAY[1, 2, 3, 4, 5]::bigint[], groups => '{a,a,b,b,c}')",
    ] {
        let queue = new_queue(&mut client, sql);
        let (playing, pass, place, tracks, ..) = now(&mut client, queue, 0);
        assert_eq!((playing, pass, place, tracks), (None, None, None, Some(5)));
        let mut plays = Vec::new();
        for k in 1..=7i64 {
            plays.push(next(&mut client, queue));
            let (playing, pass, place, ..) = now(&mut client, queue, 0);
            let expected = (
                Some(plays[k as usize - 1]),
                Some((k - 1) / 5 + 1),
                Some((k - 1) % 5 + 1),
            );
            assert_eq!((playing, pass, place), expected, "{sql}: play {k}");
        }
        if sql.contains("groups") {
            let mut first_pass = plays[..5].to_vec();
            first_pass.sort_unstable();
            assert_eq!(
                first_pass,
                [1, 2, 3, 4, 5],
                "a spread queue's pass plays every track"
            );
        }
        // Plays 7 and 6 are of pass 2, 5 and before of pass 1: what played counts back.
        let back = played(&mut client, queue, 3, 0);
        assert_eq!(
            back,
            [(plays[5], 2, 1), (plays[4], 1, 5), (plays[3], 1, 4)],
            "{sql}"
        );
        assert_eq!(prev(&mut client, queue), Some(plays[5]));
        assert_eq!(prev(&mut client, queue), Some(plays[4]));
        let (playing, pass, place, _, upcoming, sources) = now(&mut client, queue, 3);
        assert_eq!((playing, pass, place), (Some(plays[4]), Some(1), Some(5)));
        assert_eq!(upcoming[..2], [plays[5], plays[6]]);
        assert_eq!(sources[..2], ["replay", "replay"]);
        assert_eq!(sources[2], "shuffle");
        assert_eq!(played(&mut client, queue, 1, 0), [(plays[3], 1, 4)]);
    }
}

#[test]
fn bad_arguments_are_refused_and_change_nothing() {
    let mut client = database("dealcards_queue_played_refusals");
    let queue = new_queue(
        &mut client,
        "SELECT shuffle_queue_create(ARRAY[1, 2, 3, 4, 5, 6]::bigint[])",
    );
    next(&mut client, queue);
    next(&mut client, queue);
    now(&mut client, queue, 3);
    let state = |client: &mut Client| -> String {
        client
            .query_one(
                "SELECT (SELECT row_to_json(q)::text FROM shuffle_queue q WHERE queue_id = $1) \
                        || (SELECT coalesce(json_agg(a ORDER BY step), '[]')::text \
                              FROM shuffle_queue_ahead a WHERE queue_id = $1) \
                        || (SELECT json_agg(t ORDER BY position)::text \
                              FROM shuffle_queue_track t WHERE queue_id = $1)",
                &[&queue],
            )
            .unwrap()
            .get(0)
    };
    let before = state(&mut client);
    for (sql, code, message) in [
        (
            "SELECT * FROM shuffle_queue_played($1, -1)",
            SqlState::INVALID_PARAMETER_VALUE,
            "n and after must be 0 or more (n is -1, after 0)",
        ),
        (
            "SELECT * FROM shuffle_queue_played($1, after => -2)",
            SqlState::INVALID_PARAMETER_VALUE,
            "n and after must be 0 or more (n is 50, after -2)",
        ),
        (
            "SELECT * FROM shuffle_queue_played($1, 2, 999999)",
            SqlState::PROGRAM_LIMIT_EXCEEDED,
            "a queue looks at most 1000000 tracks back (after + n is 1000001)",
        ),
        (
            "SELECT * FROM shuffle_queue_now($1, -1)",
            SqlState::INVALID_PARAMETER_VALUE,
            "n must be 0 or more (n is -1)",
        ),
        (
            "SELECT * FROM shuffle_queue_now($1, 1000001)",
            SqlState::PROGRAM_LIMIT_EXCEEDED,
            "a queue looks at most 1000000 tracks ahead (n is 1000001)",
        ),
        (
            "SELECT * FROM shuffle_queue_played(0 * $1::bigint - 5)",
            SqlState::NO_DATA_FOUND,
            "shuffle queue -5 does not exist",
        ),
        (
            "SELECT * FROM shuffle_queue_now(0 * $1::bigint - 5)",
            SqlState::NO_DATA_FOUND,
            "shuffle queue -5 does not exist",
        ),
    ] {
        let failed = client.query(sql, &[&queue]).unwrap_err();
        let db = failed
            .as_db_error()
            .unwrap_or_else(|| panic!("{sql}: {failed}"));
        assert_eq!((db.code(), db.message()), (&code, message), "{sql}");
    }
    assert_eq!(state(&mut client), before, "nothing changed");
    // NULL: no row, as for every STRICT function returning rows.
    let rows = client
        .query(
            "SELECT * FROM shuffle_queue_played(NULL) UNION ALL \
             SELECT 0, playing, pass, place FROM shuffle_queue_now(NULL)",
            &[],
        )
        .unwrap();
    assert!(rows.is_empty());
}

#[test]
fn a_queue_of_albums_has_now_playing_but_no_list_of_what_played() {
    let mut client = database("dealcards_queue_played_albums");
    let queue = new_queue(
        &mut client,
        "SELECT shuffle_queue_new_albums(ARRAY[1, 2, 3, 4, 5]::bigint[], '{p,p,q,r,r}', '{a,a,a,b,b}')",
    );
    next(&mut client, queue);
    let (playing, pass, place, tracks, upcoming, _) = now(&mut client, queue, 4);
    assert_eq!((pass, place, tracks), (None, None, None));
    assert_eq!(playing, current(&mut client, queue));
    let plays: Vec<i64> = (0..4).map(|_| next(&mut client, queue)).collect();
    assert_eq!(upcoming, plays, "what it showed played");
    let failed = client
        .query("SELECT * FROM shuffle_queue_played($1)", &[&queue])
        .unwrap_err();
    assert_eq!(
        failed.as_db_error().unwrap().code(),
        &SqlState::FEATURE_NOT_SUPPORTED
    );
}

/// Whether the answer of a call (now playing, the next tracks) agrees with the plays: the
/// track playing is play `k` of `plays` (0: none yet) and the tracks after it are the plays
/// that followed.
fn agrees(plays: &[i64], k: usize, playing: Option<i64>, upcoming: &[i64]) -> bool {
    let now_ok = match playing {
        None => k == 0,
        Some(track) => k >= 1 && plays.get(k - 1) == Some(&track),
    };
    now_ok && plays.get(k..k + upcoming.len()) == Some(upcoming)
}

/// Holds the queue's row in a transaction that pressed Next, runs `sql` on another
/// connection until it waits for that lock, commits, and returns what `sql` gave (now
/// playing, the next three tracks) with the track the held Next played.
fn call_across_a_next(
    dbname: &str,
    queue: i64,
    sql: &'static str,
) -> ((Option<i64>, Vec<i64>), i64) {
    let user = user(&mut server::connect());
    let mut holder = server::connect_as(dbname, &user);
    let mut caller = server::connect_as(dbname, &user);
    let pid: i32 = caller
        .query_one("SELECT pg_backend_pid()", &[])
        .unwrap()
        .get(0);
    let mut tx = holder.transaction().unwrap();
    let held: i64 = tx
        .query_one("SELECT shuffle_queue_next($1)", &[&queue])
        .unwrap()
        .get(0);
    let call = thread::spawn(move || {
        let row = caller.query_one(sql, &[&queue]).unwrap();
        (row.get::<_, Option<i64>>(0), row.get::<_, Vec<i64>>(1))
    });
    let mut observer = server::connect_as(dbname, &user);
    assert!(
        server::waits_for_a_lock(&mut observer, pid),
        "the call never waited for the Next"
    );
    tx.commit().unwrap();
    (call.join().unwrap(), held)
}

/// A call that comes while a Next holds the queue gives the state after that Next. The pair
/// current + upcoming in one SELECT reads now playing before the Next and the tracks after it:
/// the check below fails it, as it would fail a shuffle_queue_now that read without the lock.
#[test]
fn a_call_waiting_for_a_next_gives_the_state_after_it() {
    const DB: &str = "dealcards_queue_played_waits";
    let mut client = database(DB);
    let queue = new_queue(
        &mut client,
        "SELECT shuffle_queue_create(ARRAY(SELECT generate_series(1, 30)::bigint))",
    );
    let mut plays = vec![next(&mut client, queue)];
    for (sql, consistent) in [
        (
            "SELECT playing, upcoming FROM shuffle_queue_now($1, 3)",
            true,
        ),
        (
            "SELECT shuffle_queue_current($1), \
                    ARRAY(SELECT track FROM shuffle_queue_upcoming($1, 3) ORDER BY place)",
            false,
        ),
    ] {
        let ((playing, upcoming), held) = call_across_a_next(DB, queue, sql);
        plays.push(held);
        let k = plays.len();
        plays.extend((0..3).map(|_| next(&mut client, queue)));
        assert_eq!(upcoming.len(), 3);
        assert_eq!(agrees(&plays, k, playing, &upcoming), consistent, "{sql}");
        if !consistent {
            // The disagreement the pair shows: now playing is the track before the Next.
            assert_eq!(playing, Some(plays[k - 2]));
            assert_eq!(upcoming, plays[k..k + 3]);
        }
    }
}

/// A connection presses Next in a loop while another calls shuffle_queue_now: every answer is
/// one state of the queue, the track playing numbered by its pass and place (a plain queue
/// never edited: play (pass - 1) * tracks + place), and the three tracks after it are the
/// three plays that follow.
#[test]
fn now_never_disagrees_with_a_concurrent_next() {
    const PRESSES: usize = 400;
    const CALLS: usize = 400;
    let mut client = database("dealcards_queue_played_loop");
    let queue = new_queue(
        &mut client,
        "SELECT shuffle_queue_create(ARRAY(SELECT generate_series(1, 12)::bigint))",
    );
    let role = user(&mut client);
    let mut pressing = server::connect_as("dealcards_queue_played_loop", &role);
    let mut reader = server::connect_as("dealcards_queue_played_loop", &role);
    let presser = thread::spawn(move || {
        (0..PRESSES)
            .map(|_| next(&mut pressing, queue))
            .collect::<Vec<i64>>()
    });
    let answers: Vec<Now> = (0..CALLS).map(|_| now(&mut reader, queue, 3)).collect();
    let mut plays = presser.join().unwrap();
    plays.extend((0..3).map(|_| next(&mut client, queue)));
    let mut seen = std::collections::BTreeSet::new();
    for (i, (playing, pass, place, tracks, upcoming, _)) in answers.iter().enumerate() {
        assert_eq!(*tracks, Some(12));
        let k = match (pass, place) {
            (Some(pass), Some(place)) => ((pass - 1) * 12 + place) as usize,
            _ => 0,
        };
        seen.insert(k);
        assert!(
            agrees(&plays, k, *playing, upcoming),
            "call {i}: play {k} is {playing:?} then {upcoming:?}, plays {plays:?}"
        );
    }
    eprintln!("{} distinct states seen in {CALLS} calls", seen.len());
}

fn user(client: &mut Client) -> String {
    client.query_one("SELECT current_user", &[]).unwrap().get(0)
}

/// Tracks added: a spread queue's pass holds them, so the place of the track playing stays
/// and M grows; a plain queue numbers its plays by its tape, each added track one place back.
#[test]
fn added_tracks_change_m_and_a_plain_queues_numbers() {
    let mut client = database("dealcards_queue_played_added");
    let n_of_m = |client: &mut Client, queue: i64| {
        let (_, pass, place, tracks, ..) = now(client, queue, 0);
        (pass.unwrap(), place.unwrap(), tracks.unwrap())
    };
    let spread = new_queue(
        &mut client,
        "SELECT shuffle_queue_new(ARRAY[1, 2, 3, 4, 5]::bigint[], groups => '{a,a,b,b,c}')",
    );
    next(&mut client, spread);
    next(&mut client, spread);
    client
        .execute("SELECT shuffle_queue_add($1, 6, 'd')", &[&spread])
        .unwrap();
    assert_eq!(n_of_m(&mut client, spread), (1, 2, 6));
    next(&mut client, spread);
    assert_eq!(n_of_m(&mut client, spread), (1, 3, 6));

    let plain = new_queue(
        &mut client,
        "SELECT shuffle_queue_create(ARRAY[1, 2, 3, 4, 5]::bigint[])",
    );
    next(&mut client, plain);
    next(&mut client, plain);
    assert_eq!(n_of_m(&mut client, plain), (1, 2, 5));
    client
        .execute(
            "SELECT shuffle_queue_add($1, 6), shuffle_queue_add($1, 7)",
            &[&plain],
        )
        .unwrap();
    assert_eq!(
        n_of_m(&mut client, plain),
        (0, 7, 7),
        "two places back: pass 0"
    );
    next(&mut client, plain);
    assert_eq!(n_of_m(&mut client, plain), (1, 1, 7));
}

/// A connection presses Next in a loop while another calls shuffle_queue_played: each list is
/// one state of the queue, every row the play its pass and place number (a plain queue never
/// edited: play (pass - 1) * tracks + place), newest first without a gap. The list and the
/// counts it is numbered by come from one statement; a read of the counts by a statement of
/// their own fails here only when a Next commits between the two statements, which these runs
/// seldom make happen: this test holds the numbering under concurrent presses, the single
/// statement holds the rest.
#[test]
fn played_is_one_state_under_a_concurrent_next() {
    const PRESSES: usize = 300;
    const CALLS: usize = 300;
    let mut client = database("dealcards_queue_played_reads");
    let queue = new_queue(
        &mut client,
        "SELECT shuffle_queue_create(ARRAY(SELECT generate_series(1, 12)::bigint))",
    );
    // Twenty plays first: every list then holds the 6 the queue remembers before the one playing.
    let mut plays: Vec<i64> = (0..20).map(|_| next(&mut client, queue)).collect();
    let role = user(&mut client);
    let mut pressing = server::connect_as("dealcards_queue_played_reads", &role);
    let mut reader = server::connect_as("dealcards_queue_played_reads", &role);
    let presser = thread::spawn(move || {
        (0..PRESSES)
            .map(|_| next(&mut pressing, queue))
            .collect::<Vec<i64>>()
    });
    let lists: Vec<Vec<Played>> = (0..CALLS)
        .map(|_| played(&mut reader, queue, 8, 0))
        .collect();
    plays.extend(presser.join().unwrap());
    for (i, list) in lists.iter().enumerate() {
        assert_eq!(list.len(), 6, "call {i}");
        let numbers: Vec<usize> = (list.iter())
            .map(|&(_, pass, place)| ((pass - 1) * 12 + place) as usize)
            .collect();
        let tracks: Vec<i64> = numbers.iter().map(|&m| plays[m - 1]).collect();
        assert_eq!(
            tracks,
            list.iter().map(|p| p.0).collect::<Vec<_>>(),
            "call {i}: {list:?}"
        );
        assert!(
            numbers.windows(2).all(|w| w[1] + 1 == w[0]),
            "call {i}: {numbers:?}"
        );
    }
}
