//! SQL functions for shuffle queues, with their state in the extension's tables.
//!
//! Every function locks the queue row (FOR UPDATE) before it reads the state, so two sessions
//! pressing next on one queue take turns and get two successive picks. The algorithm is
//! `dealcards_core::playlist`; this layer loads a queue's row, hands the core a [`Tape`] over the
//! queue's rows in shuffle_queue_track, and stores the row back. Statements are run the one
//! way of [`crate::statements`]: kept plans, qualified names only.

use pgrx::datum::DatumWithOid;
use pgrx::prelude::*;
use pgrx::spi::{SpiClient, SpiTupleTable};

use crate::arrays::IntArray;
use crate::statements::{self, ExtensionSchema};
use crate::text::TextBytes;
use crate::{check_for_interrupts, ok_or_raise, raise};
use dealcards_core::error::{Error, ErrorKind};
use dealcards_core::playlist::{check_playlist, starting_order, Mode, Queue, Tape};

extension_sql_file!("../sql/playlist.sql", name = "playlist_tables");

/// The first column of the first row, if there is a row.
fn first_value<T: FromDatum + IntoDatum>(table: SpiTupleTable) -> Option<T> {
    if table.is_empty() {
        return None;
    }
    table
        .first()
        .get_one::<T>()
        .unwrap_or_else(|e| error!("cannot read a shuffle queue row: {e}"))
}

fn no_such_queue(queue_id: i64) -> ! {
    raise(Error::new(
        ErrorKind::NotFound,
        format!("shuffle queue {queue_id} does not exist"),
    ))
}

const LOAD: &str = "SELECT mode, window_size, tracks, front, history, behind \
                    FROM @extschema@.shuffle_queue WHERE queue_id OPERATOR(pg_catalog.=) $1";
const LOAD_FOR_UPDATE: &str = "SELECT mode, window_size, tracks, front, history, behind \
                               FROM @extschema@.shuffle_queue \
                               WHERE queue_id OPERATOR(pg_catalog.=) $1 FOR UPDATE";

/// Reads a queue's row, locking it when the caller will change the queue.
fn load(client: &mut SpiClient, schema: &ExtensionSchema, queue_id: i64, lock: bool) -> Queue {
    let sql = if lock { LOAD_FOR_UPDATE } else { LOAD };
    let table = statements::run(client, schema, sql, &[queue_id.into()]);
    if table.is_empty() {
        no_such_queue(queue_id);
    }
    let row = table.first();
    let column = |n: usize| -> i64 {
        row.get::<i64>(n)
            .ok()
            .flatten()
            .unwrap_or_else(|| error!("shuffle queue {queue_id} has a broken row"))
    };
    let mode: String = row.get(1).ok().flatten().unwrap_or_default();
    let window: Option<i32> = row.get(2).ok().flatten();
    Queue {
        mode: ok_or_raise(Mode::parse(&mode)),
        window: window.map(|w| w as u64),
        tracks: column(3) as u64,
        front: column(4),
        history: column(5) as u64,
        behind: column(6) as u64,
    }
}

/// Writes back the parts of a queue's row a step changes.
fn store(client: &mut SpiClient, schema: &ExtensionSchema, queue_id: i64, queue: &Queue) {
    statements::run(
        client,
        schema,
        "UPDATE @extschema@.shuffle_queue \
            SET tracks = $2, front = $3, history = $4, behind = $5 \
          WHERE queue_id OPERATOR(pg_catalog.=) $1",
        &[
            queue_id.into(),
            (queue.tracks as i64).into(),
            queue.front.into(),
            (queue.history as i64).into(),
            (queue.behind as i64).into(),
        ],
    );
}

/// A queue's positions: its rows in shuffle_queue_track, one per position.
struct TableTape<'a, 'conn> {
    client: &'a mut SpiClient<'conn>,
    schema: &'a ExtensionSchema,
    queue_id: i64,
}

impl TableTape<'_, '_> {
    fn run(&mut self, sql: &'static str, more: &[i64]) -> SpiTupleTable<'_> {
        let mut args: Vec<DatumWithOid> = vec![self.queue_id.into()];
        args.extend(more.iter().map(|&v| DatumWithOid::from(v)));
        statements::run(self.client, self.schema, sql, &args)
    }

    fn missing(&self, position: i64) -> ! {
        error!(
            "shuffle queue {} has no track at position {position}: its rows were changed outside the shuffle_queue functions",
            self.queue_id
        )
    }
}

impl Tape for TableTape<'_, '_> {
    fn track_at(&mut self, position: i64) -> i64 {
        let table = self.run(
            "SELECT track FROM @extschema@.shuffle_queue_track \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND position OPERATOR(pg_catalog.=) $2",
            &[position],
        );
        first_value(table).unwrap_or_else(|| self.missing(position))
    }

