//! A queue's rows read whole into memory, each table in one statement: what a long look-ahead
//! runs its steps over, where reading the rows a step needs one statement at a time would cost
//! tens of microseconds a step.

use super::*;
use dealcards_core::playlist::groups::memory::MemoryGroups;
use dealcards_core::playlist::memory::MemoryTape;

impl QueueStore<'_, '_> {
    /// A plain queue's tape from its front, with a weighted queue's weights.
    pub fn tape_in_memory(&mut self, queue: &Queue) -> MemoryTape {
        let mut tape = MemoryTape::new(&self.tape());
        tape.base = queue.front;
        if tape.tracks.len() as u64 != queue.tracks {
            self.missing(format!("tape of {} tracks", queue.tracks));
        }
        if self.extra.weight_max.is_some() {
            tape.weights = (self.all_weights().into_iter())
                .map(|(track, weight)| (track, weight as u64))
                .collect();
            if let Some(&track) = tape.tracks.iter().find(|t| !tape.weights.contains_key(t)) {
                self.missing(format!("weight of track {track}"));
            }
        }
        tape
    }

    /// A spread queue's units, each unit's tracks by slot, and its history by position.
    pub fn groups_in_memory(&mut self, queue: &SpreadQueue) -> MemoryGroups {
        let mut groups = MemoryGroups::default();
        for named in self.saved_units() {
            if !named.tracks.is_empty() {
                groups.slots.insert(named.unit.id, named.tracks);
            }
            groups.units.insert(named.unit.id, named.unit);
        }
        let history = self.tape();
        if history.len() as u64 != queue.history {
            self.missing(format!("history of {} plays", queue.history));
        }
        groups.log = (history.into_iter().enumerate())
            .map(|(i, track)| (queue.front + i as i64, track))
            .collect();
        groups
    }
}
