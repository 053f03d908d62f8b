//! Every statement on the shuffle queue tables, behind [`QueueStore`]: the queue row, the plain
//! queue's tape ([`Tape`]) and a spread queue's units, tracks and history ([`Groups`]). The
//! algorithms are `dealcards_core::playlist`; nothing here decides anything about a queue.
//!
//! The library serves a database still on the 0.4.0 tables until `ALTER EXTENSION dealcards
//! UPDATE`: there the queue row has only the columns of a plain queue ([`Layout::Before0_5`]), and
//! only plain queues exist.

use pgrx::datum::DatumWithOid;
use pgrx::prelude::*;
use pgrx::spi::{SpiClient, SpiTupleTable};

use crate::statements::{self, Columns, ExtensionSchema};
use crate::{raise, with_live};
use dealcards_core::error::{Error, ErrorKind};
use dealcards_core::playlist::groups::{Groups, LeftKey, Lookahead, SpreadQueue, TargetKey, Unit};
use dealcards_core::playlist::{operation_stream, Mode, Queue, Tape};
use dealcards_core::rng::Stream;

/// Which queue tables a database has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// 0.4.0 and before: plain queues only, the queue row without the 0.5.0 columns.
    Before0_5,
    /// 0.5.0: spread queues too.
    Current,
}

impl Layout {
    pub fn of(schema: &ExtensionSchema) -> Layout {
        if schema.has_column(c"shuffle_queue", c"levels") {
            Layout::Current
        } else {
            Layout::Before0_5
        }
    }
}

/// A queue as its row holds it.
#[derive(Debug, Clone)]
pub enum State {
    /// A plain queue (shuffle or random): its tape holds the tracks and the history.
    Tape(Queue),
    /// A queue spread by group: units, their tracks, and a history of its own.
    Spread(SpreadQueue),
}

fn no_such_queue(queue_id: i64) -> ! {
    raise(Error::new(
        ErrorKind::NotFound,
        format!("shuffle queue {queue_id} does not exist"),
    ))
}

/// What the queue row holds besides the algorithm's state: written back with it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Extra {
    /// How many tracks are up next (rows of shuffle_queue_up_next).
    pub up_next: i64,
    /// A seeded queue's seed, and how many of its operations have drawn their stream.
    pub seed: Option<[u8; 32]>,
    pub draws: i64,
    /// A weighted queue's heaviest weight (every track's weight is at most this).
    pub weight_max: Option<u64>,
    /// The listener a queue plays for, and how many plays it has recorded for them.
    pub listener: Option<i64>,
    pub plays: i64,
}

impl Extra {
    /// The stream of the next operation of a seeded queue (counted), None for a live queue.
    pub fn next_stream(&mut self) -> Option<Stream> {
        let seed = self.seed?;
        self.draws += 1;
        Some(operation_stream(&seed, self.draws as u64))
    }
}

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

const LOAD_0_4: &str = "SELECT mode, window_size, tracks, front, history, behind \
                        FROM @extschema@.shuffle_queue WHERE queue_id OPERATOR(pg_catalog.=) $1";
const LOAD_0_4_FOR_UPDATE: &str = "SELECT mode, window_size, tracks, front, history, behind \
                                   FROM @extschema@.shuffle_queue \
                                   WHERE queue_id OPERATOR(pg_catalog.=) $1 FOR UPDATE";
/// The queue's row, and with it (one row each, NULL for none) the units a spread queue's next
/// step reads first: the two earliest and the largest of its lookahead, and the group placed
/// last (the ids [`prefetch_ids`] names). The units are read in the statement's snapshot: when
/// the lock waited for another session's step, the row locked is newer than that snapshot
/// (`units_fresh` is false) and the units read with it are not used.
macro_rules! load_sql {
    ($lock:literal) => {
        concat!(
            "SELECT q.mode, q.window_size, q.tracks, q.front, q.history, q.behind, q.levels, \
                    q.pass, q.pass_left, q.last_group, q.next_unit, q.ahead_target, q.ahead_left, \
                    q.up_next, q.seed, q.draws, q.weight_max, q.listener, q.plays, \
                    u.unit_id AS unit_unit_id, u.parent AS unit_parent, u.size AS unit_size, \
                    u.to_place AS unit_to_place, u.placed AS unit_placed, u.pass AS unit_pass, \
                    u.shift AS unit_shift, u.target AS unit_target, \
                    u.last_child AS unit_last_child, u.ahead_target AS unit_ahead_target, \
                    u.ahead_left AS unit_ahead_left, \
                    q.xmin OPERATOR(pg_catalog.=) (SELECT s.xmin FROM @extschema@.shuffle_queue s \
                        WHERE s.queue_id OPERATOR(pg_catalog.=) $1) AS units_fresh \
               FROM @extschema@.shuffle_queue q \
               LEFT JOIN @extschema@.shuffle_queue_unit u \
                 ON u.queue_id OPERATOR(pg_catalog.=) q.queue_id \
                AND u.unit_id OPERATOR(pg_catalog.=) ANY (ARRAY[q.ahead_target[4], \
                    q.ahead_target[6], q.ahead_left[5], q.last_group]) \
              WHERE q.queue_id OPERATOR(pg_catalog.=) $1",
            $lock
        )
    };
}
const LOAD: &str = load_sql!("");
const LOAD_FOR_UPDATE: &str = load_sql!(" FOR UPDATE OF q");

/// The statement of a spread queue's step: the swap of two slots of a leaf unit, the one or two
/// units it changed, and the queue's row; then the counts of the rows each changed. `record` adds
/// a CTE after them (its text beginning with a comma) and `count` its column.
macro_rules! place_sql {
    ($record:literal, $count:literal) => {
        concat!(
            "WITH moved AS ( \
                 UPDATE @extschema@.shuffle_queue_member m SET track = o.track \
                   FROM @extschema@.shuffle_queue_member o \
                  WHERE m.queue_id OPERATOR(pg_catalog.=) $1 AND m.unit_id OPERATOR(pg_catalog.=) $2 \
                    AND m.slot OPERATOR(pg_catalog.=) ANY (ARRAY[$3, $4]) \
                    AND o.queue_id OPERATOR(pg_catalog.=) $1 AND o.unit_id OPERATOR(pg_catalog.=) $2 \
                    AND o.slot OPERATOR(pg_catalog.=) \
                        CASE WHEN m.slot OPERATOR(pg_catalog.=) $3 THEN $4 ELSE $3 END \
                 RETURNING m.slot, m.track), \
             saved AS ( \
                 UPDATE @extschema@.shuffle_queue_unit u \
                    SET size = CASE WHEN u.unit_id OPERATOR(pg_catalog.=) $5 THEN $6 ELSE $16 END, \
                        to_place = CASE WHEN u.unit_id OPERATOR(pg_catalog.=) $5 THEN $7 ELSE $17 END, \
                        placed = CASE WHEN u.unit_id OPERATOR(pg_catalog.=) $5 THEN $8 ELSE $18 END, \
                        pass = CASE WHEN u.unit_id OPERATOR(pg_catalog.=) $5 THEN $9 ELSE $19 END, \
                        shift = CASE WHEN u.unit_id OPERATOR(pg_catalog.=) $5 THEN $10 ELSE $20 END, \
                        target = CASE WHEN u.unit_id OPERATOR(pg_catalog.=) $5 THEN $11 ELSE $21 END, \
                        last_child = CASE WHEN u.unit_id OPERATOR(pg_catalog.=) $5 THEN $12 ELSE $22 END, \
                        ahead_target = CASE WHEN u.unit_id OPERATOR(pg_catalog.=) $5 THEN $13 ELSE $23 END, \
                        ahead_left = CASE WHEN u.unit_id OPERATOR(pg_catalog.=) $5 THEN $14 ELSE $24 END \
                  WHERE u.queue_id OPERATOR(pg_catalog.=) $1 \
                    AND u.unit_id OPERATOR(pg_catalog.=) ANY (ARRAY[$5, $15]) \
                 RETURNING u.unit_id), \
             queued AS ( \
                 UPDATE @extschema@.shuffle_queue \
                    SET tracks = $25, front = $26, history = $27, behind = $28, pass = $29, \
                        pass_left = $30, last_group = $31, next_unit = $32, ahead_target = $33, \
                        ahead_left = $34, up_next = $35, draws = $36, plays = $37 \
                  WHERE queue_id OPERATOR(pg_catalog.=) $1 \
                 RETURNING queue_id)",
            $record,
            " \
             SELECT (SELECT track FROM moved WHERE slot OPERATOR(pg_catalog.=) $4) AS track, \
                    (SELECT pg_catalog.count(*) FROM moved) AS moved, \
                    (SELECT pg_catalog.count(*) FROM saved) AS saved, \
                    (SELECT pg_catalog.count(*) FROM queued) AS queued",
            $count
        )
    };
}

