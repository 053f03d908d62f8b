#![cfg(feature = "server_tests")]
//! A queue of whole albums (shuffle_queue_new_albums) through real connections: each album's
//! tracks play together in the order given, the albums in passes spread by artist; Previous and
//! Next step through tracks across albums; upcoming is a promise kept across sessions and
//! rollbacks; a seeded queue orders its albums as a seeded queue spread by group orders tracks;
//! what does not apply to such a queue is refused (0A000) and leaves it as it was.
//! Run by `make test` against its throwaway cluster (needs DEALCARDS_TEST_DSN).

mod server;

use std::collections::{BTreeMap, HashSet};

use postgres::error::SqlState;
use postgres::Client;
use server::queues::{current, database, new_queue, next, prev, tracks, upcoming, SEED};

/// A small library, its tracks listed out of album order: track `t` is on album `t / 100`,
/// at its place by `t % 100`.
const ITEMS: [i64; 14] = [
    101, 301, 102, 401, 201, 103, 402, 501, 202, 403, 601, 502, 404, 602,
];

/// Album `a`'s name and artist (NULL: unknown). x and y both have an album called "One".
fn album_of(album: i64) -> (&'static str, Option<&'static str>) {
    match album {
        1 => ("One", Some("x")),
        2 => ("Two", Some("x")),
        3 => ("One", Some("y")),
        4 => ("Three", Some("y")),
        5 => ("Four", Some("z")),
        6 => ("Five", None),
        _ => unreachable!(),
    }
}

fn album_tracks(album: i64) -> Vec<i64> {
    let mut tracks: Vec<i64> = ITEMS.iter().copied().filter(|t| t / 100 == album).collect();
    tracks.sort();
    tracks
}

fn quoted(value: Option<&str>) -> String {
    value.map_or("NULL".into(), |v| format!("'{v}'"))
}

/// The statement making a queue of the library, with `more` arguments after the three arrays.
fn albums_queue_sql(more: &str) -> String {
    let items: Vec<String> = ITEMS.iter().map(i64::to_string).collect();
    let albums: Vec<String> = (ITEMS.iter())
        .map(|t| quoted(Some(album_of(t / 100).0)))
        .collect();
    let artists: Vec<String> = ITEMS.iter().map(|t| quoted(album_of(t / 100).1)).collect();
    format!(
        "SELECT shuffle_queue_new_albums(ARRAY[{}]::bigint[], ARRAY[{}], ARRAY[{}]::text[]{more})",
        items.join(", "),
        albums.join(", "),
        artists.join(", ")
    )
}

fn message_of(err: &postgres::Error) -> String {
    err.as_db_error()
        .map(|e| e.message().to_string())
        .unwrap_or_default()
}

/// The albums a run of Next played, checking that each plays whole, from its first track, in
/// the order given (the run starts at the first track of an album).
fn albums_played(played: &[i64]) -> Vec<i64> {
    let mut albums = Vec::new();
    let mut i = 0;
    while i < played.len() {
        let album = played[i] / 100;
        let tracks = album_tracks(album);
        let end = (i + tracks.len()).min(played.len());
        assert_eq!(
            played[i..end],
            tracks[..end - i],
            "album {album} did not play whole and in order at {i}: {played:?}"
        );
        albums.push(album);
        i = end;
    }
    albums
}

/// Three passes: every album once a pass, whole and in order, and no two albums of one artist
/// next to each other, within a pass or across two.
#[test]
fn albums_play_whole_in_passes_spread_by_artist() {
    let mut client = database("dealcards_queue_albums_passes");
    for _ in 0..5 {
        let queue = new_queue(&mut client, &albums_queue_sql(""));
        let played: Vec<i64> = (0..3 * ITEMS.len())
            .map(|_| next(&mut client, queue))
            .collect();
        let albums = albums_played(&played);
        assert_eq!(albums.len(), 18, "{played:?}");
        for pass in albums.chunks(6) {
            let distinct: HashSet<i64> = pass.iter().copied().collect();
            assert_eq!(
                distinct.len(),
                6,
                "a pass played an album twice: {albums:?}"
            );
        }
        for pair in albums.windows(2) {
            let artists = (album_of(pair[0]).1, album_of(pair[1]).1);
            assert!(
                artists.0.is_none() || artists.0 != artists.1,
                "two albums of {:?} next to each other: {albums:?}",
                artists.0
            );
        }
    }
}

