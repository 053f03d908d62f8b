//! SQL functions for shuffle queues, with their state in the extension's tables.
//!
//! Every function that changes a queue locks its row (FOR UPDATE) before it reads the state, so
//! two sessions pressing next on one queue take turns and get two successive picks. The
//! algorithms are `dealcards_core::playlist` (plain queues) and `dealcards_core::playlist::groups`
//! (queues spread by group); this layer checks arguments, loads a queue's row, hands the core the
//! queue's rows through [`store::QueueStore`] (every statement is there), and stores the row back.

mod saved;
mod store;
mod texts;

use pgrx::datum::DatumWithOid;
use pgrx::prelude::*;

use crate::results::IntArray;
use crate::statements::{self, ExtensionSchema};
use crate::text::TextBytes;
use crate::{check_for_interrupts, ok_or_raise, raise};
use dealcards_core::error::{Error, ErrorKind};
use dealcards_core::playlist::groups::{self, Groups, UnitRef};
use dealcards_core::playlist::{
    check_playlist, held_back, operation_stream, starting_order_holding, Mode, Queue, Tape,
    MAX_WEIGHT,
};
use dealcards_core::scratch::Scratch;
use dealcards_core::spread::number_groups;
use store::{live, QueueStore, State};
use texts::{JsonbArg, JsonbResult, TextArray};

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

/// A weight argument: an integer from 1 to MAX_WEIGHT.
fn checked_weight(weight: Option<i32>, what: impl FnOnce() -> String) -> i32 {
    match weight {
        Some(w) if (1..=MAX_WEIGHT as i32).contains(&w) => w,
        Some(w) => raise(Error::invalid(format!(
            "{} is {w}: a weight is an integer from 1 to {MAX_WEIGHT}",
            what()
        ))),
        None => raise(Error::invalid(format!("{} is NULL", what()))),
    }
}

/// The weights given to a new queue: random play only, one per item, each 1 to MAX_WEIGHT.
fn checked_weights(weights: &Array<i32>, n: usize, mode: Mode, grouped: bool) -> Vec<i32> {
    if mode != Mode::Random || grouped {
        raise(Error::invalid(
            "weights are for random play: mode must be \"random\", without groups",
        ));
    }
    if weights.len() != n {
        raise(Error::invalid(format!(
            "items and weights must have the same length: {n} items, {} weights",
            weights.len()
        )));
    }
    weights
        .iter()
        .enumerate()
        .map(|(i, w)| checked_weight(w, || format!("weight {}", i + 1)))
        .collect()
}

/// A seed argument: exactly 32 bytes.
fn seed_of(seed: Option<&[u8]>) -> Option<[u8; 32]> {
    seed.map(|bytes| {
        bytes.try_into().unwrap_or_else(|_| {
            raise(Error::invalid(format!(
                "seed must be exactly 32 bytes, got {}",
                bytes.len()
            )))
        })
    })
}

/// Copies the items into `tracks` and checks them: no NULL, none twice.
fn checked_items(tracks: &mut [i64], items: &Array<i64>) -> Result<(), Error> {
    for (i, (slot, item)) in tracks.iter_mut().zip(items.iter()).enumerate() {
        *slot = item.ok_or_else(|| {
            Error::invalid(format!(
                "items must not contain NULL (element {} is NULL)",
                i + 1
            ))
        })?;
    }
    let mut sorted = tracks.to_vec();
    check_playlist(&mut sorted)
}

/// Copies the items into `tracks`, checks them and shuffles them into the queue's first order,
/// from a seeded queue's stream 0 or the live stream.
fn starting_tape(
    tracks: &mut [i64],
    items: &Array<i64>,
    seed: Option<&[u8; 32]>,
    recent: &[i64],
) -> Result<(), Error> {
    checked_items(tracks, items)?;
    let held = held_back(recent, tracks);
    let check = &mut check_for_interrupts;
    match seed {
        Some(seed) => {
            let mut stream = operation_stream(seed, 0);
            starting_order_holding(tracks, &held, &mut stream, check);
            Ok(())
        }
        None => crate::with_live(|stream| starting_order_holding(tracks, &held, stream, check)),
    }
}

fn items_or_raise<'a>(items: Option<Array<'a, i64>>) -> Array<'a, i64> {
    items.unwrap_or_else(|| raise(Error::invalid("items must not be NULL")))
}

fn mode_or_raise(mode: Option<TextBytes>) -> Mode {
    let Some(mode) = mode else {
        raise(Error::invalid(
            "mode must not be NULL: expected \"shuffle\" or \"random\"",
        ));
    };
    ok_or_raise(Mode::parse_bytes(mode.0))
}

