//! A skip that does not count: the listener leaves the track now playing in its first seconds,
//! and it counts as not played (MusicBee's TrueShuffle, "shuffle unplayed").

use pgrx::prelude::*;

use crate::statements::ExtensionSchema;

use super::press::next_of;
use super::store::{QueueStore, State};
use super::with_stream;

/// The listener skips the track now playing and it does not count: its play is forgotten for
/// the listener (it is not held back by fewer repeats), a queue spread by group gives it its
/// turn in the pass back (it plays later in the pass), and the history keeps it (Previous
/// returns to it). Then the next track plays, as shuffle_queue_next would give it; returns it.
#[pg_extern(volatile, strict, parallel_unsafe)]
fn shuffle_queue_skip(queue_id: i64, fcinfo: pg_sys::FunctionCallInfo) -> i64 {
    crate::refuse_on_standby("change a shuffle queue");
    let schema = ExtensionSchema::of(fcinfo);
    Spi::connect_mut(|client| {
        let mut store = QueueStore::new(client, &schema, queue_id);
        let mut state = store.load(true);
        let (playing, newest) = match &mut state {
            State::Tape(queue) => (queue.current(&mut store), !queue.replaying()),
            State::Spread(queue) => (queue.current(&mut store), !queue.replaying()),
        };
        if let Some(track) = playing {
            store.uncount_play(track);
            if let (true, State::Spread(queue)) = (newest, &mut state) {
                // Giving the turn back is an operation of its own (it aims the units anew),
                // before the next.
                let gave = with_stream(&mut store, |store, stream| {
                    queue.give_back(store, stream, track)
                });
                if gave {
                    store.drop_ahead();
                }
            }
        }
        let track = next_of(&mut store, &mut state);
        store.store(&state);
        track
    })
}
