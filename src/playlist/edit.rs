//! Changing what a queue holds: tracks added (plain, weighted, or into a group), removed, or
//! skipped when shuffling; a listener's plays forgotten; a queue dropped.

use pgrx::datum::DatumWithOid;
use pgrx::prelude::*;

use crate::statements::ExtensionSchema;
use crate::text::TextBytes;
use crate::{ok_or_raise, raise};
use dealcards_core::error::Error;
use dealcards_core::playlist::groups::{self, UnitRef};

use super::create::checked_weight;
use super::store::{QueueStore, State};
use super::{check_in_shuffle, check_not_held, tracks_of, with_stream};

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