/// A new plain queue over the items, shuffled once; returns its id.
#[allow(clippy::too_many_arguments)]
fn create_plain(
    schema: &ExtensionSchema,
    items: &Array<i64>,
    mode: Mode,
    window: Option<i32>,
    seed: Option<&[u8; 32]>,
    weights: Option<Vec<i32>>,
    listener: Option<i64>,
) -> i64 {
    let queue = ok_or_raise(Queue::new(mode, items.len(), window.map(i64::from)));
    // A shuffle queue holds back the listener's recent plays (random play draws from every
    // track outside its window whatever the order, so it only records them).
    let recent = match (listener, mode) {
        (Some(listener), Mode::Shuffle) => {
            Spi::connect_mut(|client| QueueStore::recent_plays(client, schema, listener))
        }
        _ => Vec::new(),
    };
    // The tape's first content is built in place in the bigint[] handed to the INSERT: one copy
    // of the playlist, however long.
    let mut outcome = Ok(());
    let tracks = ok_or_raise(IntArray::<i64>::build(items.len(), |tracks| {
        outcome = starting_tape(tracks, items, seed, &recent);
    }));
    ok_or_raise(outcome);
    Spi::connect_mut(|client| {
        let state = State::Tape(queue);
        let queue_id = QueueStore::insert_queue(client, schema, mode.name(), window, &state, seed);
        let mut store = QueueStore::new(client, schema, queue_id);
        store.insert_tape(tracks.into());
        store.extra.seed = seed.copied();
        store.extra.listener = listener;
        if let Some(weights) = &weights {
            let items: Vec<i64> = items.iter().map(|i| i.expect("checked")).collect();
            store.extra.weight_max = weights.iter().max().map(|&w| w as u64);
            store.insert_weights(items, weights.clone());
        }
        if weights.is_some() || listener.is_some() {
            store.store(&state);
        }
        queue_id
    })
}

/// What identifies a group: its value's bytes, or the position of a NULL (each NULL group is a
/// group of its own).
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
enum GroupKey<'a> {
    Value(&'a [u8]),
    Null(usize),
}

fn key_of<'a>(values: &'a TextArray, i: usize) -> GroupKey<'a> {
    match values.get(i) {
        Some(bytes) => GroupKey::Value(bytes),
        None => GroupKey::Null(i),
    }
}

fn same_length(n: usize, values: &TextArray, what: &str) {
    if values.len() != n {
        raise(Error::invalid(format!(
            "items and {what} must have the same length: {n} items, {} {what}",
            values.len()
        )));
    }
}

/// A new queue spread by `groups` (and `subgroups`): returns its id.
fn create_spread(
    schema: &ExtensionSchema,
    items: &Array<i64>,
    groups: &TextArray,
    subgroups: Option<&TextArray>,
    seed: Option<&[u8; 32]>,
    listener: Option<i64>,
) -> i64 {
    let n = items.len();
    same_length(n, groups, "groups");
    if let Some(subgroups) = subgroups {
        same_length(n, subgroups, "subgroups");
    }
    let mut tracks = ok_or_raise(Scratch::from_fn(n, |_| 0i64));
    ok_or_raise(checked_items(&mut tracks, items));
    let check = &mut check_for_interrupts;
    let (group, count) = ok_or_raise(number_groups(n, |i| key_of(groups, i), check));
    let pairs = subgroups.map(|subgroups| {
        ok_or_raise(number_groups(
            n,
            |i| (group[i], key_of(subgroups, i)),
            &mut check_for_interrupts,
        ))
    });
    // The listener's recent plays wait for the second pass.
    let recent = match listener {
        Some(listener) => {
            Spi::connect_mut(|client| QueueStore::recent_plays(client, schema, listener))
        }
        None => Vec::new(),
    };
    let held_tracks: std::collections::HashSet<i64> =
        held_back(&recent, &tracks).into_iter().collect();
    let held: Vec<bool> = tracks.iter().map(|t| held_tracks.contains(t)).collect();
    let create = |stream: &mut dealcards_core::rng::Stream| {
        groups::create(
            &group,
            count,
            pairs.as_ref().map(|(p, c)| (&p[..], *c)),
            &held,
            stream,
        )
    };
    let created = ok_or_raise(match seed {
        Some(seed) => create(&mut operation_stream(seed, 0)),
        None => live(create),
    });
    drop((group, pairs));
    let mut member_units = Vec::with_capacity(n);
    let mut member_slots = Vec::with_capacity(n);
    let mut member_tracks = Vec::with_capacity(n);
    for (unit, slots) in created.units.iter().zip(&created.slots) {
        for (slot, &item) in slots.iter().enumerate() {
            member_units.push(unit.id);
            member_slots.push(slot as i64);
            member_tracks.push(tracks[item]);
        }
    }
    let name_index: Vec<i64> = created.first_item.iter().map(|&i| i as i64 + 1).collect();
    let is_subgroup: Vec<bool> = (0..created.units.len()).map(|u| u >= count).collect();
    let subgroup_names = subgroups.map_or_else(DatumWithOid::null::<Vec<String>>, |s| s.param());
    Spi::connect_mut(|client| {
        let state = State::Spread(created.queue.clone());
        let queue_id = QueueStore::insert_queue(client, schema, "spread", None, &state, seed);
        let mut store = QueueStore::new(client, schema, queue_id);
        if listener.is_some() {
            store.extra.seed = seed.copied();
            store.extra.listener = listener;
            store.store(&state);
        }
        store.insert_units(
            &created.units,
            groups.param(),
            subgroup_names,
            name_index,
            is_subgroup,
        );
        store.insert_members(member_units, member_slots, member_tracks);
        queue_id
    })
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
    crate::refuse_on_standby("change a shuffle queue");
    let items = items_or_raise(items);
    let mode = mode_or_raise(mode);
    create_plain(
        &ExtensionSchema::of(fcinfo),
        &items,
        mode,
        window,
        None,
        None,
        None,
    )
}