/// The statement of a pick: the tape's row at position `front` becomes position `end` holding
/// the track at position `drawn`, and the row at `drawn` takes the front track (when drawn =
/// front, the row just moves to `end`); returns the rows changed. `from` names what the
/// positions read besides the tape (`"chosen, "` when `drawn` is a column of a CTE).
macro_rules! pick_sql {
    ($from:literal, $front:literal, $drawn:literal, $end:literal) => {
        concat!(
            "UPDATE @extschema@.shuffle_queue_track t \
                SET position = CASE WHEN t.position OPERATOR(pg_catalog.=) ",
            $front,
            " \
                                    THEN ",
            $end,
            " ELSE t.position END, \
                    track = other.track \
               FROM ",
            $from,
            "@extschema@.shuffle_queue_track other \
              WHERE t.queue_id OPERATOR(pg_catalog.=) $1 \
                AND t.position OPERATOR(pg_catalog.=) ANY (ARRAY[",
            $front,
            ", ",
            $drawn,
            "]) \
                AND other.queue_id OPERATOR(pg_catalog.=) $1 \
                AND other.position OPERATOR(pg_catalog.=) \
                    CASE WHEN t.position OPERATOR(pg_catalog.=) ",
            $front,
            " \
                         THEN ",
            $drawn,
            " ELSE ",
            $front,
            " END \
             RETURNING t.position, t.track"
        )
    };
}

/// The units the load statement reads with a spread queue's row: the ids at
/// `ahead_target[4]`, `ahead_target[6]`, `ahead_left[5]` (SQL's subscripts) and `last_group`,
/// as the decoded lookahead has them.
fn prefetch_ids(top: &Lookahead, last_group: i64) -> Vec<i64> {
    let mut ids: Vec<i64> = top.earliest.iter().take(2).map(|k| k.1).collect();
    ids.extend(top.largest.first().map(|k| k.1));
    ids.push(last_group);
    ids
}

/// A lookahead as its two columns hold it: `[bound target, bound id, target, id, ...]` and
/// `[pass, bound left, bound id, left, id, ...]`; NULL for one never read.
fn encode_lookahead(ahead: &Lookahead) -> (Vec<i64>, Vec<i64>) {
    let mut earliest = vec![ahead.earliest_bound.0, ahead.earliest_bound.1];
    earliest.extend(ahead.earliest.iter().flat_map(|&(t, id)| [t, id]));
    let mut largest = vec![ahead.pass, ahead.largest_bound.0, ahead.largest_bound.1];
    largest.extend(ahead.largest.iter().flat_map(|&(l, id)| [l, id]));
    (earliest, largest)
}

fn decode_lookahead(earliest: Option<Vec<i64>>, largest: Option<Vec<i64>>) -> Lookahead {
    let mut ahead = Lookahead::default();
    let pairs = |values: &[i64]| -> Vec<(i64, i64)> {
        values.chunks_exact(2).map(|p| (p[0], p[1])).collect()
    };
    if let Some(e) = earliest.filter(|e| e.len() >= 2 && e.len() % 2 == 0) {
        ahead.earliest_bound = (e[0], e[1]);
        ahead.earliest = pairs(&e[2..]);
    }
    if let Some(l) = largest.filter(|l| l.len() >= 3 && l.len() % 2 == 1) {
        ahead.pass = l[0];
        ahead.largest_bound = (l[1], l[2]);
        ahead.largest = pairs(&l[3..]);
    }
    ahead
}

/// Reads one unit from a row of the unit table's statements.
fn unit_of(row: &impl Columns) -> Unit {
    unit_named(row, |name| name.to_string())
}

/// Reads one unit from a row whose unit columns are named `name(column)`.
fn unit_named(row: &impl Columns, name: impl Fn(&str) -> String) -> Unit {
    let count = |column: &str| -> u64 { row.required::<i64>(&name(column)) as u64 };
    Unit {
        id: row.required(&name("unit_id")),
        parent: row.required(&name("parent")),
        size: count("size"),
        left: count("to_place"),
        placed: count("placed"),
        pass: row.required(&name("pass")),
        offset: count("shift"),
        target: row.required(&name("target")),
        last_child: row.required(&name("last_child")),
        children: decode_lookahead(
            row.value(&name("ahead_target")),
            row.value(&name("ahead_left")),
        ),
    }
}

/// The statements of one queue, on one SPI connection.
pub struct QueueStore<'a, 'conn> {
    pub client: &'a mut SpiClient<'conn>,
    pub schema: &'a ExtensionSchema,
    pub queue_id: i64,
    pub layout: Layout,
    /// The names of the units the next calls of [`Groups::create`] make, in order (an add's
    /// group, then its subgroup).
    pub names: Vec<Option<DatumWithOid<'a>>>,
    /// Whether a statement has written the queue's row with its final state already.
    pub row_written: bool,
    /// The queue row's other columns, as loaded, changed by the caller, written back with it.
    pub extra: Extra,
    /// Whether the caller changes the queue (it loaded it locked): if not, every statement runs
    /// read-only and takes no transaction id, so that reading a queue works on a hot standby
    /// and in a READ ONLY transaction.
    writes: bool,
    /// The units the load statement read with a spread queue's row: the ids it looked for, and
    /// those of them that exist. Forgotten at the first statement that is not a plain SELECT.
    prefetched: Option<(Vec<i64>, Vec<Unit>)>,
    /// Where a track is on the tape, found by the statement that took it off the list up next:
    /// the answer of the next [`Tape::find`] of that track. Forgotten as `prefetched` is.
    found: Option<(i64, Option<i64>)>,
}

impl<'a, 'conn> QueueStore<'a, 'conn> {
    pub fn new(
        client: &'a mut SpiClient<'conn>,
        schema: &'a ExtensionSchema,
        queue_id: i64,
    ) -> Self {
        let layout = Layout::of(schema);
        QueueStore {
            client,
            schema,
            queue_id,
            layout,
            names: Vec::new(),
            row_written: false,
            extra: Extra::default(),
            writes: true,
            prefetched: None,
            found: None,
        }
    }

