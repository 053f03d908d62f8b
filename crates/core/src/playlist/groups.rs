//! Shuffle play spread by group: a queue whose tracks belong to groups (artists, and optionally
//! albums within an artist) and play in passes, each pass ordered by the spread rule of
//! [`crate::spread`]: no two neighbours of one group when that can be avoided, each group's
//! tracks spread evenly over the pass, the order random.
//!
//! The order of a pass is not computed ahead: each *next* places one track, so a step costs a
//! few index lookups whatever the length, and tracks added later simply join.
//!
//! - **Units.** A group of the first level (an artist) or, with two levels, a group of the
//!   second within one of the first (an album of the artist). Each unit has a pass number, how
//!   many of its tracks are left in its pass, how many it has placed, a random offset per pass
//!   and the target of its next track: `pass * 2^32 + (placed * 2^32 + offset + jitter) /
//!   (placed + left)` rounded down, the next item's place in an even spread of the unit over the
//!   pass, moved by the unit's offset and a jitter per item (each below `2^31`). A unit that has
//!   placed all its tracks of the pass moves on to the next pass at once, with a new offset, so
//!   its target is past every target of the current pass and it waits.
//! - **Choosing a unit.** Among the units under one parent (the groups, or the albums of the
//!   chosen artist), with `r[u]` the tracks left in the current pass, `m` their sum and `p` the
//!   unit placed last: the fewest same-unit neighbours still possible is
//!   `F(r, p) = max(0, 2 r[p] - m, max over u != p of 2 r[u] - m - 1)`, and a unit `x` may take
//!   the place when `[x = p] + F(r - x, x) = F(r, p)`. Of those, the earliest target wins. This
//!   is the optimal interleave of `crate::spread` carried across passes: the unit placed last
//!   in a pass is the previous unit at the start of the next.
//! - **Tracks.** Each unit of the last level keeps its tracks in slots `0 .. size`: those not
//!   yet placed in the pass first (`0 .. left`), then those placed. A placement draws one of the
//!   first `left` slots uniformly and swaps it with slot `left - 1`: within a pass, each unit's
//!   tracks come in a uniformly random order. The track placed last in a pass is left in slot
//!   0, which the unit's first draw of the next pass leaves out (when it has two or more
//!   tracks), so a unit never opens a pass with the track that closed the one before.
//! - **History.** What played is a log of positions, as the plain queue's history: *previous*
//!   walks back through it, *next* replays forward, and only at the newest play draws again.
//! - **Lookahead.** The units with the earliest targets and those with the most tracks left are
//!   what a choice reads. Under each parent (the queue for the groups, a group for its
//!   subgroups) a [`Lookahead`] keeps the first few of each order, with a bound up to which it
//!   is complete, and reads more from the units' indexes only when it runs short, from its
//!   bound on. An index of targets that every step moves would otherwise be read from its
//!   start, past every entry the steps since the last vacuum left dead there.
//!
//! Storage is behind the [`Groups`] trait: tables in SQL, maps in the unit tests.

use std::collections::HashMap;

use crate::error::{Error, ErrorKind};
use crate::playlist::Draw;

/// The width of one stratum of a unit's spread: a target's fraction of the pass is below this.
pub const STRATUM: i64 = 1 << 32;

/// Offsets and jitters are drawn below this, half a stratum each.
pub const HALF_STRATUM: u64 = 1 << 31;

/// The pass number of a unit that has no tracks (all removed or skipped): no pass has it.
pub const EMPTY_PASS: i64 = -1;

/// The target of a unit that has no tracks: after every other.
pub const EMPTY_TARGET: i64 = i64::MAX;

/// The parent of a unit of the first level.
pub const TOP: i64 = 0;

/// One group of the first or second level, and its spread over the passes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    pub id: i64,
    /// [`TOP`] for a group of the first level; the group's id for one of the second.
    pub parent: i64,
    /// Its tracks in the shuffle.
    pub size: u64,
    /// Of them, not yet placed in its pass.
    pub left: u64,
    /// Placed in its pass.
    pub placed: u64,
    /// Its pass: the queue's pass for a group of the first level while it has tracks left in
    /// it, the next once it has placed them all; for the second level, the same against its
    /// group's pass.
    pub pass: i64,
    pub offset: u64,
    /// Where its next track belongs: see the module notes.
    pub target: i64,
    /// For a group with subgroups: the subgroup that took its last place (0: none yet).
    pub last_child: i64,
    /// For a group with subgroups: the lookahead of its subgroups.
    pub children: Lookahead,
}

/// How many units a lookahead keeps of each order.
pub const LOOKAHEAD: usize = 16;

/// A key of the earliest-target order, (target, id), ascending.
pub type TargetKey = (i64, i64);

/// A key of the most-left order, (left, id), descending.
pub type LeftKey = (i64, i64);

/// The first units of two orders among the units under one parent: by target (those with
/// tracks), and by tracks left in the pass `pass` (those with tracks left in it). Each list is a
/// prefix of its order: every unit it does not hold comes after its bound, every unit it holds
/// at or before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lookahead {
    pub earliest: Vec<TargetKey>,
    /// `(i64::MIN, i64::MIN)`: nothing read yet; `(i64::MAX, i64::MAX)`: every unit is listed.
    pub earliest_bound: TargetKey,
    pub pass: i64,
    pub largest: Vec<LeftKey>,
    /// `(i64::MAX, i64::MAX)`: nothing read yet; `(i64::MIN, i64::MIN)`: every unit is listed.
    pub largest_bound: LeftKey,
}