/// A new queue with the options of 0.5.0: spread by `groups` (and `subgroups`) when they are
/// given, else a plain queue as shuffle_queue_create makes. Not strict, like it.
#[pg_extern(volatile, parallel_unsafe)]
#[allow(clippy::too_many_arguments)] // one SQL function with named options
fn shuffle_queue_new(
    items: Option<Array<i64>>,
    mode: default!(Option<TextBytes>, "'shuffle'"),
    window: default!(Option<i32>, "NULL"),
    groups: default!(Option<TextArray>, "NULL"),
    subgroups: default!(Option<TextArray>, "NULL"),
    start_with: default!(Option<i64>, "NULL"),
    seed: default!(Option<&[u8]>, "NULL"),
    weights: default!(Option<Array<i32>>, "NULL"),
    listener: default!(Option<i64>, "NULL"),
    fcinfo: pg_sys::FunctionCallInfo,
) -> i64 {
    crate::refuse_on_standby("change a shuffle queue");
    crate::limit_working_memory();
    let seed = seed_of(seed);
    let items = items_or_raise(items);
    let mode = mode_or_raise(mode);
    let weights = weights.map(|w| checked_weights(&w, items.len(), mode, groups.is_some()));
    let schema = ExtensionSchema::of(fcinfo);
    if let Some(track) = start_with {
        if !items.iter().any(|item| item == Some(track)) {
            raise(Error::invalid(format!(
                "start_with {track} is not one of the items"
            )));
        }
    }
    let queue_id = match groups {
        None => {
            if subgroups.is_some() {
                raise(Error::invalid("subgroups need groups: give the groups too"));
            }
            create_plain(
                &schema,
                &items,
                mode,
                window,
                seed.as_ref(),
                weights,
                listener,
            )
        }
        Some(groups) => create_spread_checked(
            &schema,
            &items,
            mode,
            window,
            &groups,
            subgroups.as_ref(),
            seed.as_ref(),
            listener,
        ),
    };
    if let Some(track) = start_with {
        // The chosen track plays first: it is up next.
        Spi::connect_mut(|client| {
            let mut store = QueueStore::new(client, &schema, queue_id);
            let state = store.load(true);
            store.push_up_next(&[track], true);
            store.store(&state);
        });
    }
    queue_id
}

/// A queue spread by group, after the checks its options need.
#[allow(clippy::too_many_arguments)]
fn create_spread_checked(
    schema: &ExtensionSchema,
    items: &Array<i64>,
    mode: Mode,
    window: Option<i32>,
    groups: &TextArray,
    subgroups: Option<&TextArray>,
    seed: Option<&[u8; 32]>,
    listener: Option<i64>,
) -> i64 {
    if mode != Mode::Shuffle {
        raise(Error::invalid(
            "a queue spread by group plays in shuffle mode: mode must be \"shuffle\"",
        ));
    }
    if window.is_some() {
        raise(Error::invalid(
            "a queue spread by group plays in passes, without a window: window must be NULL",
        ));
    }
    if items.is_empty() {
        raise(Error::invalid("a shuffle queue needs at least one track"));
    }
    create_spread(schema, items, groups, subgroups, seed, listener)
}

