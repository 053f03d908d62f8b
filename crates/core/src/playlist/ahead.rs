//! Looking ahead in a plain queue: the tracks the next presses of *Next* will play, drawn before
//! they play.
//!
//! A look-ahead runs the steps *Next* would run on a copy of the queue's state, over an
//! [`Overlay`] of its tape that keeps every change in memory, with draws that are recorded
//! ([`Recording`]): each step keeps the values its draws returned. When *Next* later plays that
//! step, it runs the same step on the real state with those values given back ([`Replay`]): it
//! plays the track that was shown. The values were drawn from the stream the step would have
//! drawn from (the live generator, or a seeded queue's stream of the step's operation) for the
//! same state, so what plays has the distribution it has without a look-ahead. A change to the
//! queue's state other than *Next* and *Previous* makes the recorded values meaningless: the
//! caller drops them.

use std::collections::HashMap;

use super::groups::{Groups, LeftKey, SpreadQueue, TargetKey, Unit};
use super::{Draw, Queue, Tape};
use crate::error::{Error, ErrorKind};

/// Draws passed through and recorded: the values a step drew, in order.
pub struct Recording<'d> {
    inner: &'d mut dyn Draw,
    pub values: Vec<u64>,
}

impl<'d> Recording<'d> {
    pub fn new(inner: &'d mut dyn Draw) -> Self {
        Recording {
            inner,
            values: Vec::new(),
        }
    }
}

impl Draw for Recording<'_> {
    fn draw(&mut self, bound: u64) -> u64 {
        let value = self.inner.draw(bound);
        self.values.push(value);
        value
    }
}

/// A step's recorded values given back in order. A value asked beyond them, or one outside the
/// bound asked for, means the state is not the one they were drawn for: from then on the values
/// come from `fallback`, and [`Replay::kept`] says so.
pub struct Replay<'v> {
    values: &'v [u64],
    used: usize,
    broken: bool,
    fallback: &'v mut dyn Draw,
}

impl<'v> Replay<'v> {
    pub fn new(values: &'v [u64], fallback: &'v mut dyn Draw) -> Self {
        Replay {
            values,
            used: 0,
            broken: false,
            fallback,
        }
    }

    /// Whether the step drew exactly the recorded values, each within its bound.
    pub fn kept(&self) -> bool {
        !self.broken && self.used == self.values.len()
    }
}

impl Draw for Replay<'_> {
    fn draw(&mut self, bound: u64) -> u64 {
        if !self.broken {
            if let Some(&value) = self.values.get(self.used).filter(|&&v| v < bound) {
                self.used += 1;
                return value;
            }
            self.broken = true;
        }
        self.fallback.draw(bound)
    }
}

/// A tape seen through the changes a look-ahead made to it, kept in memory: the tape underneath
/// is only read.
pub struct Overlay<'t> {
    base: &'t mut dyn Tape,
    /// Positions whose track changed: the track now there, or `None` where the position is gone.
    at: HashMap<i64, Option<i64>>,
    /// Where the tracks that moved are now, or `None` for a track that left the queue.
    place: HashMap<i64, Option<i64>>,
    /// The position underneath each track read from it: where its weight is read.
    origin: HashMap<i64, i64>,
}

impl<'t> Overlay<'t> {
    pub fn new(base: &'t mut dyn Tape) -> Self {
        Overlay {
            base,
            at: HashMap::new(),
            place: HashMap::new(),
            origin: HashMap::new(),
        }
    }

    fn get(&mut self, position: i64) -> i64 {
        match self.at.get(&position) {
            Some(Some(track)) => *track,
            Some(None) => panic!("position {position} is no longer on the tape"),
            None => {
                let track = self.base.track_at(position);
                self.origin.entry(track).or_insert(position);
                track
            }
        }
    }

    fn set(&mut self, position: i64, track: i64) {
        self.at.insert(position, Some(track));
        self.place.insert(track, Some(position));
    }

    fn drop_position(&mut self, position: i64) {
        self.at.insert(position, None);
    }

    fn leave(&mut self, track: i64) {
        self.place.insert(track, None);
    }
}

