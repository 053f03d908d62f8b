//! Every statement on the shuffle queue tables, behind [`QueueStore`]: the queue row, the plain
//! queue's tape ([`Tape`]) and a spread queue's units, tracks and history ([`Groups`]). The
//! algorithms are `dealcards_core::playlist`; nothing here decides anything about a queue.
//!
//! One file per table (or pair of tables) the phases touch: `queue_row` (shuffle_queue: load,
//! store, insert, drop), `tape` (shuffle_queue_track and shuffle_queue_weight: a plain queue's
//! steps), `units` (shuffle_queue_unit and shuffle_queue_member: a spread queue's steps),
//! `up_next` (shuffle_queue_up_next and shuffle_queue_skipped), `plays` (shuffle_queue_play: a
//! listener's plays), `history` (a page of what played, for shuffle_queue_played). What they
//! share (the store itself, its connection, the reading of a unit) is here.
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
use dealcards_core::playlist::groups::{Groups, Lookahead, SpreadQueue, Unit};
use dealcards_core::playlist::{operation_stream, Queue, Tape};
use dealcards_core::rng::Stream;

mod ahead;
mod albums;
mod bulk;
mod copies;
mod history;
mod plays;
mod queue_row;
mod tape;
mod units;
mod up_next;

pub use ahead::StoredStep;
pub use bulk::{AddedFronts, RemovedTracks};
pub use history::HistoryPage;
pub use units::NamedUnit;

/// Which queue tables a database has, oldest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Layout {
    /// 0.4.0 and before: plain queues only, the queue row without the 0.5.0 columns.
    Before0_5,
    /// 0.5.0 and 0.6.0: spread queues too, no steps drawn ahead.
    Before0_7,
    /// 0.7.0: steps drawn ahead (shuffle_queue_ahead).
    Current,
}

impl Layout {
    pub fn of(schema: &ExtensionSchema) -> Layout {
        if !schema.has_column(c"shuffle_queue", c"levels") {
            Layout::Before0_5
        } else if schema.relation(c"shuffle_queue_ahead").is_none() {
            Layout::Before0_7
        } else {
            Layout::Current
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
    /// How many steps of Next are drawn ahead (rows of shuffle_queue_ahead).
    pub ahead_steps: i64,
    /// How a seeded queue numbers its operations: Some(2), a Next that replays is not one (the
    /// queues made from 0.7.0 on); None, every Next is one (rule 1, the queues made before).
    pub seed_rule: Option<i16>,
    /// A queue of whole albums: the place of the track playing in the album playing (0 before
    /// the first Next). None for the other queues.
    pub album_place: Option<i32>,
}

impl Extra {
    /// The stream of the next operation of a seeded queue (counted), None for a live queue.
    pub fn next_stream(&mut self) -> Option<Stream> {
        let seed = self.seed?;
        self.draws += 1;
        Some(operation_stream(&seed, self.draws as u64))
    }

    /// Whether a Next that replays a track is an operation of a seeded queue (rule 1).
    pub fn replays_are_operations(&self) -> bool {
        self.seed.is_some() && self.seed_rule.is_none()
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

/// A count, place or draw read from a queue's tables as the u64 the queue holds: a negative
/// one (`what` is `value`) no shuffle_queue function writes (XX001).
fn stored_u64(value: i64, what: impl FnOnce() -> String) -> u64 {
    u64::try_from(value).unwrap_or_else(|_| {
        crate::changed_outside(
            format!(
                "{} is {value}, which no shuffle_queue function writes: the queue's rows were changed outside the shuffle_queue functions",
                what()
            ),
            "shuffle_queue_create makes a new queue of the playlist.",
        )
    })
}

/// Reads one unit from a row whose unit columns are named `name(column)`.
fn unit_named(row: &impl Columns, name: impl Fn(&str) -> String) -> Unit {
    let id: i64 = row.required(&name("unit_id"));
    let count = |column: &str| -> u64 {
        stored_u64(row.required::<i64>(&name(column)), || {
            format!("the {column} of a shuffle queue's unit {id}")
        })
    };
    Unit {
        id,
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
    /// The first step drawn ahead, as the load read it (0.7.0's tables; none before).
    pub first_ahead: Option<StoredStep>,
    /// Whether the caller keeps the steps drawn ahead (next, prev and upcoming do); any other
    /// change to the queue deletes them when it writes the queue's row.
    pub keeps_ahead: bool,
    /// Whether the caller works on a queue of whole albums too (next, prev, current, upcoming
    /// and the calls on the tracks up next do); the load refuses such a queue to the others.
    pub albums: bool,
    /// The GUC nesting level under which the store's statements run with sequential scans off
    /// ([`QueueStore::new`]), undone when the store is dropped.
    guc_level: i32,
}

impl<'a, 'conn> QueueStore<'a, 'conn> {
    pub fn new(
        client: &'a mut SpiClient<'conn>,
        schema: &'a ExtensionSchema,
        queue_id: i64,
    ) -> Self {
        let layout = Layout::of(schema);
        // Every statement of the store reaches its rows by their key, and is prepared once per
        // connection: a plan made while a table was small (a sequential scan is the cheapest
        // there) would be kept when the table is large. With sequential scans off while the
        // store's statements are planned, each plan is the lookup by key, whatever the table's
        // size and statistics when it was made. As a function's SET clause does: undone when the
        // store is dropped, and by the transaction's end on an error.
        // SAFETY: NewGUCNestLevel and set_config_option with a known setting and value; the
        // level is closed by Drop (AtEOXact_GUC), or by the abort of the transaction.
        let guc_level = unsafe {
            let level = pg_sys::NewGUCNestLevel();
            pg_sys::set_config_option(
                c"enable_seqscan".as_ptr(),
                c"off".as_ptr(),
                pg_sys::GucContext::PGC_USERSET,
                pg_sys::GucSource::PGC_S_SESSION,
                pg_sys::GucAction::GUC_ACTION_SAVE,
                true,
                0,
                false,
            );
            level
        };
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
            first_ahead: None,
            keeps_ahead: false,
            albums: false,
            guc_level,
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

    fn missing(&self, what: String) -> ! {
        crate::changed_outside(
            format!(
                "shuffle queue {} has no {what}: its rows were changed outside the shuffle_queue functions",
                self.queue_id
            ),
            "shuffle_queue_create makes a new queue of the playlist.",
        )
    }

    /// A queue row no shuffle_queue function leaves: it has `what` (XX001).
    fn changed(&self, what: String) -> ! {
        crate::changed_outside(
            format!(
                "shuffle queue {} has {what}: its rows were changed outside the shuffle_queue functions",
                self.queue_id
            ),
            "shuffle_queue_create makes a new queue of the playlist.",
        )
    }

    fn missing_position(&self, position: i64) -> ! {
        self.missing(format!("track at position {position}"))
    }
}

impl Drop for QueueStore<'_, '_> {
    fn drop(&mut self) {
        // SAFETY: closes the level QueueStore::new opened, restoring enable_seqscan.
        unsafe { pg_sys::AtEOXact_GUC(true, self.guc_level) };
    }
}

/// Runs `f` with the backend's live stream.
pub fn live<R>(f: impl FnOnce(&mut dealcards_core::rng::Stream) -> R) -> R {
    crate::ok_or_raise(with_live(f))
}