    fn run(&mut self, sql: &'static str, args: &[DatumWithOid]) -> SpiTupleTable<'conn> {
        if !sql.starts_with("SELECT") {
            self.prefetched = None;
            self.found = None;
        }
        if self.writes {
            statements::run(self.client, self.schema, sql, args)
        } else {
            statements::read(self.client, self.schema, sql, args)
        }
    }

    /// Runs `sql` with the queue id as `$1` and `more` after it.
    fn run_ids(&mut self, sql: &'static str, more: &[i64]) -> SpiTupleTable<'conn> {
        let mut args: Vec<DatumWithOid> = vec![self.queue_id.into()];
        args.extend(more.iter().map(|&v| DatumWithOid::from(v)));
        self.run(sql, &args)
    }

    /// Reads the queue's row, locking it when the caller will change the queue; raises P0002
    /// for a queue that does not exist.
    pub fn load(&mut self, lock: bool) -> State {
        self.writes = lock;
        let sql = match (self.layout, lock) {
            (Layout::Before0_5, false) => LOAD_0_4,
            (Layout::Before0_5, true) => LOAD_0_4_FOR_UPDATE,
            (Layout::Current, false) => LOAD,
            (Layout::Current, true) => LOAD_FOR_UPDATE,
        };
        let table = self.run_ids(sql, &[]);
        if table.is_empty() {
            no_such_queue(self.queue_id);
        }
        let row = table.first();
        // tracks, front, history and behind are NOT NULL.
        let count = |name: &str| -> u64 { row.required::<i64>(name) as u64 };
        let mode: String = row.required("mode");
        let tracks = count("tracks");
        let front = row.required("front");
        let history = count("history");
        let behind = count("behind");
        if self.layout == Layout::Current {
            let seed: Option<Vec<u8>> = row.value("seed");
            self.extra = Extra {
                up_next: row.value::<i32>("up_next").unwrap_or(0) as i64,
                seed: seed.map(|s| {
                    s.try_into()
                        .unwrap_or_else(|_| self.missing("seed of 32 bytes".into()))
                }),
                draws: row.value("draws").unwrap_or(0),
                weight_max: row.value::<i32>("weight_max").map(|w| w as u64),
                listener: row.value("listener"),
                plays: row.value("plays").unwrap_or(0),
            };
        }
        if mode == "spread" {
            let levels: i16 = row.required("levels");
            let queue = SpreadQueue {
                levels: levels as u8,
                tracks,
                pass: row.required("pass"),
                pass_left: count("pass_left"),
                last_group: row.required("last_group"),
                next_unit: row.required("next_unit"),
                top: decode_lookahead(row.value("ahead_target"), row.value("ahead_left")),
                front,
                history,
                behind,
            };
            if self.layout == Layout::Current && row.value::<bool>("units_fresh") == Some(true) {
                let units = row
                    .rewind()
                    .filter(|row| row.value::<i64>("unit_unit_id").is_some())
                    .map(|row| unit_named(&row, |column| format!("unit_{column}")))
                    .collect();
                self.prefetched = Some((prefetch_ids(&queue.top, queue.last_group), units));
            }
            State::Spread(queue)
        } else {
            let window: Option<i32> = row.value("window_size");
            State::Tape(Queue {
                mode: Mode::parse(&mode).unwrap_or_else(|e| raise(e)),
                window: window.map(|w| w as u64),
                tracks,
                front,
                history,
                behind,
            })
        }
    }

    /// Writes back the parts of a queue's row a step changes.
    pub fn store(&mut self, state: &State) {
        if self.row_written {
            return;
        }
        match state {
            State::Tape(queue) if self.layout == Layout::Before0_5 => {
                self.run(
                    "UPDATE @extschema@.shuffle_queue \
                        SET tracks = $2, front = $3, history = $4, behind = $5 \
                      WHERE queue_id OPERATOR(pg_catalog.=) $1",
                    &[
                        self.queue_id.into(),
                        (queue.tracks as i64).into(),
                        queue.front.into(),
                        (queue.history as i64).into(),
                        (queue.behind as i64).into(),
                    ],
                );
            }
            State::Tape(queue) => {
                self.run(
                    "UPDATE @extschema@.shuffle_queue \
                        SET tracks = $2, front = $3, history = $4, behind = $5, up_next = $6, \
                            draws = $7, weight_max = $8, listener = $9, plays = $10 \
                      WHERE queue_id OPERATOR(pg_catalog.=) $1",
                    &[
                        self.queue_id.into(),
                        (queue.tracks as i64).into(),
                        queue.front.into(),
                        (queue.history as i64).into(),
                        (queue.behind as i64).into(),
                        self.up_next_column(),
                        self.draws_column(),
                        self.extra.weight_max.map(|w| w as i32).into(),
                        self.extra.listener.into(),
                        self.plays_column(),
                    ],
                );
            }
            State::Spread(queue) => {
                let (ahead_target, ahead_left) = encode_lookahead(&queue.top);
                self.run(
                    "UPDATE @extschema@.shuffle_queue \
                        SET tracks = $2, front = $3, history = $4, behind = $5, \
                            pass = $6, pass_left = $7, last_group = $8, next_unit = $9, \
                            ahead_target = $10, ahead_left = $11, up_next = $12, draws = $13, \
                            listener = $14, plays = $15 \
                      WHERE queue_id OPERATOR(pg_catalog.=) $1",
                    &[
                        self.queue_id.into(),
                        (queue.tracks as i64).into(),
                        queue.front.into(),
                        (queue.history as i64).into(),
                        (queue.behind as i64).into(),
                        queue.pass.into(),
                        (queue.pass_left as i64).into(),
                        queue.last_group.into(),
                        queue.next_unit.into(),
                        ahead_target.into(),
                        ahead_left.into(),
                        self.up_next_column(),
                        self.draws_column(),
                        self.extra.listener.into(),
                        self.plays_column(),
                    ],
                );
            }
        }
    }

    /// The plays column: NULL for a queue without a listener.
    fn plays_column(&self) -> DatumWithOid<'static> {
        match self.extra.listener {
            Some(_) => self.extra.plays.into(),
            None => DatumWithOid::null::<i64>(),
        }
    }

    /// The draws column: NULL for a live queue.
    fn draws_column(&self) -> DatumWithOid<'static> {
        match self.extra.seed {
            Some(_) => self.extra.draws.into(),
            None => DatumWithOid::null::<i64>(),
        }
    }

