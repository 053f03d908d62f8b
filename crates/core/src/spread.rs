//! Spread by group: a random order of items in which no two neighbours share a group whenever
//! that can be avoided, and each group's items are spread evenly over the order (shuffle play
//! that does not play one artist twice in a row).
//!
//! The order is built in four steps, each from the same [`Stream`]:
//!
//! 1. Groups are numbered in order of first appearance, and each group's items (in input order)
//!    are shuffled by Fisher-Yates; on two levels ([`spread_nested`]: artist, then album), they
//!    are put in their own spread by subgroup instead.
//! 2. The first item is drawn uniformly from all items, unless one group holds more than half of
//!    them (`2 * largest > n`): then it must open the order, and its first item does.
//! 3. Every item gets a target, its place in an even spread of its group: a group of `c` items
//!    has one item in each `1/c` of the order, the item of stratum `j` at
//!    `(j + offset + jitter) / c`, with one random offset for the group and a random jitter for
//!    the item, each in `[0, 1/2)` of a stratum. The offset moves a group against the others (the
//!    Spotify 2014 balanced shuffle has only this); the jitter keeps groups of equal size from
//!    repeating the same pattern round after round.
//! 4. The places after the first are filled one by one: among the groups that can take the
//!    place without raising the fewest same-group neighbours still possible, the one whose next
//!    item has the earliest target takes it.
//!
//! Step 4 is an optimal interleave: the fewest same-group neighbours an order of n items can
//! have is `max(0, 2 * largest - n - 1)`, and every order made here has exactly that many. With
//! `r` items left, `m` of them in all, after an item of group `p`, the fewest neighbours still
//! possible is
//!
//! ```text
//! F(r, p) = max(0, 2 r[p] - m, max over g != p of 2 r[g] - m - 1)
//! ```
//!
//! (the largest group needs `r[g] - 1` separators among the others, and `p` cannot separate
//! the first of them); a group `x` may take the place when `[x == p] + F(r - x, x) = F(r, p)`.
//! The unit tests check F against an exhaustive search and every order against the minimum.
//!
//! What is random, exactly: which items of a group take that group's places is a uniformly
//! random order, independent of everything else (step 1 draws are used by nothing else); the
//! first item is uniform over all items (so its group is chosen with probability proportional to
//! its size) when no group holds more than half of them, and otherwise uniform over the largest
//! group. Which group takes which place depends on the offsets and jitters, so it follows no
//! fixed pattern, but it is not uniform over the group sequences: it is spread.
//!
//! The cost is O(n log n) time (a binary heap of groups, and buckets of groups by the items they
//! have left) and about 40 bytes of working memory an item with the SQL layer's group numbers,
//! counted against the call's working memory.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::error::{Error, ErrorKind};
use crate::rng::Stream;
use crate::scratch::{Claim, Scratch};
use crate::shuffle::{fisher_yates, CHECK_EVERY};

/// The width of one stratum of a group's spread in target units: a target is
/// `j * STRATUM + offset + jitter` over the group's size.
pub const STRATUM: u64 = 1 << 32;

/// Offsets and jitters are drawn from `0..HALF_STRATUM`, so an item stays inside its stratum.
pub const HALF_STRATUM: u32 = 1 << 31;

