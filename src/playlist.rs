//! SQL functions for shuffle queues, with their state in the extension's tables.
//!
//! Every function that changes a queue locks its row (FOR UPDATE) before it reads the state, so
//! two sessions pressing next on one queue take turns and get two successive picks. The
//! algorithms are `dealcards_core::playlist` (plain queues) and `dealcards_core::playlist::groups`
//! (queues spread by group); this layer checks arguments, loads a queue's row, hands the core the
//! queue's rows through [`store::QueueStore`] (every statement is there), and stores the row back.
//!
//! One file per phase of a queue's life, so that a new queue feature lands in the file of its
//! phase: `create` (shuffle_queue_create, shuffle_queue_new), `step` (next, prev, current, jump,
//! the tracks up next), `played` (what played, and now playing with what comes next), `edit`
//! (add, remove, skip when shuffling, forget a listener's plays, drop), `save`
//! (shuffle_queue_save and shuffle_queue_restore; the format is `saved`). One press of Next and
//! the look-ahead that draws presses ahead are in `press`, for the calls and the queues of
//! albums alike. What several phases share is here.

mod ahead;
mod albums;
mod bulk;
mod create;
mod edit;
mod played;
mod press;
mod save;
mod saved;
mod skip;
mod step;
mod store;
mod texts;

use pgrx::prelude::*;

use crate::raise;
use dealcards_core::error::{Error, ErrorKind};
use dealcards_core::playlist::groups::Groups;
use dealcards_core::playlist::Tape;
use store::{live, QueueStore, State};

extension_sql_file!("../sql/install/playlist.sql", name = "playlist_tables");

/// Runs `f` with the stream of the queue's next operation: a seeded queue's own (counted), or
/// the backend's live stream.
fn with_stream<R>(
    store: &mut QueueStore,
    f: impl FnOnce(&mut QueueStore, &mut dealcards_core::rng::Stream) -> R,
) -> R {
    match store.extra.next_stream() {
        Some(mut stream) => f(store, &mut stream),
        None => live(|stream| f(store, stream)),
    }
}

/// Whether the track is in the queue's shuffle: P0002 if the queue does not hold it, 55000 if
/// it is skipped when shuffling.
fn check_in_shuffle(store: &mut QueueStore, state: &State, track: i64) {
    let found = match state {
        State::Tape(_) => Tape::find(store, track).is_some(),
        State::Spread(_) => Groups::find(store, track).is_some(),
    };
    if found {
        return;
    }
    if store.skipped(track).is_some() {
        raise(Error::new(
            ErrorKind::NotReady,
            format!(
                "track {track} is skipped when shuffling: clear its flag first, \
                 shuffle_queue_skip_when_shuffling(queue_id, {track}, false)"
            ),
        ));
    }
    raise(Error::new(
        ErrorKind::NotFound,
        format!("track {track} is not in the queue"),
    ));
}

/// Refuses a track the queue holds already, skipped when shuffling or not.
fn check_not_held(store: &mut QueueStore, track: i64) {
    if store.skipped(track).is_some() {
        raise(Error::invalid(format!(
            "track {track} is already in the queue (skipped when shuffling)"
        )));
    }
}

/// How many tracks a queue's shuffle holds.
fn tracks_of(state: &State) -> i64 {
    match state {
        State::Tape(queue) => queue.tracks as i64,
        State::Spread(queue) => queue.tracks as i64,
    }
}

#[cfg(any(test, feature = "pg_test"))]
#[pg_schema]
mod tests {
    use pgrx::prelude::*;

    fn one(sql: &str) -> Option<i64> {
        Spi::get_one::<i64>(sql).unwrap()
    }

    fn new_queue(sql_items: &str) -> i64 {
        one(&format!("SELECT shuffle_queue_create({sql_items})")).unwrap()
    }

    fn next(id: i64) -> i64 {
        one(&format!("SELECT shuffle_queue_next({id})")).unwrap()
    }

    fn prev(id: i64) -> Option<i64> {
        one(&format!("SELECT shuffle_queue_prev({id})"))
    }

    fn current(id: i64) -> Option<i64> {
        one(&format!("SELECT shuffle_queue_current({id})"))
    }