/// The next track: a new pick when the play position is at the newest pick, else a replay of
/// what played after it.
#[pg_extern(volatile, strict, parallel_unsafe)]
fn shuffle_queue_next(queue_id: i64, fcinfo: pg_sys::FunctionCallInfo) -> i64 {
    crate::refuse_on_standby("change a shuffle queue");
    let schema = ExtensionSchema::of(fcinfo);
    Spi::connect_mut(|client| {
        let mut store = QueueStore::new(client, &schema, queue_id);
        let mut state = store.load(true);
        let track = next_of(&mut store, &mut state);
        store.store(&state);
        track
    })
}

/// The next track of a loaded queue: a replay when the play position is behind the newest play,
/// else the first track up next (played as a jump), else the shuffle's next pick.
fn next_of(store: &mut QueueStore, state: &mut State) -> i64 {
    let replaying = match state {
        State::Tape(queue) => queue.behind > 0,
        State::Spread(queue) => queue.replaying(),
    };
    let on_tape = matches!(state, State::Tape(_));
    let up_next = if replaying {
        None
    } else {
        store.pop_up_next(on_tape)
    };
    // The play is counted before the step, so that the step writes the count with the row.
    let slot = store.extra.plays;
    if store.extra.listener.is_some() {
        store.extra.plays += 1;
    }
    let track = with_stream(store, |store, stream| match (state, up_next) {
        (State::Tape(queue), Some(track)) => ok_or_raise(queue.jump(store, track)),
        (State::Spread(queue), Some(track)) => ok_or_raise(queue.jump(store, stream, track)),
        (State::Tape(queue), None) => match store.extra.weight_max {
            Some(heaviest) => queue.next_weighted(store, stream, heaviest),
            None => queue.next(store, stream),
        },
        (State::Spread(queue), None) => queue.next(store, stream),
    });
    store.record_play(slot, track);
    track
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

/// The previous track: the play position steps back through what played. NULL before the first
/// next; at the oldest track remembered, that track again.
#[pg_extern(volatile, strict, parallel_unsafe)]
fn shuffle_queue_prev(queue_id: i64, fcinfo: pg_sys::FunctionCallInfo) -> Option<i64> {
    crate::refuse_on_standby("change a shuffle queue");
    let schema = ExtensionSchema::of(fcinfo);
    Spi::connect_mut(|client| {
        let mut store = QueueStore::new(client, &schema, queue_id);
        let mut state = store.load(true);
        let (before, track) = match &mut state {
            State::Tape(queue) => (queue.behind, queue.prev(&mut store)),
            State::Spread(queue) => (queue.behind, queue.prev(&mut store)),
        };
        let after = match &state {
            State::Tape(queue) => queue.behind,
            State::Spread(queue) => queue.behind,
        };
        if after != before {
            store.store(&state);
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
        let mut store = QueueStore::new(client, &schema, queue_id);
        let state = store.load(false);
        match &state {
            State::Tape(queue) => queue.current(&mut store),
            State::Spread(queue) => queue.current(&mut store),
        }
    })
}

fn spread_needs_a_group(queue_id: i64) -> Error {
    Error::invalid(format!(
        "shuffle queue {queue_id} is spread by group: add a track with its group, \
         shuffle_queue_add(queue_id, item, item_group)"
    ))
}

/// Adds a track at a random place among those not played recently; returns the new length.
#[pg_extern(volatile, strict, parallel_unsafe)]
fn shuffle_queue_add(queue_id: i64, item: i64, fcinfo: pg_sys::FunctionCallInfo) -> i64 {
    crate::refuse_on_standby("change a shuffle queue");
    let schema = ExtensionSchema::of(fcinfo);
    Spi::connect_mut(|client| {
        let mut store = QueueStore::new(client, &schema, queue_id);
        let mut state = store.load(true);
        let State::Tape(queue) = &mut state else {
            raise(spread_needs_a_group(queue_id));
        };
        check_not_held(&mut store, item);
        if store.extra.weight_max.is_some() {
            raise(Error::invalid(format!(
                "shuffle queue {queue_id} is weighted: add a track with its weight, \
                 shuffle_queue_add(queue_id, item, weight)"
            )));
        }
        ok_or_raise(with_stream(&mut store, |store, stream| {
            queue.add(store, stream, item)
        }));
        let tracks = queue.tracks as i64;
        store.store(&state);
        tracks
    })
}

/// Adds a track to a weighted queue (random play with weights), with its weight, at a random
/// place among those not played recently. Returns the new length.
#[pg_extern(volatile, strict, parallel_unsafe, name = "shuffle_queue_add")]
fn shuffle_queue_add_weighted(
    queue_id: i64,
    item: i64,
    weight: i32,
    fcinfo: pg_sys::FunctionCallInfo,
) -> i64 {
    crate::refuse_on_standby("change a shuffle queue");
    let schema = ExtensionSchema::of(fcinfo);
    Spi::connect_mut(|client| {
        let mut store = QueueStore::new(client, &schema, queue_id);
        let mut state = store.load(true);
        let (State::Tape(queue), Some(heaviest)) = (&mut state, store.extra.weight_max) else {
            raise(Error::invalid(format!(
                "shuffle queue {queue_id} is not weighted: add a track without a weight"
            )));
        };
        check_not_held(&mut store, item);
        let weight = checked_weight(Some(weight), || "weight".into());
        ok_or_raise(with_stream(&mut store, |store, stream| {
            queue.add(store, stream, item)
        }));
        store.insert_weights(vec![item], vec![weight]);
        store.extra.weight_max = Some(heaviest.max(weight as u64));
        let tracks = queue.tracks as i64;
        store.store(&state);
        tracks
    })
}

/// A text value for a statement parameter, from its bytes (in the database's encoding).
fn text_param<'a>(bytes: &[u8]) -> DatumWithOid<'a> {
    let len = i32::try_from(bytes.len()).expect("a text value is under 1 GB");
    // SAFETY: cstring_to_text_with_len copies `len` bytes into a new palloc'd text, which lives
    // in the call's memory context while the statement runs.
    unsafe {
        let text = pg_sys::cstring_to_text_with_len(bytes.as_ptr().cast(), len);
        DatumWithOid::new(pg_sys::Datum::from(text), pg_sys::TEXTOID)
    }
}

/// Adds a track to a queue spread by group, in its group (and subgroup, for a queue of two
/// levels): it joins the group's current pass. Returns the number of tracks in the shuffle.
/// Not strict: a NULL group is a group of its own, as in shuffle_queue_new.
#[pg_extern(volatile, parallel_unsafe, name = "shuffle_queue_add")]
fn shuffle_queue_add_to_group(
    queue_id: Option<i64>,
    item: Option<i64>,
    item_group: Option<TextBytes>,
    item_subgroup: default!(Option<TextBytes>, "NULL"),
    fcinfo: pg_sys::FunctionCallInfo,
) -> Option<i64> {
    crate::refuse_on_standby("change a shuffle queue");
    let (Some(queue_id), Some(item)) = (queue_id, item) else {
        return None;
    };
    let schema = ExtensionSchema::of(fcinfo);
    Spi::connect_mut(|client| {
        let mut store = QueueStore::new(client, &schema, queue_id);
        let mut state = store.load(true);
        let State::Spread(queue) = &mut state else {
            raise(Error::invalid(format!(
                "shuffle queue {queue_id} is not spread by group: add a track with shuffle_queue_add(queue_id, item)"
            )));
        };
        check_not_held(&mut store, item);
        let group_name = item_group.map(|g| text_param(g.0));
        let sub_name = item_subgroup.map(|s| text_param(s.0));
        let group = match store.unit_named(groups::TOP, group_name.as_ref().map(copy_param)) {
            Some(id) => UnitRef::Existing(id),
            None => UnitRef::New,
        };
        let sub = if queue.levels == 2 {
            let parent = match group {
                UnitRef::Existing(id) => Some(id),
                UnitRef::New => None,
            };
            let existing =
                parent.and_then(|p| store.unit_named(p, sub_name.as_ref().map(copy_param)));
            Some(existing.map_or(UnitRef::New, UnitRef::Existing))
        } else {
            if sub_name.is_some() {
                raise(Error::invalid(format!(
                    "shuffle queue {queue_id} spreads its tracks by group only: give no subgroup"
                )));
            }
            None
        };
        // The names of the units the add makes, in the order it makes them.
        store.names = [
            (group, group_name),
            (sub.unwrap_or(UnitRef::Existing(0)), sub_name),
        ]
        .into_iter()
        .filter(|(unit, _)| *unit == UnitRef::New)
        .map(|(_, name)| name)
        .collect();
        ok_or_raise(with_stream(&mut store, |store, stream| {
            queue.add(store, stream, item, group, sub)
        }));
        let tracks = queue.tracks as i64;
        store.store(&state);
        Some(tracks)
    })
}

/// The same parameter again (a text datum stays valid for the whole call).
fn copy_param<'a>(param: &DatumWithOid<'a>) -> DatumWithOid<'a> {
    // SAFETY: the datum and its type are those of a parameter built for this call.
    unsafe { DatumWithOid::new_from_datum(param.datum(), param.oid()) }
}