impl Tape for Overlay<'_> {
    fn track_at(&mut self, position: i64) -> i64 {
        self.get(position)
    }

    fn find(&mut self, track: i64) -> Option<i64> {
        if let Some(&place) = self.place.get(&track) {
            return place;
        }
        // A track that never moved is where the tape underneath has it, unless that position
        // changed (then the track left it, and would be in `place`).
        self.base
            .find(track)
            .filter(|position| !self.at.contains_key(position))
    }

    fn pick(&mut self, front: i64, drawn: i64, end: i64) -> i64 {
        let track = self.get(drawn);
        if drawn != front {
            let moved = self.get(front);
            self.set(drawn, moved);
        }
        self.set(end, track);
        self.drop_position(front);
        track
    }

    fn insert_front(&mut self, new_front: i64, target: i64, track: i64) {
        if target != new_front {
            let moved = self.get(target);
            self.set(new_front, moved);
        }
        self.set(target, track);
    }

    fn fill_from_front(&mut self, front: i64, hole: i64) {
        let leaving = self.get(hole);
        self.leave(leaving);
        if hole != front {
            let moved = self.get(front);
            self.set(hole, moved);
        }
        self.drop_position(front);
    }

    fn close_down(&mut self, hole: i64, last: i64) {
        let leaving = self.get(hole);
        self.leave(leaving);
        for position in hole..last {
            let moved = self.get(position + 1);
            self.set(position, moved);
        }
        self.drop_position(last);
    }

    fn close_up(&mut self, front: i64, start: i64, hole: i64) {
        let leaving = self.get(hole);
        self.leave(leaving);
        for position in (start..hole).rev() {
            let moved = self.get(position);
            self.set(position + 1, moved);
        }
        if start != front {
            let moved = self.get(front);
            self.set(start, moved);
        }
        self.drop_position(front);
    }

    fn swap(&mut self, a: i64, b: i64) {
        let (at_a, at_b) = (self.get(a), self.get(b));
        self.set(a, at_b);
        self.set(b, at_a);
    }

    fn weights(&mut self, positions: &[i64]) -> Vec<u64> {
        let mut origins = Vec::with_capacity(positions.len());
        for &position in positions {
            let track = self.get(position);
            let origin = match self.origin.get(&track) {
                Some(&origin) => origin,
                None => self
                    .base
                    .find(track)
                    .expect("a track on the overlay is on the tape underneath"),
            };
            origins.push(origin);
        }
        self.base.weights(&origins)
    }
}

/// A step of *Next* drawn ahead: the track it plays, whether it was the listener's track up next
/// (played as a jump), and the values its draws returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ahead {
    pub track: i64,
    pub up_next: bool,
    pub draws: Vec<u64>,
}

/// Where a look-ahead's steps draw from: step `i` (0 for the first step once the play position
/// is at the newest pick) from `seeded(i)` when it gives a stream (a seeded queue's stream of
/// that step's operation), else from `live`.
pub struct StepDraws<'d> {
    pub live: &'d mut dyn Draw,
    pub seeded: &'d mut dyn FnMut(usize) -> Option<crate::rng::Stream>,
}

/// The tracks *Next* plays on a plain queue once the play position is at the newest pick (after
/// the replays of a listener who went back): the tracks up next first, each played as a jump,
/// then the shuffle's picks (weighted where `heaviest` is given). Returns `count` steps after the
/// `drawn` ones, which are run again from their recorded values (their tracks are already
/// known), so that a longer look-ahead goes on from a shorter one. Nothing of `queue` or `tape`
/// changes.
#[allow(clippy::too_many_arguments)]
pub fn look_ahead(
    queue: &Queue,
    tape: &mut dyn Tape,
    up_next: &[i64],
    heaviest: Option<u64>,
    drawn: &[Ahead],
    count: usize,
    draws: &mut StepDraws<'_>,
    check: &mut dyn FnMut(),
) -> Result<Vec<Ahead>, Error> {
    let mut copy = queue.clone();
    copy.behind = 0;
    let mut overlay = Overlay::new(tape);
    run_ahead(
        up_next,
        drawn,
        count,
        draws,
        check,
        &mut |draw, listener| copy.step(&mut overlay, draw, listener, heaviest),
    )
}