impl Default for Lookahead {
    fn default() -> Self {
        Lookahead {
            earliest: Vec::new(),
            earliest_bound: (i64::MIN, i64::MIN),
            pass: EMPTY_PASS,
            largest: Vec::new(),
            largest_bound: (i64::MAX, i64::MAX),
        }
    }
}

impl Lookahead {
    /// Reads more of each order from the units when fewer than two are listed, and starts the
    /// order by tracks left over when the parent's pass is not the one listed.
    fn fill(&mut self, groups: &mut dyn Groups, parent: i64, pass: i64) {
        if self.pass != pass {
            self.pass = pass;
            self.largest.clear();
            self.largest_bound = (i64::MAX, i64::MAX);
        }
        if self.earliest.len() < 2 && self.earliest_bound != (i64::MAX, i64::MAX) {
            let asked = LOOKAHEAD - self.earliest.len();
            let more = groups.upcoming(parent, self.earliest_bound, asked);
            self.earliest_bound = match more.last() {
                Some(&last) if more.len() == asked => last,
                _ => (i64::MAX, i64::MAX),
            };
            self.earliest.extend(more);
        }
        if self.largest.len() < 2 && self.largest_bound != (i64::MIN, i64::MIN) {
            let asked = LOOKAHEAD - self.largest.len();
            let more = groups.biggest(parent, pass, self.largest_bound, asked);
            self.largest_bound = match more.last() {
                Some(&last) if more.len() == asked => last,
                _ => (i64::MIN, i64::MIN),
            };
            self.largest.extend(more);
        }
    }

    /// A unit under this parent changed: its entries move to where its keys now belong, or out
    /// of the lists when they fall past the bounds.
    fn note(&mut self, unit: &Unit) {
        self.earliest.retain(|&(_, id)| id != unit.id);
        if unit.size > 0 {
            let key = (unit.target, unit.id);
            if key <= self.earliest_bound {
                let at = self.earliest.partition_point(|&k| k < key);
                self.earliest.insert(at, key);
                if self.earliest.len() > LOOKAHEAD {
                    self.earliest.pop();
                    self.earliest_bound = *self.earliest.last().expect("a listed unit");
                }
            }
        }
        self.largest.retain(|&(_, id)| id != unit.id);
        if unit.size > 0 && unit.pass == self.pass && unit.left > 0 {
            let key = (unit.left as i64, unit.id);
            if key >= self.largest_bound {
                let at = self.largest.partition_point(|&k| k > key);
                self.largest.insert(at, key);
                if self.largest.len() > LOOKAHEAD {
                    self.largest.pop();
                    self.largest_bound = *self.largest.last().expect("a listed unit");
                }
            }
        }
    }
}

impl Unit {
    fn empty(id: i64, parent: i64) -> Unit {
        Unit {
            id,
            parent,
            size: 0,
            left: 0,
            placed: 0,
            pass: EMPTY_PASS,
            offset: 0,
            target: EMPTY_TARGET,
            last_child: 0,
            children: Lookahead::default(),
        }
    }

    /// Its tracks left in the pass `pass` of its parent (none once it has moved on).
    fn left_in(&self, pass: i64) -> u64 {
        if self.pass == pass {
            self.left
        } else {
            0
        }
    }

    /// A unit that had no tracks gets its first: it starts in `pass` with a new offset.
    fn start(&mut self, pass: i64, draw: &mut dyn Draw) {
        self.size = 1;
        self.left = 1;
        self.placed = 0;
        self.pass = pass;
        self.offset = draw.draw(HALF_STRATUM);
        self.aim(draw);
    }

    /// The target of its next track, with a fresh jitter.
    fn aim(&mut self, draw: &mut dyn Draw) {
        let jitter = draw.draw(HALF_STRATUM);
        let within = (self.placed as u128 * STRATUM as u128 + self.offset as u128 + jitter as u128)
            / (self.placed + self.left) as u128;
        self.target = self.pass * STRATUM + within as i64;
    }

    /// After a placement or a removal: a unit with no tracks left in its pass moves on to the
    /// next with a new offset; one with tracks left aims its next one. A unit without tracks
    /// waits for none.
    fn settle(&mut self, draw: &mut dyn Draw) {
        if self.size == 0 {
            self.pass = EMPTY_PASS;
            self.left = 0;
            self.placed = 0;
            self.target = EMPTY_TARGET;
            return;
        }
        if self.left == 0 {
            self.pass += 1;
            self.left = self.size;
            self.placed = 0;
            self.offset = draw.draw(HALF_STRATUM);
        }
        self.aim(draw);
    }
}

/// A track joins a unit of the last level: a unit without tracks starts in `pass`; otherwise the
/// track goes among those not yet placed in the unit's pass.
fn join(groups: &mut dyn Groups, draw: &mut dyn Draw, unit: &mut Unit, pass: i64, track: i64) {
    groups.push(unit.id, unit.size, track);
    if unit.size == 0 {
        unit.start(pass, draw);
    } else {
        groups.swap(unit.id, unit.size, unit.left);
        unit.size += 1;
        unit.left += 1;
    }
}