/// Takes a track out, keeping the order of what played; returns the new length.
#[pg_extern(volatile, strict, parallel_unsafe)]
fn shuffle_queue_remove(queue_id: i64, item: i64, fcinfo: pg_sys::FunctionCallInfo) -> i64 {
    crate::refuse_on_standby("change a shuffle queue");
    let schema = ExtensionSchema::of(fcinfo);
    Spi::connect_mut(|client| {
        let mut store = QueueStore::new(client, &schema, queue_id);
        let mut state = store.load(true);
        if store.skipped(item).is_some() {
            // Skipped when shuffling: it is in no tape or group, only marked.
            store.set_skipped(item, None);
            store.extra.next_stream();
        } else {
            with_stream(&mut store, |store, stream| match &mut state {
                State::Tape(queue) => ok_or_raise(queue.remove(store, item)),
                State::Spread(queue) => {
                    ok_or_raise(queue.leave(store, stream, item));
                }
            });
        }
        store.clear_up_next(Some(item));
        if store.extra.weight_max.is_some() {
            store.delete_weight(item);
        }
        store.store(&state);
        tracks_of(&state)
    })
}

/// How many tracks a queue's shuffle holds.
fn tracks_of(state: &State) -> i64 {
    match state {
        State::Tape(queue) => queue.tracks as i64,
        State::Spread(queue) => queue.tracks as i64,
    }
}

