//! A skip that does not count: the track now playing goes back among the tracks its group has
//! yet to play in the queue's pass, as if it had not played in it.

use super::{Groups, SpreadQueue, Unit, TOP};
use crate::playlist::Draw;

/// Where a unit stands against its parent's pass `pass` with the track in `slot`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Standing {
    /// In the pass, the track among those to place: nothing to give back.
    ToPlace,
    /// In the pass, the track among those placed.
    Placed,
    /// Moved on to the next pass, having placed all of this one's (the track among them).
    MovedOn,
}

/// Where a unit with the track in `slot` stands against its parent's pass `pass`.
fn standing(unit: &Unit, pass: i64, slot: u64) -> Standing {
    if unit.pass != pass {
        Standing::MovedOn
    } else if slot < unit.left {
        Standing::ToPlace
    } else {
        Standing::Placed
    }
}

impl SpreadQueue {
    /// Gives `track` its turn in the queue's pass back: a track placed in the pass goes back
    /// among those its unit (and group) have yet to place; a unit that moved on to the next pass
    /// after placing its last track of this one comes back to this pass with that track to
    /// place. Every unit changed aims anew (group first, then subgroup), then takes a place
    /// drawn over the rest of the pass ([`later_in_pass`]).
    /// The history keeps the
    /// play. Returns whether the track had a turn to give back (false when it is already to be
    /// placed in the pass, as after the pass began anew, or no longer in the shuffle).
    pub fn give_back(&mut self, groups: &mut dyn Groups, draw: &mut dyn Draw, track: i64) -> bool {
        let Some((leaf_id, slot)) = groups.find(track) else {
            // Removed or skipped when shuffling since it played: it has no turn in the pass.
            return false;
        };
        let mut leaf = groups.unit(leaf_id);
        let mut group = (leaf.parent != TOP).then(|| groups.unit(leaf.parent));
        // The group's standing is its subgroup's while it is in the pass: the track is to be
        // placed in it only if it is in its subgroup.
        let top_standing = match &group {
            None => standing(&leaf, self.pass, slot),
            Some(g) if g.pass != self.pass => Standing::MovedOn,
            Some(g) => match standing(&leaf, g.pass, slot) {
                Standing::ToPlace => Standing::ToPlace,
                _ => Standing::Placed,
            },
        };
        if top_standing == Standing::ToPlace {
            return false;
        }
        if let Some(g) = group.as_mut() {
            back_into_pass(g, self.pass, top_standing, draw);
            later_in_pass(groups, g, self.pass, draw);
        }
        let leaf_pass = group.as_ref().map_or(self.pass, |g| g.pass);
        let leaf_standing = standing(&leaf, leaf_pass, slot);
        let into = match leaf_standing {
            Standing::Placed => leaf.left,
            _ => 0,
        };
        groups.swap(leaf_id, slot, into);
        back_into_pass(&mut leaf, leaf_pass, leaf_standing, draw);
        later_in_pass(groups, &mut leaf, leaf_pass, draw);
        self.note_and_save(groups, group.as_mut(), &leaf);
        self.pass_left += 1;
        true
    }
}

/// One track of `unit` goes back to be placed in `pass`, its parent's: one placed fewer, or a
/// unit that moved on back in the pass with that track alone to place (its other tracks
/// placed, a new offset). Then it aims.
fn back_into_pass(unit: &mut Unit, pass: i64, standing: Standing, draw: &mut dyn Draw) {
    match standing {
        Standing::ToPlace => return,
        Standing::Placed => {
            unit.left += 1;
            unit.placed -= 1;
        }
        Standing::MovedOn => {
            unit.pass = pass;
            unit.left = 1;
            unit.placed = unit.size - 1;
            unit.offset = draw.draw(super::HALF_STRATUM);
        }
    }
    unit.aim(draw);
}

/// A unit back in its parent's pass `pass` takes a target drawn uniformly between the earliest
/// target of the other units under its parent and the end of the pass: its place is drawn
/// over what is left of the pass, after the next (its aim alone would often give a place
/// already past, which the spread gives at once). Nothing when no other unit has a track left
/// in the pass.
fn later_in_pass(groups: &mut dyn Groups, unit: &mut Unit, pass: i64, draw: &mut dyn Draw) {
    let end = (pass + 1) * super::STRATUM;
    let earliest = groups
        .upcoming(unit.parent, (i64::MIN, i64::MIN), 2)
        .into_iter()
        .find(|&(_, id)| id != unit.id)
        .map(|(target, _)| target);
    if let Some(earliest) = earliest.filter(|&e| e < end) {
        unit.target = earliest + draw.draw((end - earliest) as u64) as i64;
    }
}