/// Previous walks back through the tracks played, across albums, down to the first track of
/// the oldest album remembered, where it stays; Next then replays them forward, and only then
/// draws a new album. Current follows both; both are NULL before the first Next.
#[test]
fn previous_and_next_step_through_tracks_across_albums() {
    let mut client = database("dealcards_queue_albums_prev");
    let queue = new_queue(&mut client, &albums_queue_sql(""));
    assert_eq!(prev(&mut client, queue), None);
    assert_eq!(current(&mut client, queue), None);
    let played: Vec<i64> = (0..10).map(|_| next(&mut client, queue)).collect();
    let mut back = vec![*played.last().unwrap()];
    loop {
        let track = prev(&mut client, queue).unwrap();
        assert_eq!(current(&mut client, queue), Some(track));
        if track == *back.last().unwrap() {
            break;
        }
        back.push(track);
    }
    // Back through what played, to the first track of an album.
    let reversed: Vec<i64> = played.iter().rev().copied().collect();
    assert_eq!(back, reversed[..back.len()], "{played:?}");
    let oldest = *back.last().unwrap();
    assert_eq!(oldest, album_tracks(oldest / 100)[0], "{back:?}");
    // Six albums remember four of them (the history of a queue of six tracks).
    let albums: HashSet<i64> = back.iter().map(|t| t / 100).collect();
    assert!(albums.len() >= 2 && albums.len() <= 4, "{back:?}");
    let replayed: Vec<i64> = (1..back.len()).map(|_| next(&mut client, queue)).collect();
    let forward: Vec<i64> = back.iter().rev().skip(1).copied().collect();
    assert_eq!(replayed, forward);
    assert_eq!(current(&mut client, queue), played.last().copied());
    let more: Vec<i64> = (0..20).map(|_| next(&mut client, queue)).collect();
    let mut all = played.clone();
    all.extend(&more);
    let start = played.iter().position(|t| t % 100 == 1).unwrap();
    albums_played(&all[start..]);
}

/// Upcoming lists the rest of the album playing (`album`), the albums replayed after Previous
/// (`replay`) and those drawn (`shuffle`), whole; pages agree with one look; and Next plays
/// exactly those tracks, in another session too.
#[test]
fn upcoming_is_kept_track_by_track() {
    let mut client = database("dealcards_queue_albums_upcoming");
    let mut other = server::connect_as(
        "dealcards_queue_albums_upcoming",
        &server::dsn_setting("user"),
    );
    let queue = new_queue(&mut client, &albums_queue_sql(""));
    let first = upcoming(&mut client, queue, 30, 0);
    assert!(first.iter().all(|(_, s)| s == "shuffle"), "{first:?}");
    albums_played(&tracks(&first));
    for _ in 0..2 {
        next(&mut client, queue);
    }
    prev(&mut client, queue);
    let playing = current(&mut client, queue).unwrap();
    let shown = upcoming(&mut client, queue, 25, 0);
    let mut pages = upcoming(&mut client, queue, 7, 0);
    pages.extend(upcoming(&mut client, queue, 8, 7));
    pages.extend(upcoming(&mut client, queue, 10, 15));
    assert_eq!(pages, shown);
    // The promise made before the first Next still holds, after going back.
    let at = tracks(&first).iter().position(|&t| t == playing).unwrap();
    let kept = (30 - at - 1).min(shown.len());
    assert_eq!(
        tracks(&shown)[..kept],
        tracks(&first)[at + 1..at + 1 + kept]
    );
    let sources: Vec<&str> = shown.iter().map(|(_, s)| s.as_str()).collect();
    let album_rest = album_tracks(playing / 100).len() - (playing % 100) as usize;
    assert!(sources[..album_rest]
        .iter()
        .all(|&s| s == "album" || s == "replay"));
    assert!(sources.contains(&"shuffle"), "{shown:?}");
    let played: Vec<i64> = (0..25).map(|_| next(&mut other, queue)).collect();
    assert_eq!(played, tracks(&shown));
}

/// A Next, or a look further ahead, rolled back (a transaction, a savepoint) leaves the queue
/// and its promise as they were.
#[test]
fn a_rolled_back_next_leaves_the_promise_as_it_was() {
    let mut client = database("dealcards_queue_albums_rollback");
    let queue = new_queue(&mut client, &albums_queue_sql(""));
    next(&mut client, queue);
    let promised = tracks(&upcoming(&mut client, queue, 10, 0));
    let playing = current(&mut client, queue);
    let mut transaction = client.transaction().unwrap();
    for _ in 0..12 {
        transaction
            .query_one("SELECT shuffle_queue_next($1)", &[&queue])
            .unwrap();
    }
    transaction
        .query("SELECT * FROM shuffle_queue_upcoming($1, 40)", &[&queue])
        .unwrap();
    transaction.rollback().unwrap();
    assert_eq!(current(&mut client, queue), playing);
    let mut transaction = client.transaction().unwrap();
    transaction.batch_execute("SAVEPOINT look").unwrap();
    transaction
        .query(
            &format!(
                "SELECT shuffle_queue_next({queue}), * FROM shuffle_queue_upcoming({queue}, 60)"
            ),
            &[],
        )
        .unwrap();
    transaction
        .batch_execute("ROLLBACK TO SAVEPOINT look")
        .unwrap();
    let played: Vec<i64> = (0..10)
        .map(|_| {
            transaction
                .query_one("SELECT shuffle_queue_next($1)", &[&queue])
                .unwrap()
                .get(0)
        })
        .collect();
    transaction.commit().unwrap();
    assert_eq!(played, promised);
}