/// Checks a list of tracks to put up next: none NULL, each in the queue's shuffle.
fn up_next_items(store: &mut QueueStore, state: &State, items: &Array<i64>) -> Vec<i64> {
    let mut tracks = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let Some(track) = item else {
            raise(Error::invalid(format!(
                "items must not contain NULL (element {} is NULL)",
                i + 1
            )));
        };
        check_in_shuffle(store, state, track);
        tracks.push(track);
        if i % 1024 == 1023 {
            check_for_interrupts();
        }
    }
    tracks
}

/// Puts tracks up next, before any other track up next, in the order given: they play next,
/// before the shuffle goes on. Returns how many tracks are up next.
#[pg_extern(volatile, strict, parallel_unsafe)]
fn shuffle_queue_play_next(
    queue_id: i64,
    items: Array<i64>,
    fcinfo: pg_sys::FunctionCallInfo,
) -> i32 {
    up_next_call(queue_id, &items, true, fcinfo)
}

/// Puts tracks up next after those up next already, in the order given (a player's "add to
/// queue"). Returns how many tracks are up next.
#[pg_extern(volatile, strict, parallel_unsafe)]
fn shuffle_queue_play_later(
    queue_id: i64,
    items: Array<i64>,
    fcinfo: pg_sys::FunctionCallInfo,
) -> i32 {
    up_next_call(queue_id, &items, false, fcinfo)
}

fn up_next_call(
    queue_id: i64,
    items: &Array<i64>,
    first: bool,
    fcinfo: pg_sys::FunctionCallInfo,
) -> i32 {
    crate::refuse_on_standby("change a shuffle queue");
    let schema = ExtensionSchema::of(fcinfo);
    Spi::connect_mut(|client| {
        let mut store = QueueStore::new(client, &schema, queue_id);
        let state = store.load(true);
        let tracks = up_next_items(&mut store, &state, items);
        if !tracks.is_empty() {
            store.push_up_next(&tracks, first);
            store.store(&state);
        }
        store.extra.up_next as i32
    })
}

/// The tracks up next, in the order they will play.
// VOLATILE: another session may change them while a statement runs. PARALLEL UNSAFE: the
// statements it runs take a transaction id, which no process may do in a parallel query.
#[pg_extern(volatile, strict, parallel_unsafe)]
fn shuffle_queue_up_next(queue_id: i64, fcinfo: pg_sys::FunctionCallInfo) -> Vec<i64> {
    let schema = ExtensionSchema::of(fcinfo);
    Spi::connect_mut(|client| {
        let mut store = QueueStore::new(client, &schema, queue_id);
        store.load(false);
        if store.extra.up_next == 0 {
            return Vec::new();
        }
        store.up_next()
    })
}

/// Takes every track up next away; the shuffle goes on at the next pick. Returns how many
/// there were.
#[pg_extern(volatile, strict, parallel_unsafe)]
fn shuffle_queue_clear_up_next(queue_id: i64, fcinfo: pg_sys::FunctionCallInfo) -> i32 {
    crate::refuse_on_standby("change a shuffle queue");
    let schema = ExtensionSchema::of(fcinfo);
    Spi::connect_mut(|client| {
        let mut store = QueueStore::new(client, &schema, queue_id);
        let state = store.load(true);
        let gone = store.clear_up_next(None);
        store.store(&state);
        gone as i32
    })
}