/// Where a spread queue keeps its units, their tracks and its history.
pub trait Groups {
    /// The (target, id) keys of the units under `parent` that have tracks, after `after` in
    /// that order, at most `limit` of them, in order.
    fn upcoming(&mut self, parent: i64, after: TargetKey, limit: usize) -> Vec<TargetKey>;
    /// The (left, id) keys of the units under `parent` in pass `pass` with tracks left in it,
    /// before `before` in descending order, at most `limit` of them, most first.
    fn biggest(&mut self, parent: i64, pass: i64, before: LeftKey, limit: usize) -> Vec<LeftKey>;
    /// Units by id (those that exist; ids may repeat; the core asks for four at a time).
    fn units(&mut self, ids: &[i64]) -> Vec<Unit>;
    /// A unit by id.
    fn unit(&mut self, id: i64) -> Unit;
    /// Writes a unit's state back.
    fn save(&mut self, unit: &Unit);
    /// Stores a new unit (with the name the caller gave for it).
    fn create(&mut self, unit: &Unit);
    /// A placement, at once: swaps slots `drawn` and `last` of unit `leaf` (`drawn == last`
    /// moves nothing), writes `units` back, records the track now in slot `last` at `position`
    /// of the history (as [`Groups::record`] does, with `forget`), and may write the queue's
    /// state, which is final. Returns the track. A store that can do this in one step (the
    /// tables, in one statement) overrides it; the result must be the same.
    #[allow(clippy::too_many_arguments)]
    fn place(
        &mut self,
        leaf: i64,
        drawn: u64,
        last: u64,
        units: &[&Unit],
        position: i64,
        forget: Option<i64>,
        queue: &SpreadQueue,
    ) -> i64 {
        let _ = queue;
        let track = self.swap(leaf, drawn, last);
        for unit in units {
            self.save(unit);
        }
        self.record(position, track, forget);
        track
    }
    /// Swaps the tracks of two slots of a unit (`a == b` changes nothing) and returns the
    /// track now at `b`.
    fn swap(&mut self, unit: i64, a: u64, b: u64) -> i64;
    /// The unit and slot of a track in the shuffle.
    fn find(&mut self, track: i64) -> Option<(i64, u64)>;
    /// Puts a track in a new slot of a unit.
    fn push(&mut self, unit: i64, slot: u64, track: i64);
    /// Takes the unit's last slot away.
    fn pop(&mut self, unit: i64, slot: u64);
    /// The track played at a position of the history.
    fn played(&mut self, position: i64) -> i64;
    /// Writes a play at `position`, just past the newest; `forget` is the oldest position,
    /// when it falls out of the history at the same time.
    fn record(&mut self, position: i64, track: i64, forget: Option<i64>);
    /// Drops the oldest position of the history.
    fn forget(&mut self, position: i64);
}

/// A group given for a track: a unit there is, or a new one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnitRef {
    Existing(i64),
    New,
}

/// The queue's own state: everything but its units, tracks and history rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpreadQueue {
    /// 1: groups; 2: groups and subgroups.
    pub levels: u8,
    /// Tracks in the shuffle.
    pub tracks: u64,
    pub pass: i64,
    /// Tracks left in the pass.
    pub pass_left: u64,
    /// The group placed last (0: none yet).
    pub last_group: i64,
    /// The id of the next unit made.
    pub next_unit: i64,
    /// The lookahead of the groups.
    pub top: Lookahead,
    /// The history: positions `front .. front + history`, newest last, the play position
    /// `behind` places before the newest.
    pub front: i64,
    pub history: u64,
    pub behind: u64,
}

/// What creating a spread queue gives: its state, its units, and each last-level unit's
/// items (indices into the playlist) in slot order.
#[derive(Debug, Clone)]
pub struct Created {
    pub queue: SpreadQueue,
    pub units: Vec<Unit>,
    /// For each unit of `units`, the playlist indices of its tracks by slot (empty for a group
    /// with subgroups), and the index of its first item (for its name).
    pub slots: Vec<Vec<usize>>,
    pub first_item: Vec<usize>,
}

/// How many positions of history a spread queue of `tracks` tracks keeps: as many as a plain
/// shuffle queue of that length with the default window.
pub fn history_limit(tracks: u64) -> u64 {
    tracks - (tracks / 2).max(1) + 1
}

/// Which unit each item belongs to: its group (`group[i]`, from 0) and, with two levels, its
/// (group, subgroup) pair (`subgroup[i]`, from 0). Unit k (0-based) has id k + 1: the groups
/// first, then the pairs.
struct Membership<'a> {
    group: &'a [u32],
    groups: usize,
    subgroup: Option<(&'a [u32], usize)>,
}