/// What changes a queue of tracks does not apply to a queue of albums: refused with 0A000, the
/// queue as it was.
#[test]
fn what_does_not_apply_is_refused_and_changes_nothing() {
    let mut client = database("dealcards_queue_albums_refused");
    let queue = new_queue(&mut client, &albums_queue_sql(""));
    next(&mut client, queue);
    let promised = upcoming(&mut client, queue, 20, 0);
    let calls = [
        "SELECT shuffle_queue_add($1, 999)",
        "SELECT shuffle_queue_add($1, 999, 5)",
        "SELECT shuffle_queue_add($1, 999, 'x', 'One')",
        "SELECT shuffle_queue_remove($1, 101)",
        "SELECT shuffle_queue_jump($1, 101)",
        "SELECT shuffle_queue_skip($1)",
        "SELECT shuffle_queue_skip_when_shuffling($1, 101)",
        "SELECT shuffle_queue_play_next($1, ARRAY[101]::bigint[])",
        "SELECT shuffle_queue_play_later($1, ARRAY[101]::bigint[])",
        "SELECT shuffle_queue_clear_up_next($1)",
    ];
    for call in calls {
        let err = client.query(call, &[&queue]).unwrap_err();
        assert_eq!(
            err.code(),
            Some(&SqlState::FEATURE_NOT_SUPPORTED),
            "{call}: {err}"
        );
        assert!(message_of(&err).contains("plays whole albums"), "{err:?}");
    }
    let empty: Vec<i64> = client
        .query_one("SELECT shuffle_queue_up_next($1)", &[&queue])
        .unwrap()
        .get(0);
    assert!(empty.is_empty());
    assert_eq!(upcoming(&mut client, queue, 20, 0), promised);
    client
        .query_one("SELECT shuffle_queue_drop($1)", &[&queue])
        .unwrap();
    let left: i64 = client
        .query_one(
            "SELECT (SELECT count(*) FROM shuffle_queue_album WHERE queue_id = $1)
                  + (SELECT count(*) FROM shuffle_queue_member WHERE queue_id = $1)
                  + (SELECT count(*) FROM shuffle_queue_ahead WHERE queue_id = $1)",
            &[&queue],
        )
        .unwrap()
        .get(0);
    assert_eq!(left, 0);
}

/// Bad arguments: 22023 with what is wrong, and no queue made.
#[test]
fn bad_arguments_are_refused() {
    let mut client = database("dealcards_queue_albums_arguments");
    let cases = [
        ("NULL, ARRAY['a']", "items must not be NULL"),
        ("ARRAY[1]::bigint[], NULL", "albums must not be NULL"),
        ("ARRAY[]::bigint[], ARRAY[]::text[]", "at least one track"),
        ("ARRAY[1, 2]::bigint[], ARRAY['a']", "same length"),
        (
            "ARRAY[1, 2]::bigint[], ARRAY['a', 'b'], ARRAY['x']",
            "same length",
        ),
        (
            "ARRAY[1, 2]::bigint[], ARRAY['a', NULL]",
            "element 2 is NULL",
        ),
        (
            "ARRAY[1, NULL]::bigint[], ARRAY['a', 'b']",
            "element 2 is NULL",
        ),
        ("ARRAY[1, 1]::bigint[], ARRAY['a', 'b']", "more than once"),
        (
            "ARRAY[1]::bigint[], ARRAY['a'], seed => '\\x01'::bytea",
            "32 bytes",
        ),
    ];
    for (args, message) in cases {
        let err = client
            .query(&format!("SELECT shuffle_queue_new_albums({args})"), &[])
            .unwrap_err();
        assert_eq!(
            err.code(),
            Some(&SqlState::INVALID_PARAMETER_VALUE),
            "{args}: {err}"
        );
        assert!(message_of(&err).contains(message), "{args}: {err:?}");
    }
    let queues: i64 = client
        .query_one("SELECT count(*) FROM shuffle_queue", &[])
        .unwrap()
        .get(0);
    assert_eq!(queues, 0);
}

