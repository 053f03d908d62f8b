//! The presses the calls of a queue share: one press of Next on a loaded queue, and the
//! look-ahead that draws the same presses ahead and keeps them. The calls of plain and spread
//! queues (step.rs, ahead.rs, skip.rs) and the queues of albums (albums.rs), which press a
//! spread queue of albums, run them from here.

use crate::{check_for_interrupts, ok_or_raise};
use dealcards_core::error::Error;
use dealcards_core::playlist::ahead::{look_ahead, look_ahead_spread, Ahead, Replay, StepDraws};
use dealcards_core::playlist::groups::Groups;
use dealcards_core::playlist::{operation_stream, Draw, Tape};
use dealcards_core::scratch::Claim;

use super::store::{live, QueueStore, State};
use super::with_stream;

/// The most tracks a look-ahead reaches (`offset + n`).
pub(super) const MAX_AHEAD: i64 = 1_000_000;

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

/// The next track of a loaded queue: a replay when the play position is behind the newest play,
/// else the first step drawn ahead (played from its recorded draws), else the first track up
/// next (played as a jump), else the shuffle's next pick.
pub(super) fn next_of(store: &mut QueueStore, state: &mut State) -> i64 {
    let replaying = match state {
        State::Tape(queue) => queue.replaying(),
        State::Spread(queue) => queue.replaying(),
    };
    store.keeps_ahead = true;
    let ahead = if replaying {
        None
    } else {
        store.first_ahead.clone()
    };
    let on_tape = matches!(state, State::Tape(_));
    let up_next = match &ahead {
        _ if replaying => None,
        Some(step) if !step.ahead.up_next => None,
        Some(step) => Some(
            store
                .pop_up_next(on_tape)
                .unwrap_or_else(|| store.stale_ahead(step.ahead.track)),
        ),
        None => store.pop_up_next(on_tape),
    };
    // The play is counted before the step, so that the step writes the count with the row.
    let slot = store.extra.plays;
    if store.extra.listener.is_some() {
        store.extra.plays += 1;
    }
    // The step drawn ahead is taken now, so that the statement writing the queue's row writes
    // the count with it (played_ahead deletes the step's row after the press).
    if ahead.is_some() {
        store.extra.ahead_steps -= 1;
    }
    // A press of Next is the core's (Queue::step, SpreadQueue::step), the one a look-ahead runs.
    let heaviest = store.extra.weight_max;
    if replaying && !store.extra.replays_are_operations() {
        // A replay draws nothing, and a seeded queue of rule 2 does not number it.
        let track = live(|stream| press(store, state, stream, None, heaviest));
        store.record_play(slot, track);
        return track;
    }
    let track = with_stream(store, |store, stream| match &ahead {
        None => press(store, state, stream, up_next, heaviest),
        Some(step) => {
            let mut replay = Replay::new(&step.ahead.draws, stream);
            let track = press(store, state, &mut replay, up_next, heaviest);
            if track != step.ahead.track || !replay.kept() {
                store.stale_ahead(step.ahead.track);
            }
            track
        }
    });
    if let Some(step) = ahead {
        store.played_ahead(step.step);
    }
    store.record_play(slot, track);
    track
}

/// One press of Next on a loaded queue, with these draws.
fn press(
    store: &mut QueueStore,
    state: &mut State,
    draw: &mut dyn Draw,
    up_next: Option<i64>,
    heaviest: Option<u64>,
) -> i64 {
    match state {
        State::Tape(queue) => ok_or_raise(queue.step(store, draw, up_next, heaviest)),
        State::Spread(queue) => ok_or_raise(queue.step(store, draw, up_next)),
    }
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