    #[pg_test]
    fn a_queue_plays_its_tracks_and_walks_back() {
        let id = new_queue("ARRAY[11, 12, 13, 14, 15, 16, 17, 18, 19, 20]::bigint[]");
        assert_eq!(current(id), None);
        assert_eq!(prev(id), None);
        let picks: Vec<i64> = (0..30).map(|_| next(id)).collect();
        assert!(picks.iter().all(|t| (11..=20).contains(t)));
        // Window 5 of 10: nothing repeats within 5 picks.
        for w in picks.windows(6) {
            let mut sorted = w.to_vec();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), 6, "{picks:?}");
        }
        assert_eq!(current(id), Some(picks[29]));
        assert_eq!(prev(id), Some(picks[28]));
        assert_eq!(prev(id), Some(picks[27]));
        assert_eq!(current(id), Some(picks[27]));
        assert_eq!(next(id), picks[28]);
        assert_eq!(next(id), picks[29]);
        let fresh = next(id);
        assert!(!picks[25..].contains(&fresh));
    }

    #[pg_test]
    fn the_state_is_rows_in_the_extension_tables() {
        let id = new_queue("ARRAY(SELECT generate_series(1, 1000)::bigint), 'random', 10");
        let (tracks, positions) = Spi::get_two::<i64, i64>(&format!(
            "SELECT count(*), count(DISTINCT track) FROM shuffle_queue_track WHERE queue_id = {id}"
        ))
        .unwrap();
        assert_eq!((tracks, positions), (Some(1000), Some(1000)));
        for _ in 0..50 {
            next(id);
        }
        let row = Spi::get_three::<String, i32, i64>(&format!(
            "SELECT mode, window_size, history FROM shuffle_queue WHERE queue_id = {id}"
        ))
        .unwrap();
        assert_eq!(row, (Some("random".into()), Some(10), Some(11)));
        let span = one(&format!(
            "SELECT max(position) - min(position) + 1 FROM shuffle_queue_track WHERE queue_id = {id}"
        ));
        assert_eq!(span, Some(1000), "the positions stay contiguous");
        // The tables are configuration tables of the extension: pg_dump keeps their rows.
        let dumped = one(
            "SELECT count(*) FROM pg_extension e, unnest(e.extconfig) c \
              WHERE e.extname = 'dealcards' \
                AND c IN ('shuffle_queue'::regclass, 'shuffle_queue_track'::regclass, \
                          'shuffle_queue_id_seq'::regclass)",
        );
        assert_eq!(dumped, Some(3));
    }

    #[pg_test]
    fn add_and_remove_edit_the_queue() {
        let id = new_queue("ARRAY[1, 2, 3, 4, 5, 6]::bigint[]");
        let first = next(id);
        let second = next(id);
        assert_eq!(one(&format!("SELECT shuffle_queue_add({id}, 7)")), Some(7));
        assert_eq!(
            one(&format!("SELECT shuffle_queue_remove({id}, {first})")),
            Some(6)
        );
        assert_eq!(current(id), Some(second));
        assert_eq!(prev(id), Some(second), "the removed track left the history");
        let heard: Vec<i64> = (0..60).map(|_| next(id)).collect();
        assert!(heard.contains(&7));
        assert!(!heard.contains(&first));
        assert_eq!(
            one(&format!("SELECT shuffle_queue_add({id}, NULL)")),
            None,
            "strict"
        );
    }

    #[pg_test]
    fn drop_removes_every_row() {
        let id = new_queue("ARRAY[1, 2, 3]::bigint[]");
        next(id);
        Spi::run(&format!("SELECT shuffle_queue_drop({id})")).unwrap();
        let left = one(&format!(
            "SELECT (SELECT count(*) FROM shuffle_queue WHERE queue_id = {id}) \
                  + (SELECT count(*) FROM shuffle_queue_track WHERE queue_id = {id})"
        ));
        assert_eq!(left, Some(0));
    }

    #[pg_test]
    fn functions_declare_volatility_strictness_and_parallel_safety() {
        let declared = Spi::get_one::<String>(
            "SELECT string_agg(oid::regprocedure::text || ':' || provolatile::text || proisstrict::text \
                               || proparallel::text, ' ' ORDER BY oid::regprocedure::text) \
               FROM pg_proc WHERE proname LIKE 'shuffle_queue_%'",
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            declared,
            "shuffle_queue_add(bigint,bigint):vtrueu \
             shuffle_queue_add(bigint,bigint,integer):vtrueu \
             shuffle_queue_add(bigint,bigint,text,text):vfalseu \
             shuffle_queue_add_many(bigint,bigint[]):vtrueu \
             shuffle_queue_add_many(bigint,bigint[],integer[]):vtrueu \
             shuffle_queue_clear_up_next(bigint):vtrueu \
             shuffle_queue_create(bigint[],text,integer):vfalseu \
             shuffle_queue_current(bigint):vtruer shuffle_queue_drop(bigint):vtrueu \
             shuffle_queue_forget(bigint):vtrueu shuffle_queue_jump(bigint,bigint):vtrueu \
             shuffle_queue_new(bigint[],text,integer,text[],text[],bigint,bytea,integer[],bigint):vfalseu \
             shuffle_queue_new_albums(bigint[],text[],text[],bytea):vfalseu \
             shuffle_queue_next(bigint):vtrueu shuffle_queue_now(bigint,integer):vtrueu \
             shuffle_queue_play_later(bigint,bigint[]):vtrueu \
             shuffle_queue_play_next(bigint,bigint[]):vtrueu \
             shuffle_queue_played(bigint,integer,integer):vtruer shuffle_queue_prev(bigint):vtrueu \
             shuffle_queue_remove(bigint,bigint):vtrueu \
             shuffle_queue_remove_many(bigint,bigint[]):vtrueu shuffle_queue_restore(jsonb):vtrueu \
             shuffle_queue_save(bigint):vtrueu shuffle_queue_skip(bigint):vtrueu \
             shuffle_queue_skip_when_shuffling(bigint,bigint,boolean):vtrueu \
             shuffle_queue_up_next(bigint):vtrueu \
             shuffle_queue_upcoming(bigint,integer,integer):vtrueu"
        );
    }

    #[pg_test]
    fn a_spread_queue_keeps_artists_apart_and_plays_every_track_each_pass() {
        let id = one(
            "SELECT shuffle_queue_new(ARRAY[1, 2, 3, 4, 5, 6, 7, 8]::bigint[], \
                    groups => '{a,a,a,a,b,b,c,c}')",
        )
        .unwrap();
        let group = |t: i64| {
            if t <= 4 {
                'a'
            } else if t <= 6 {
                'b'
            } else {
                'c'
            }
        };
        let plays: Vec<i64> = (0..24).map(|_| next(id)).collect();
        for pass in plays.chunks(8) {
            let mut sorted = pass.to_vec();
            sorted.sort_unstable();
            assert_eq!(sorted, (1..=8).collect::<Vec<_>>(), "{plays:?}");
        }
        assert!(
            plays.windows(2).all(|w| group(w[0]) != group(w[1])),
            "{plays:?}"
        );
        assert_eq!(prev(id), Some(plays[22]));
        assert_eq!(current(id), Some(plays[22]));
        assert_eq!(next(id), plays[23]);
        let units = one(&format!(
            "SELECT count(*) FROM shuffle_queue_unit WHERE queue_id = {id}"
        ));
        assert_eq!(units, Some(3));
    }

    #[pg_test]
    fn up_next_plays_before_the_shuffle_and_a_jump_plays_now() {
        let id = new_queue("ARRAY[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]::bigint[]");
        let first = next(id);
        let later: Vec<i64> = (1..=10).filter(|&t| t != first).take(3).collect();
        one(&format!(
            "SELECT shuffle_queue_play_later({id}, ARRAY[{}, {}]::bigint[])",
            later[1], later[2]
        ));
        one(&format!(
            "SELECT shuffle_queue_play_next({id}, ARRAY[{}]::bigint[])",
            later[0]
        ));
        assert_eq!(
            (next(id), next(id), next(id)),
            (later[0], later[1], later[2])
        );
        assert_eq!(prev(id), Some(later[1]));
        assert_eq!(next(id), later[2], "a replay");
        assert_eq!(
            one(&format!("SELECT shuffle_queue_jump({id}, {first})")),
            Some(first)
        );
        assert_eq!(current(id), Some(first));
        assert_eq!(
            prev(id),
            Some(later[2]),
            "the jumped track left its old place"
        );
    }

    #[pg_test]
    fn null_queue_ids_give_null() {
        assert_eq!(one("SELECT shuffle_queue_next(NULL)"), None);
        assert_eq!(one("SELECT shuffle_queue_prev(NULL)"), None);
        assert_eq!(one("SELECT shuffle_queue_current(NULL)"), None);
    }

    #[pg_test]
    #[should_panic(expected = "items must not be NULL")]
    fn null_items_are_rejected() {
        Spi::run("SELECT shuffle_queue_create(NULL)").unwrap();
    }

    #[pg_test]
    #[should_panic(expected = "a shuffle queue needs at least one track")]
    fn empty_items_are_rejected() {
        Spi::run("SELECT shuffle_queue_create('{}'::bigint[])").unwrap();
    }

    #[pg_test]
    #[should_panic(expected = "items must not contain NULL (element 2 is NULL)")]
    fn null_elements_are_rejected() {
        Spi::run("SELECT shuffle_queue_create(ARRAY[1, NULL, 3]::bigint[])").unwrap();
    }

    #[pg_test]
    #[should_panic(expected = "track 3 appears more than once in the playlist")]
    fn duplicates_are_rejected() {
        Spi::run("SELECT shuffle_queue_create(ARRAY[3, 1, 3]::bigint[])").unwrap();
    }

    #[pg_test]
    #[should_panic(expected = "unknown shuffle queue mode \"repeat\"")]
    fn unknown_modes_are_rejected() {
        Spi::run("SELECT shuffle_queue_create(ARRAY[1, 2]::bigint[], 'repeat')").unwrap();
    }

    #[pg_test]
    #[should_panic(expected = "mode must not be NULL")]
    fn null_modes_are_rejected() {
        Spi::run("SELECT shuffle_queue_create(ARRAY[1, 2]::bigint[], NULL)").unwrap();
    }

    #[pg_test]
    #[should_panic(
        expected = "window 4 does not fit a shuffle queue of 4 tracks: it must be between 1 and 3"
    )]
    fn windows_that_do_not_fit_are_rejected() {
        Spi::run("SELECT shuffle_queue_create(ARRAY[1, 2, 3, 4]::bigint[], 'shuffle', 4)").unwrap();
    }

    #[pg_test]
    #[should_panic(expected = "shuffle queue -5 does not exist")]
    fn unknown_queues_are_rejected_by_next() {
        Spi::run("SELECT shuffle_queue_next(-5)").unwrap();
    }

    #[pg_test]
    #[should_panic(expected = "shuffle queue -5 does not exist")]
    fn unknown_queues_are_rejected_by_prev() {
        Spi::run("SELECT shuffle_queue_prev(-5)").unwrap();
    }

    #[pg_test]
    #[should_panic(expected = "shuffle queue -5 does not exist")]
    fn unknown_queues_are_rejected_by_current() {
        Spi::run("SELECT shuffle_queue_current(-5)").unwrap();
    }

    #[pg_test]
    #[should_panic(expected = "shuffle queue -5 does not exist")]
    fn unknown_queues_are_rejected_by_add() {
        Spi::run("SELECT shuffle_queue_add(-5, 1)").unwrap();
    }

    #[pg_test]
    #[should_panic(expected = "shuffle queue -5 does not exist")]
    fn unknown_queues_are_rejected_by_remove() {
        Spi::run("SELECT shuffle_queue_remove(-5, 1)").unwrap();
    }

    #[pg_test]
    #[should_panic(expected = "shuffle queue -5 does not exist")]
    fn unknown_queues_are_rejected_by_drop() {
        Spi::run("SELECT shuffle_queue_drop(-5)").unwrap();
    }

    #[pg_test]
    #[should_panic(expected = "track 2 is already in the queue")]
    fn adding_a_track_twice_is_rejected() {
        Spi::run("SELECT shuffle_queue_add(shuffle_queue_create(ARRAY[1, 2]::bigint[]), 2)")
            .unwrap();
    }

    #[pg_test]
    #[should_panic(expected = "track 9 is not in the queue")]
    fn removing_a_missing_track_is_rejected() {
        Spi::run("SELECT shuffle_queue_remove(shuffle_queue_create(ARRAY[1, 2]::bigint[]), 9)")
            .unwrap();
    }

    #[pg_test]
    #[should_panic(expected = "track 1 is the only one in the queue: drop the queue instead")]
    fn removing_the_last_track_is_rejected() {
        Spi::run("SELECT shuffle_queue_remove(shuffle_queue_create(ARRAY[1]::bigint[]), 1)")
            .unwrap();
    }
}
