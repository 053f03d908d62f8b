#![cfg(feature = "server_tests")]
//! shuffle_queue_skip through real connections: a skip that does not count. The skipped track
//! stays in the history (Previous returns to it), its play is forgotten for the listener, and a
//! queue spread by group gives it its turn in the pass back: the tracks that count make whole
//! passes (a negative control shows the same count without giving back breaks them). A seeded
//! queue plays what tests/reference/seeded_queue.py computes from the specification.
//! Run by `make test` against its throwaway cluster (needs DEALCARDS_TEST_DSN).

mod server;

use std::collections::HashSet;

use postgres::Client;
use server::queues::{database, new_queue, next, prev, SEED};

fn skip(client: &mut Client, queue: i64) -> i64 {
    client
        .query_one("SELECT shuffle_queue_skip($1)", &[&queue])
        .unwrap()
        .get(0)
}

/// What each press returns: "next", "prev", "skipnext" (shuffle_queue_skip), as
/// seeded_queue.py names them.
fn press_all(client: &mut Client, queue: i64, presses: &[&str]) -> Vec<i64> {
    presses
        .iter()
        .map(|press| match *press {
            "next" => next(client, queue),
            "skipnext" => skip(client, queue),
            "prev" => prev(client, queue).unwrap(),
            other => panic!("{other}"),
        })
        .collect()
}

fn pass_left(client: &mut Client, queue: i64) -> i64 {
    client
        .query_one(
            "SELECT pass_left FROM shuffle_queue WHERE queue_id = $1",
            &[&queue],
        )
        .unwrap()
        .get(0)
}

fn values(text: &str) -> Vec<i64> {
    text.split(' ').map(|v| v.parse().unwrap()).collect()
}

/// A seeded queue's skips give what the reference computes: on a spread queue giving the turn
/// back is an operation of its own; on a plain queue a skip draws as a next.
#[test]
fn seeded_skips_play_the_golden_tracks() {
    let mut client = database("dealcards_queue_skip_seeded");
    let cases = [
        // seeded_queue.py --seed-rule 2 SEED spread:Abba,Abba,Abba,Queen,Queen,Bowie,Abba,
        //   Prince,Queen,Bowie next next skipnext next skipnext skipnext next*10 prev next
        //   skipnext next
        (
            "groups => ARRAY['Abba', 'Abba', 'Abba', 'Queen', 'Queen', 'Bowie', 'Abba', 'Prince', 'Queen', 'Bowie']",
            "next next skipnext next skipnext skipnext next next next next next next next next next next prev next skipnext next",
            "8 5 10 2 5 6 3 5 1 4 2 9 7 10 2 4 2 4 3 4",
        ),
        // seeded_queue.py --seed-rule 2 SEED spread:a/x,a/y,a/x,b/z,b/z,c/w,c/w,c/v,d/u,d/u
        //   next skipnext next next skipnext next*6 skipnext next next
        (
            "groups => ARRAY['a', 'a', 'a', 'b', 'b', 'c', 'c', 'c', 'd', 'd'],
             subgroups => ARRAY['x', 'y', 'x', 'z', 'z', 'w', 'w', 'v', 'u', 'u']",
            "next skipnext next next skipnext next next next next next next skipnext next next",
            "6 5 8 9 3 10 6 2 4 1 7 9 7 3",
        ),
        // seeded_queue.py --seed-rule 2 SEED shuffle:10 next next skipnext next prev next
        //   skipnext next
        (
            "mode => 'shuffle'",
            "next next skipnext next prev next skipnext next",
            "4 6 3 9 3 9 1 5",
        ),
    ];
    for (options, presses, golden) in cases {
        let queue = new_queue(
            &mut client,
            &format!(
                "SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 10)::bigint), {options}, seed => {SEED})"
            ),
        );
        let presses: Vec<&str> = presses.split(' ').collect();
        assert_eq!(
            press_all(&mut client, queue, &presses),
            values(golden),
            "{options}"
        );
    }
}

/// The tracks that count (every play not skipped; a skipped play when the skip had no turn to
/// give back, its pass having ended with it) of a spread queue make whole passes, one and two
/// levels, with a skip about one press in three. The same presses counted without giving back
/// (shuffle_queue_next in place of the skip, the play left out of the count) break them.
#[test]
fn the_tracks_that_count_make_whole_passes() {
    let mut client = database("dealcards_queue_skip_passes");
    let queues = [
        "groups => ARRAY['a', 'a', 'a', 'a', 'b', 'b', 'b', 'c', 'c', 'd']",
        "groups => ARRAY['a', 'a', 'a', 'a', 'b', 'b', 'b', 'c', 'c', 'd'],
         subgroups => ARRAY['x', 'y', 'x', 'y', 'z', 'z', 'w', 'v', 'v', 'u']",
    ];
    for options in queues {
        for giving_back in [true, false] {
            let queue = new_queue(
                &mut client,
                &format!(
                    "SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 10)::bigint), {options})"
                ),
            );
            let mut counted = Vec::new();
            let mut playing = next(&mut client, queue);
            for press in 0..300usize {
                // A fixed pattern of skips, one press in three or so.
                let skipping = press % 3 == 0 || press % 7 == 0;
                // The track playing ended its pass when the new one has every track left: a
                // skip then has no turn to give back, and the play counts in that pass.
                let ended_its_pass = pass_left(&mut client, queue) == 10;
                let following = match (skipping, giving_back) {
                    (true, true) => skip(&mut client, queue),
                    _ => next(&mut client, queue),
                };
                if !skipping || (giving_back && ended_its_pass) {
                    counted.push(playing);
                }
                playing = following;
            }
            let broken = counted
                .chunks_exact(10)
                .filter(|pass| pass.iter().collect::<HashSet<_>>().len() != 10)
                .count();
            if giving_back {
                assert_eq!(broken, 0, "{options}: {counted:?}");
            } else {
                assert!(
                    broken > 5,
                    "{options}: skips given nothing back broke {broken}"
                );
            }
        }
    }
}