impl Membership<'_> {
    /// How many units there are: the groups and the pairs.
    fn units(&self) -> usize {
        self.groups + self.subgroup.map_or(0, |s| s.1)
    }

    /// The unit of the last level item i belongs to.
    fn leaf_of(&self, i: usize) -> usize {
        match self.subgroup {
            Some((pair, _)) => self.groups + pair[i] as usize,
            None => self.group[i] as usize,
        }
    }

    /// The units with their parents, sizes and tracks left for the first pass, and the first
    /// item of each (for its name).
    fn count_units(&self, held: &[bool]) -> (Vec<Unit>, Vec<usize>) {
        let total = self.units();
        let mut units: Vec<Unit> = (0..total).map(|k| Unit::empty(k as i64 + 1, TOP)).collect();
        let mut first_item = vec![usize::MAX; total];
        for (i, &g) in self.group.iter().enumerate() {
            let g = g as usize;
            let leaf = self.leaf_of(i);
            if leaf != g {
                units[leaf].parent = g as i64 + 1;
            }
            for u in [g, leaf] {
                if first_item[u] == usize::MAX {
                    first_item[u] = i;
                }
            }
            units[g].size += 1;
            if leaf != g {
                units[leaf].size += 1;
            }
            if !held[i] {
                units[g].left += 1;
                if leaf != g {
                    units[leaf].left += 1;
                }
            }
        }
        (units, first_item)
    }

    /// Each unit's items by slot: the items of the first pass in playlist order, then those
    /// held out of it.
    fn fill_slots(&self, held: &[bool]) -> Vec<Vec<usize>> {
        let mut slots: Vec<Vec<usize>> = vec![Vec::new(); self.units()];
        for pass_zero in [true, false] {
            for (i, &h) in held.iter().enumerate() {
                if h != pass_zero {
                    slots[self.leaf_of(i)].push(i);
                }
            }
        }
        slots
    }

    /// The first place: a uniformly drawn item's group, unless one group holds more than half
    /// of the pass (`in_pass`, `m` items); likewise its subgroup within the group. Returns the
    /// group and the subgroup.
    fn first_place(
        &self,
        units: &[Unit],
        in_pass: &[usize],
        m: u64,
        draw: &mut dyn Draw,
    ) -> (usize, Option<usize>) {
        let largest_of = |units: &[Unit], ids: &mut dyn Iterator<Item = usize>| -> Option<usize> {
            ids.max_by_key(|&u| (units[u].left, std::cmp::Reverse(u)))
        };
        let biggest = largest_of(units, &mut (0..self.groups)).expect("a group");
        let (first_group, drawn) = if 2 * units[biggest].left > m {
            (biggest, None)
        } else {
            let t = in_pass[draw.draw(m) as usize];
            (self.group[t] as usize, Some(t))
        };
        let first_sub = self.subgroup.map(|_| {
            let children: Vec<usize> = (self.groups..self.units())
                .filter(|&u| units[u].parent == first_group as i64 + 1)
                .collect();
            let biggest = largest_of(units, &mut children.iter().copied()).expect("a subgroup");
            let left = units[first_group].left;
            if 2 * units[biggest].left > left {
                biggest
            } else {
                let t = match drawn {
                    Some(t) => t,
                    None => {
                        let own: Vec<usize> = in_pass
                            .iter()
                            .copied()
                            .filter(|&i| self.group[i] as usize == first_group)
                            .collect();
                        own[draw.draw(left) as usize]
                    }
                };
                self.leaf_of(t)
            }
        });
        (first_group, first_sub)
    }
}

/// Passes and targets: a unit with every track held out starts at the second pass.
fn start_passes(units: &mut [Unit], draw: &mut dyn Draw) {
    for unit in units.iter_mut() {
        unit.pass = 0;
        if unit.left == 0 {
            unit.pass = 1;
            unit.left = unit.size;
        }
        unit.offset = draw.draw(HALF_STRATUM);
        unit.aim(draw);
    }
}

/// Makes a spread queue. `group[i]` is item i's group number (from 0, in order of first
/// appearance), `subgroup[i]` (with two levels) the number of its (group, subgroup) pair in
/// order of first appearance. `held[i]` holds item i out of the first pass (it joins from the
/// second; see [`crate::playlist::recent`]): at most half the items may be held.
pub fn create(
    group: &[u32],
    groups: usize,
    subgroup: Option<(&[u32], usize)>,
    held: &[bool],
    draw: &mut dyn Draw,
) -> Result<Created, Error> {
    let n = group.len();
    if n == 0 {
        return Err(Error::invalid("a shuffle queue needs at least one track"));
    }
    debug_assert_eq!(held.len(), n);
    let membership = Membership {
        group,
        groups,
        subgroup,
    };
    let (mut units, first_item) = membership.count_units(held);
    let slots = membership.fill_slots(held);
    let in_pass: Vec<usize> = (0..n).filter(|&i| !held[i]).collect();
    let m = in_pass.len() as u64;
    if m == 0 {
        return Err(Error::invalid(
            "a shuffle queue needs a track in its first pass",
        ));
    }
    let (first_group, first_sub) = membership.first_place(&units, &in_pass, m, draw);
    start_passes(&mut units, draw);
    units[first_group].target = 0;
    if let Some(s) = first_sub {
        units[s].target = 0;
    }
    Ok(Created {
        queue: SpreadQueue {
            levels: if subgroup.is_some() { 2 } else { 1 },
            tracks: n as u64,
            pass: 0,
            pass_left: m,
            last_group: 0,
            next_unit: membership.units() as i64 + 1,
            top: Lookahead::default(),
            front: 0,
            history: 0,
            behind: 0,
        },
        units,
        slots,
        first_item,
    })
}

