//! Many tracks added to or removed from a plain queue in one call (a library rescan): each as
//! its single call would, in array order, with the same draws; the queue locked, loaded and
//! stored once, its rows read and written by a few statements over arrays.

use std::collections::HashSet;

use pgrx::prelude::*;

use crate::statements::ExtensionSchema;
use crate::{ok_or_raise, raise};
use dealcards_core::error::{Error, ErrorKind};
use dealcards_core::playlist::Queue;

use super::create::checked_weight;
use super::store::{AddedFronts, QueueStore, RemovedTracks, State};
use super::with_stream;

/// The tracks of an array: no NULL, none twice (22023).
fn checked_tracks(items: &Array<i64>) -> Vec<i64> {
    let mut seen = HashSet::with_capacity(items.len());
    let mut tracks = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let Some(track) = item else {
            raise(Error::invalid(format!(
                "items must not contain NULL (element {} is NULL)",
                i + 1
            )));
        };
        if !seen.insert(track) {
            raise(Error::invalid(format!(
                "track {track} appears more than once in items"
            )));
        }
        tracks.push(track);
    }
    tracks
}

/// A plain queue's state; a queue spread by group is refused (0A000).
fn plain<'s>(state: &'s mut State, queue_id: i64, call: &str) -> &'s mut Queue {
    match state {
        State::Tape(queue) => queue,
        State::Spread(_) => raise(Error::new(
            ErrorKind::NotSupported,
            format!(
                "shuffle queue {queue_id} is spread by group: {call} takes plain and weighted \
                 queues only; change a spread queue one track at a time"
            ),
        )),
    }
}

/// Refuses tracks the queue holds already (22023), as the single add does.
fn check_none_held(store: &mut QueueStore, tracks: &[i64]) {
    match store.first_held(tracks) {
        Some((track, true)) => raise(Error::invalid(format!(
            "track {track} is already in the queue (skipped when shuffling)"
        ))),
        Some((track, false)) => raise(Error::invalid(format!(
            "track {track} is already in the queue"
        ))),
        None => {}
    }
}

/// Adds `tracks` in order, each drawing its place as shuffle_queue_add does.
fn add_all(store: &mut QueueStore, queue: &mut Queue, tracks: &[i64]) {
    check_none_held(store, tracks);
    let old_front = queue.front;
    let mut fronts = AddedFronts(Vec::with_capacity(tracks.len()));
    for (i, &track) in tracks.iter().enumerate() {
        if i % 1024 == 0 {
            pgrx::check_for_interrupts!();
        }
        ok_or_raise(with_stream(store, |_, stream| {
            queue.add(&mut fronts, stream, track)
        }));
    }
    store.write_adds(old_front, &fronts.0);
}

/// Runs `f` on the locked plain queue `queue_id`, then stores it; returns its length. With no
/// `tracks`, the queue is only checked: nothing changes, the steps drawn ahead stay.
fn change_plain(
    fcinfo: pg_sys::FunctionCallInfo,
    (queue_id, tracks): (i64, &[i64]),
    call: &str,
    f: impl FnOnce(&mut QueueStore, &mut Queue),
) -> i64 {
    crate::refuse_on_standby("change a shuffle queue");
    let schema = ExtensionSchema::of(fcinfo);
    Spi::connect_mut(|client| {
        let mut store = QueueStore::new(client, &schema, queue_id);
        let mut state = store.load(true);
        let queue = plain(&mut state, queue_id, call);
        if tracks.is_empty() {
            return queue.tracks as i64;
        }
        f(&mut store, queue);
        let tracks = queue.tracks as i64;
        store.store(&state);
        tracks
    })
}

/// Adds tracks to a plain queue, each as shuffle_queue_add(queue_id, item) would, in array
/// order. Returns the new length.
#[pg_extern(volatile, strict, parallel_unsafe)]
fn shuffle_queue_add_many(
    queue_id: i64,
    items: Array<i64>,
    fcinfo: pg_sys::FunctionCallInfo,
) -> i64 {
    let tracks = checked_tracks(&items);
    change_plain(
        fcinfo,
        (queue_id, &tracks),
        "shuffle_queue_add_many",
        |store, queue| {
            if store.extra.weight_max.is_some() {
                raise(Error::invalid(format!(
                    "shuffle queue {queue_id} is weighted: add tracks with their weights, \
                 shuffle_queue_add_many(queue_id, items, weights)"
                )));
            }
            add_all(store, queue, &tracks);
        },
    )
}

/// Adds tracks to a weighted queue with their weights, each as
/// shuffle_queue_add(queue_id, item, weight) would, in array order. Returns the new length.
#[pg_extern(volatile, strict, parallel_unsafe, name = "shuffle_queue_add_many")]
fn shuffle_queue_add_many_weighted(
    queue_id: i64,
    items: Array<i64>,
    weights: Array<i32>,
    fcinfo: pg_sys::FunctionCallInfo,
) -> i64 {
    let tracks = checked_tracks(&items);
    if weights.len() != tracks.len() {
        raise(Error::invalid(format!(
            "items and weights must have the same length: {} items, {} weights",
            tracks.len(),
            weights.len()
        )));
    }
    let weights: Vec<i32> = (weights.iter().enumerate())
        .map(|(i, w)| checked_weight(w, || format!("weight {}", i + 1)))
        .collect();
    change_plain(
        fcinfo,
        (queue_id, &tracks),
        "shuffle_queue_add_many",
        |store, queue| {
            let Some(heaviest) = store.extra.weight_max else {
                raise(Error::invalid(format!(
                    "shuffle queue {queue_id} is not weighted: add tracks without weights"
                )));
            };
            add_all(store, queue, &tracks);
            let most = weights.iter().map(|&w| w as u64).max().unwrap_or(0);
            store.insert_weights(tracks.clone(), weights.clone());
            store.extra.weight_max = Some(heaviest.max(most));
        },
    )
}

/// Takes tracks out of a plain queue, each as shuffle_queue_remove(queue_id, item) would, in
/// array order. Returns the new length.
#[pg_extern(volatile, strict, parallel_unsafe)]
fn shuffle_queue_remove_many(
    queue_id: i64,
    items: Array<i64>,
    fcinfo: pg_sys::FunctionCallInfo,
) -> i64 {
    let tracks = checked_tracks(&items);
    change_plain(
        fcinfo,
        (queue_id, &tracks),
        "shuffle_queue_remove_many",
        |store, queue| {
            let skipped = store.skipped_among(&tracks);
            let mut tape = RemovedTracks::load(store, queue, &tracks);
            for (i, &track) in tracks.iter().enumerate() {
                if i % 1024 == 0 {
                    pgrx::check_for_interrupts!();
                }
                // Each removal is an operation of a seeded queue, as the single call's is.
                tape.store().extra.next_stream();
                if !skipped.contains(&track) {
                    ok_or_raise(queue.remove(&mut tape, track));
                }
            }
            tape.write();
            store.unskip(skipped.into_iter().collect());
            store.clear_up_next_of(&tracks);
            if store.extra.weight_max.is_some() {
                store.delete_weights(&tracks);
            }
        },
    )
}