/// The skipped track stays in the history: Previous returns to it, then Next replays what
/// came after it. Before the first Next a skip is a Next.
#[test]
fn previous_returns_to_a_skipped_track() {
    let mut client = database("dealcards_queue_skip_prev");
    for options in [
        "mode => 'shuffle'",
        "groups => ARRAY(SELECT 'g' || g % 3 FROM generate_series(1, 12) g)",
    ] {
        let queue = new_queue(
            &mut client,
            &format!(
                "SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 12)::bigint), {options})"
            ),
        );
        let first = skip(&mut client, queue);
        let second = next(&mut client, queue);
        let after = skip(&mut client, queue);
        assert_eq!(prev(&mut client, queue), Some(second), "{options}");
        assert_eq!(prev(&mut client, queue), Some(first), "{options}");
        assert_eq!(next(&mut client, queue), second, "{options}");
        assert_eq!(next(&mut client, queue), after, "{options}");
    }
}

/// A listener's skipped play is forgotten: the plays recorded are those that counted, and a new
/// queue for the listener does not hold the skipped track back.
#[test]
fn a_listeners_skipped_play_is_forgotten() {
    let mut client = database("dealcards_queue_skip_listener");
    let queue = new_queue(
        &mut client,
        "SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 20)::bigint), listener => 5)",
    );
    // a plays and counts; b plays and is skipped; c plays.
    let a = next(&mut client, queue);
    let b = next(&mut client, queue);
    let c = skip(&mut client, queue);
    let plays: Vec<i64> = client
        .query(
            "SELECT track FROM shuffle_queue_play WHERE listener = 5 ORDER BY slot",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(plays, vec![a, c], "b ({b}) was skipped");
    let plays_counted: i64 = client
        .query_one(
            "SELECT plays FROM shuffle_queue WHERE queue_id = $1",
            &[&queue],
        )
        .unwrap()
        .get(0);
    assert_eq!(plays_counted, 2);
}

/// With steps drawn ahead: a skip on a plain queue plays the first of them (the shuffle is as
/// it was); on a spread queue that gives a turn back, the steps are dropped and the queue goes
/// on from its changed pass, promising anew.
#[test]
fn a_skip_keeps_or_drops_the_promise() {
    let mut client = database("dealcards_queue_skip_ahead");
    let plain = new_queue(
        &mut client,
        "SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 30)::bigint))",
    );
    next(&mut client, plain);
    let shown: Vec<i64> = client
        .query(
            "SELECT track FROM shuffle_queue_upcoming($1, 5) ORDER BY place",
            &[&plain],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(skip(&mut client, plain), shown[0]);
    let spread = new_queue(
        &mut client,
        "SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 30)::bigint),
                                  groups => ARRAY(SELECT 'g' || g % 5 FROM generate_series(1, 30) g))",
    );
    next(&mut client, spread);
    client
        .query("SELECT * FROM shuffle_queue_upcoming($1, 5)", &[&spread])
        .unwrap();
    skip(&mut client, spread);
    let kept: i64 = client
        .query_one(
            "SELECT count(*) FROM shuffle_queue_ahead WHERE queue_id = $1",
            &[&spread],
        )
        .unwrap()
        .get(0);
    assert_eq!(kept, 0, "the steps drawn before the turn was given back");
    let shown: Vec<i64> = client
        .query(
            "SELECT track FROM shuffle_queue_upcoming($1, 4) ORDER BY place",
            &[&spread],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    let played: Vec<i64> = (0..4).map(|_| next(&mut client, spread)).collect();
    assert_eq!(played, shown);
}

/// A track removed or skipped when shuffling since it played has no turn to give back: the
/// skip forgets its play and goes on.
#[test]
fn a_skip_of_a_track_that_left_the_shuffle_goes_on() {
    let mut client = database("dealcards_queue_skip_left");
    let queue = new_queue(
        &mut client,
        "SELECT shuffle_queue_new(ARRAY(SELECT generate_series(1, 12)::bigint),
                                  groups => ARRAY(SELECT 'g' || g % 3 FROM generate_series(1, 12) g))",
    );
    for edit in [
        "SELECT shuffle_queue_remove($1, $2)",
        "SELECT shuffle_queue_skip_when_shuffling($1, $2)",
    ] {
        let playing = next(&mut client, queue);
        client.execute(edit, &[&queue, &playing]).unwrap();
        let following = skip(&mut client, queue);
        assert_ne!(following, playing, "{edit}");
    }
}