    /// The up_next column: NULL when nothing is up next, as on every queue made before 0.5.0.
    fn up_next_column(&self) -> DatumWithOid<'static> {
        match self.extra.up_next {
            0 => DatumWithOid::null::<i32>(),
            n => (n as i32).into(),
        }
    }

    /// Inserts a new queue's row and returns its id (from this node's range on Citus).
    pub fn insert_queue(
        client: &mut SpiClient,
        schema: &ExtensionSchema,
        mode: &str,
        window: Option<i32>,
        state: &State,
        seed: Option<&[u8; 32]>,
    ) -> i64 {
        // On a Citus worker, ids come from the node's own range (crate::citus).
        let id_base = crate::citus::id_base(client, schema);
        let table = match state {
            State::Tape(queue) if Layout::of(schema) == Layout::Before0_5 => statements::run(
                client,
                schema,
                "INSERT INTO @extschema@.shuffle_queue \
                        (queue_id, mode, window_size, tracks, front, history, behind) \
                 VALUES ($7 OPERATOR(pg_catalog.+) pg_catalog.nextval('@extschema@.shuffle_queue_id_seq'::pg_catalog.regclass), \
                         $1, $2, $3, $4, $5, $6) RETURNING queue_id",
                &[
                    mode.into(),
                    window.into(),
                    (queue.tracks as i64).into(),
                    queue.front.into(),
                    (queue.history as i64).into(),
                    (queue.behind as i64).into(),
                    id_base.into(),
                ],
            ),
            State::Tape(queue) => statements::run(
                client,
                schema,
                "INSERT INTO @extschema@.shuffle_queue \
                        (queue_id, mode, window_size, tracks, front, history, behind, seed, draws) \
                 VALUES ($7 OPERATOR(pg_catalog.+) pg_catalog.nextval('@extschema@.shuffle_queue_id_seq'::pg_catalog.regclass), \
                         $1, $2, $3, $4, $5, $6, $8, \
                         CASE WHEN $8 IS NOT NULL THEN 0 END) RETURNING queue_id",
                &[
                    mode.into(),
                    window.into(),
                    (queue.tracks as i64).into(),
                    queue.front.into(),
                    (queue.history as i64).into(),
                    (queue.behind as i64).into(),
                    id_base.into(),
                    seed.map(|s| s.to_vec()).into(),
                ],
            ),
            State::Spread(queue) => statements::run(
                client,
                schema,
                "INSERT INTO @extschema@.shuffle_queue \
                        (queue_id, mode, window_size, tracks, front, history, behind, \
                         levels, pass, pass_left, last_group, next_unit, seed, draws) \
                 VALUES ($1 OPERATOR(pg_catalog.+) pg_catalog.nextval('@extschema@.shuffle_queue_id_seq'::pg_catalog.regclass), \
                         'spread', NULL, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, \
                         CASE WHEN $11 IS NOT NULL THEN 0 END) RETURNING queue_id",
                &[
                    id_base.into(),
                    (queue.tracks as i64).into(),
                    queue.front.into(),
                    (queue.history as i64).into(),
                    (queue.behind as i64).into(),
                    (queue.levels as i16).into(),
                    queue.pass.into(),
                    (queue.pass_left as i64).into(),
                    queue.last_group.into(),
                    queue.next_unit.into(),
                    seed.map(|s| s.to_vec()).into(),
                ],
            ),
        };
        first_value(table).unwrap_or_else(|| error!("no id for the new shuffle queue"))
    }

    /// A new plain queue's tape: positions 0 .. tracks - 1 in the order given, one statement
    /// for the whole playlist.
    pub fn insert_tape(&mut self, tracks: DatumWithOid) {
        self.run(
            "INSERT INTO @extschema@.shuffle_queue_track (queue_id, position, track) \
             SELECT $1, t.ordinality OPERATOR(pg_catalog.-) 1, t.track \
               FROM pg_catalog.unnest($2::bigint[]) WITH ORDINALITY AS t(track, ordinality)",
            &[self.queue_id.into(), tracks],
        );
    }

    /// A new spread queue's units, one statement: `names` is the array of group (or subgroup)
    /// values each unit's `name_of` (a 1-based index into it) names.
    #[allow(clippy::too_many_arguments)]
    pub fn insert_units(
        &mut self,
        units: &[Unit],
        group_names: DatumWithOid,
        subgroup_names: DatumWithOid,
        name_index: Vec<i64>,
        is_subgroup: Vec<bool>,
    ) {
        let column = |f: &dyn Fn(&Unit) -> i64| -> Vec<i64> { units.iter().map(f).collect() };
        self.run(
            "INSERT INTO @extschema@.shuffle_queue_unit \
                    (queue_id, unit_id, parent, name, size, to_place, placed, pass, shift, target, last_child) \
             SELECT $1, u.unit_id, u.parent, \
                    CASE WHEN u.is_subgroup THEN ($3::text[])[u.name_index] \
                         ELSE ($2::text[])[u.name_index] END, \
                    u.size, u.to_place, 0, u.pass, u.shift, u.target, 0 \
               FROM ROWS FROM (pg_catalog.unnest($4::bigint[]), pg_catalog.unnest($5::bigint[]), \
                               pg_catalog.unnest($6::bigint[]), pg_catalog.unnest($7::bigint[]), \
                               pg_catalog.unnest($8::bigint[]), pg_catalog.unnest($9::bigint[]), \
                               pg_catalog.unnest($10::bigint[]), pg_catalog.unnest($11::boolean[]), \
                               pg_catalog.unnest($12::bigint[])) \
                    AS u(unit_id, parent, size, to_place, pass, shift, target, is_subgroup, name_index)",
            &[
                self.queue_id.into(),
                group_names,
                subgroup_names,
                column(&|u| u.id).into(),
                column(&|u| u.parent).into(),
                column(&|u| u.size as i64).into(),
                column(&|u| u.left as i64).into(),
                column(&|u| u.pass).into(),
                column(&|u| u.offset as i64).into(),
                column(&|u| u.target).into(),
                is_subgroup.into(),
                name_index.into(),
            ],
        );
    }

    /// A new spread queue's tracks in their units' slots, one statement.
    pub fn insert_members(&mut self, units: Vec<i64>, slots: Vec<i64>, tracks: Vec<i64>) {
        self.run(
            "INSERT INTO @extschema@.shuffle_queue_member (queue_id, unit_id, slot, track) \
             SELECT $1, m.unit_id, m.slot, m.track \
               FROM ROWS FROM (pg_catalog.unnest($2::bigint[]), pg_catalog.unnest($3::bigint[]), \
                               pg_catalog.unnest($4::bigint[])) AS m(unit_id, slot, track)",
            &[
                self.queue_id.into(),
                units.into(),
                slots.into(),
                tracks.into(),
            ],
        );
    }

    /// The unit of a spread queue named `name` under `parent`, if there is one. A NULL name
    /// names no unit: each track without a group is a group of its own.
    pub fn unit_named(&mut self, parent: i64, name: Option<DatumWithOid>) -> Option<i64> {
        let name = name?;
        let table = self.run(
            "SELECT unit_id FROM @extschema@.shuffle_queue_unit \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND parent OPERATOR(pg_catalog.=) $2 \
                AND name OPERATOR(pg_catalog.=) $3::text",
            &[self.queue_id.into(), parent.into(), name],
        );
        first_value(table)
    }

    /// Takes the first track up next (and the count with it); None when none is. For a queue
    /// on a tape (`on_tape`), the same statement finds where the track is, which the jump to
    /// it then asks first ([`Tape::find`]).
    pub fn pop_up_next(&mut self, on_tape: bool) -> Option<i64> {
        if self.extra.up_next == 0 {
            return None;
        }
        const POP: &str = "WITH first AS ( \
                 SELECT seq FROM @extschema@.shuffle_queue_up_next \
                  WHERE queue_id OPERATOR(pg_catalog.=) $1 ORDER BY seq LIMIT 1) \
             DELETE FROM @extschema@.shuffle_queue_up_next u USING first \
              WHERE u.queue_id OPERATOR(pg_catalog.=) $1 AND u.seq OPERATOR(pg_catalog.=) first.seq \
             RETURNING u.track";
        const POP_AND_FIND: &str = "WITH first AS ( \
                 SELECT seq FROM @extschema@.shuffle_queue_up_next \
                  WHERE queue_id OPERATOR(pg_catalog.=) $1 ORDER BY seq LIMIT 1) \
             DELETE FROM @extschema@.shuffle_queue_up_next u USING first \
              WHERE u.queue_id OPERATOR(pg_catalog.=) $1 AND u.seq OPERATOR(pg_catalog.=) first.seq \
             RETURNING u.track, \
                 (SELECT t.position FROM @extschema@.shuffle_queue_track t \
                   WHERE t.queue_id OPERATOR(pg_catalog.=) $1 \
                     AND t.track OPERATOR(pg_catalog.=) u.track) AS position";
        let table = self.run_ids(if on_tape { POP_AND_FIND } else { POP }, &[]);
        let (track, position) = match table.len() {
            0 => (None, None),
            _ => {
                let row = table.first();
                let track: Option<i64> = row.value("track");
                let position = if on_tape { row.value("position") } else { None };
                (track, position)
            }
        };
        let track = track
            .unwrap_or_else(|| self.missing("track up next, where its count says one is".into()));
        if on_tape {
            self.found = Some((track, position));
        }
        self.extra.up_next -= 1;
        Some(track)
    }

    /// Puts tracks up next: before those up next already (`first`), or after them.
    pub fn push_up_next(&mut self, tracks: &[i64], first: bool) {
        let table = self.run_ids(
            "SELECT pg_catalog.min(seq) AS lowest, pg_catalog.max(seq) AS highest \
               FROM @extschema@.shuffle_queue_up_next WHERE queue_id OPERATOR(pg_catalog.=) $1",
            &[],
        );
        let row = table.first();
        let lowest: i64 = row.value("lowest").unwrap_or(1);
        let highest: i64 = row.value("highest").unwrap_or(0);
        let start = if first {
            lowest - tracks.len() as i64
        } else {
            highest + 1
        };
        self.run(
            "INSERT INTO @extschema@.shuffle_queue_up_next (queue_id, seq, track) \
             SELECT $1, $2 OPERATOR(pg_catalog.+) t.ordinality OPERATOR(pg_catalog.-) 1, t.track \
               FROM pg_catalog.unnest($3::bigint[]) WITH ORDINALITY AS t(track, ordinality)",
            &[self.queue_id.into(), start.into(), tracks.to_vec().into()],
        );
        self.extra.up_next += tracks.len() as i64;
    }

    /// The tracks up next, in order.
    pub fn up_next(&mut self) -> Vec<i64> {
        let table = self.run_ids(
            "SELECT track FROM @extschema@.shuffle_queue_up_next \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 ORDER BY seq",
            &[],
        );
        table.map(|row| row.required::<i64>("track")).collect()
    }

    /// Takes every track up next away, or every entry of one track; returns how many.
    pub fn clear_up_next(&mut self, track: Option<i64>) -> i64 {
        if self.extra.up_next == 0 {
            return 0;
        }
        let gone = match track {
            None => self.run_ids(
                "DELETE FROM @extschema@.shuffle_queue_up_next \
                  WHERE queue_id OPERATOR(pg_catalog.=) $1 RETURNING track",
                &[],
            ),
            Some(track) => self.run_ids(
                "DELETE FROM @extschema@.shuffle_queue_up_next \
                  WHERE queue_id OPERATOR(pg_catalog.=) $1 AND track OPERATOR(pg_catalog.=) $2 \
                 RETURNING track",
                &[track],
            ),
        }
        .len() as i64;
        self.extra.up_next -= gone;
        gone
    }

    /// Whether a track is skipped when shuffling, and the unit of the last level it left (for a
    /// queue spread by group).
    pub fn skipped(&mut self, track: i64) -> Option<Option<i64>> {
        if self.layout == Layout::Before0_5 {
            return None;
        }
        let table = self.run_ids(
            "SELECT unit_id FROM @extschema@.shuffle_queue_skipped \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND track OPERATOR(pg_catalog.=) $2",
            &[track],
        );
        if table.is_empty() {
            return None;
        }
        Some(table.first().value::<i64>("unit_id"))
    }

    /// Marks a track skipped when shuffling (it has left the shuffle), or clears the mark.
    pub fn set_skipped(&mut self, track: i64, unit: Option<Option<i64>>) {
        match unit {
            Some(unit) => {
                self.run(
                    "INSERT INTO @extschema@.shuffle_queue_skipped (queue_id, track, unit_id) \
                     VALUES ($1, $2, $3)",
                    &[self.queue_id.into(), track.into(), unit.into()],
                );
            }
            None => {
                self.run_ids(
                    "DELETE FROM @extschema@.shuffle_queue_skipped \
                      WHERE queue_id OPERATOR(pg_catalog.=) $1 AND track OPERATOR(pg_catalog.=) $2",
                    &[track],
                );
            }
        }
    }

    /// How many plays of a listener are kept per queue, and per listener across queues.
    pub const KEPT_PLAYS: i64 = 1000;

    /// Records a play for the queue's listener, in the slot its count gives (a ring of
    /// KEPT_PLAYS slots per queue); the count was taken before the step (see next_of).
    pub fn record_play(&mut self, slot: i64, track: i64) {
        let Some(listener) = self.extra.listener else {
            return;
        };
        self.run(
            "INSERT INTO @extschema@.shuffle_queue_play (queue_id, slot, listener, track, played_at) \
             VALUES ($1, $2, $3, $4, pg_catalog.clock_timestamp()) \
             ON CONFLICT (queue_id, slot) DO UPDATE \
                SET listener = EXCLUDED.listener, track = EXCLUDED.track, played_at = EXCLUDED.played_at",
            &[
                self.queue_id.into(),
                (slot % Self::KEPT_PLAYS).into(),
                listener.into(),
                track.into(),
            ],
        );
    }

    /// A listener's most recent plays, across all of their queues, most recent first (each
    /// track once), after dropping those beyond the KEPT_PLAYS most recent.
    pub fn recent_plays(
        client: &mut SpiClient,
        schema: &ExtensionSchema,
        listener: i64,
    ) -> Vec<i64> {
        let cutoff = statements::run(
            client,
            schema,
            "SELECT played_at FROM @extschema@.shuffle_queue_play \
              WHERE listener OPERATOR(pg_catalog.=) $1 \
              ORDER BY played_at DESC OFFSET $2 LIMIT 1",
            &[listener.into(), (Self::KEPT_PLAYS - 1).into()],
        );
        if !cutoff.is_empty() {
            let at: pgrx::datum::TimestampWithTimeZone = cutoff.first().required("played_at");
            statements::run(
                client,
                schema,
                "DELETE FROM @extschema@.shuffle_queue_play \
                  WHERE listener OPERATOR(pg_catalog.=) $1 AND played_at OPERATOR(pg_catalog.<) $2",
                &[listener.into(), at.into()],
            );
        }
        let table = statements::run(
            client,
            schema,
            "SELECT track, pg_catalog.max(played_at) AS last FROM @extschema@.shuffle_queue_play \
              WHERE listener OPERATOR(pg_catalog.=) $1 \
              GROUP BY track ORDER BY last DESC, track",
            &[listener.into()],
        );
        table.map(|row| row.required::<i64>("track")).collect()
    }

    /// Forgets every play of a listener; returns how many.
    pub fn forget_listener(client: &mut SpiClient, schema: &ExtensionSchema, listener: i64) -> i64 {
        statements::run(
            client,
            schema,
            "WITH forgotten AS (DELETE FROM @extschema@.shuffle_queue_play \
                                 WHERE listener OPERATOR(pg_catalog.=) $1 RETURNING slot) \
             SELECT pg_catalog.count(*) AS plays FROM forgotten",
            &[listener.into()],
        )
        .first()
        .required::<i64>("plays")
    }

    /// A weighted queue's weights: one row per track (in the shuffle or skipped).
    pub fn insert_weights(&mut self, tracks: Vec<i64>, weights: Vec<i32>) {
        self.run(
            "INSERT INTO @extschema@.shuffle_queue_weight (queue_id, track, weight) \
             SELECT $1, w.track, w.weight \
               FROM ROWS FROM (pg_catalog.unnest($2::bigint[]), pg_catalog.unnest($3::integer[])) \
                    AS w(track, weight)",
            &[self.queue_id.into(), tracks.into(), weights.into()],
        );
    }

    /// Forgets a removed track's weight.
    pub fn delete_weight(&mut self, track: i64) {
        self.run_ids(
            "DELETE FROM @extschema@.shuffle_queue_weight \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND track OPERATOR(pg_catalog.=) $2",
            &[track],
        );
    }

    /// A weighted queue's weights, by track.
    pub fn all_weights(&mut self) -> Vec<(i64, i64)> {
        let table = self.run_ids(
            "SELECT track, weight FROM @extschema@.shuffle_queue_weight \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 ORDER BY track",
            &[],
        );
        table
            .map(|row| {
                (
                    row.required::<i64>("track"),
                    row.required::<i32>("weight") as i64,
                )
            })
            .collect()
    }

    /// The tracks of the queue's rows of shuffle_queue_track, by position.
    pub fn tape(&mut self) -> Vec<i64> {
        let table = self.run_ids(
            "SELECT track FROM @extschema@.shuffle_queue_track \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 ORDER BY position",
            &[],
        );
        table.map(|row| row.required::<i64>("track")).collect()
    }

    /// Rows of shuffle_queue_track at positions `front`, `front + 1`, ... holding `tracks`.
    pub fn insert_tape_at(&mut self, front: i64, tracks: Vec<i64>) {
        self.run(
            "INSERT INTO @extschema@.shuffle_queue_track (queue_id, position, track) \
             SELECT $1, $2 OPERATOR(pg_catalog.+) t.ordinality OPERATOR(pg_catalog.-) 1, t.track \
               FROM pg_catalog.unnest($3::bigint[]) WITH ORDINALITY AS t(track, ordinality)",
            &[self.queue_id.into(), front.into(), tracks.into()],
        );
    }

    /// The tracks skipped when shuffling, with their units, by track.
    pub fn all_skipped(&mut self) -> Vec<(i64, Option<i64>)> {
        let table = self.run_ids(
            "SELECT track, unit_id FROM @extschema@.shuffle_queue_skipped \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 ORDER BY track",
            &[],
        );
        table
            .map(|row| (row.required::<i64>("track"), row.value::<i64>("unit_id")))
            .collect()
    }

    /// Marks tracks skipped when shuffling, at once.
    pub fn insert_skipped(&mut self, skipped: &[(i64, Option<i64>)]) {
        let tracks: Vec<i64> = skipped.iter().map(|s| s.0).collect();
        let units: Vec<Option<i64>> = skipped.iter().map(|s| s.1).collect();
        self.run(
            "INSERT INTO @extschema@.shuffle_queue_skipped (queue_id, track, unit_id) \
             SELECT $1, s.track, s.unit_id \
               FROM ROWS FROM (pg_catalog.unnest($2::bigint[]), pg_catalog.unnest($3::bigint[])) \
                    AS s(track, unit_id)",
            &[self.queue_id.into(), tracks.into(), units.into()],
        );
    }

    /// A spread queue's units, by id, each with its name in UTF-8 and its tracks by slot.
    pub fn saved_units(&mut self) -> Vec<super::saved::SavedUnit> {
        let table = self.run_ids(
            "SELECT u.unit_id, u.parent, u.size, u.to_place, u.placed, u.pass, u.shift, u.target, \
                    u.last_child, NULL::bigint[] AS ahead_target, NULL::bigint[] AS ahead_left, \
                    pg_catalog.convert_to(u.name, 'UTF8') AS name_utf8, \
                    (SELECT pg_catalog.array_agg(m.track ORDER BY m.slot) \
                       FROM @extschema@.shuffle_queue_member m \
                      WHERE m.queue_id OPERATOR(pg_catalog.=) $1 \
                        AND m.unit_id OPERATOR(pg_catalog.=) u.unit_id) AS tracks \
               FROM @extschema@.shuffle_queue_unit u \
              WHERE u.queue_id OPERATOR(pg_catalog.=) $1 ORDER BY u.unit_id",
            &[],
        );
        table
            .map(|row| {
                let name: Option<Vec<u8>> = row.value("name_utf8");
                super::saved::SavedUnit {
                    unit: unit_of(&row),
                    name: name.map(|bytes| String::from_utf8_lossy(&bytes).into_owned()),
                    tracks: row.value::<Vec<i64>>("tracks").unwrap_or_default(),
                }
            })
            .collect()
    }

    /// A restored spread queue's units, with their names (UTF-8, converted to the database's
    /// encoding).
    pub fn insert_saved_units(&mut self, units: &[super::saved::SavedUnit]) {
        let column =
            |f: &dyn Fn(&Unit) -> i64| -> Vec<i64> { units.iter().map(|s| f(&s.unit)).collect() };
        let names: Vec<Option<Vec<u8>>> = units
            .iter()
            .map(|s| s.name.as_ref().map(|n| n.as_bytes().to_vec()))
            .collect();
        self.run(
            "INSERT INTO @extschema@.shuffle_queue_unit \
                    (queue_id, unit_id, parent, name, size, to_place, placed, pass, shift, target, last_child) \
             SELECT $1, u.unit_id, u.parent, pg_catalog.convert_from(u.name, 'UTF8'), u.size, \
                    u.to_place, u.placed, u.pass, u.shift, u.target, u.last_child \
               FROM ROWS FROM (pg_catalog.unnest($2::bigint[]), pg_catalog.unnest($3::bigint[]), \
                               pg_catalog.unnest($4::bytea[]), pg_catalog.unnest($5::bigint[]), \
                               pg_catalog.unnest($6::bigint[]), pg_catalog.unnest($7::bigint[]), \
                               pg_catalog.unnest($8::bigint[]), pg_catalog.unnest($9::bigint[]), \
                               pg_catalog.unnest($10::bigint[]), pg_catalog.unnest($11::bigint[])) \
                    AS u(unit_id, parent, name, size, to_place, placed, pass, shift, target, last_child)",
            &[
                self.queue_id.into(),
                column(&|u| u.id).into(),
                column(&|u| u.parent).into(),
                names.into(),
                column(&|u| u.size as i64).into(),
                column(&|u| u.left as i64).into(),
                column(&|u| u.placed as i64).into(),
                column(&|u| u.pass).into(),
                column(&|u| u.offset as i64).into(),
                column(&|u| u.target).into(),
                column(&|u| u.last_child).into(),
            ],
        );
    }

    /// Drops the queue and every row of it; raises P0002 for a queue that does not exist.
    pub fn drop_queue(&mut self) {
        let dropped = self.run_ids(
            "DELETE FROM @extschema@.shuffle_queue WHERE queue_id OPERATOR(pg_catalog.=) $1",
            &[],
        );
        if dropped.is_empty() {
            no_such_queue(self.queue_id);
        }
        self.run_ids(
            "DELETE FROM @extschema@.shuffle_queue_track WHERE queue_id OPERATOR(pg_catalog.=) $1",
            &[],
        );
        if self.layout == Layout::Current {
            self.run_ids(
                "DELETE FROM @extschema@.shuffle_queue_unit WHERE queue_id OPERATOR(pg_catalog.=) $1",
                &[],
            );
            self.run_ids(
                "DELETE FROM @extschema@.shuffle_queue_member WHERE queue_id OPERATOR(pg_catalog.=) $1",
                &[],
            );
            self.run_ids(
                "DELETE FROM @extschema@.shuffle_queue_up_next WHERE queue_id OPERATOR(pg_catalog.=) $1",
                &[],
            );
            self.run_ids(
                "DELETE FROM @extschema@.shuffle_queue_skipped WHERE queue_id OPERATOR(pg_catalog.=) $1",
                &[],
            );
            self.run_ids(
                "DELETE FROM @extschema@.shuffle_queue_weight WHERE queue_id OPERATOR(pg_catalog.=) $1",
                &[],
            );
        }
    }

    fn missing(&self, what: String) -> ! {
        crate::changed_outside(
            format!(
                "shuffle queue {} has no {what}: its rows were changed outside the shuffle_queue functions",
                self.queue_id
            ),
            "shuffle_queue_create makes a new queue of the playlist.",
        )
    }

    fn missing_position(&self, position: i64) -> ! {
        self.missing(format!("track at position {position}"))
    }
}