/// [`look_ahead`] for a queue spread by group: its steps run on a copy of its state over a
/// [`GroupsOverlay`] of its units, tracks and history.
pub fn look_ahead_spread(
    queue: &SpreadQueue,
    groups: &mut dyn Groups,
    up_next: &[i64],
    drawn: &[Ahead],
    count: usize,
    draws: &mut StepDraws<'_>,
    check: &mut dyn FnMut(),
) -> Result<Vec<Ahead>, Error> {
    let mut copy = queue.clone();
    copy.behind = 0;
    let mut overlay = GroupsOverlay::new(groups);
    run_ahead(
        up_next,
        drawn,
        count,
        draws,
        check,
        &mut |draw, listener| copy.step(&mut overlay, draw, listener),
    )
}

/// One press of *Next* on a look-ahead's copy of a queue, given its draws and the track up next
/// it plays, if any.
type Press<'p> = dyn FnMut(&mut dyn Draw, Option<i64>) -> Result<i64, Error> + 'p;

/// The steps of a look-ahead: the `drawn` ones again from their values, checked, then `count`
/// new ones, recorded. `step` is one press of *Next* on the copy, given its draws and the track up
/// next it plays, if any.
fn run_ahead(
    up_next: &[i64],
    drawn: &[Ahead],
    count: usize,
    draws: &mut StepDraws<'_>,
    check: &mut dyn FnMut(),
    step: &mut Press<'_>,
) -> Result<Vec<Ahead>, Error> {
    let mut up_next = up_next.iter().copied();
    for (i, done) in drawn.iter().enumerate() {
        let listener = if done.up_next { up_next.next() } else { None };
        let mut replay = Replay::new(&done.draws, draws.live);
        let track = step(&mut replay, listener)?;
        if track != done.track || !replay.kept() {
            return Err(Error::new(
                ErrorKind::NotReady,
                format!(
                    "step {} drawn ahead no longer plays track {}: the queue changed without \
                     dropping what was drawn ahead",
                    i + 1,
                    done.track
                ),
            ));
        }
        if i % 1024 == 1023 {
            check();
        }
    }
    let mut steps = Vec::with_capacity(count);
    for i in drawn.len()..drawn.len() + count {
        let listener = up_next.next();
        let mut seeded = (draws.seeded)(i);
        let source: &mut dyn Draw = match seeded.as_mut() {
            Some(stream) => stream,
            None => &mut *draws.live,
        };
        let mut recording = Recording::new(source);
        let track = step(&mut recording, listener)?;
        steps.push(Ahead {
            track,
            up_next: listener.is_some(),
            draws: recording.values,
        });
        if i % 1024 == 1023 {
            check();
        }
    }
    Ok(steps)
}

/// A spread queue's units, tracks and history seen through the changes a look-ahead made to
/// them, kept in memory: the store underneath is only read (a slot's track is read with a swap of
/// the slot with itself, which changes nothing).
pub struct GroupsOverlay<'g> {
    base: &'g mut dyn Groups,
    /// Units changed or created.
    units: HashMap<i64, Unit>,
    /// Slots whose track changed: the track now there, or `None` for a slot taken away.
    slots: HashMap<(i64, u64), Option<i64>>,
    /// Where the tracks that moved are now, or `None` for a track that left.
    place: HashMap<i64, Option<(i64, u64)>>,
    /// Positions of the history written or forgotten.
    log: HashMap<i64, Option<i64>>,
}

impl<'g> GroupsOverlay<'g> {
    pub fn new(base: &'g mut dyn Groups) -> Self {
        GroupsOverlay {
            base,
            units: HashMap::new(),
            slots: HashMap::new(),
            place: HashMap::new(),
            log: HashMap::new(),
        }
    }

    fn slot(&mut self, unit: i64, slot: u64) -> i64 {
        match self.slots.get(&(unit, slot)) {
            Some(Some(track)) => *track,
            Some(None) => panic!("slot {slot} of unit {unit} was taken away"),
            None => self.base.swap(unit, slot, slot),
        }
    }

    fn set_slot(&mut self, unit: i64, slot: u64, track: i64) {
        self.slots.insert((unit, slot), Some(track));
        self.place.insert(track, Some((unit, slot)));
    }