/// A seeded queue of albums orders its albums as a seeded queue spread by group orders its
/// tracks (one per album, grouped by the album's artist, in order of first appearance), and
/// plays the same whether or not anyone looks ahead.
#[test]
fn a_seeded_queue_of_albums_plays_as_a_seeded_spread_queue() {
    let mut client = database("dealcards_queue_albums_seeded");
    // The albums in order of first appearance in ITEMS, and their artists.
    let mut order: Vec<i64> = Vec::new();
    for t in ITEMS {
        if !order.contains(&(t / 100)) {
            order.push(t / 100);
        }
    }
    let artists: Vec<String> = order.iter().map(|&a| quoted(album_of(a).1)).collect();
    let spread = new_queue(
        &mut client,
        &format!(
            "SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 6))::bigint[], \
             groups => ARRAY[{}]::text[], seed => {SEED})",
            artists.join(", ")
        ),
    );
    let expected: Vec<i64> = (0..18)
        .map(|_| order[next(&mut client, spread) as usize - 1])
        .collect();
    let seeded = format!(", seed => {SEED}");
    let quiet = new_queue(&mut client, &albums_queue_sql(&seeded));
    let looked = new_queue(&mut client, &albums_queue_sql(&seeded));
    let mut by_queue: BTreeMap<i64, Vec<i64>> = BTreeMap::new();
    for press in 0..3 * ITEMS.len() {
        if press % 4 == 1 {
            upcoming(
                &mut client,
                looked,
                1 + (press % 9) as i32,
                (press % 3) as i32,
            );
        }
        for queue in [quiet, looked] {
            let track = next(&mut client, queue);
            by_queue.entry(queue).or_default().push(track);
        }
    }
    assert_eq!(by_queue[&quiet], by_queue[&looked]);
    assert_eq!(albums_played(&by_queue[&quiet]), expected);
}

fn saved(client: &mut Client, queue: i64) -> serde_json::Value {
    let text: String = client
        .query_one("SELECT shuffle_queue_save($1)::text", &[&queue])
        .unwrap()
        .get(0);
    serde_json::from_str(&text).unwrap()
}

/// A saved queue of albums, restored, is the same queue: its state saved again is the same, and
/// it plays the tracks the saved one promised, mid-album and after Previous. States that no
/// queue of albums reaches are refused with 22023, no queue made.
#[test]
fn a_saved_queue_of_albums_restores_with_its_promise() {
    let mut client = database("dealcards_queue_albums_saved");
    let queue = new_queue(&mut client, &albums_queue_sql(""));
    for _ in 0..9 {
        next(&mut client, queue);
    }
    prev(&mut client, queue);
    let promised = tracks(&upcoming(&mut client, queue, 20, 0));
    let playing = current(&mut client, queue);
    let state = saved(&mut client, queue);
    let restored: i64 = client
        .query_one(
            "SELECT shuffle_queue_restore($1::text::jsonb)",
            &[&state.to_string()],
        )
        .unwrap()
        .get(0);
    let again = saved(&mut client, restored);
    assert_eq!(again, state);
    assert_eq!(current(&mut client, restored), playing);
    let played: Vec<i64> = (0..20).map(|_| next(&mut client, restored)).collect();
    assert_eq!(played, promised);
    let queues_before: i64 = client
        .query_one("SELECT count(*) FROM shuffle_queue", &[])
        .unwrap()
        .get(0);
    let tampered = |edit: &dyn Fn(&mut serde_json::Value)| {
        let mut bad = state.clone();
        edit(&mut bad);
        bad
    };
    let cases = [
        tampered(&|s| s["albums"]["place"] = 7.into()),
        tampered(&|s| s["albums"]["tracks"].as_array_mut().unwrap().truncate(5)),
        tampered(&|s| s["albums"]["tracks"][0] = serde_json::json!([301])),
        tampered(&|s| s["albums"]["tracks"][2] = serde_json::json!([])),
        tampered(&|s| s["albums"]["tracks"] = 3.into()),
        tampered(&|s| s["up_next"] = serde_json::json!([1])),
    ];
    for bad in cases {
        let err = client
            .query(
                "SELECT shuffle_queue_restore($1::text::jsonb)",
                &[&bad.to_string()],
            )
            .unwrap_err();
        assert_eq!(
            err.code(),
            Some(&SqlState::INVALID_PARAMETER_VALUE),
            "{err:?}"
        );
        assert!(message_of(&err).starts_with("state is not one"), "{err:?}");
    }
    let queues_after: i64 = client
        .query_one("SELECT count(*) FROM shuffle_queue", &[])
        .unwrap()
        .get(0);
    assert_eq!(queues_after, queues_before);
}