/// The track plays now (the listener tapped it) and the shuffle goes on from there without
/// bringing it back soon. Returns the track.
#[pg_extern(volatile, strict, parallel_unsafe)]
fn shuffle_queue_jump(queue_id: i64, item: i64, fcinfo: pg_sys::FunctionCallInfo) -> i64 {
    crate::refuse_on_standby("change a shuffle queue");
    let schema = ExtensionSchema::of(fcinfo);
    Spi::connect_mut(|client| {
        let mut store = QueueStore::new(client, &schema, queue_id);
        let mut state = store.load(true);
        check_in_shuffle(&mut store, &state, item);
        let slot = store.extra.plays;
        if store.extra.listener.is_some() {
            store.extra.plays += 1;
        }
        let track = with_stream(&mut store, |store, stream| match &mut state {
            State::Tape(queue) => ok_or_raise(queue.jump(store, item)),
            State::Spread(queue) => ok_or_raise(queue.jump(store, stream, item)),
        });
        store.record_play(slot, track);
        store.store(&state);
        track
    })
}

/// Skip when shuffling: the track stays in the queue but is not picked (nor put up next) until
/// the flag is cleared (`skip` false), when it joins the shuffle again as an added track would.
/// Returns how many tracks the shuffle holds.
#[pg_extern(volatile, strict, parallel_unsafe)]
fn shuffle_queue_skip_when_shuffling(
    queue_id: i64,
    item: i64,
    skip: default!(bool, "true"),
    fcinfo: pg_sys::FunctionCallInfo,
) -> i64 {
    crate::refuse_on_standby("change a shuffle queue");
    let schema = ExtensionSchema::of(fcinfo);
    Spi::connect_mut(|client| {
        let mut store = QueueStore::new(client, &schema, queue_id);
        let mut state = store.load(true);
        let skipped = store.skipped(item);
        match (skip, skipped) {
            (true, Some(_)) | (false, None) => {
                // Already as asked; a track not in the queue at all is still an error.
                if skipped.is_none() {
                    check_in_shuffle(&mut store, &state, item);
                }
                return tracks_of(&state);
            }
            (true, None) => {
                check_in_shuffle(&mut store, &state, item);
                if tracks_of(&state) == 1 {
                    raise(Error::invalid(format!(
                        "track {item} is the only track left in the shuffle: it cannot be skipped"
                    )));
                }
                let unit = with_stream(&mut store, |store, stream| match &mut state {
                    State::Tape(queue) => {
                        ok_or_raise(queue.remove(store, item));
                        None
                    }
                    State::Spread(queue) => Some(ok_or_raise(queue.leave(store, stream, item))),
                });
                store.set_skipped(item, Some(unit));
                store.clear_up_next(Some(item));
            }
            (false, Some(unit)) => {
                store.set_skipped(item, None);
                with_stream(&mut store, |store, stream| match (&mut state, unit) {
                    (State::Tape(queue), _) => ok_or_raise(queue.add(store, stream, item)),
                    (State::Spread(queue), Some(leaf)) => {
                        ok_or_raise(queue.rejoin(store, stream, item, leaf))
                    }
                    (State::Spread(_), None) => crate::changed_outside(
                        format!("shuffle queue {queue_id} skips track {item} without its group"),
                        "shuffle_queue_remove takes the track out.",
                    ),
                });
            }
        }
        store.store(&state);
        tracks_of(&state)
    })
}

/// The whole state of a queue as JSON (docs/playlist.md gives the format): shuffle_queue_restore
/// makes a queue that goes on exactly as this one would from here.
#[pg_extern(volatile, strict, parallel_unsafe)]
fn shuffle_queue_save(queue_id: i64, fcinfo: pg_sys::FunctionCallInfo) -> JsonbResult {
    let schema = ExtensionSchema::of(fcinfo);
    Spi::connect_mut(|client| {
        let mut store = QueueStore::new(client, &schema, queue_id);
        // Locked where the transaction may write, so that the rows read are those of one state
        // (docs/playlist.md: on a standby or in a READ ONLY transaction, REPEATABLE READ does
        // that).
        let state = store.load(crate::can_write());
        let extra = store.extra.clone();
        let tape = store.tape();
        let up_next = if extra.up_next > 0 {
            store.up_next()
        } else {
            Vec::new()
        };
        let (skipped, units) = if store.layout == store::Layout::Current {
            let units = match state {
                State::Spread(_) => store.saved_units(),
                State::Tape(_) => Vec::new(),
            };
            (store.all_skipped(), units)
        } else {
            (Vec::new(), Vec::new())
        };
        let weights = if extra.weight_max.is_some() {
            store.all_weights()
        } else {
            Vec::new()
        };
        let saved = saved::Saved {
            state,
            extra,
            tape,
            up_next,
            skipped,
            units,
            weights,
        };
        JsonbResult(saved.to_json())
    })
}