/// Runs `f` with the backend's live stream.
pub fn live<R>(f: impl FnOnce(&mut dealcards_core::rng::Stream) -> R) -> R {
    crate::ok_or_raise(with_live(f))
}

impl Tape for QueueStore<'_, '_> {
    fn track_at(&mut self, position: i64) -> i64 {
        let table = self.run_ids(
            "SELECT track FROM @extschema@.shuffle_queue_track \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND position OPERATOR(pg_catalog.=) $2",
            &[position],
        );
        first_value(table).unwrap_or_else(|| self.missing_position(position))
    }

    fn find(&mut self, track: i64) -> Option<i64> {
        if let Some((found, position)) = self.found.take() {
            if found == track {
                return position;
            }
        }
        let table = self.run_ids(
            "SELECT position FROM @extschema@.shuffle_queue_track \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND track OPERATOR(pg_catalog.=) $2",
            &[track],
        );
        first_value(table)
    }

    fn pick(&mut self, front: i64, drawn: i64, end: i64) -> i64 {
        let table = self.run_ids(pick_sql!("", "$2", "$3", "$4"), &[front, drawn, end]);
        let mut played = None;
        for row in table {
            if row.required::<i64>("position") == end {
                played = Some(row.required::<i64>("track"));
            }
        }
        played.unwrap_or_else(|| self.missing_position(drawn))
    }

