//! Looking ahead: the tracks the next presses of Next will play, drawn ahead and kept until
//! they play (`dealcards_core::playlist::ahead` runs the steps; the store keeps them).

use pgrx::prelude::*;

use crate::statements::ExtensionSchema;
use crate::{check_for_interrupts, ok_or_raise, raise};
use dealcards_core::error::{Error, ErrorKind};
use dealcards_core::playlist::ahead::{look_ahead, look_ahead_spread, Ahead, StepDraws};
use dealcards_core::playlist::groups::Groups;
use dealcards_core::playlist::{operation_stream, Tape};
use dealcards_core::scratch::Claim;

use super::albums::album_upcoming;
use super::store::{live, Layout, QueueStore, State};

/// The most tracks a look-ahead reaches (`offset + n`).
const MAX_AHEAD: i64 = 1_000_000;

/// A look-ahead of at least this many steps, over a queue of at most `MEMORY_RATIO` times as
/// many tracks, runs over a copy of the queue's rows read whole (one statement a table, under
/// a microsecond a row) instead of reading the rows each step needs (tens of microseconds a
/// step); the steps already drawn are run again on each call that draws more.
const MEMORY_STEPS: usize = 64;
/// From this many steps asked for on, a look-ahead that draws draws at least as many as it has.
const GROWTH_FROM: usize = 1_000;
const MEMORY_RATIO: u64 = 40;
/// A spread queue's copy finds its units by scanning them (`MemoryGroups`): beyond this many
/// units (artists and albums) its steps cost more than the tables' (about 200 µs a step at
/// 40,000 units, against 30).
const MEMORY_UNITS: i64 = 4_096;
/// The working memory a step keeps while a look-ahead runs (the copy's changes and the step's
/// draws), and a track of a copy of the queue: counted against dealcards.max_working_memory.
const BYTES_A_STEP: usize = 160;
const BYTES_A_TRACK: usize = 48;

/// The next `n` tracks Next will play, from place `offset + 1`: the tracks a listener who went
/// back replays (`replay`), then the tracks up next (`up next`), then the shuffle's (`shuffle`).
/// Those not drawn yet are drawn now and kept: Next plays exactly them, in this order, until
/// the queue changes otherwise than by Next and Previous (docs/playlist.md).
#[pg_extern(volatile, strict, parallel_unsafe)]
fn shuffle_queue_upcoming(
    queue_id: i64,
    n: default!(i32, 10),
    offset: default!(i32, 0),
    fcinfo: pg_sys::FunctionCallInfo,
) -> TableIterator<'static, (name!(place, i64), name!(track, i64), name!(source, String))> {
    if n < 0 || offset < 0 {
        raise(Error::invalid(format!(
            "n and offset must be 0 or more (n is {n}, offset {offset})"
        )));
    }
    let wanted = n as i64 + offset as i64;
    if wanted > MAX_AHEAD {
        raise(Error::new(
            ErrorKind::TooLarge,
            format!("a queue looks at most {MAX_AHEAD} tracks ahead (offset + n is {wanted})"),
        ));
    }
    crate::refuse_on_standby("draw a shuffle queue's tracks ahead");
    let schema = ExtensionSchema::of(fcinfo);
    let tracks = Spi::connect_mut(|client| {
        let mut store = QueueStore::new(client, &schema, queue_id);
        if store.layout != Layout::Current {
            raise(Error::new(
                ErrorKind::NotReady,
                "the queue tables are those of an earlier release: ALTER EXTENSION dealcards \
                 UPDATE adds the table that keeps the tracks drawn ahead",
            ));
        }
        store.albums = true;
        let mut state = store.load(true);
        store.keeps_ahead = true;
        if store.extra.album_place.is_some() {
            return album_upcoming(&mut store, &mut state, offset as usize, wanted as usize);
        }
        upcoming(&mut store, &state, offset as usize, wanted as usize)
    });
    let rows: Vec<_> = tracks
        .into_iter()
        .enumerate()
        .map(|(i, (track, source))| (offset as i64 + i as i64 + 1, track, source.to_string()))
        .collect();
    TableIterator::new(rows)
}