/// A new queue made from a state shuffle_queue_save gave (of any queue, of any database): it
/// goes on exactly as that queue would have. Returns its id.
#[pg_extern(volatile, strict, parallel_unsafe)]
fn shuffle_queue_restore(state: JsonbArg, fcinfo: pg_sys::FunctionCallInfo) -> i64 {
    crate::refuse_on_standby("change a shuffle queue");
    crate::limit_working_memory();
    let schema = ExtensionSchema::of(fcinfo);
    Spi::connect_mut(|client| {
        // The JSON text in UTF-8, whatever the database's encoding.
        let table = statements::run(
            client,
            &schema,
            "SELECT pg_catalog.convert_to($1::text, 'UTF8') AS utf8",
            &[state.param()],
        );
        let utf8: Vec<u8> = table.first().get_one().ok().flatten().unwrap_or_default();
        let value: serde_json::Value = serde_json::from_slice(&utf8)
            .unwrap_or_else(|e| raise(Error::invalid(format!("state is not JSON: {e}"))));
        let saved = saved::Saved::from_json(&value).unwrap_or_else(|why| {
            raise(Error::invalid(format!(
                "state is not one shuffle_queue_save gives: {why}"
            )))
        });
        let (mode, window) = match &saved.state {
            State::Tape(q) => (q.mode.name(), q.window.map(|w| w as i32)),
            State::Spread(_) => ("spread", None),
        };
        let queue_id = QueueStore::insert_queue(
            client,
            &schema,
            mode,
            window,
            &saved.state,
            saved.extra.seed.as_ref(),
        );
        let mut store = QueueStore::new(client, &schema, queue_id);
        let front = match &saved.state {
            State::Tape(q) => q.front,
            State::Spread(q) => q.front,
        };
        store.insert_tape_at(front, saved.tape.clone());
        if let State::Spread(_) = &saved.state {
            store.insert_saved_units(&saved.units);
            let (mut units, mut slots, mut tracks) = (Vec::new(), Vec::new(), Vec::new());
            for unit in &saved.units {
                for (slot, &track) in unit.tracks.iter().enumerate() {
                    units.push(unit.unit.id);
                    slots.push(slot as i64);
                    tracks.push(track);
                }
            }
            store.insert_members(units, slots, tracks);
        }
        if !saved.up_next.is_empty() {
            store.push_up_next(&saved.up_next, false);
        }
        if !saved.skipped.is_empty() {
            store.insert_skipped(&saved.skipped);
        }
        if !saved.weights.is_empty() {
            let (tracks, weights) = saved.weights.iter().map(|&(t, w)| (t, w as i32)).unzip();
            store.insert_weights(tracks, weights);
        }
        store.extra = saved.extra.clone();
        store.store(&saved.state);
        queue_id
    })
}

/// Forgets every play recorded for a listener (across all of their queues, dropped ones too):
/// their next queues hold nothing back. Returns how many plays there were.
#[pg_extern(volatile, strict, parallel_unsafe)]
fn shuffle_queue_forget(listener: i64, fcinfo: pg_sys::FunctionCallInfo) -> i64 {
    crate::refuse_on_standby("change a shuffle queue");
    let schema = ExtensionSchema::of(fcinfo);
    Spi::connect_mut(|client| QueueStore::forget_listener(client, &schema, listener))
}

/// Drops a queue and its tracks.
#[pg_extern(volatile, strict, parallel_unsafe)]
fn shuffle_queue_drop(queue_id: i64, fcinfo: pg_sys::FunctionCallInfo) {
    crate::refuse_on_standby("change a shuffle queue");
    let schema = ExtensionSchema::of(fcinfo);
    Spi::connect_mut(|client| {
        QueueStore::new(client, &schema, queue_id).drop_queue();
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
             shuffle_queue_clear_up_next(bigint):vtrueu \
             shuffle_queue_create(bigint[],text,integer):vfalseu \
             shuffle_queue_current(bigint):vtruer shuffle_queue_drop(bigint):vtrueu \
             shuffle_queue_forget(bigint):vtrueu shuffle_queue_jump(bigint,bigint):vtrueu \
             shuffle_queue_new(bigint[],text,integer,text[],text[],bigint,bytea,integer[],bigint):vfalseu \
             shuffle_queue_next(bigint):vtrueu shuffle_queue_play_later(bigint,bigint[]):vtrueu \
             shuffle_queue_play_next(bigint,bigint[]):vtrueu shuffle_queue_prev(bigint):vtrueu \
             shuffle_queue_remove(bigint,bigint):vtrueu shuffle_queue_restore(jsonb):vtrueu \
             shuffle_queue_save(bigint):vtrueu \
             shuffle_queue_skip_when_shuffling(bigint,bigint,boolean):vtrueu \
             shuffle_queue_up_next(bigint):vtrueu"
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