    fn insert_front(&mut self, new_front: i64, target: i64, track: i64) {
        if target == new_front {
            self.run_ids(
                "INSERT INTO @extschema@.shuffle_queue_track (queue_id, position, track) \
                 VALUES ($1, $2, $3)",
                &[new_front, track],
            );
            return;
        }
        let moved = self.run_ids(
            "INSERT INTO @extschema@.shuffle_queue_track (queue_id, position, track) \
             SELECT $1, $2, track FROM @extschema@.shuffle_queue_track \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND position OPERATOR(pg_catalog.=) $3",
            &[new_front, target],
        );
        if moved.len() != 1 {
            self.missing_position(target);
        }
        self.run_ids(
            "UPDATE @extschema@.shuffle_queue_track SET track = $3 \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND position OPERATOR(pg_catalog.=) $2",
            &[target, track],
        );
    }

    fn fill_from_front(&mut self, front: i64, hole: i64) {
        if hole != front {
            self.run_ids(
                "UPDATE @extschema@.shuffle_queue_track t SET track = f.track \
                   FROM @extschema@.shuffle_queue_track f \
                  WHERE t.queue_id OPERATOR(pg_catalog.=) $1 AND t.position OPERATOR(pg_catalog.=) $3 \
                    AND f.queue_id OPERATOR(pg_catalog.=) $1 AND f.position OPERATOR(pg_catalog.=) $2",
                &[front, hole],
            );
        }
        self.run_ids(
            "DELETE FROM @extschema@.shuffle_queue_track \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND position OPERATOR(pg_catalog.=) $2",
            &[front],
        );
    }

    fn close_down(&mut self, hole: i64, last: i64) {
        self.run_ids(
            "UPDATE @extschema@.shuffle_queue_track t SET track = n.track \
               FROM @extschema@.shuffle_queue_track n \
              WHERE t.queue_id OPERATOR(pg_catalog.=) $1 \
                AND t.position OPERATOR(pg_catalog.>=) $2 AND t.position OPERATOR(pg_catalog.<) $3 \
                AND n.queue_id OPERATOR(pg_catalog.=) $1 \
                AND n.position OPERATOR(pg_catalog.=) (t.position OPERATOR(pg_catalog.+) 1)",
            &[hole, last],
        );
        self.run_ids(
            "DELETE FROM @extschema@.shuffle_queue_track \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND position OPERATOR(pg_catalog.=) $2",
            &[last],
        );
    }

    fn swap(&mut self, a: i64, b: i64) {
        let swapped = self.run_ids(
            "UPDATE @extschema@.shuffle_queue_track t SET track = other.track \
               FROM @extschema@.shuffle_queue_track other \
              WHERE t.queue_id OPERATOR(pg_catalog.=) $1 \
                AND t.position OPERATOR(pg_catalog.=) ANY (ARRAY[$2, $3]) \
                AND other.queue_id OPERATOR(pg_catalog.=) $1 \
                AND other.position OPERATOR(pg_catalog.=) \
                    CASE WHEN t.position OPERATOR(pg_catalog.=) $2 THEN $3 ELSE $2 END \
             RETURNING t.position",
            &[a, b],
        );
        if swapped.len() != 2 {
            // Either row missing leaves both unchanged: name the one that is.
            self.track_at(a);
            self.missing_position(b);
        }
    }