/// The tracks Next will play at places `offset + 1 ..= wanted`, with where each comes from;
/// the steps not drawn yet are drawn and stored. Only the steps shown are read when they are
/// all drawn already.
pub(super) fn upcoming(
    store: &mut QueueStore,
    state: &State,
    offset: usize,
    wanted: usize,
) -> Vec<(i64, &'static str)> {
    let (newest, behind) = match state {
        State::Tape(queue) => (queue.newest(), queue.behind),
        State::Spread(queue) => (queue.newest(), queue.behind),
    };
    let replays = (behind as usize).min(wanted);
    let mut tracks = Vec::with_capacity(wanted.saturating_sub(offset));
    for k in offset.min(replays)..replays {
        let position = newest - behind as i64 + k as i64 + 1;
        let track = match state {
            State::Tape(_) => Tape::track_at(store, position),
            State::Spread(_) => Groups::played(store, position),
        };
        tracks.push((track, "replay"));
    }
    let need = wanted - replays;
    let skip = offset.saturating_sub(replays);
    let shown: Vec<Ahead> = if need <= store.extra.ahead_steps as usize {
        store.steps_ahead_between(skip, need)
    } else {
        let mut steps: Vec<Ahead> = store.steps_ahead().into_iter().map(|s| s.ahead).collect();
        let first = store.first_ahead.as_ref().map_or(0, |s| s.step) + steps.len() as i64;
        let more = draw_ahead(store, state, &steps, to_draw(steps.len(), need));
        store.put_ahead(first, &more);
        steps.extend(more);
        steps.drain(..skip.min(steps.len()));
        steps
    };
    for step in shown.into_iter().take(need.saturating_sub(skip)) {
        let source = if step.up_next { "up next" } else { "shuffle" };
        tracks.push((step.track, source));
    }
    tracks
}

/// How many steps to draw when `drawn` are and `need` are asked for: those missing, and from
/// `GROWTH_FROM` steps on at least as many as there are (up to `MAX_AHEAD`), so that paging
/// through a long queue runs the steps drawn already again only on a few of its calls.
fn to_draw(drawn: usize, need: usize) -> usize {
    let missing = need - drawn;
    if need < GROWTH_FROM {
        return missing;
    }
    missing.max(drawn.min(MAX_AHEAD as usize - drawn))
}

/// `count` steps drawn ahead after `drawn`, from the steps' streams: a seeded queue's stream of
/// the operation each step's Next will be, or the live generator.
fn draw_ahead(store: &mut QueueStore, state: &State, drawn: &[Ahead], count: usize) -> Vec<Ahead> {
    ok_or_raise(run_ahead(store, state, drawn, count))
}

/// Whether the steps play their tracks from their draws on the queue as stored: those of a
/// restored state are checked so.
pub(super) fn check_drawn(
    store: &mut QueueStore,
    state: &State,
    drawn: &[Ahead],
) -> Result<(), Error> {
    run_ahead(store, state, drawn, 0).map(|_| ())
}

/// The steps `drawn` run again from their values, then `count` new ones drawn.
fn run_ahead(
    store: &mut QueueStore,
    state: &State,
    drawn: &[Ahead],
    count: usize,
) -> Result<Vec<Ahead>, Error> {
    let up_next = if store.extra.up_next > 0 {
        store.up_next()
    } else {
        Vec::new()
    };
    let heaviest = store.extra.weight_max;
    let seed = store.extra.seed;
    let behind = match state {
        State::Tape(queue) => queue.behind,
        State::Spread(queue) => queue.behind,
    };
    // Rule 1 numbers the replays before the new steps as operations too.
    let replays = if store.extra.replays_are_operations() {
        behind
    } else {
        0
    };
    let first_operation = store.extra.draws as u64 + replays + 1;
    let mut seeded = move |i: usize| seed.map(|s| operation_stream(&s, first_operation + i as u64));
    let steps = drawn.len() + count;
    let tracks = match state {
        State::Tape(queue) => queue.tracks,
        State::Spread(queue) => queue.tracks,
    };
    // The copy of a spread queue finds its units by scanning them all: only for a few thousand.
    let few_units = match state {
        State::Tape(_) => true,
        State::Spread(queue) => queue.next_unit <= MEMORY_UNITS,
    };
    let in_memory = few_units && steps >= MEMORY_STEPS && steps as u64 * MEMORY_RATIO >= tracks;
    let copied = if in_memory { tracks as usize } else { 0 };
    let _claim = Claim::new(
        steps * BYTES_A_STEP + copied * BYTES_A_TRACK,
        &format!("a look-ahead of {steps} steps"),
    )?;
    let mut tape = match state {
        State::Tape(queue) if in_memory => Some(store.tape_in_memory(queue)),
        _ => None,
    };
    let mut groups = match state {
        State::Spread(queue) if in_memory => Some(store.groups_in_memory(queue)),
        _ => None,
    };
    live(|stream| {
        let mut draws = StepDraws {
            live: stream,
            seeded: &mut seeded,
        };
        let mut check = check_for_interrupts;
        match state {
            State::Tape(queue) => {
                let tape: &mut dyn Tape = match tape.as_mut() {
                    Some(copy) => copy,
                    None => store,
                };
                look_ahead(
                    queue, tape, &up_next, heaviest, drawn, count, &mut draws, &mut check,
                )
            }
            State::Spread(queue) => {
                let groups: &mut dyn Groups = match groups.as_mut() {
                    Some(copy) => copy,
                    None => store,
                };
                look_ahead_spread(
                    queue, groups, &up_next, drawn, count, &mut draws, &mut check,
                )
            }
        }
    })
}