/// The fewest same-unit neighbours still possible after one more track of a unit with
/// `x_left` tracks left, the largest count being `largest` (held by that unit alone when
/// `unique`), `m` tracks left before it: `F(r - x, x)` of the module notes.
fn fewest_after(x_left: u64, largest: u64, unique: bool, m: u64) -> u64 {
    let twice = 2 * largest;
    if x_left == largest && unique {
        twice.saturating_sub(m + 1)
    } else {
        twice.saturating_sub(m)
    }
}

/// The unit that takes the next place under `parent` (in the parent's pass `pass`, `m` tracks
/// left in it, `previous` placed last), its lookahead `ahead`.
fn choose(
    groups: &mut dyn Groups,
    ahead: &mut Lookahead,
    parent: i64,
    pass: i64,
    m: u64,
    previous: i64,
) -> Unit {
    ahead.fill(groups, parent, pass);
    // The earliest target is a unit with tracks left in the pass: the others have moved on to
    // the next pass, past every target of this one.
    let x_id = ahead
        .earliest
        .first()
        .expect("a unit has tracks left in the pass")
        .1;
    let y_id = ahead.earliest.get(1).map_or(x_id, |k| k.1);
    let (largest, largest_id) = ahead
        .largest
        .first()
        .map_or((0, x_id), |&(left, id)| (left as u64, id));
    let unique = ahead
        .largest
        .get(1)
        .is_none_or(|&(left, _)| (left as u64) < largest);
    let read = groups.units(&[x_id, y_id, largest_id, previous]);
    let by_id = |id: i64| read.iter().find(|u| u.id == id).cloned();
    let x = by_id(x_id).expect("the earliest unit");
    let twice = 2 * largest;
    let Some(p) = by_id(previous).filter(|_| previous != 0) else {
        // The first place: the largest must open when it holds more than half.
        return if twice > m {
            by_id(largest_id).expect("the largest unit")
        } else {
            x
        };
    };
    let p_left = p.left_in(pass);
    if twice > m && p_left < largest {
        // The largest must take this place: it holds more than half of what is left.
        return by_id(largest_id).expect("the largest unit");
    }
    let fewest = twice.saturating_sub(m + u64::from(p_left < largest));
    if x.id != p.id || 1 + fewest_after(p_left, largest, unique, m) == fewest {
        return x;
    }
    let y = by_id(y_id).filter(|y| y.id != x.id && y.left_in(pass) > 0);
    y.expect("another unit has tracks left when the last one may not repeat")
}

impl SpreadQueue {
    /// The position of the newest play.
    pub fn newest(&self) -> i64 {
        self.front + self.history as i64 - 1
    }

    /// The position of the track playing, if anything played.
    pub fn playing(&self) -> Option<i64> {
        (self.history > 0).then(|| self.newest() - self.behind as i64)
    }

    pub fn current(&self, groups: &mut dyn Groups) -> Option<i64> {
        self.playing().map(|p| groups.played(p))
    }

    /// Steps back through what played: at the oldest remembered, stays there.
    pub fn prev(&mut self, groups: &mut dyn Groups) -> Option<i64> {
        if self.history == 0 {
            return None;
        }
        self.behind = (self.behind + 1).min(self.history - 1);
        self.current(groups)
    }

    /// Whether *next* replays (the play position is behind the newest play).
    pub fn replaying(&self) -> bool {
        self.behind > 0
    }

    /// One press of *Next*: a replay when the play position is behind the newest play; else
    /// `up_next` (the listener's first track up next, taken from the list only when not
    /// replaying) played as a jump; else the next place of the spread.
    pub fn step(
        &mut self,
        groups: &mut dyn Groups,
        draw: &mut dyn Draw,
        up_next: Option<i64>,
    ) -> Result<i64, Error> {
        match up_next {
            Some(track) if !self.replaying() => self.jump(groups, draw, track),
            _ => Ok(self.next(groups, draw)),
        }
    }

    /// The next track: a replay when the play position is behind the newest play, else the
    /// next place of the spread.
    pub fn next(&mut self, groups: &mut dyn Groups, draw: &mut dyn Draw) -> i64 {
        if self.behind > 0 {
            self.behind -= 1;
            return groups.played(self.newest() - self.behind as i64);
        }
        let mut group = choose(
            groups,
            &mut self.top,
            TOP,
            self.pass,
            self.pass_left,
            self.last_group,
        );
        let mut sub = (self.levels == 2).then(|| {
            let (id, pass, left, last) = (group.id, group.pass, group.left, group.last_child);
            choose(groups, &mut group.children, id, pass, left, last)
        });
        let leaf = sub.as_ref().unwrap_or(&group);
        let fresh = leaf.placed == 0 && leaf.pass > 0 && leaf.left >= 3;
        let slot = if fresh {
            1 + draw.draw(leaf.left - 1)
        } else {
            draw.draw(leaf.left)
        };
        let (leaf_id, last) = (leaf.id, leaf.left - 1);
        self.placed(draw, &mut group, sub.as_mut());
        let units: Vec<&Unit> = std::iter::once(&group).chain(sub.as_ref()).collect();
        self.commit(groups, leaf_id, slot, last, &units)
    }