    /// The changed units under `parent`, and how many of them there are.
    fn changed_under(&self, parent: i64) -> Vec<&Unit> {
        self.units.values().filter(|u| u.parent == parent).collect()
    }
}

impl Groups for GroupsOverlay<'_> {
    fn upcoming(&mut self, parent: i64, after: TargetKey, limit: usize) -> Vec<TargetKey> {
        let changed: Vec<TargetKey> = self
            .changed_under(parent)
            .iter()
            .filter(|u| u.size > 0)
            .map(|u| (u.target, u.id))
            .filter(|&k| k > after)
            .collect();
        let skip = self.changed_under(parent).len();
        // The first `limit` unchanged units are among the first `limit + skip` underneath.
        let mut keys: Vec<TargetKey> = self
            .base
            .upcoming(parent, after, limit + skip)
            .into_iter()
            .filter(|(_, id)| !self.units.contains_key(id))
            .collect();
        keys.extend(changed);
        keys.sort();
        keys.truncate(limit);
        keys
    }

    fn biggest(&mut self, parent: i64, pass: i64, before: LeftKey, limit: usize) -> Vec<LeftKey> {
        let changed: Vec<LeftKey> = self
            .changed_under(parent)
            .iter()
            .filter(|u| u.size > 0 && u.pass == pass && u.left > 0)
            .map(|u| (u.left as i64, u.id))
            .filter(|&k| k < before)
            .collect();
        let skip = self.changed_under(parent).len();
        let mut keys: Vec<LeftKey> = self
            .base
            .biggest(parent, pass, before, limit + skip)
            .into_iter()
            .filter(|(_, id)| !self.units.contains_key(id))
            .collect();
        keys.extend(changed);
        keys.sort_by(|a, b| b.cmp(a));
        keys.truncate(limit);
        keys
    }

    fn units(&mut self, ids: &[i64]) -> Vec<Unit> {
        let unread: Vec<i64> = ids
            .iter()
            .copied()
            .filter(|id| !self.units.contains_key(id))
            .collect();
        let read: HashMap<i64, Unit> = if unread.is_empty() {
            HashMap::new()
        } else {
            self.base
                .units(&unread)
                .into_iter()
                .map(|u| (u.id, u))
                .collect()
        };
        ids.iter()
            .filter_map(|id| self.units.get(id).or_else(|| read.get(id)).cloned())
            .collect()
    }

    fn unit(&mut self, id: i64) -> Unit {
        match self.units.get(&id) {
            Some(unit) => unit.clone(),
            None => self.base.unit(id),
        }
    }

    fn save(&mut self, unit: &Unit) {
        self.units.insert(unit.id, unit.clone());
    }

    fn create(&mut self, unit: &Unit) {
        self.units.insert(unit.id, unit.clone());
    }

    fn swap(&mut self, unit: i64, a: u64, b: u64) -> i64 {
        let at_b = self.slot(unit, b);
        if a == b {
            return at_b;
        }
        let at_a = self.slot(unit, a);
        self.set_slot(unit, a, at_b);
        self.set_slot(unit, b, at_a);
        at_a
    }

    fn find(&mut self, track: i64) -> Option<(i64, u64)> {
        if let Some(&place) = self.place.get(&track) {
            return place;
        }
        self.base
            .find(track)
            .filter(|at| !self.slots.contains_key(at))
    }

    fn push(&mut self, unit: i64, slot: u64, track: i64) {
        self.set_slot(unit, slot, track);
    }

    fn pop(&mut self, unit: i64, slot: u64) {
        let leaving = self.slot(unit, slot);
        self.slots.insert((unit, slot), None);
        self.place.insert(leaving, None);
    }

    fn played(&mut self, position: i64) -> i64 {
        match self.log.get(&position) {
            Some(Some(track)) => *track,
            Some(None) => panic!("position {position} of the history was forgotten"),
            None => self.base.played(position),
        }
    }

    fn record(&mut self, position: i64, track: i64, forget: Option<i64>) {
        if let Some(oldest) = forget {
            self.forget(oldest);
        }
        self.log.insert(position, Some(track));
    }

    fn forget(&mut self, position: i64) {
        self.log.insert(position, None);
    }
}

#[cfg(test)]
mod tests;