    fn weights(&mut self, positions: &[i64]) -> Vec<u64> {
        // Four places, always (the core asks for four), so that the statement keeps one plan.
        let table = self.run_ids(
            "SELECT t.position, w.weight \
               FROM @extschema@.shuffle_queue_track t \
               JOIN @extschema@.shuffle_queue_weight w \
                 ON w.queue_id OPERATOR(pg_catalog.=) $1 AND w.track OPERATOR(pg_catalog.=) t.track \
              WHERE t.queue_id OPERATOR(pg_catalog.=) $1 \
                AND t.position OPERATOR(pg_catalog.=) ANY (ARRAY[$2, $3, $4, $5])",
            &[positions[0], positions[1], positions[2], positions[3]],
        );
        let found: Vec<(i64, i32)> = table
            .map(|row| (row.required("position"), row.required("weight")))
            .collect();
        positions
            .iter()
            .map(|p| {
                found
                    .iter()
                    .find(|f| f.0 == *p)
                    .map(|f| f.1 as u64)
                    .unwrap_or_else(|| self.missing(format!("weight of the track at position {p}")))
            })
            .collect()
    }

    fn pick_weighted(&mut self, front: i64, tries: &[(i64, u64)], end: i64) -> Option<i64> {
        // One statement for the core's four tries: the weights of the tracks at the tried
        // places, the first try below its weight, and its pick (`pick`'s statement). A track without a
        // weight row picks nothing and is named, whichever try it is.
        let mut more: Vec<i64> = tries.iter().map(|t| t.0).collect();
        more.extend(tries.iter().map(|t| t.1 as i64));
        more.extend([front, end]);
        let table = self.run_ids(
            concat!(
                "WITH looked AS ( \
                 SELECT x.n, x.place, x.v, w.weight \
                   FROM (VALUES (1, $2::pg_catalog.int8, $6::pg_catalog.int8), \
                                (2, $3::pg_catalog.int8, $7::pg_catalog.int8), \
                                (3, $4::pg_catalog.int8, $8::pg_catalog.int8), \
                                (4, $5::pg_catalog.int8, $9::pg_catalog.int8)) AS x (n, place, v) \
                   LEFT JOIN @extschema@.shuffle_queue_track t \
                     ON t.queue_id OPERATOR(pg_catalog.=) $1 \
                    AND t.position OPERATOR(pg_catalog.=) x.place \
                   LEFT JOIN @extschema@.shuffle_queue_weight w \
                     ON w.queue_id OPERATOR(pg_catalog.=) $1 \
                    AND w.track OPERATOR(pg_catalog.=) t.track), \
             chosen AS ( \
                 SELECT place FROM looked \
                  WHERE v OPERATOR(pg_catalog.<) weight \
                    AND NOT EXISTS (SELECT FROM looked m WHERE m.weight IS NULL) \
                  ORDER BY n LIMIT 1), \
             picked AS (",
                pick_sql!("chosen, ", "$10", "chosen.place", "$11"),
                ") \
             SELECT (SELECT p.track FROM picked p WHERE p.position OPERATOR(pg_catalog.=) $11) \
                        AS track, \
                    (SELECT pg_catalog.min(place) FROM looked WHERE weight IS NULL) AS missing, \
                    (SELECT pg_catalog.count(*) FROM chosen) AS chosen"
            ),
            &more,
        );
        let row = table.first();
        if let Some(place) = row.value::<i64>("missing") {
            self.missing(format!("weight of the track at position {place}"));
        }
        let track = row.value::<i64>("track");
        if track.is_none() && row.required::<i64>("chosen") > 0 {
            self.missing_position(front);
        }
        track
    }

    fn close_up(&mut self, front: i64, start: i64, hole: i64) {
        self.run_ids(
            "UPDATE @extschema@.shuffle_queue_track t SET track = p.track \
               FROM @extschema@.shuffle_queue_track p \
              WHERE t.queue_id OPERATOR(pg_catalog.=) $1 \
                AND t.position OPERATOR(pg_catalog.>) $2 AND t.position OPERATOR(pg_catalog.<=) $3 \
                AND p.queue_id OPERATOR(pg_catalog.=) $1 \
                AND p.position OPERATOR(pg_catalog.=) (t.position OPERATOR(pg_catalog.-) 1)",
            &[start, hole],
        );
        Tape::fill_from_front(self, front, start);
    }
}

impl Groups for QueueStore<'_, '_> {
    fn upcoming(&mut self, parent: i64, after: TargetKey, limit: usize) -> Vec<TargetKey> {
        let table = self.run_ids(
            "SELECT target, unit_id FROM @extschema@.shuffle_queue_unit \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND parent OPERATOR(pg_catalog.=) $2 \
                AND (target, unit_id) OPERATOR(pg_catalog.>) ($3, $4) \
                AND size OPERATOR(pg_catalog.>) 0 \
              ORDER BY target, unit_id LIMIT 16",
            &[parent, after.0, after.1],
        );
        // A constant limit (the most a lookahead asks for) keeps one plan for every call.
        let mut keys: Vec<TargetKey> = table
            .map(|row| (row.required("target"), row.required("unit_id")))
            .collect();
        keys.truncate(limit);
        keys
    }

    fn biggest(&mut self, parent: i64, pass: i64, before: LeftKey, limit: usize) -> Vec<LeftKey> {
        let table = self.run_ids(
            "SELECT to_place, unit_id FROM @extschema@.shuffle_queue_unit \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND parent OPERATOR(pg_catalog.=) $2 \
                AND pass OPERATOR(pg_catalog.=) $3 \
                AND (to_place, unit_id) OPERATOR(pg_catalog.<) ($4, $5) \
                AND to_place OPERATOR(pg_catalog.>) 0 \
              ORDER BY to_place DESC, unit_id DESC LIMIT 16",
            &[parent, pass, before.0, before.1],
        );
        let mut keys: Vec<LeftKey> = table
            .map(|row| (row.required("to_place"), row.required("unit_id")))
            .collect();
        keys.truncate(limit);
        keys
    }

    fn units(&mut self, ids: &[i64]) -> Vec<Unit> {
        if let Some((asked, read)) = &self.prefetched {
            if ids.iter().all(|id| asked.contains(id)) {
                let mut units: Vec<Unit> = Vec::new();
                for unit in read.iter().filter(|u| ids.contains(&u.id)) {
                    if !units.iter().any(|u| u.id == unit.id) {
                        units.push(unit.clone());
                    }
                }
                return units;
            }
        }
        // Four ids, always (the core asks for four), so that the statement keeps one plan.
        let ids: Vec<i64> = (0..4).map(|i| ids[i.min(ids.len() - 1)]).collect();
        let table = self.run_ids(
            "SELECT unit_id, parent, size, to_place, placed, pass, shift, target, last_child, \
                    ahead_target, ahead_left \
               FROM @extschema@.shuffle_queue_unit \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 \
                AND unit_id OPERATOR(pg_catalog.=) ANY (ARRAY[$2, $3, $4, $5])",
            &[ids[0], ids[1], ids[2], ids[3]],
        );
        table.map(|row| unit_of(&row)).collect()
    }

    fn unit(&mut self, id: i64) -> Unit {
        let table = self.run_ids(
            "SELECT unit_id, parent, size, to_place, placed, pass, shift, target, last_child, \
                    ahead_target, ahead_left \
               FROM @extschema@.shuffle_queue_unit \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND unit_id OPERATOR(pg_catalog.=) $2",
            &[id],
        );
        if table.is_empty() {
            self.missing(format!("group {id}"));
        }
        unit_of(&table.first())
    }

    fn save(&mut self, unit: &Unit) {
        let (ahead_target, ahead_left) = encode_lookahead(&unit.children);
        self.run(
            "UPDATE @extschema@.shuffle_queue_unit \
                SET size = $3, to_place = $4, placed = $5, pass = $6, shift = $7, target = $8, \
                    last_child = $9, ahead_target = $10, ahead_left = $11 \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND unit_id OPERATOR(pg_catalog.=) $2",
            &[
                self.queue_id.into(),
                unit.id.into(),
                (unit.size as i64).into(),
                (unit.left as i64).into(),
                (unit.placed as i64).into(),
                unit.pass.into(),
                (unit.offset as i64).into(),
                unit.target.into(),
                unit.last_child.into(),
                ahead_target.into(),
                ahead_left.into(),
            ],
        );
    }