    fn find(&mut self, track: i64) -> Option<i64> {
        let table = self.run(
            "SELECT position FROM @extschema@.shuffle_queue_track \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND track OPERATOR(pg_catalog.=) $2",
            &[track],
        );
        first_value(table)
    }

    fn pick(&mut self, front: i64, drawn: i64, end: i64) -> i64 {
        // One statement: the front row becomes position `end` holding the drawn track, the drawn
        // row takes the front track (when drawn = front, the row just moves to `end`).
        let table = self.run(
            "UPDATE @extschema@.shuffle_queue_track t \
                SET position = CASE WHEN t.position OPERATOR(pg_catalog.=) $2 \
                                    THEN $4 ELSE t.position END, \
                    track = other.track \
               FROM @extschema@.shuffle_queue_track other \
              WHERE t.queue_id OPERATOR(pg_catalog.=) $1 \
                AND t.position OPERATOR(pg_catalog.=) ANY (ARRAY[$2, $3]) \
                AND other.queue_id OPERATOR(pg_catalog.=) $1 \
                AND other.position OPERATOR(pg_catalog.=) \
                    CASE WHEN t.position OPERATOR(pg_catalog.=) $2 THEN $3 ELSE $2 END \
             RETURNING t.position, t.track",
            &[front, drawn, end],
        );
        let mut played = None;
        for row in table {
            if row.get::<i64>(1).ok().flatten() == Some(end) {
                played = row.get::<i64>(2).ok().flatten();
            }
        }
        played.unwrap_or_else(|| self.missing(drawn))
    }

    fn insert_front(&mut self, new_front: i64, target: i64, track: i64) {
        if target == new_front {
            self.run(
                "INSERT INTO @extschema@.shuffle_queue_track (queue_id, position, track) \
                 VALUES ($1, $2, $3)",
                &[new_front, track],
            );
            return;
        }
        let moved = self.run(
            "INSERT INTO @extschema@.shuffle_queue_track (queue_id, position, track) \
             SELECT $1, $2, track FROM @extschema@.shuffle_queue_track \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND position OPERATOR(pg_catalog.=) $3",
            &[new_front, target],
        );
        if moved.len() != 1 {
            self.missing(target);
        }
        self.run(
            "UPDATE @extschema@.shuffle_queue_track SET track = $3 \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND position OPERATOR(pg_catalog.=) $2",
            &[target, track],
        );
    }

    fn fill_from_front(&mut self, front: i64, hole: i64) {
        if hole != front {
            self.run(
                "UPDATE @extschema@.shuffle_queue_track t SET track = f.track \
                   FROM @extschema@.shuffle_queue_track f \
                  WHERE t.queue_id OPERATOR(pg_catalog.=) $1 AND t.position OPERATOR(pg_catalog.=) $3 \
                    AND f.queue_id OPERATOR(pg_catalog.=) $1 AND f.position OPERATOR(pg_catalog.=) $2",
                &[front, hole],
            );
        }
        self.run(
            "DELETE FROM @extschema@.shuffle_queue_track \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND position OPERATOR(pg_catalog.=) $2",
            &[front],
        );
    }

    fn close_down(&mut self, hole: i64, last: i64) {
        self.run(
            "UPDATE @extschema@.shuffle_queue_track t SET track = n.track \
               FROM @extschema@.shuffle_queue_track n \
              WHERE t.queue_id OPERATOR(pg_catalog.=) $1 \
                AND t.position OPERATOR(pg_catalog.>=) $2 AND t.position OPERATOR(pg_catalog.<) $3 \
                AND n.queue_id OPERATOR(pg_catalog.=) $1 \
                AND n.position OPERATOR(pg_catalog.=) (t.position OPERATOR(pg_catalog.+) 1)",
            &[hole, last],
        );
        self.run(
            "DELETE FROM @extschema@.shuffle_queue_track \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND position OPERATOR(pg_catalog.=) $2",
            &[last],
        );
    }