/// Group numbers for `n` items: item i's group is the one of its key, groups numbered from 0 in
/// order of first appearance. Returns the numbers and how many groups there are. Keys are
/// compared with `Ord` (the SQL layer gives the stored bytes of each group value).
pub fn number_groups<K: Ord>(
    n: usize,
    key: impl Fn(usize) -> K,
    check: &mut dyn FnMut(),
) -> Result<(Scratch<u32>, usize), Error> {
    let mut by_key = Scratch::from_fn(n, |i| i as u32)?;
    // Equal keys end up together, each run in input order: its first item is the group's first
    // appearance.
    by_key.sort_unstable_by(|&a, &b| key(a as usize).cmp(&key(b as usize)).then(a.cmp(&b)));
    check();
    // first[i]: the first item with item i's key.
    let mut first = Scratch::from_fn(n, |_| 0u32)?;
    let mut run_start = 0;
    for k in 0..n {
        if k > 0 && key(by_key[k] as usize) != key(by_key[k - 1] as usize) {
            run_start = k;
        }
        first[by_key[k] as usize] = by_key[run_start];
        if k % CHECK_EVERY == CHECK_EVERY - 1 {
            check();
        }
    }
    drop(by_key);
    // The first item of a group comes before the others, so its number is known when they are
    // reached.
    let mut groups = 0u32;
    for i in 0..n {
        let f = first[i] as usize;
        first[i] = if f == i {
            groups += 1;
            groups - 1
        } else {
            first[f]
        };
    }
    Ok((first, groups as usize))
}

/// The rules of a spread. Only the unit tests change them, to show that their statistics catch
/// a spread that breaks one.
#[derive(Clone, Copy)]
pub(crate) struct Rules {
    /// How each group's items are put in random order.
    pub(crate) shuffle_group: fn(&mut [u32], &mut Stream, &mut dyn FnMut()),
    /// Whether the first item is drawn from all items (step 2), or simply the earliest target.
    pub(crate) draw_first: bool,
}

impl Rules {
    pub(crate) const FAIR: Rules = Rules {
        shuffle_group: |items, stream, check| fisher_yates(items, stream, check),
        draw_first: true,
    };
}

/// The spread order of `n = groups.len()` items: `groups[i]` is item i's group number, from
/// [`number_groups`] (numbers below `group_count`, in order of first appearance). Returns the
/// item indices in their new order. `check` is called regularly, so a long spread can be
/// cancelled.
pub fn spread(
    groups: &[u32],
    group_count: usize,
    stream: &mut Stream,
    check: &mut dyn FnMut(),
) -> Result<Scratch<u32>, Error> {
    spread_with(groups, group_count, None, stream, check, Rules::FAIR)
}

/// [`spread`] on two levels: `subgroups[i]` is item i's subgroup (an album of the artist: any
/// labels, compared only between items of one group). Each group's items take the group's
/// places in their own spread by subgroup, instead of a uniformly random order, so one artist's
/// tracks also keep apart the tracks of one album. The groups' places follow the same rules as
/// in [`spread`], from other draws of the stream.
pub fn spread_nested(
    groups: &[u32],
    group_count: usize,
    subgroups: &[u32],
    stream: &mut Stream,
    check: &mut dyn FnMut(),
) -> Result<Scratch<u32>, Error> {
    debug_assert_eq!(groups.len(), subgroups.len());
    spread_with(
        groups,
        group_count,
        Some(subgroups),
        stream,
        check,
        Rules::FAIR,
    )
}

/// A group's items (indices into `subgroups`) in their spread by subgroup, from the stream:
/// the subgroups numbered in order of first appearance among these items.
fn spread_by_subgroup(
    members: &mut [u32],
    subgroups: &[u32],
    stream: &mut Stream,
    check: &mut dyn FnMut(),
    rules: Rules,
) -> Result<(), Error> {
    let (numbers, count) = number_groups(
        members.len(),
        |j| subgroups[members[j] as usize],
        &mut *check,
    )?;
    let order = spread_with(&numbers, count, None, stream, check, rules)?;
    let spread = Scratch::from_fn(members.len(), |p| members[order[p] as usize])?;
    members.copy_from_slice(&spread);
    Ok(())
}

/// The next item of a group, as the target heap holds it: the earliest target first, ties to
/// the lower group number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Next {
    /// `stratum * STRATUM + offset + jitter`, below `size * STRATUM`.
    key: u64,
    size: u32,
    group: u32,
}

impl Next {
    fn stratum(&self) -> u32 {
        (self.key / STRATUM) as u32
    }
}