    /// Writes a placement: the track in slot `drawn` of unit `leaf` swaps places with slot
    /// `last`, the units are written back, and the track is recorded as the newest play.
    fn commit(
        &mut self,
        groups: &mut dyn Groups,
        leaf: i64,
        drawn: u64,
        last: u64,
        units: &[&Unit],
    ) -> i64 {
        let position = self.front + self.history as i64;
        let forget = (self.history >= history_limit(self.tracks)).then_some(self.front);
        if forget.is_some() {
            self.front += 1;
        } else {
            self.history += 1;
        }
        self.behind = 0;
        groups.place(leaf, drawn, last, units, position, forget, self)
    }

    /// A track of `group` (and `sub`) was placed in its pass: the units and the queue's pass
    /// move on.
    fn placed(&mut self, draw: &mut dyn Draw, group: &mut Unit, sub: Option<&mut Unit>) {
        group.left -= 1;
        group.placed += 1;
        if let Some(sub) = &sub {
            group.last_child = sub.id;
        }
        group.settle(draw);
        if let Some(sub) = sub {
            sub.left -= 1;
            sub.placed += 1;
            sub.settle(draw);
            group.children.note(sub);
        }
        self.top.note(group);
        self.last_group = group.id;
        self.pass_left -= 1;
        self.end_of_pass();
    }

    /// When the pass has no track left: the next begins, with every track.
    fn end_of_pass(&mut self) {
        if self.pass_left == 0 {
            self.pass += 1;
            self.pass_left = self.tracks;
        }
    }

    /// Appends a play to the history, forgetting the oldest beyond the limit.
    fn record(&mut self, groups: &mut dyn Groups, track: i64) {
        let position = self.front + self.history as i64;
        if self.history < history_limit(self.tracks) {
            groups.record(position, track, None);
            self.history += 1;
        } else {
            groups.record(position, track, Some(self.front));
            self.front += 1;
        }
        self.behind = 0;
    }

    /// Writes back a unit of the last level and, with two levels, its group, once the
    /// lookaheads have noted them.
    fn note_and_save(&mut self, groups: &mut dyn Groups, group: Option<&mut Unit>, leaf: &Unit) {
        match group {
            Some(g) => {
                g.children.note(leaf);
                self.top.note(g);
                groups.save(g);
            }
            None => self.top.note(leaf),
        }
        groups.save(leaf);
    }

    /// Forgets the oldest plays beyond the limit (after the queue got shorter).
    fn fit_history(&mut self, groups: &mut dyn Groups) {
        while self.history > history_limit(self.tracks) {
            groups.forget(self.front);
            self.front += 1;
            self.history -= 1;
        }
        self.behind = self.behind.min(self.history.saturating_sub(1));
    }

    /// The track plays now (the listener tapped it), and the spread goes on from it: it counts
    /// as its group's place in the pass if it had not played in it yet, and its group is the
    /// previous one for the next place. A track that waits for its unit's next pass is moved
    /// to the slot that pass does not open with.
    pub fn jump(
        &mut self,
        groups: &mut dyn Groups,
        draw: &mut dyn Draw,
        track: i64,
    ) -> Result<i64, Error> {
        let Some((leaf_id, slot)) = groups.find(track) else {
            return Err(not_in_queue(track));
        };
        let mut leaf = groups.unit(leaf_id);
        let mut group = if leaf.parent == TOP {
            None
        } else {
            Some(groups.unit(leaf.parent))
        };
        let top = group.as_ref().unwrap_or(&leaf);
        let in_pass = top.pass == self.pass
            && slot < leaf.left
            && group.as_ref().is_none_or(|g| leaf.pass == g.pass);
        if in_pass {
            let last = leaf.left - 1;
            match group.as_mut() {
                Some(g) => {
                    self.placed(draw, g, Some(&mut leaf));
                    self.commit(groups, leaf_id, slot, last, &[g, &leaf]);
                }
                None => {
                    self.placed(draw, &mut leaf, None);
                    self.commit(groups, leaf_id, slot, last, &[&leaf]);
                }
            }
            return Ok(track);
        }
        if slot < leaf.left && slot != 0 {
            groups.swap(leaf_id, slot, 0);
        }
        match group.as_mut() {
            Some(g) => {
                g.last_child = leaf.id;
                groups.save(g);
                self.last_group = g.id;
            }
            None => self.last_group = leaf.id,
        }
        self.record(groups, track);
        Ok(track)
    }

    /// Puts a new track in the shuffle, in `group` (and `sub`, with two levels): it joins its
    /// unit's current pass among the tracks not yet placed. A unit without tracks (a new one)
    /// starts in the pass of its parent with a new offset. Returns the units' ids.
    pub fn add(
        &mut self,
        groups: &mut dyn Groups,
        draw: &mut dyn Draw,
        track: i64,
        group: UnitRef,
        sub: Option<UnitRef>,
    ) -> Result<(i64, Option<i64>), Error> {
        if groups.find(track).is_some() {
            return Err(Error::invalid(format!(
                "track {track} is already in the queue"
            )));
        }
        if (self.levels == 2) != sub.is_some() {
            return Err(Error::invalid(if self.levels == 2 {
                "this queue spreads its tracks by group and subgroup: give the track's subgroup"
            } else {
                "this queue spreads its tracks by group only: give no subgroup"
            }));
        }
        let mut top = self.unit_for(groups, group, TOP);
        let mut leaf_id = None;
        let counted = match sub {
            None => {
                join(groups, draw, &mut top, self.pass, track);
                top.pass == self.pass
            }
            Some(sub) => {
                let mut leaf = self.unit_for(groups, sub, top.id);
                let fresh_group = top.size == 0;
                if fresh_group {
                    top.start(self.pass, draw);
                }
                // Whether the track is in the group's pass: not when its subgroup has placed
                // all of its tracks of that pass and waits for the next.
                let in_group_pass = leaf.size == 0 || leaf.pass == top.pass;
                join(groups, draw, &mut leaf, top.pass, track);
                if !fresh_group {
                    top.size += 1;
                    if in_group_pass {
                        top.left += 1;
                    }
                }
                top.children.note(&leaf);
                groups.save(&leaf);
                leaf_id = Some(leaf.id);
                in_group_pass && top.pass == self.pass
            }
        };
        self.top.note(&top);
        groups.save(&top);
        if counted {
            self.pass_left += 1;
        }
        self.tracks += 1;
        Ok((top.id, leaf_id))
    }