    fn close_up(&mut self, front: i64, start: i64, hole: i64) {
        self.run(
            "UPDATE @extschema@.shuffle_queue_track t SET track = p.track \
               FROM @extschema@.shuffle_queue_track p \
              WHERE t.queue_id OPERATOR(pg_catalog.=) $1 \
                AND t.position OPERATOR(pg_catalog.>) $2 AND t.position OPERATOR(pg_catalog.<=) $3 \
                AND p.queue_id OPERATOR(pg_catalog.=) $1 \
                AND p.position OPERATOR(pg_catalog.=) (t.position OPERATOR(pg_catalog.-) 1)",
            &[start, hole],
        );
        self.fill_from_front(front, start);
    }
}

/// Copies the items into `tracks`, checks them and shuffles them into the queue's first order.
fn starting_tape(tracks: &mut [i64], items: &Array<i64>) -> Result<(), Error> {
    for (i, (slot, item)) in tracks.iter_mut().zip(items.iter()).enumerate() {
        *slot = item.ok_or_else(|| {
            Error::invalid(format!(
                "items must not contain NULL (element {} is NULL)",
                i + 1
            ))
        })?;
    }
    check_playlist(tracks)?;
    crate::with_live(|stream| starting_order(tracks, stream, &mut check_for_interrupts))
}

/// A new shuffle queue over the tracks, shuffled once (Fisher-Yates) so the start is random;
/// returns its id. Not strict: NULL items or mode raise 22023 like any other bad argument.
#[pg_extern(volatile, parallel_unsafe)]
fn shuffle_queue_create(
    items: Option<Array<i64>>,
    mode: default!(Option<TextBytes>, "'shuffle'"),
    window: default!(Option<i32>, "NULL"),
    fcinfo: pg_sys::FunctionCallInfo,
) -> i64 {
    let Some(items) = items else {
        raise(Error::invalid("items must not be NULL"));
    };
    let Some(mode) = mode else {
        raise(Error::invalid(
            "mode must not be NULL: expected \"shuffle\" or \"random\"",
        ));
    };
    let mode = ok_or_raise(Mode::parse_bytes(mode.0));
    let queue = ok_or_raise(Queue::new(mode, items.len(), window.map(i64::from)));
    // The tape's first content is built in place in the bigint[] handed to the INSERT: one copy
    // of the playlist, however long.
    let mut outcome = Ok(());
    let tracks = ok_or_raise(IntArray::<i64>::build(items.len(), |tracks| {
        outcome = starting_tape(tracks, &items);
    }));
    ok_or_raise(outcome);
    let schema = ExtensionSchema::of(fcinfo);
    Spi::connect_mut(|client| {
        // On a Citus worker, ids come from the node's own range (crate::citus).
        let id_base = crate::citus::id_base(client, &schema);
        let table = statements::run(
            client,
            &schema,
            "INSERT INTO @extschema@.shuffle_queue \
                    (queue_id, mode, window_size, tracks, front, history, behind) \
             VALUES ($7 OPERATOR(pg_catalog.+) pg_catalog.nextval('@extschema@.shuffle_queue_id_seq'::pg_catalog.regclass), \
                     $1, $2, $3, $4, $5, $6) RETURNING queue_id",
            &[
                queue.mode.name().into(),
                window.into(),
                (queue.tracks as i64).into(),
                queue.front.into(),
                (queue.history as i64).into(),
                (queue.behind as i64).into(),
                id_base.into(),
            ],
        );
        let queue_id: i64 =
            first_value(table).unwrap_or_else(|| error!("no id for the new shuffle queue"));
        // One statement for the whole playlist: positions 0 .. tracks - 1 in the shuffled order.
        statements::run(
            client,
            &schema,
            "INSERT INTO @extschema@.shuffle_queue_track (queue_id, position, track) \
             SELECT $1, t.ordinality OPERATOR(pg_catalog.-) 1, t.track \
               FROM pg_catalog.unnest($2::bigint[]) WITH ORDINALITY AS t(track, ordinality)",
            &[queue_id.into(), tracks.into()],
        );
        queue_id
    })
}

/// The next track: a new pick when the play position is at the newest pick, else a replay of
/// what played after it.
#[pg_extern(volatile, strict, parallel_unsafe)]
fn shuffle_queue_next(queue_id: i64, fcinfo: pg_sys::FunctionCallInfo) -> i64 {
    let schema = ExtensionSchema::of(fcinfo);
    Spi::connect_mut(|client| {
        let mut queue = load(client, &schema, queue_id, true);
        let track = ok_or_raise(crate::with_live(|stream| {
            queue.next(
                &mut TableTape {
                    client: &mut *client,
                    schema: &schema,
                    queue_id,
                },
                stream,
            )
        }));
        store(client, &schema, queue_id, &queue);
        track
    })
}

/// The previous track: the play position steps back through what played. NULL before the first
/// next; at the oldest track remembered, that track again.
#[pg_extern(volatile, strict, parallel_unsafe)]
fn shuffle_queue_prev(queue_id: i64, fcinfo: pg_sys::FunctionCallInfo) -> Option<i64> {
    let schema = ExtensionSchema::of(fcinfo);
    Spi::connect_mut(|client| {
        let mut queue = load(client, &schema, queue_id, true);
        let behind = queue.behind;
        let track = queue.prev(&mut TableTape {
            client,
            schema: &schema,
            queue_id,
        });
        if queue.behind != behind {
            store(client, &schema, queue_id, &queue);
        }
        track
    })
}

/// The track at the play position; NULL before the first next.
// VOLATILE: another session's next changes the answer while a statement runs, and a STABLE
// function would promise the planner it does not.
#[pg_extern(volatile, strict, parallel_restricted)]
fn shuffle_queue_current(queue_id: i64, fcinfo: pg_sys::FunctionCallInfo) -> Option<i64> {
    let schema = ExtensionSchema::of(fcinfo);
    Spi::connect_mut(|client| {
        let queue = load(client, &schema, queue_id, false);
        queue.current(&mut TableTape {
            client,
            schema: &schema,
            queue_id,
        })
    })
}

/// Adds a track at a random place among those not played recently; returns the new length.
#[pg_extern(volatile, strict, parallel_unsafe)]
fn shuffle_queue_add(queue_id: i64, item: i64, fcinfo: pg_sys::FunctionCallInfo) -> i64 {
    let schema = ExtensionSchema::of(fcinfo);
    Spi::connect_mut(|client| {
        let mut queue = load(client, &schema, queue_id, true);
        ok_or_raise(ok_or_raise(crate::with_live(|stream| {
            queue.add(
                &mut TableTape {
                    client: &mut *client,
                    schema: &schema,
                    queue_id,
                },
                stream,
                item,
            )
        })));
        store(client, &schema, queue_id, &queue);
        queue.tracks as i64
    })
}

/// Takes a track out, keeping the order of what played; returns the new length.
#[pg_extern(volatile, strict, parallel_unsafe)]
fn shuffle_queue_remove(queue_id: i64, item: i64, fcinfo: pg_sys::FunctionCallInfo) -> i64 {
    let schema = ExtensionSchema::of(fcinfo);
    Spi::connect_mut(|client| {
        let mut queue = load(client, &schema, queue_id, true);
        ok_or_raise(queue.remove(
            &mut TableTape {
                client,
                schema: &schema,
                queue_id,
            },
            item,
        ));
        store(client, &schema, queue_id, &queue);
        queue.tracks as i64
    })
}

/// Drops a queue and its tracks.
#[pg_extern(volatile, strict, parallel_unsafe)]
fn shuffle_queue_drop(queue_id: i64, fcinfo: pg_sys::FunctionCallInfo) {
    let schema = ExtensionSchema::of(fcinfo);
    Spi::connect_mut(|client| {
        let dropped = statements::run(
            client,
            &schema,
            "DELETE FROM @extschema@.shuffle_queue WHERE queue_id OPERATOR(pg_catalog.=) $1",
            &[queue_id.into()],
        );
        if dropped.is_empty() {
            no_such_queue(queue_id);
        }
        statements::run(
            client,
            &schema,
            "DELETE FROM @extschema@.shuffle_queue_track WHERE queue_id OPERATOR(pg_catalog.=) $1",
            &[queue_id.into()],
        );
    })
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
            "SELECT string_agg(proname || ':' || provolatile::text || proisstrict::text || proparallel::text, ' ' \
                               ORDER BY proname) \
               FROM pg_proc WHERE proname LIKE 'shuffle_queue_%'",
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            declared,
            "shuffle_queue_add:vtrueu shuffle_queue_create:vfalseu shuffle_queue_current:vtruer \
             shuffle_queue_drop:vtrueu shuffle_queue_next:vtrueu shuffle_queue_prev:vtrueu \
             shuffle_queue_remove:vtrueu"
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
