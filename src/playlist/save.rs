//! A queue's whole state out (shuffle_queue_save) and a new queue made from it
//! (shuffle_queue_restore); the format itself is `saved`.

use pgrx::prelude::*;

use crate::raise;
use crate::statements::{self, ExtensionSchema};
use dealcards_core::error::{Error, ErrorKind};

use super::saved;
use super::store::{Layout, QueueStore, State};
use super::texts::{JsonbArg, JsonbResult};

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
        store.albums = true;
        let state = store.load(crate::can_write());
        let extra = store.extra.clone();
        let tape = store.tape();
        let up_next = if extra.up_next > 0 {
            store.up_next()
        } else {
            Vec::new()
        };
        let (skipped, units) = if store.layout >= Layout::Before0_7 {
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
        let ahead = store.steps_ahead().into_iter().map(|s| s.ahead).collect();
        let albums = match extra.album_place {
            Some(_) => store.all_albums(),
            None => Vec::new(),
        };
        let saved = saved::Saved {
            state,
            extra,
            tape,
            up_next,
            skipped,
            units,
            weights,
            ahead,
            albums,
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
        if saved.extra.album_place.is_some() && Layout::of(&schema) != Layout::Current {
            raise(Error::new(
                ErrorKind::NotReady,
                "the state is of a queue of albums, and the queue tables are those of an earlier \
                 release: ALTER EXTENSION dealcards UPDATE",
            ));
        }
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
        if saved.extra.album_place.is_some() {
            store.insert_saved_albums(&saved.albums);
        }
        store.extra = saved.extra.clone();
        store.store(&saved.state);
        restore_rule_and_steps(&mut store, &saved);
        queue_id
    })
}

/// A seeded queue's rule and the steps drawn ahead, which need 0.7.0's tables; the steps are
/// checked to play their tracks from their draws on the queue restored.
fn restore_rule_and_steps(store: &mut QueueStore, saved: &saved::Saved) {
    let rule_2 = saved.extra.seed.is_some() && saved.extra.seed_rule.is_some();
    if store.layout != Layout::Current {
        if rule_2 || !saved.ahead.is_empty() {
            raise(Error::new(
                ErrorKind::NotReady,
                "the state is of a queue of release 0.7.0 or later, and the queue tables are \
                 those of an earlier release: ALTER EXTENSION dealcards UPDATE",
            ));
        }
        return;
    }
    if saved.extra.seed.is_some() && !rule_2 {
        store.rule_1();
    }
    if !saved.ahead.is_empty() {
        store.put_ahead(0, &saved.ahead);
        if super::press::check_drawn(store, &saved.state, &saved.ahead).is_err() {
            raise(Error::invalid(
                "state is not one shuffle_queue_save gives: the steps of \"ahead\" do not play \
                 their tracks from their draws",
            ));
        }
    }
}