    fn create(&mut self, unit: &Unit) {
        let name = if self.names.is_empty() {
            None
        } else {
            self.names.remove(0)
        };
        let name = name.unwrap_or_else(DatumWithOid::null::<String>);
        self.run(
            "INSERT INTO @extschema@.shuffle_queue_unit \
                    (queue_id, unit_id, parent, name, size, to_place, placed, pass, shift, target, last_child) \
             VALUES ($1, $2, $3, $4::text, $5, $6, $7, $8, $9, $10, $11)",
            &[
                self.queue_id.into(),
                unit.id.into(),
                unit.parent.into(),
                name,
                (unit.size as i64).into(),
                (unit.left as i64).into(),
                (unit.placed as i64).into(),
                unit.pass.into(),
                (unit.offset as i64).into(),
                unit.target.into(),
                unit.last_child.into(),
            ],
        );
    }

    fn place(
        &mut self,
        leaf: i64,
        drawn: u64,
        last: u64,
        units: &[&Unit],
        position: i64,
        forget: Option<i64>,
        queue: &SpreadQueue,
    ) -> i64 {
        // One statement for the swap, the units, the queue's row and (when the history is full)
        // the history: a step of a long-played queue writes its rows at once. The units are
        // one or two, passed as two (the same one twice for one), so that the statement keeps
        // one plan for every call.
        let (a, b) = (units[0], units[units.len() - 1]);
        let mut args: Vec<DatumWithOid> = vec![self.queue_id.into(), leaf.into()];
        args.push((drawn as i64).into());
        args.push((last as i64).into());
        for unit in [a, b] {
            let (ahead_target, ahead_left) = encode_lookahead(&unit.children);
            args.extend([
                unit.id.into(),
                (unit.size as i64).into(),
                (unit.left as i64).into(),
                (unit.placed as i64).into(),
                unit.pass.into(),
                (unit.offset as i64).into(),
                unit.target.into(),
                unit.last_child.into(),
                ahead_target.into(),
                ahead_left.into(),
            ]);
        }
        let (ahead_target, ahead_left) = encode_lookahead(&queue.top);
        args.extend([
            (queue.tracks as i64).into(),
            queue.front.into(),
            (queue.history as i64).into(),
            (queue.behind as i64).into(),
            queue.pass.into(),
            (queue.pass_left as i64).into(),
            queue.last_group.into(),
            queue.next_unit.into(),
            ahead_target.into(),
            ahead_left.into(),
            self.up_next_column(),
            self.draws_column(),
            self.plays_column(),
        ]);
        const PLACE: &str = place_sql!("", "");
        const PLACE_AND_RECORD: &str = place_sql!(
            ", \
             logged AS ( \
                 UPDATE @extschema@.shuffle_queue_track \
                    SET position = $38, track = (SELECT track FROM moved WHERE slot OPERATOR(pg_catalog.=) $4) \
                  WHERE queue_id OPERATOR(pg_catalog.=) $1 AND position OPERATOR(pg_catalog.=) $39 \
                 RETURNING track)",
            ", (SELECT pg_catalog.count(*) FROM logged) AS logged"
        );
        let sql = match forget {
            Some(oldest) => {
                args.push(position.into());
                args.push(oldest.into());
                PLACE_AND_RECORD
            }
            None => PLACE,
        };
        let table = self.run(sql, &args);
        let row = table.first();
        let track: Option<i64> = row.value("track");
        let moved: i64 = row.required("moved");
        let saved: i64 = row.required("saved");
        let queued: i64 = row.required("queued");
        let logged: i64 = if forget.is_some() {
            row.required("logged")
        } else {
            1
        };
        let expected_moves = if drawn == last { 1 } else { 2 };
        let distinct = if a.id == b.id { 1 } else { 2 };
        let Some(track) =
            track.filter(|_| moved == expected_moves && saved == distinct && queued == 1)
        else {
            self.missing(format!("track in slot {drawn} or {last} of group {leaf}"))
        };
        if logged != 1 {
            self.missing_position(forget.unwrap_or(position));
        }
        if forget.is_none() {
            self.record(position, track, None);
        }
        self.row_written = true;
        track
    }

    fn swap(&mut self, unit: i64, a: u64, b: u64) -> i64 {
        let (a, b) = (a as i64, b as i64);
        if a == b {
            let table = self.run_ids(
                "SELECT track FROM @extschema@.shuffle_queue_member \
                  WHERE queue_id OPERATOR(pg_catalog.=) $1 AND unit_id OPERATOR(pg_catalog.=) $2 \
                    AND slot OPERATOR(pg_catalog.=) $3",
                &[unit, b],
            );
            return first_value(table)
                .unwrap_or_else(|| self.missing(format!("track in slot {b} of group {unit}")));
        }
        let table = self.run_ids(
            "UPDATE @extschema@.shuffle_queue_member m SET track = o.track \
               FROM @extschema@.shuffle_queue_member o \
              WHERE m.queue_id OPERATOR(pg_catalog.=) $1 AND m.unit_id OPERATOR(pg_catalog.=) $2 \
                AND m.slot OPERATOR(pg_catalog.=) ANY (ARRAY[$3, $4]) \
                AND o.queue_id OPERATOR(pg_catalog.=) $1 AND o.unit_id OPERATOR(pg_catalog.=) $2 \
                AND o.slot OPERATOR(pg_catalog.=) \
                    CASE WHEN m.slot OPERATOR(pg_catalog.=) $3 THEN $4 ELSE $3 END \
             RETURNING m.slot, m.track",
            &[unit, a, b],
        );
        let mut at_b = None;
        let mut rows = 0;
        for row in table {
            rows += 1;
            if row.required::<i64>("slot") == b {
                at_b = Some(row.required::<i64>("track"));
            }
        }
        match at_b {
            Some(track) if rows == 2 => track,
            _ => self.missing(format!("track in slot {a} or {b} of group {unit}")),
        }
    }

    fn find(&mut self, track: i64) -> Option<(i64, u64)> {
        let table = self.run_ids(
            "SELECT unit_id, slot FROM @extschema@.shuffle_queue_member \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND track OPERATOR(pg_catalog.=) $2",
            &[track],
        );
        if table.is_empty() {
            return None;
        }
        let row = table.first();
        Some((row.required("unit_id"), row.required::<i64>("slot") as u64))
    }

    fn push(&mut self, unit: i64, slot: u64, track: i64) {
        self.run_ids(
            "INSERT INTO @extschema@.shuffle_queue_member (queue_id, unit_id, slot, track) \
             VALUES ($1, $2, $3, $4)",
            &[unit, slot as i64, track],
        );
    }

    fn pop(&mut self, unit: i64, slot: u64) {
        let gone = self.run_ids(
            "DELETE FROM @extschema@.shuffle_queue_member \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND unit_id OPERATOR(pg_catalog.=) $2 \
                AND slot OPERATOR(pg_catalog.=) $3 RETURNING track",
            &[unit, slot as i64],
        );
        if gone.is_empty() {
            self.missing(format!("track in slot {slot} of group {unit}"));
        }
    }

    fn played(&mut self, position: i64) -> i64 {
        Tape::track_at(self, position)
    }

    fn record(&mut self, position: i64, track: i64, forget: Option<i64>) {
        match forget {
            // The oldest play's row becomes the newest: one row per position kept, as on a tape.
            Some(oldest) => {
                let moved = self.run_ids(
                    "UPDATE @extschema@.shuffle_queue_track SET position = $2, track = $3 \
                      WHERE queue_id OPERATOR(pg_catalog.=) $1 AND position OPERATOR(pg_catalog.=) $4 \
                     RETURNING track",
                    &[position, track, oldest],
                );
                if moved.is_empty() {
                    self.missing_position(oldest);
                }
            }
            None => {
                self.run_ids(
                    "INSERT INTO @extschema@.shuffle_queue_track (queue_id, position, track) \
                     VALUES ($1, $2, $3)",
                    &[position, track],
                );
            }
        }
    }

    fn forget(&mut self, position: i64) {
        self.run_ids(
            "DELETE FROM @extschema@.shuffle_queue_track \
              WHERE queue_id OPERATOR(pg_catalog.=) $1 AND position OPERATOR(pg_catalog.=) $2",
            &[position],
        );
    }
}