impl Ord for Next {
    /// Reversed (BinaryHeap pops the greatest): `key / size` is the target, compared exactly as
    /// `key * other.size` against `other.key * size` (below 2^94).
    fn cmp(&self, other: &Self) -> Ordering {
        let mine = self.key as u128 * other.size as u128;
        let theirs = other.key as u128 * self.size as u128;
        theirs.cmp(&mine).then(other.group.cmp(&self.group))
    }
}

impl PartialOrd for Next {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// A binary heap whose room is claimed against the call's working memory, and reserved before
/// anything is pushed, so pushing never allocates.
fn heap_with_room<T: Ord>(room: usize, what: &str) -> Result<(BinaryHeap<T>, Claim), Error> {
    let claim = Claim::new(room.saturating_mul(size_of::<T>()), what)?;
    let mut items = Vec::new();
    items
        .try_reserve_exact(room)
        .map_err(|_| Error::new(ErrorKind::TooLarge, format!("not enough memory for {what}")))?;
    Ok((BinaryHeap::from(items), claim))
}

/// The fewest same-group neighbours still possible after placing one more item of group x,
/// given the largest remaining count `largest` (shared by several groups unless `unique`), `m`
/// items left before the placement, and x's remaining count: `F(r - x, x)` of the module notes.
fn fewest_after(x_left: u32, largest: u32, unique: bool, m: u64) -> u64 {
    let twice = 2 * largest as u64;
    if x_left == largest && unique {
        twice.saturating_sub(m + 1)
    } else {
        twice.saturating_sub(m)
    }
}

/// Each group's items in input order, at `start[g]..start[g + 1]` of `members`, and each
/// group's size.
struct Members {
    start: Scratch<u32>,
    size: Scratch<u32>,
    members: Scratch<u32>,
}

impl Members {
    fn of(groups: &[u32], k: usize) -> Result<Members, Error> {
        let mut start = Scratch::from_fn(k + 1, |_| 0u32)?;
        for &g in groups {
            start[g as usize + 1] += 1;
        }
        let size = Scratch::from_fn(k, |g| start[g + 1])?;
        for g in 0..k {
            start[g + 1] += start[g];
        }
        let mut members = Scratch::from_fn(groups.len(), |_| 0u32)?;
        let mut fill = Scratch::from_slice(&start[..k])?;
        for (i, &g) in groups.iter().enumerate() {
            members[fill[g as usize] as usize] = i as u32;
            fill[g as usize] += 1;
        }
        Ok(Members {
            start,
            size,
            members,
        })
    }

    /// Step 1: each group in random order, or spread by its subgroups. Counts the items done
    /// since the last interrupt check in `since_check`.
    fn order_each_group(
        &mut self,
        subgroups: Option<&[u32]>,
        stream: &mut Stream,
        check: &mut dyn FnMut(),
        rules: Rules,
        since_check: &mut usize,
    ) -> Result<(), Error> {
        for g in 0..self.size.len() {
            let (lo, hi) = (self.start[g] as usize, self.start[g + 1] as usize);
            let items = &mut self.members[lo..hi];
            match subgroups {
                Some(subgroups) => spread_by_subgroup(items, subgroups, stream, check, rules)?,
                None => (rules.shuffle_group)(items, stream, check),
            }
            *since_check += hi - lo;
            if *since_check >= CHECK_EVERY {
                check();
                *since_check = 0;
            }
        }
        Ok(())
    }

