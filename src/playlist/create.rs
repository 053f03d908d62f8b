//! Creating a queue: shuffle_queue_create and shuffle_queue_new check their arguments, shuffle
//! the tracks once (a plain queue's tape, or a spread queue's units and their slots) and insert
//! the new queue's rows.

use pgrx::prelude::*;

use crate::results::IntArray;
use crate::statements::ExtensionSchema;
use crate::text::TextBytes;
use crate::{check_for_interrupts, ok_or_raise, raise};
use dealcards_core::error::Error;
use dealcards_core::playlist::groups;
use dealcards_core::playlist::{
    check_playlist, held_back, operation_stream, starting_order_holding, Mode, Queue, MAX_WEIGHT,
};
use dealcards_core::scratch::Scratch;
use dealcards_core::spread::number_groups;

use super::store::{live, QueueStore, State};
use super::texts::TextArray;

/// A weight argument: an integer from 1 to MAX_WEIGHT.
pub(super) fn checked_weight(weight: Option<i32>, what: impl FnOnce() -> String) -> i32 {
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
pub(super) fn seed_of(seed: Option<&[u8]>) -> Option<[u8; 32]> {
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
pub(super) fn checked_items(tracks: &mut [i64], items: &Array<i64>) -> Result<(), Error> {
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

pub(super) fn items_or_raise<'a>(items: Option<Array<'a, i64>>) -> Array<'a, i64> {
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
pub(super) enum GroupKey<'a> {
    Value(&'a [u8]),
    Null(usize),
}

fn key_of<'a>(values: &'a TextArray, i: usize) -> GroupKey<'a> {
    match values.get(i) {
        Some(bytes) => GroupKey::Value(bytes),
        None => GroupKey::Null(i),
    }
}

pub(super) fn same_length(n: usize, values: &TextArray, what: &str) {
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
    let held = held_items(&recent, &tracks);
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
    // Each unit's name: the group, or subgroup, of its first item.
    let names = (created.first_item.iter().enumerate())
        .map(|(u, &item)| {
            let labels = if u < count { Some(groups) } else { subgroups };
            labels.and_then(|l| l.get(item)).map(<[u8]>::to_vec)
        })
        .collect();
    insert_spread(schema, &created, &tracks, names, seed, listener)
}

/// Which items a listener's recent plays hold back (out of the first pass).
fn held_items(recent: &[i64], tracks: &[i64]) -> Vec<bool> {
    let held_tracks: std::collections::HashSet<i64> =
        held_back(recent, tracks).into_iter().collect();
    tracks.iter().map(|t| held_tracks.contains(t)).collect()
}

/// The rows of a new spread queue: its row, its units (with their names, in the order of
/// `created.units`), and its tracks by slot (`tracks[i]` is item i's). Returns its id.
pub(super) fn insert_spread(
    schema: &ExtensionSchema,
    created: &groups::Created,
    tracks: &[i64],
    names: Vec<Option<Vec<u8>>>,
    seed: Option<&[u8; 32]>,
    listener: Option<i64>,
) -> i64 {
    let n = tracks.len();
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
    Spi::connect_mut(|client| {
        let state = State::Spread(created.queue.clone());
        let queue_id = QueueStore::insert_queue(client, schema, "spread", None, &state, seed);
        let mut store = QueueStore::new(client, schema, queue_id);
        if listener.is_some() {
            store.extra.seed = seed.copied();
            store.extra.listener = listener;
            store.store(&state);
        }
        store.insert_units(&created.units, names);
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