    /// Puts back a track that left the shuffle (skipped when shuffling) into its unit of the
    /// last level, `leaf`, as [`SpreadQueue::add`] would put a new one there.
    pub fn rejoin(
        &mut self,
        groups: &mut dyn Groups,
        draw: &mut dyn Draw,
        track: i64,
        leaf: i64,
    ) -> Result<(), Error> {
        let unit = groups.unit(leaf);
        if unit.parent == TOP {
            self.add(groups, draw, track, UnitRef::Existing(leaf), None)?;
        } else {
            let group = UnitRef::Existing(unit.parent);
            self.add(groups, draw, track, group, Some(UnitRef::Existing(leaf)))?;
        }
        Ok(())
    }

    fn unit_for(&mut self, groups: &mut dyn Groups, unit: UnitRef, parent: i64) -> Unit {
        match unit {
            UnitRef::Existing(id) => groups.unit(id),
            UnitRef::New => {
                let unit = Unit::empty(self.next_unit, parent);
                self.next_unit += 1;
                groups.create(&unit);
                unit
            }
        }
    }

    /// Takes a track out of the shuffle (removed, or skipped when shuffling): its unit's slots
    /// close up, and a unit left with no track of its pass moves on to the next. Returns the
    /// unit of the last level it was in.
    pub fn leave(
        &mut self,
        groups: &mut dyn Groups,
        draw: &mut dyn Draw,
        track: i64,
    ) -> Result<i64, Error> {
        let Some((leaf_id, slot)) = groups.find(track) else {
            return Err(not_in_queue(track));
        };
        if self.tracks == 1 {
            return Err(Error::invalid(format!(
                "track {track} is the only one in the queue: drop the queue instead"
            )));
        }
        let mut leaf = groups.unit(leaf_id);
        let mut group = (leaf.parent != TOP).then(|| groups.unit(leaf.parent));
        let top_pass = group.as_ref().unwrap_or(&leaf).pass;
        let in_leaf_pass = slot < leaf.left;
        let counted_in_group = in_leaf_pass && group.as_ref().is_none_or(|g| leaf.pass == g.pass);
        let counted_in_queue = counted_in_group && top_pass == self.pass;
        let mut at = slot;
        if in_leaf_pass {
            groups.swap(leaf_id, at, leaf.left - 1);
            at = leaf.left - 1;
            leaf.left -= 1;
        }
        groups.swap(leaf_id, at, leaf.size - 1);
        groups.pop(leaf_id, leaf.size - 1);
        leaf.size -= 1;
        if let Some(g) = group.as_mut() {
            g.size -= 1;
            if counted_in_group {
                g.left -= 1;
            }
            if g.size == 0 || (counted_in_group && g.left == 0) {
                g.settle(draw);
            }
        }
        if leaf.size == 0 || (in_leaf_pass && leaf.left == 0) {
            leaf.settle(draw);
        }
        self.note_and_save(groups, group.as_mut(), &leaf);
        self.tracks -= 1;
        if counted_in_queue {
            self.pass_left -= 1;
            self.end_of_pass();
        }
        self.fit_history(groups);
        Ok(leaf_id)
    }
}

impl SpreadQueue {
    /// Checks a state saved elsewhere (shuffle_queue_restore) before it becomes a queue: its
    /// units, the tracks of each unit of the last level by slot, and its history. Everything a
    /// step relies on must hold; says what does not.
    pub fn validate(
        &self,
        units: &[Unit],
        slots: &HashMap<i64, Vec<i64>>,
        history: &[i64],
    ) -> Result<(), String> {
        self.check_counters(history)?;
        let by_id: HashMap<i64, &Unit> = units.iter().map(|u| (u.id, u)).collect();
        if by_id.len() != units.len() {
            return Err("two of its groups have one id".into());
        }
        let mut seen = std::collections::HashSet::new();
        let mut in_pass = 0u64;
        let mut total = 0u64;
        for u in units {
            let children = self.check_level(u, units, &by_id)?;
            self.check_unit_state(u, &by_id)?;
            match children {
                None => check_leaf_tracks(u, slots, &mut seen)?,
                Some(children) => check_parent_counts(u, &children, &by_id)?,
            }
            if u.parent == TOP {
                total += u.size;
                if u.pass == self.pass && u.size > 0 {
                    in_pass += u.left;
                }
            }
        }
        if slots.keys().any(|id| !by_id.contains_key(id)) {
            return Err("tracks belong to a group it does not have".into());
        }
        if total != self.tracks || in_pass != self.pass_left {
            return Err(format!(
                "its groups hold {total} tracks, {in_pass} left in the pass, for {} and {}",
                self.tracks, self.pass_left
            ));
        }
        if self.last_group != 0 && by_id.get(&self.last_group).is_none_or(|g| g.parent != TOP) {
            return Err("the group placed last is not one of its groups".into());
        }
        Ok(())
    }