    /// Step 3: each item's target key: its group's offset, then its items' jitters, group by
    /// group.
    fn target_keys(
        &self,
        stream: &mut Stream,
        check: &mut dyn FnMut(),
        since_check: &mut usize,
    ) -> Result<Scratch<u64>, Error> {
        let mut key = Scratch::from_fn(self.members.len(), |_| 0u64)?;
        for g in 0..self.size.len() {
            let offset = stream.below(HALF_STRATUM) as u64;
            for j in 0..self.size[g] as usize {
                let jitter = stream.below(HALF_STRATUM) as u64;
                key[self.start[g] as usize + j] = j as u64 * STRATUM + offset + jitter;
            }
            *since_check += self.size[g] as usize;
            if *since_check >= CHECK_EVERY {
                check();
                *since_check = 0;
            }
        }
        Ok(key)
    }
}

/// Step 2: the first group: the group of a uniformly drawn item, or the group holding more than
/// half of the items (`largest` of them).
fn first_group(
    groups: &[u32],
    size: &[u32],
    largest: u32,
    stream: &mut Stream,
    rules: Rules,
) -> Option<usize> {
    let n = groups.len();
    if 2 * largest as u64 > n as u64 {
        size.iter().position(|&s| s == largest)
    } else if rules.draw_first {
        Some(groups[stream.below(n as u32) as usize] as usize)
    } else {
        None
    }
}

/// Step 4's state: the groups' next targets, the groups by items left, and how many of each
/// group are placed.
struct Places<'a> {
    members: &'a Members,
    key: &'a [u64],
    /// Entries go stale when their group is placed without being popped (a forced place); an
    /// entry is current when its stratum is the group's next one.
    targets: BinaryHeap<Next>,
    /// The groups by how many items they have left, for the largest of them.
    by_left: Buckets,
    placed: Scratch<u32>,
    largest: u32,
}

impl Places<'_> {
    fn next_of(&self, g: usize, j: u32) -> Next {
        Next {
            key: self.key[self.members.start[g] as usize + j as usize],
            size: self.members.size[g],
            group: g as u32,
        }
    }

    /// The group of the place after `previous` (`m` items left before it): the earliest
    /// target, unless that group would repeat where a repeat can be avoided, or the largest
    /// group must take the place.
    fn choose(&mut self, previous: usize, m: u64, unique: bool) -> usize {
        let p = previous;
        let p_left = self.members.size[p] - self.placed[p];
        let largest = self.largest;
        let twice = 2 * largest as u64;
        if twice > m && p_left < largest {
            // The largest group must take this place (it is unique: it holds more than half
            // of what is left).
            return self
                .by_left
                .first(largest as usize)
                .expect("a group is left") as usize;
        }
        let fewest = twice.saturating_sub(m + u64::from(p_left < largest));
        let x = pop_current(&mut self.targets, &self.placed);
        let repeat_fits = 1 + fewest_after(p_left, largest, unique, m) == fewest;
        if x != p || repeat_fits {
            x
        } else {
            let y = pop_current(&mut self.targets, &self.placed);
            let next = self.next_of(x, self.placed[x]);
            self.targets.push(next);
            y
        }
    }

    /// Places one item of group `chosen`; returns it.
    fn place(&mut self, chosen: usize) -> u32 {
        let (start, size) = (&self.members.start, &self.members.size);
        let item = self.members.members[start[chosen] as usize + self.placed[chosen] as usize];
        self.by_left
            .remove((size[chosen] - self.placed[chosen]) as usize, chosen as u32);
        self.placed[chosen] += 1;
        let now_left = size[chosen] - self.placed[chosen];
        if now_left > 0 {
            let next = self.next_of(chosen, self.placed[chosen]);
            self.targets.push(next);
            self.by_left.insert(now_left as usize, chosen as u32);
        }
        item
    }
}

pub(crate) fn spread_with(
    groups: &[u32],
    group_count: usize,
    subgroups: Option<&[u32]>,
    stream: &mut Stream,
    check: &mut dyn FnMut(),
    rules: Rules,
) -> Result<Scratch<u32>, Error> {
    let n = groups.len();
    let k = group_count;
    if n == 0 {
        return Scratch::from_fn(0, |_| 0);
    }
    let mut members = Members::of(groups, k)?;
    check();
    let mut since_check = 0;
    members.order_each_group(subgroups, stream, check, rules, &mut since_check)?;
    let largest = members.size.iter().copied().max().unwrap_or(0);
    let first = first_group(groups, &members.size, largest, stream, rules);
    let key = members.target_keys(stream, check, &mut since_check)?;
    place_all(&members, &key, largest, first, check)
}

