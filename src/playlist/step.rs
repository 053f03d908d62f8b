//! Stepping through a queue: next, prev, current, a jump to a track, and the tracks up next that
//! play before the shuffle goes on.

use pgrx::prelude::*;

use crate::statements::ExtensionSchema;
use crate::{check_for_interrupts, ok_or_raise, raise};
use dealcards_core::error::Error;

use super::albums::{album_current, album_next, album_prev};
use super::press::next_of;
use super::store::{QueueStore, State};
use super::{check_in_shuffle, with_stream};

/// The next track: a new pick when the play position is at the newest pick, else a replay of
/// what played after it.
#[pg_extern(volatile, strict, parallel_unsafe)]
fn shuffle_queue_next(queue_id: i64, fcinfo: pg_sys::FunctionCallInfo) -> i64 {
    crate::refuse_on_standby("change a shuffle queue");
    let schema = ExtensionSchema::of(fcinfo);
    Spi::connect_mut(|client| {
        let mut store = QueueStore::new(client, &schema, queue_id);
        store.albums = true;
        let mut state = store.load(true);
        let track = match store.extra.album_place {
            Some(_) => album_next(&mut store, &mut state),
            None => next_of(&mut store, &mut state),
        };
        store.store(&state);
        track
    })
}

/// The previous track: the play position steps back through what played. NULL before the first
/// next; at the oldest track remembered, that track again.
#[pg_extern(volatile, strict, parallel_unsafe)]
fn shuffle_queue_prev(queue_id: i64, fcinfo: pg_sys::FunctionCallInfo) -> Option<i64> {
    crate::refuse_on_standby("change a shuffle queue");
    let schema = ExtensionSchema::of(fcinfo);
    Spi::connect_mut(|client| {
        let mut store = QueueStore::new(client, &schema, queue_id);
        store.albums = true;
        let mut state = store.load(true);
        if store.extra.album_place.is_some() {
            let track = album_prev(&mut store, &mut state);
            store.store(&state);
            return track;
        }
        // Going back keeps the steps drawn ahead: they play once the replays are over.
        store.keeps_ahead = true;
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
        store.albums = true;
        let mut state = store.load(false);
        if store.extra.album_place.is_some() {
            return album_current(&mut store, &mut state);
        }
        match &state {
            State::Tape(queue) => queue.current(&mut store),
            State::Spread(queue) => queue.current(&mut store),
        }
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
        store.albums = true;
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