    /// The queue's own counters: its levels, tracks, history, play position and pass.
    fn check_counters(&self, history: &[i64]) -> Result<(), String> {
        if self.levels != 1 && self.levels != 2 {
            return Err(format!("levels {} is not 1 or 2", self.levels));
        }
        if self.tracks == 0 {
            return Err("it has no track".into());
        }
        if history.len() as u64 != self.history || self.history > history_limit(self.tracks) {
            return Err(format!(
                "its history holds {} plays where it counts {} (at most {})",
                history.len(),
                self.history,
                history_limit(self.tracks)
            ));
        }
        if self.front.checked_add(self.history as i64).is_none() {
            return Err("its positions do not fit in a bigint".into());
        }
        if self.behind > 0 && self.behind >= self.history {
            return Err("its play position is outside its history".into());
        }
        if self.pass < 0 || self.pass_left == 0 || self.pass > i64::MAX / STRATUM - 2 {
            return Err("its pass is not one a queue reaches".into());
        }
        Ok(())
    }

    /// A unit's id, the group above it and its level. Returns its subgroups, None for a unit
    /// of the last level.
    fn check_level<'u>(
        &self,
        u: &Unit,
        units: &'u [Unit],
        by_id: &HashMap<i64, &Unit>,
    ) -> Result<Option<Vec<&'u Unit>>, String> {
        if u.id <= 0 || u.id >= self.next_unit {
            return Err(format!(
                "group {} is not below next_unit {}",
                u.id, self.next_unit
            ));
        }
        let children: Vec<&Unit> = units.iter().filter(|c| c.parent == u.id).collect();
        let top = u.parent == TOP;
        if !top {
            let parent = by_id.get(&u.parent).filter(|p| p.parent == TOP);
            if self.levels != 2 || parent.is_none() {
                return Err(format!("group {} has no group above it to belong to", u.id));
            }
        }
        let leaf = if self.levels == 2 { !top } else { true };
        if leaf != children.is_empty() && !(top && self.levels == 2 && u.size == 0) {
            return Err(format!("group {} is not at the level its queue has", u.id));
        }
        Ok((!leaf).then_some(children))
    }

    /// A unit's pass, tracks left, shift and target: a state a queue reaches.
    fn check_unit_state(&self, u: &Unit, by_id: &HashMap<i64, &Unit>) -> Result<(), String> {
        if u.size == 0 {
            if (u.pass, u.left, u.target) != (EMPTY_PASS, 0, EMPTY_TARGET) {
                return Err(format!("group {} has no track but waits for a pass", u.id));
            }
            return Ok(());
        }
        let pass_of_parent = if u.parent == TOP {
            self.pass
        } else {
            by_id[&u.parent].pass
        };
        if u.left == 0
            || u.left > u.size
            || (u.pass != pass_of_parent && u.pass != pass_of_parent + 1)
            || u.offset >= HALF_STRATUM
            || u.placed > u64::MAX / 2
            || u.target < u.pass * STRATUM
            || u.target >= (u.pass + 1) * STRATUM
        {
            return Err(format!("group {} is not in a state a queue reaches", u.id));
        }
        Ok(())
    }
}

/// A unit of the last level holds as many tracks as its size, none held elsewhere.
fn check_leaf_tracks(
    u: &Unit,
    slots: &HashMap<i64, Vec<i64>>,
    seen: &mut std::collections::HashSet<i64>,
) -> Result<(), String> {
    let own = slots.get(&u.id).map_or(&[][..], |s| &s[..]);
    if own.len() as u64 != u.size {
        return Err(format!(
            "group {} holds {} tracks for {}",
            u.id,
            own.len(),
            u.size
        ));
    }
    for &t in own {
        if !seen.insert(t) {
            return Err(format!("track {t} appears more than once"));
        }
    }
    Ok(())
}

/// A group with subgroups counts their tracks, and names one of its own as the last placed.
fn check_parent_counts(
    u: &Unit,
    children: &[&Unit],
    by_id: &HashMap<i64, &Unit>,
) -> Result<(), String> {
    let size: u64 = children.iter().map(|c| c.size).sum();
    let left: u64 = children
        .iter()
        .filter(|c| c.pass == u.pass)
        .map(|c| c.left)
        .sum();
    if size != u.size || (u.size > 0 && left != u.left) {
        return Err(format!(
            "group {} does not count its subgroups' tracks",
            u.id
        ));
    }
    if u.last_child != 0 && by_id.get(&u.last_child).is_none_or(|c| c.parent != u.id) {
        return Err(format!("group {} names a subgroup not its own", u.id));
    }
    Ok(())
}

fn not_in_queue(track: i64) -> Error {
    Error::new(
        ErrorKind::NotFound,
        format!("track {track} is not in the queue"),
    )
}

mod give_back;
pub mod memory;

#[cfg(test)]
pub(crate) mod tests;