/// Step 4: the places, one by one.
fn place_all(
    members: &Members,
    key: &[u64],
    largest: u32,
    first: Option<usize>,
    check: &mut dyn FnMut(),
) -> Result<Scratch<u32>, Error> {
    let n = members.members.len();
    let k = members.size.len();
    let (targets, _targets_claim) = heap_with_room::<Next>(n + k, "the targets of a spread")?;
    let mut places = Places {
        members,
        key,
        targets,
        by_left: Buckets::new(largest as usize, k)?,
        placed: Scratch::from_fn(k, |_| 0u32)?,
        largest,
    };
    for g in 0..k {
        let next = places.next_of(g, 0);
        places.targets.push(next);
        places.by_left.insert(members.size[g] as usize, g as u32);
    }
    let mut order = Scratch::from_fn(n, |_| 0u32)?;
    let mut previous: Option<usize> = None;
    for place in 0..n {
        if place % CHECK_EVERY == CHECK_EVERY - 1 {
            check();
        }
        while places.by_left.first(places.largest as usize).is_none() {
            places.largest -= 1;
        }
        let unique = places.by_left.is_alone(places.largest as usize);
        let m = (n - place) as u64;
        let chosen = match (previous, first) {
            (None, Some(g)) => g,
            (None, None) => pop_current(&mut places.targets, &places.placed),
            (Some(p), _) => places.choose(p, m, unique),
        };
        order[place] = places.place(chosen);
        previous = Some(chosen);
    }
    Ok(order)
}

/// Groups in buckets by a count (the items they have left), each bucket a doubly linked list:
/// moving a group to another bucket and finding a group of a given count are O(1).
struct Buckets {
    head: Scratch<u32>,
    next: Scratch<u32>,
    prev: Scratch<u32>,
}

/// The end of a list.
const NONE: u32 = u32::MAX;

impl Buckets {
    fn new(largest: usize, groups: usize) -> Result<Buckets, Error> {
        Ok(Buckets {
            head: Scratch::from_fn(largest + 1, |_| NONE)?,
            next: Scratch::from_fn(groups, |_| NONE)?,
            prev: Scratch::from_fn(groups, |_| NONE)?,
        })
    }

    fn insert(&mut self, count: usize, group: u32) {
        let head = self.head[count];
        self.next[group as usize] = head;
        self.prev[group as usize] = NONE;
        if head != NONE {
            self.prev[head as usize] = group;
        }
        self.head[count] = group;
    }

    fn remove(&mut self, count: usize, group: u32) {
        let (prev, next) = (self.prev[group as usize], self.next[group as usize]);
        if prev == NONE {
            self.head[count] = next;
        } else {
            self.next[prev as usize] = next;
        }
        if next != NONE {
            self.prev[next as usize] = prev;
        }
    }

    fn first(&self, count: usize) -> Option<u32> {
        Some(self.head[count]).filter(|&g| g != NONE)
    }

    /// Whether exactly one group has this count.
    fn is_alone(&self, count: usize) -> bool {
        self.first(count)
            .is_some_and(|g| self.next[g as usize] == NONE)
    }
}

/// The group of the earliest current entry, popped; stale entries on the way are dropped.
fn pop_current(targets: &mut BinaryHeap<Next>, placed: &[u32]) -> usize {
    loop {
        let next = targets.pop().expect("an item is left");
        if next.stratum() == placed[next.group as usize] {
            return next.group as usize;
        }
    }
}

/// How many neighbours in `order` (item indices) share a group.
pub fn same_group_neighbours(order: &[u32], groups: &[u32]) -> usize {
    order
        .windows(2)
        .filter(|w| groups[w[0] as usize] == groups[w[1] as usize])
        .count()
}

/// The fewest same-group neighbours any order of items with these group sizes can have.
pub fn fewest_neighbours(sizes: &[u32]) -> usize {
    let n: u64 = sizes.iter().map(|&s| s as u64).sum();
    let largest = sizes.iter().copied().max().unwrap_or(0) as u64;
    (2 * largest).saturating_sub(n + 1) as usize
}

#[cfg(test)]
mod tests;
